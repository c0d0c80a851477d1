//! Admission: how a submitted task gets a worker — or waits for one.
//!
//! The fast path is one compare-and-swap on the control word that admits the
//! task *and* claims what will run it, decided on the value it swaps:
//!
//! 1. a looker (an awake worker without a task) → `S-1, B+1`, push the task;
//!    the looker takes it from the transport, no wake-up needed;
//! 2. else a parked worker → under the cold lock `B+1`, detach it, push, wake it;
//! 3. else room for a new worker → `T+1, B+1`, start one with the task;
//! 4. else (queue mode, every worker busy) room in the queue → `B+1`, push;
//! 5. else saturated: reject, or block in the FIFO of waiters.

use super::ctl::{Word, flag};
use super::node::{Chain, Node, state};
use super::{AbortOnUnwind, Engine, EngineRef, Flavor, Guard, Mode, launch};
use crate::error::SubmitError;
use crate::queue::WorkerQueue;
use crate::spawner::{Signal, Spawner};
use crate::sync::Ordering::Relaxed;
use crate::sync::spin_hint;

/// How long a saturated submitter watches the control word for room before it
/// joins the waiters and parks (rounds of a load and a spin hint, ~1-2 µs).
#[cfg(not(antpool_loom))]
const SATURATED_SPIN: u32 = 128;
#[cfg(antpool_loom)]
const SATURATED_SPIN: u32 = 1;

/// What a submitter does with a task, decided on one value of the word.
enum Claim {
    /// An awake worker without a task will take it from the transport.
    Looker,
    /// A parked worker must be woken for it (under the cold lock).
    Parked,
    /// A new worker starts with it.
    Spawn,
    /// It waits in the transport for the first worker to finish (queue mode).
    Queue,
    /// No room: reject or wait.
    Saturated,
    /// The pool is released.
    Closed,
}

/// The outcome of one attempt on the fast path.
enum Attempt<T> {
    Done(Result<(), SubmitError<T>>),
    Saturated(T),
}

/// Waiters let in under the lock, to be finished once it is dropped.
#[must_use = "granted waiters must be finished, or their owners wait forever"]
pub(super) struct Grants<T, Sig> {
    /// Their task is in the transport: finished SERVED.
    served: Chain<T, Sig>,
    /// A worker slot is reserved for them (`T+1, B+1`): finished GRANTED, they
    /// start the worker themselves.
    granted: Chain<T, Sig>,
    /// Parked workers detached for the served tasks: finished WAKE.
    woken: Chain<T, Sig>,
}

impl<T, Sig: Signal> Grants<T, Sig> {
    fn new() -> Self {
        Grants {
            served: Chain::new(),
            granted: Chain::new(),
            woken: Chain::new(),
        }
    }

    pub(super) fn finish(self) {
        self.woken.finish_all(state::WAKE);
        self.served.finish_all(state::SERVED);
        self.granted.finish_all(state::GRANTED);
    }
}

type GrantsOf<F> = Grants<<F as Flavor>::Task, super::SignalOf<F>>;

impl<F: Flavor> Engine<F> {
    /// What to do with a task on the word `w`, and the word to swap in.
    #[inline]
    fn claim(&self, w: Word) -> (Claim, Word) {
        if w.has(flag::CLOSED) {
            (Claim::Closed, w)
        } else if w.has(flag::WAITERS) || w.tasks() >= self.bound() {
            (Claim::Saturated, w)
        } else if w.lookers() > 0 {
            (Claim::Looker, w.sub_lookers(1).add_tasks(1))
        } else if w.parked() > 0 {
            (Claim::Parked, w.add_tasks(1))
        } else if w.threads() < self.limit() {
            (Claim::Spawn, w.add_threads(1).add_tasks(1))
        } else {
            (Claim::Queue, w.add_tasks(1))
        }
    }

    /// Hands `task` to a worker: an idle one, a new one, the queue (queue mode),
    /// or — saturated and allowed to block — the first free place.
    pub(crate) fn submit<H: EngineRef<Self>>(
        handle: &H,
        mut task: F::Task,
        mode: Mode,
    ) -> Result<(), SubmitError<F::Task>> {
        let this = handle.engine();
        loop {
            task = match this.attempt(handle, task) {
                Attempt::Done(result) => return result,
                Attempt::Saturated(task) => {
                    if mode == Mode::Try || this.config.nonblocking {
                        return Err(SubmitError::Overload(task));
                    }
                    match this.wait_for_room(handle, task) {
                        Attempt::Done(result) => return result,
                        Attempt::Saturated(task) => task, // room appeared: go round
                    }
                }
            };
        }
    }

    /// One try at the fast path.
    fn attempt<H: EngineRef<Self>>(&self, handle: &H, mut task: F::Task) -> Attempt<F::Task> {
        let mut w = self.hot.ctl.load();
        loop {
            let (claim, new) = self.claim(w);
            match claim {
                Claim::Closed => return Attempt::Done(Err(SubmitError::Closed(task))),
                Claim::Saturated => return Attempt::Saturated(task),
                Claim::Parked => match self.wake_parked(task) {
                    Ok(()) => return Attempt::Done(Ok(())),
                    Err(back) => {
                        task = back;
                        w = self.hot.ctl.load();
                        continue;
                    }
                },
                Claim::Looker | Claim::Spawn | Claim::Queue => {}
            }
            if let Err(now) = self.hot.ctl.cas(w, new) {
                w = now;
                continue;
            }
            return Attempt::Done(match claim {
                Claim::Spawn => self.start_with(handle, task),
                _ => {
                    self.transport.push(task);
                    Ok(())
                }
            });
        }
    }

    /// Case 2: admits `task` for a parked worker and wakes it, all decided under
    /// the cold lock (where parked workers come and go). `Err` hands the task
    /// back when the word no longer says "wake a parked worker".
    fn wake_parked(&self, task: F::Task) -> Result<(), F::Task> {
        let mut cold = self.cold.lock();
        let mut w = self.hot.ctl.load();
        loop {
            if !matches!(self.claim(w).0, Claim::Parked) {
                return Err(task);
            }
            match self.hot.ctl.cas(w, w.add_tasks(1)) {
                Ok(_) => break,
                Err(now) => w = now,
            }
        }
        let node = self.detach_parked(&mut cold);
        drop(cold);
        self.transport.push(task);
        // SAFETY: detached under the lock just now (see `detach_parked`).
        unsafe { Node::finish(node, state::WAKE) };
        Ok(())
    }

    /// Takes a parked worker out of the idle queue for a task just admitted
    /// for it, marking it TAKEN (so its expiry sees it is no longer idle). The
    /// caller finishes it with WAKE after the lock.
    fn detach_parked(&self, cold: &mut Guard<'_, F>) -> core::ptr::NonNull<super::NodeOf<F>> {
        let Some(worker) = cold.idle.detach() else {
            unreachable!("antpool: the control word counts a parked worker the idle queue lacks");
        };
        let node = worker.id.as_ptr::<super::NodeOf<F>>();
        // SAFETY: an id in the idle queue names the live mailbox of a worker
        // parked on it, which waits for our token before it leaves; detaching it
        // under the lock gave us the right to finish it.
        unsafe { node.as_ref().set_state(state::TAKEN) };
        node
    }

    /// Starts a worker carrying `task`; the word already counts it (`T+1, B+1`).
    /// If no thread can be started, gives both back and the task to the caller.
    pub(super) fn start_with<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
    ) -> Result<(), SubmitError<F::Task>> {
        self.counters.live.fetch_add(1, Relaxed);
        match launch::spawn(handle, &self.spawner, Some(task)) {
            Ok(()) => {
                self.counters.spawned.fetch_add(1, Relaxed);
                Ok(())
            }
            Err(task) => {
                self.unreserve(true);
                let Some(task) = task else {
                    unreachable!("antpool: a failed spawn hands back the task it was given");
                };
                Err(SubmitError::SpawnFailed(task))
            }
        }
    }

    /// Starts a worker for a queued task (it takes one from the transport); the
    /// word already counts it (`T+1`). If no thread can be started the slot is
    /// given back and the task stays queued for the next worker that frees up.
    pub(super) fn start_for_queued<H: EngineRef<Self>>(&self, handle: &H) {
        self.counters.live.fetch_add(1, Relaxed);
        match launch::spawn(handle, &self.spawner, None) {
            Ok(()) => {
                self.counters.spawned.fetch_add(1, Relaxed);
            }
            Err(_) => self.unreserve(false),
        }
    }

    /// Gives back a reservation for a worker that could not be started: `T-1`,
    /// and `B-1` if it was to carry a task of its own.
    pub(super) fn unreserve(&self, with_task: bool) {
        let (_, new) = match self.hot.ctl.update(|w| {
            Some(match with_task {
                true => w.sub_threads(1).sub_tasks(1),
                false => w.sub_threads(1),
            })
        }) {
            Ok(swap) => swap,
            Err(_) => unreachable!("antpool: the update above never refuses"),
        };
        if with_task {
            self.after_tasks_fell(new);
        }
        self.thread_gone(false);
    }

    /// Case 5, allowed to block: watches the word briefly for room, then joins
    /// the FIFO of waiters and parks until a worker serves it, a slot is granted,
    /// or the pool closes. `Saturated(task)` hands the task back to go round the
    /// fast path again (room appeared).
    fn wait_for_room<H: EngineRef<Self>>(&self, handle: &H, task: F::Task) -> Attempt<F::Task> {
        if self.parallelism() > 1 {
            for _ in 0..SATURATED_SPIN {
                spin_hint();
                let w = self.hot.ctl.load();
                if w.has(flag::CLOSED) {
                    return Attempt::Done(Err(SubmitError::Closed(task)));
                }
                if !w.has(flag::WAITERS) && w.tasks() < self.bound() {
                    return Attempt::Saturated(task);
                }
            }
        }
        let mut cold = self.cold.lock();
        let w = self.hot.ctl.load();
        if w.has(flag::CLOSED) {
            return Attempt::Done(Err(SubmitError::Closed(task)));
        }
        if !w.has(flag::WAITERS) && w.tasks() < self.bound() {
            return Attempt::Saturated(task);
        }
        let max = self.config.max_blocking;
        if max != 0 && cold.waiters.len() >= max {
            return Attempt::Done(Err(SubmitError::Overload(task)));
        }
        let node = Node::with_task(self.spawner.signal(), task, state::WAITING);
        let bomb = AbortOnUnwind;
        // SAFETY: `node` stays on this stack, unmoved, until it is finished and we
        // have consumed the finisher's token below.
        unsafe { cold.waiters.push_back((&node).into()) };
        self.hot.ctl.set(flag::WAITERS);
        self.counters.waiting.store(cold.waiters.len(), Relaxed);
        // Room may have appeared before the flag was up, with nobody to see us:
        // let in whom it allows (perhaps us).
        let grants = self.grant_waiters(&mut cold, self.config.hysteresis());
        drop(cold);
        grants.finish();
        node.signal().wait();
        bomb.disarm();
        Attempt::Done(match node.state() {
            // A task's place was found for us: it is in the transport.
            state::SERVED => Ok(()),
            // SAFETY: whoever finished the node with CLOSED or GRANTED left the task
            // in it, and it is ours again.
            state::CLOSED => Err(SubmitError::Closed(unsafe { node.take_task() })),
            // A worker slot was reserved for us (`T+1, B+1`).
            // SAFETY: as for CLOSED.
            state::GRANTED => self.start_with(handle, unsafe { node.take_task() }),
            other => unreachable!("antpool: waiter woken in state {other}"),
        })
    }

    /// Lets waiters in, oldest first, while `tasks + hysteresis` stays below
    /// the bound: each waiter's task is admitted as a submitter's would be (a
    /// looker, a parked worker, a new worker, or the queue) and the waiter is
    /// unlinked, to be finished after the lock. The swap that admits the last
    /// waiter also clears `WAITERS`.
    pub(super) fn grant_waiters(&self, cold: &mut Guard<'_, F>, hysteresis: usize) -> GrantsOf<F> {
        let mut grants = Grants::new();
        let mut w = self.hot.ctl.load();
        loop {
            if w.has(flag::CLOSED) || !w.has(flag::WAITERS) {
                break;
            }
            if cold.waiters.len() == 0 {
                self.hot.ctl.clear(flag::WAITERS);
                break;
            }
            if w.tasks() + hysteresis >= self.bound() {
                break;
            }
            // As `claim`, but past the WAITERS flag (these are the waiters).
            let (claim, mut new) = self.claim(w.without(flag::WAITERS));
            if cold.waiters.len() > 1 {
                new = new.with(flag::WAITERS);
            }
            if matches!(claim, Claim::Saturated | Claim::Closed) {
                break;
            }
            if let Err(now) = self.hot.ctl.cas(w, new) {
                w = now;
                continue;
            }
            w = new;
            let Some(waiter) = cold.waiters.pop_front() else {
                unreachable!("antpool: the waiters list was checked non-empty under the lock");
            };
            // SAFETY: we unlinked the waiter under the lock, so its task is ours to
            // take (or leave, for GRANTED) and the node ours to finish.
            unsafe {
                match claim {
                    Claim::Spawn => grants.granted.push(waiter),
                    Claim::Parked => {
                        let worker = self.detach_parked(cold);
                        self.transport.push(waiter.as_ref().take_task());
                        grants.woken.push(worker);
                        grants.served.push(waiter);
                    }
                    _ => {
                        self.transport.push(waiter.as_ref().take_task());
                        grants.served.push(waiter);
                    }
                }
            }
        }
        self.counters.waiting.store(cold.waiters.len(), Relaxed);
        grants
    }

    /// After a swap that lowered `tasks` to `new`'s: wakes `wait_idle` callers
    /// if the pool fell quiet, and lets waiters in if the queue drained past its
    /// hysteresis.
    pub(super) fn after_tasks_fell(&self, new: Word) {
        if new.has(flag::IDLERS) && new.tasks() == 0 {
            self.wake_idlers();
        }
        if new.has(flag::WAITERS) && new.tasks() + self.config.hysteresis() < self.bound() {
            let mut cold = self.cold.lock();
            let grants = self.grant_waiters(&mut cold, self.config.hysteresis());
            drop(cold);
            grants.finish();
        }
    }
}
