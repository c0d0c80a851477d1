//! The watch duty: how a pool may leave tasks to its busy workers without
//! ever letting a task wait behind a stuck one.
//!
//! A submitter that finds no looker has two ways to get its task run: wake a
//! parked worker (a system call for the waker, a sleep and a wake-up through
//! the kernel for the worker), or leave the task in the lane for the next busy
//! worker that finishes. When tasks are tiny the second is far cheaper. This is
//! *speculation*: the busy worker's current task may turn out long, or block.
//! When to speculate is the policy's (`policy/`); what makes it safe is here.
//!
//! The mechanism leaves a task to busy workers only while a parked worker is
//! *on watch* (the `WATCH` flag of the workers' word, set and cleared under
//! the cold lock, one watcher at a time). The watcher sleeps in short periods
//! (the policy's `WATCH_PERIOD`) instead of its full expiry. Each time it
//! wakes it looks at the lane and at the count of finished tasks: a lane
//! holding tasks while no task finished since its last look means the busy
//! workers are stuck, and it wakes a parked worker (perhaps itself) to take
//! them — whatever the policy. A task therefore waits for a busy worker at
//! most about two periods.
//!
//! A watch ends when the policy resigns it (after quiet looks: an empty lane,
//! nobody busy), or when the watcher is woken, expires or is retired: the flag
//! is cleared under the cold lock and the lane checked once more
//! (`after_retiring`), so a task left under the watch gets a taker of its own.
//! A submitter that read the flag set pushed before its fenced read, and the
//! ender clears it by RMW before it reads the lane: one of them sees the
//! other. Which worker takes up the watch is the policy's too; with the LIFO
//! idle queue it sinks to the bottom and is rarely the one woken for a task.

use super::ctl::{WATCH, Word};
use super::node::state;
use super::policy::Policy;
use super::{Engine, EngineRef, Flavor, Guard, NodeOf};
use crate::clock::Instant;
use crate::queue::WorkerId;
use crate::sync::{Ordering::Relaxed, UntrackedUsize};

/// What the pool knows about how long its tasks run: the policy's estimate
/// ([`Policy::learn_task`]), kept here.
pub(crate) struct Watch {
    /// Clock nanoseconds. `usize::MAX`: not known yet (every clock reading
    /// is kept below it).
    task_ns: UntrackedUsize,
}

impl Watch {
    maybe_const_fn! {
        pub(crate) fn new() -> Self {
            Watch {
                task_ns: UntrackedUsize::new(usize::MAX),
            }
        }
    }

    /// Folds one timed task, from `start` to `end`, into the estimate as the
    /// policy `P` says. A hint, relaxed: a lost update only delays what the
    /// policy learns.
    pub(crate) fn learn<P: Policy>(&self, start: Instant, end: Instant) {
        let ns = end.saturating_duration_since(start).as_nanos();
        let ns = usize::try_from(ns).unwrap_or(usize::MAX - 1);
        let old = self.task_ns.load(Relaxed);
        let new = P::learn_task(old, ns);
        if new != old {
            self.task_ns.store(new, Relaxed);
        }
    }

    /// The estimate (`usize::MAX`: not known).
    #[inline]
    pub(crate) fn task_ns(&self) -> usize {
        self.task_ns.load(Relaxed)
    }
}

/// A watcher's memory between two looks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Duty {
    /// Tasks finished at the last look.
    pub(crate) finished: usize,
    /// Quiet looks in a row.
    pub(crate) quiet: u32,
}

impl<F: Flavor> Engine<F> {
    /// Tasks finished so far (the watcher's sign of progress).
    pub(super) fn finished(&self) -> usize {
        self.counters
            .completed
            .load(Relaxed)
            .wrapping_add(self.counters.panicked.load(Relaxed))
    }

    /// Whether the worker parking as `id` (on the word `w`) takes up the watch:
    /// nobody watches (one watcher, set under the cold lock, held now), and
    /// the policy wants one ([`Policy::watches`]).
    pub(super) fn take_watch(&self, cold: &mut Guard<'_, F>, id: WorkerId, w: Word) -> bool {
        if w.has(WATCH) || !F::Policy::watches(&self.sight(w)) {
            return false;
        }
        self.ctl.set(WATCH);
        cold.watcher = Some(id);
        true
    }

    /// One look of the watcher at the lane. `false` once the watch is over
    /// (resigned, or this worker was detached meanwhile). The rescue is the
    /// mechanism's, whatever the policy: tasks waiting and none finished for
    /// a period wake a parked worker. When to resign is the policy's
    /// ([`Policy::resigns`]): the watch ends under the lock, and the lane is
    /// checked after it.
    pub(super) fn watch_tick<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
        duty: &mut Duty,
    ) -> bool {
        let finished = self.finished();
        // (Paused, the tasks wait on purpose: nobody is stuck.)
        let stuck = !self.lane.looks_empty() && finished == duty.finished && !self.is_paused();
        duty.finished = finished;
        if stuck {
            // Tasks wait and none finished for a period: the busy workers are
            // stuck. Wake a parked worker (perhaps ourselves) to take them.
            duty.quiet = 0;
            self.wake_one();
            return me.state() == state::IDLE;
        }
        if self.lane.looks_empty() && self.ctl.load().busy() == 0 {
            duty.quiet += 1;
        } else {
            duty.quiet = 0;
        }
        if !F::Policy::resigns(duty.quiet) {
            return true;
        }
        let mut cold = self.cold.lock();
        if cold.watcher == Some(WorkerId::from_ptr(me.into())) {
            self.end_watch(&mut cold);
        }
        drop(cold);
        self.after_retiring(handle);
        false
    }

    /// Ends the watch (under the cold lock): clears `WATCH`, so no submitter
    /// leaves another task to a busy worker. Whoever ends it checks the lane
    /// after the lock ([`after_retiring`](Self::after_retiring)), or is the
    /// watcher being woken to look.
    pub(super) fn end_watch(&self, cold: &mut Guard<'_, F>) {
        cold.watcher = None;
        self.ctl.clear(WATCH);
    }
}
