//! A worker's life: run a task, then find the next one — a blocked
//! submitter's (hand-off pools), a queued one, or as a *looker* that spins
//! briefly for the next submit — and otherwise park, until woken for a task,
//! told to retire, or expired.

use super::ctl::flag;
use super::node::{Node, state};
use super::{AbortOnUnwind, Engine, EngineRef, Execute, Flavor, NodeOf, Outcome};
use crate::clock::{Clock, Instant};
use crate::queue::{IdleWorker, WorkerId, WorkerQueue};
use crate::spawner::{Signal, Spawner};
use crate::sync::Ordering::Relaxed;
use crate::sync::spin_hint;

/// How many times a looker polls the transport before it parks (each poll two
/// loads and a spin hint: a few microseconds, less than a park and wake-up).
#[cfg(not(antpool_loom))]
const LOOK_SPIN: u32 = 1 << 9;
#[cfg(antpool_loom)]
const LOOK_SPIN: u32 = 1;

/// How many empty polls a worker waiting for a claimed task makes between
/// looks at the word (has a looker taken it?).
#[cfg(not(antpool_loom))]
const CLAIM_CHECK: u32 = 64;
#[cfg(antpool_loom)]
const CLAIM_CHECK: u32 = 1;

/// What a worker does after the swap that finished its task.
enum Next {
    /// Take the next task: one is queued (its place is counted).
    Queued,
    /// Look for one as a looker, then park.
    Look,
    /// Retire: the pool is closed and drained, or over its capacity.
    Exit,
}

/// Gives the worker's thread slot back when the worker ends — normally (it
/// retired, and already left the control word), or by a panic unwinding out of
/// a task that the executor did not catch (it still counts a task and a thread).
struct ExitGuard<'a, F: Flavor> {
    engine: &'a Engine<F>,
    retired: bool,
}

impl<F: Flavor> Drop for ExitGuard<'_, F> {
    fn drop(&mut self) {
        if !self.retired {
            self.engine.task_unwound();
        }
        self.engine.thread_gone(true);
    }
}

/// The body of every worker thread. The control word already counts this worker
/// (and its first task, if it carries one; if not, it was started for a queued
/// task, whose place it takes).
pub(crate) fn run<H, F>(handle: H, first: Option<F::Task>)
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    let engine = handle.engine();
    // The mailbox lives here, on the worker's own stack, for the worker's life.
    // It is linked into the idle queue only while the worker is parked on it.
    let mailbox = Node::new(engine.spawner.signal(), state::BUSY);
    let mut exit = ExitGuard {
        engine,
        retired: false,
    };
    let first = match first {
        Some(task) => Some(task),
        None => engine.claimed_or_wait(&mailbox),
    };
    let Some(mut task) = first else {
        exit.retired = true;
        return;
    };
    loop {
        let outcome = engine.exec.execute(task);
        engine.count(outcome);
        match engine.next_task(&mailbox) {
            Some(next) => task = next,
            None => break,
        }
    }
    exit.retired = true;
    drop(exit);
}

impl<F: Flavor> Engine<F> {
    fn count(&self, outcome: Outcome) {
        let counter = match outcome {
            Outcome::Completed => &self.counters.completed,
            Outcome::Panicked => &self.counters.panicked,
        };
        counter.fetch_add(1, Relaxed);
    }

    /// How many lookers may spin at once: half the CPUs (at least one), and
    /// none on a single CPU, where a spinner only delays the thread it waits for.
    fn max_spinners(&self) -> usize {
        match self.parallelism() {
            0 | 1 => 0,
            n => n / 2,
        }
    }

    /// Polls the transport for a task whose place the caller holds in the word
    /// (a submitter claimed a looker or woke a parked worker, or the caller took
    /// a queued task's place): it is there, or being pushed right now. `None` if,
    /// meanwhile, the word shows an unclaimed looker and the transport is empty:
    /// a looker popped the task (places are not named: any worker may take any
    /// task), so the caller now holds that looker's place instead.
    pub(super) fn poll_claimed(&self) -> Option<F::Task> {
        let mut checks: u32 = 0;
        loop {
            for _ in 0..CLAIM_CHECK {
                if let Some(task) = self.transport.pop() {
                    return Some(task);
                }
                spin_hint();
            }
            if self.hot.ctl.load().lookers() > 0 {
                return None;
            }
            checks = checks.wrapping_add(1);
            if checks % 4 == 0 {
                // Still nothing: the submitter may have been preempted between its
                // swap and its push. Let it run.
                self.spawner.yield_now();
            }
        }
    }

    /// The task for a place this worker holds, or — if a looker took it — the
    /// next one it finds as a looker (parking if none comes). `None`: retire.
    fn claimed_or_wait(&self, me: &NodeOf<F>) -> Option<F::Task> {
        match self.poll_claimed() {
            Some(task) => Some(task),
            None => self.wait_for_task(me),
        }
    }

    /// Holding a looker's place: parks until woken for a task, or until the word
    /// says a submitter claimed this place, then takes the task. `None`: retire.
    fn wait_for_task(&self, me: &NodeOf<F>) -> Option<F::Task> {
        loop {
            if !self.park(me) {
                return None;
            }
            if let Some(task) = self.poll_claimed() {
                return Some(task);
            }
        }
    }

    /// What a worker that finished a task does next. `None`: retire.
    fn next_task(&self, me: &NodeOf<F>) -> Option<F::Task> {
        let mut w = self.hot.ctl.load();
        loop {
            // A hand-off pool passes the finished task's place straight to the
            // oldest blocked submitter, whose task this worker runs next.
            if w.has(flag::WAITERS) && self.config.queue_limit == 0 && w.threads() <= self.limit() {
                if let Some(task) = self.serve_waiter() {
                    return Some(task);
                }
                w = self.hot.ctl.load();
                continue;
            }
            let (next, new) =
                if w.threads() > self.limit() || (w.has(flag::CLOSED) && w.queued() == 0) {
                    (Next::Exit, w.sub_tasks(1).sub_threads(1))
                } else if w.queued() > 0 {
                    (Next::Queued, w.sub_tasks(1))
                } else {
                    (Next::Look, w.sub_tasks(1).add_lookers(1))
                };
            if let Err(now) = self.hot.ctl.cas(w, new) {
                w = now;
                continue;
            }
            self.after_tasks_fell(new);
            return match next {
                Next::Exit => None,
                Next::Queued => self.claimed_or_wait(me),
                Next::Look => self.look(me, w.lookers()),
            };
        }
    }

    /// Takes the oldest blocked submitter's task, keeping the finished task's
    /// place for it (`tasks` unchanged). `None` if no waiter is left.
    fn serve_waiter(&self) -> Option<F::Task> {
        let mut cold = self.cold.lock();
        let waiter = cold.waiters.pop_front();
        if cold.waiters.len() == 0 {
            self.hot.ctl.clear(flag::WAITERS);
        }
        self.counters.waiting.store(cold.waiters.len(), Relaxed);
        drop(cold);
        let waiter = waiter?;
        // SAFETY: we unlinked the waiter under the lock, so its task is ours to
        // take; it waits for our `finish`, our last touch.
        let task = unsafe { waiter.as_ref().take_task() };
        // SAFETY: as above.
        unsafe { Node::finish(waiter, state::SERVED) };
        Some(task)
    }

    /// A looker (counted in `lookers`; `before` others were) spins on the
    /// transport for a moment if few others do, then parks.
    fn look(&self, me: &NodeOf<F>, before: usize) -> Option<F::Task> {
        if before < self.max_spinners() {
            for _ in 0..LOOK_SPIN {
                if !self.transport.looks_empty() {
                    if let Some(task) = self.transport.pop() {
                        return Some(task);
                    }
                }
                spin_hint();
            }
        }
        self.wait_for_task(me)
    }

    /// Leaves the lookers: parks in the idle queue until woken for a task
    /// (`true`), or — closed, over capacity, the idle queue full, expired —
    /// retires (`false`). If a submitter has claimed this looker's place
    /// meanwhile (`lookers` is 0), returns `true` at once: its task is coming.
    fn park(&self, me: &NodeOf<F>) -> bool {
        let now = self.clock.now();
        let mut cold = self.cold.lock();
        let mut w = self.hot.ctl.load();
        debug_assert_eq!(cold.idle.len(), w.parked(), "parked workers: {w:?}");
        let retire = loop {
            if w.lookers() == 0 {
                return true;
            }
            let retire = w.has(flag::CLOSED) || w.threads() > self.limit();
            let new = match retire {
                true => w.sub_lookers(1).sub_threads(1),
                false => w.sub_lookers(1),
            };
            match self.hot.ctl.cas(w, new) {
                Ok(_) => break retire,
                Err(now) => w = now,
            }
        };
        if retire {
            return false;
        }
        me.set_state(state::IDLE);
        let idle = IdleWorker {
            id: WorkerId::from_ptr(me.into()),
            since: now,
        };
        if cold.idle.insert(idle).is_err() {
            // A fixed-size idle queue is full: this worker is surplus. It counted
            // as parked for a moment; it leaves the word as it leaves the pool.
            me.set_state(state::BUSY);
            self.hot.ctl.update(|w| Some(w.sub_threads(1))).ok();
            return false;
        }
        drop(cold);
        self.park_idle(me, now)
    }

    /// Parks in the idle queue until woken for a task (`true`) or told to retire
    /// (`false`), reaping expired workers (itself included) when its expiry
    /// passes.
    fn park_idle(&self, me: &NodeOf<F>, mut since: Instant) -> bool {
        let bomb = AbortOnUnwind;
        let my_id = WorkerId::from_ptr(me.into());
        loop {
            let deadline = match self.config.purge {
                true => since.checked_add(self.config.expiry),
                false => None,
            };
            let Some(deadline) = deadline else {
                me.signal().wait();
                break;
            };
            let remaining = deadline.saturating_duration_since(self.clock.now());
            if !remaining.is_zero() {
                if me.signal().wait_timeout(remaining) {
                    break;
                }
                continue; // recheck against the clock: it decides, not the timer
            }
            // Expired by the clock: reap, if we are still in the queue.
            let now = self.clock.now();
            let Some(cutoff) = now.checked_sub(self.config.expiry) else {
                continue; // the clock stepped back below one expiry: not expired
            };
            let mut cold = self.cold.lock();
            if me.state() != state::IDLE {
                // Someone detached us; their notify is coming.
                drop(cold);
                me.signal().wait();
                break;
            }
            let (retired, me_too) = self.reap(&mut cold, cutoff, Some(my_id));
            drop(cold);
            retired.finish_all(state::RETIRE);
            if me_too {
                me.set_state(state::BUSY);
                bomb.disarm();
                return false;
            }
            // Our stamp was clamped up (the clock stepped back): wait a full expiry.
            since = now;
        }
        bomb.disarm();
        match me.state() {
            state::WAKE => {
                me.set_state(state::BUSY);
                true
            }
            state::RETIRE => false,
            other => unreachable!("antpool: worker woken in state {other}"),
        }
    }

    /// A panic unwound out of a task: its worker still counts the task and a
    /// thread, and gives both back.
    fn task_unwound(&self) {
        self.count(Outcome::Panicked);
        if let Ok((_, new)) = self.hot.ctl.update(|w| Some(w.sub_tasks(1).sub_threads(1))) {
            self.after_tasks_fell(new);
        }
    }
}
