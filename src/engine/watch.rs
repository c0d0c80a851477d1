//! The watch duty: how a pool leaves tiny tasks to its busy workers without
//! ever letting a task wait behind a stuck one.
//!
//! A submitter that finds no looker has two ways to get its task run: wake a
//! parked worker (a system call for the waker, a sleep and a wake-up through
//! the kernel for the worker), or leave the task in the lane for the next busy
//! worker that finishes. When tasks are tiny — recent ones ran shorter than a
//! wake-up costs — the second is far cheaper: the busy worker is about one tiny
//! task from free, and submitter and worker then overlap instead of taking
//! turns. This is *speculation*: the busy worker's current task may turn out
//! long, or block.
//!
//! So speculation is allowed only while a parked worker is *on watch* (the
//! `WATCH` flag of the workers' word). The watcher sleeps in short periods
//! ([`PERIOD`]) instead of its full expiry. Each time it wakes it looks at the
//! lane and at the count of finished tasks: a lane holding tasks while no task
//! finished since its last look means the busy workers are stuck, and it wakes
//! a parked worker (perhaps itself) to take them. A task therefore waits for a
//! busy worker at most about two periods. A lane empty with nothing busy for
//! [`RESIGN_AFTER`] periods ends the duty (an idle pool costs no wake-ups).
//!
//! Which worker watches: one that parks while tasks are tiny, work is going on
//! and nobody watches yet. With the LIFO idle queue it sinks to the bottom and
//! is rarely the one woken for a task; if it is woken, expires, or is retired,
//! the duty ends with it (the flag is cleared under the cold lock, and the lane
//! checked once more), and the next worker to park takes it up.

use core::time::Duration;

use crate::clock::Instant;
use crate::sync::{Ordering::Relaxed, UntrackedUsize};

/// How long a watcher sleeps between looks at the lane.
pub(crate) const PERIOD: Duration = Duration::from_micros(200);

/// How many quiet periods (empty lane, nobody busy) end a watch.
pub(crate) const RESIGN_AFTER: u32 = 5;

/// Tasks shorter than this (on average, none much longer lately) are tiny:
/// shorter than what waking a parked worker costs both sides (the figure:
/// `BENCHMARKS.md`, "What the engine's constants rest on").
const TINY_NS: usize = 5_000;

/// One task in this many is timed (two clock reads), to learn how long tasks
/// run.
pub(crate) const SAMPLE_EVERY: u32 = 16;

/// Speculation leaves a busy worker at most this many tasks each in the lane;
/// past that a parked worker is woken to help.
pub(crate) const BACKLOG_PER_BUSY: usize = 4;

/// What the pool knows about how long its tasks run.
pub(crate) struct Watch {
    /// Clock nanoseconds: an average over a sample of tasks that jumps up at
    /// once on a longer one and forgets it slowly. `usize::MAX`: not known yet,
    /// or a clock that does not move (manual, coarse): never tiny.
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

    /// Folds one timed task into the estimate. A clock that did not move
    /// teaches nothing.
    pub(crate) fn learn(&self, start: Instant, end: Instant) {
        let ns = end.saturating_duration_since(start).as_nanos();
        if ns == 0 {
            return;
        }
        let ns = usize::try_from(ns).unwrap_or(usize::MAX - 1);
        let old = self.task_ns.load(Relaxed);
        let new = if old == usize::MAX || ns >= old {
            ns
        } else {
            old - old / 8 + ns / 8
        };
        self.task_ns.store(new, Relaxed);
    }

    /// Whether tasks lately ran shorter than a wake-up costs.
    pub(crate) fn tiny(&self) -> bool {
        self.task_ns.load(Relaxed) < TINY_NS
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
