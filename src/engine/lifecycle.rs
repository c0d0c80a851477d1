//! The cold paths of a pool's life: `tune`, expiry and `purge`, `release` (and
//! its drain), `reboot`, `wait_idle`, and the end of a worker thread.

use core::time::Duration;

use super::ctl::flag;
use super::node::{Chain, Node, state};
use super::{AbortOnUnwind, ChainOf, Engine, EngineRef, Flavor, Guard, ListOf};
use crate::clock::{Clock, Instant};
use crate::error::ReleaseError;
use crate::queue::{IdleWorker, WorkerId, WorkerQueue};
use crate::spawner::{Signal, Spawner};
use crate::sync::Ordering::Relaxed;

impl<F: Flavor> Engine<F> {
    /// Changes the capacity. Ignored for 0, unbounded and prealloc pools.
    /// Growing lets blocked submitters in and starts workers for queued tasks
    /// at once; shrinking retires surplus parked workers at once (busy ones and
    /// lookers retire as they notice the pool is over capacity).
    pub(crate) fn tune<H: EngineRef<Self>>(handle: &H, capacity: usize) {
        let this = handle.engine();
        if capacity == 0 || this.config.capacity.is_none() || this.config.prealloc {
            return;
        }
        let mut cold = this.cold.lock();
        let old = this.hot.cap.swap(capacity, Relaxed);
        this.hot.bound.store(this.config.bound(capacity), Relaxed);
        if capacity < old {
            let limit = this.limit();
            let mut retired: ChainOf<F> = Chain::new();
            if let Ok((old, new)) = this.hot.ctl.update(|w| {
                let surplus = w.threads().saturating_sub(limit).min(w.parked());
                (surplus > 0).then(|| w.sub_threads(surplus))
            }) {
                for _ in 0..old.threads() - new.threads() {
                    let Some(w) = cold.idle.detach() else {
                        unreachable!(
                            "antpool: the control word counts parked workers the idle queue lacks"
                        );
                    };
                    // SAFETY: see `retire_into`.
                    unsafe { retire_into(&mut retired, w) };
                }
            }
            drop(cold);
            retired.finish_all(state::RETIRE);
            return;
        }
        // Growing: waiters first (they are the oldest), then workers for the
        // tasks queued behind busy ones.
        let grants = this.grant_waiters(&mut cold, 0);
        let limit = this.limit();
        let mut starts = 0;
        while this
            .hot
            .ctl
            .update(|w| {
                let room = !w.has(flag::CLOSED) && w.queued() > 0 && w.threads() < limit;
                room.then(|| w.add_threads(1))
            })
            .is_ok()
        {
            starts += 1;
        }
        drop(cold);
        grants.finish();
        for _ in 0..starts {
            this.start_for_queued(handle);
        }
    }

    /// Removes the workers idle since `cutoff` or earlier from the idle queue
    /// (under the lock), takes them out of the control word, and chains them to
    /// be retired after the lock — except `me`, the caller, reported instead.
    pub(super) fn reap(
        &self,
        cold: &mut Guard<'_, F>,
        cutoff: Instant,
        me: Option<WorkerId>,
    ) -> (ChainOf<F>, bool) {
        let mut retired: ChainOf<F> = Chain::new();
        let mut me_too = false;
        let n = cold.idle.refresh(cutoff, |w| {
            if Some(w.id) == me {
                me_too = true;
            } else {
                // SAFETY: see `retire_into`.
                unsafe { retire_into(&mut retired, w) };
            }
        });
        if n > 0 {
            // Parked workers are in the word's `parked` and nowhere else, and only
            // lock holders change it: the n are there to take.
            self.hot.ctl.update(|w| Some(w.sub_threads(n))).ok();
        }
        (retired, me_too)
    }

    /// Retires every worker that has been idle for the expiry or longer, now.
    /// Returns how many.
    pub(crate) fn purge(&self) -> usize {
        // Before the clock has run for one expiry, nobody can have expired.
        let Some(cutoff) = self.clock.now().checked_sub(self.config.expiry) else {
            return 0;
        };
        let mut cold = self.cold.lock();
        let (retired, _) = self.reap(&mut cold, cutoff, None);
        drop(cold);
        let n = retired.len();
        retired.finish_all(state::RETIRE);
        n
    }

    /// Closes the pool: parked workers retire, blocked submitters get their task
    /// back, busy workers drain the queue and retire, lookers retire. `false` if
    /// it was already closed.
    fn close(&self) -> bool {
        let mut cold = self.cold.lock();
        if self.hot.ctl.set(flag::CLOSED).has(flag::CLOSED) {
            return false;
        }
        let mut retired: ChainOf<F> = Chain::new();
        // SAFETY: see `retire_into`.
        let n = cold.idle.reset(|w| unsafe { retire_into(&mut retired, w) });
        if n > 0 {
            self.hot.ctl.update(|w| Some(w.sub_threads(n))).ok();
        }
        let turned_away = cold.waiters.take_all();
        self.hot.ctl.clear(flag::WAITERS);
        self.counters.waiting.store(0, Relaxed);
        drop(cold);
        retired.finish_all(state::RETIRE);
        turned_away.finish_all(state::CLOSED);
        true
    }

    /// Closes the pool (see [`close`](Self::close)); `false` if already closed.
    pub(crate) fn release(&self) -> bool {
        self.close()
    }

    /// Closes the pool (if it is open) and takes out the tasks queued behind
    /// busy workers, to be returned instead of run — also after a plain
    /// `release`, for the tasks not started yet.
    #[cfg(feature = "alloc")]
    pub(crate) fn release_drain(&self) -> alloc::vec::Vec<F::Task> {
        self.close();
        let mut drained = alloc::vec::Vec::new();
        // Each swap takes one queued task's place out of the pool; the task is in
        // the transport (or being pushed). If a looker pops it first, the place
        // goes back to it, as if a submitter had claimed that looker (`S-1, B+1`).
        while let Ok((_, new)) = self
            .hot
            .ctl
            .update(|w| (w.queued() > 0).then(|| w.sub_tasks(1)))
        {
            loop {
                if let Some(task) = self.poll_claimed() {
                    drained.push(task);
                    self.after_tasks_fell(new);
                    break;
                }
                if self
                    .hot
                    .ctl
                    .update(|w| (w.lookers() > 0).then(|| w.sub_lookers(1).add_tasks(1)))
                    .is_ok()
                {
                    break;
                }
            }
        }
        drained
    }

    /// Releases the pool and waits up to `timeout` for every worker to exit.
    pub(crate) fn release_timeout(&self, timeout: Duration) -> Result<(), ReleaseError> {
        if !self.release() {
            return Err(ReleaseError::Closed);
        }
        self.wait_drained(timeout)
    }

    /// Waits up to `timeout` for every worker thread to end.
    pub(crate) fn wait_drained(&self, timeout: Duration) -> Result<(), ReleaseError> {
        match self.park_until(|c| &mut c.drains, |e| e.drained(), None, Some(timeout)) {
            true => Ok(()),
            false => Err(ReleaseError::Timeout),
        }
    }

    /// Whether no worker thread is left, nor reserved.
    fn drained(&self) -> bool {
        self.counters.live.load(Relaxed) == 0 && self.hot.ctl.load().threads() == 0
    }

    /// Waits until no task is running, queued or waiting (`None`: no time limit).
    /// `false` if the time ran out first.
    pub(crate) fn wait_idle(&self, timeout: Option<Duration>) -> bool {
        self.park_until(
            |c| &mut c.idlers,
            |e| e.hot.ctl.load().tasks() == 0,
            Some(flag::IDLERS),
            timeout,
        )
    }

    /// Wakes every `wait_idle` caller: `tasks` reached 0.
    pub(super) fn wake_idlers(&self) {
        let mut cold = self.cold.lock();
        let idlers = cold.idlers.take_all();
        self.hot.ctl.clear(flag::IDLERS);
        drop(cold);
        idlers.finish_all(state::DONE);
    }

    /// Parks on a node in the list `pick` selects until `done` (checked under the
    /// lock, first) holds and whoever makes it hold finishes the node. With
    /// `arm`, the flag that tells that someone to look is raised while the node
    /// is linked, and lowered with the last one.
    fn park_until(
        &self,
        pick: fn(&mut super::Cold<F>) -> &mut ListOf<F>,
        done: fn(&Self) -> bool,
        arm: Option<flag::Flag>,
        timeout: Option<Duration>,
    ) -> bool {
        let node: super::NodeOf<F> = Node::new(self.spawner.signal(), state::WAITING);
        let mut cold = self.cold.lock();
        if done(self) {
            return true;
        }
        if let Some(arm) = arm {
            self.hot.ctl.set(arm);
            // It may have come to hold before the flag was up, unseen.
            if done(self) {
                if pick(&mut cold).len() == 0 {
                    self.hot.ctl.clear(arm);
                }
                return true;
            }
        }
        let bomb = AbortOnUnwind;
        // SAFETY: `node` stays on this stack, unmoved, until it is unlinked by us
        // below or finished by someone else and we consumed the token.
        unsafe { pick(&mut cold).push_back((&node).into()) };
        drop(cold);
        let finished = match timeout {
            None => {
                node.signal().wait();
                true
            }
            Some(timeout) => {
                node.signal().wait_timeout(timeout) || {
                    let mut cold = self.cold.lock();
                    if pick(&mut cold).remove((&node).into()) {
                        if let (Some(arm), 0) = (arm, pick(&mut cold).len()) {
                            self.hot.ctl.clear(arm);
                        }
                        false
                    } else {
                        // Finished just now; its notify is coming.
                        drop(cold);
                        node.signal().wait();
                        true
                    }
                }
            }
        };
        bomb.disarm();
        finished
    }

    /// A worker thread ended (`retired`), or a reservation for one that never
    /// started is given back: wakes the releasers if it was the last.
    pub(super) fn thread_gone(&self, retired: bool) {
        let mut cold = self.cold.lock();
        self.counters.live.fetch_sub(1, Relaxed);
        if retired {
            self.counters.retired.fetch_add(1, Relaxed);
        }
        let drains = match self.drained() {
            true => cold.drains.take_all(),
            false => Chain::new(),
        };
        drop(cold);
        drains.finish_all(state::DONE);
    }

    /// Reopens a released pool. Workers still finishing their last task before the
    /// release go on serving.
    pub(crate) fn reboot(&self) {
        let _cold = self.cold.lock();
        self.hot.ctl.clear(flag::CLOSED);
    }
}

/// Marks an idle worker taken out of the queue under the lock as retiring, and
/// adds it to `chain` to be woken once the lock is dropped.
///
/// # Safety
///
/// Called with the lock held, on a worker just removed from the idle queue: its
/// id names the live mailbox of a worker parked on it, and removing it gave the
/// caller the right to finish it.
unsafe fn retire_into<T, Sig: Signal>(chain: &mut Chain<T, Sig>, worker: IdleWorker) {
    let node = worker.id.as_ptr::<Node<T, Sig>>();
    // SAFETY: per the function's contract.
    unsafe {
        node.as_ref().set_state(state::RETIRE);
        chain.push(node);
    }
}
