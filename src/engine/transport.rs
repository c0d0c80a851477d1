//! [`Transport`]: the *lane* where admitted tasks wait for a worker to take
//! them — the lock-free [`TaskRing`], and with `alloc` an unbounded *spill* queue
//! behind it. Submitters push, workers pop; no task is addressed to a worker.
//!
//! A lane is one of:
//!
//! * **bounded** (a queue of `max_queued_tasks(n)`; a pool in a `static`): the
//!   ring alone; a push into a full ring fails and the pool is saturated;
//! * **spilling** (a hand-off pool; an unbounded pool): a ring sized to what
//!   the pool admits at build, then the spill queue once a push finds the ring
//!   full (after `tune` raised the capacity, or a burst on an unbounded pool);
//! * **unbounded** (`unbounded_queue()`): the spill queue from the start.
//!
//! Spilling is for good: from the first spill on, every push goes to the spill
//! queue, so a submitter's tasks stay in order (the ring's are older), and a
//! pop takes from the ring first. The spill queue is a [`TaskList`](super::list::TaskList): crossbeam's
//! `SegQueue` (lock-free, a block allocated per 31 tasks) with a close mark,
//! which `SegQueue` lacks.
//!
//! A queue pool's lane can be *closed* ([`close`](Transport::close)): both the
//! ring and the list refuse every push from then on, so a release needs no
//! count of submitters on their way (`engine/README.md`, handshake 2).

use super::heap::Spill;
use super::ring::{Slots, TaskRing};
use super::timed::{StampAt, Stamped};
use crate::sync::{Ordering, spin_hint};

/// How a lane grows (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Growth {
    /// The ring alone: a push into a full ring fails.
    Bounded,
    /// The ring, then the spill queue.
    Spilling,
    /// The spill queue from the start.
    Unbounded,
}

/// The lane: a ring, and with `alloc` the spill queue behind it (without,
/// a stand-in that never spills: `no_heap.rs`).
pub(crate) struct Transport<T, S: Slots<T>> {
    ring: TaskRing<T, S>,
    spill: Spill<T>,
}

impl<T: Send + 'static, S: Slots<T>> Transport<T, S> {
    maybe_const_fn! {
        /// A lane over `slots`, which hold `cap` slots, growing as `growth`
        /// says (without `alloc`, always bounded).
        pub(crate) fn new(slots: S, cap: usize, growth: Growth) -> Self {
            Transport {
                ring: TaskRing::new(slots, cap),
                spill: Spill::new(
                    !matches!(growth, Growth::Bounded),
                    matches!(growth, Growth::Unbounded),
                ),
            }
        }
    }

    /// Adds a task; hands it back when a bounded lane is full, or the lane is
    /// closed ([`is_closed`](Self::is_closed) tells which). `stamp_at` gives
    /// the task's stamp for the position of the slot it takes (see
    /// [`TaskRing::push`]).
    #[inline]
    pub(crate) fn push(&self, task: T, stamp_at: impl StampAt) -> Result<(), T> {
        if self.spill.may_spill() {
            if self.spill.is_spilling(Ordering::Relaxed) {
                return self.spill.push(task, stamp_at);
            }
            let mut task = task;
            return loop {
                match self.ring.push(task, stamp_at) {
                    Ok(()) => break Ok(()),
                    Err(back) if self.ring.is_closed() => break Err(back),
                    // Not full: the slot at `tail` is a popper's, between its
                    // claim and its read. Spilling is for good, so wait for
                    // it here rather than spill for that moment. (Backing
                    // off to a yield instead measured 1.12-1.34x the context
                    // switches of a hand-off pool fed by one submitter.)
                    Err(back) if !self.ring.is_full() => {
                        task = back;
                        spin_hint();
                    }
                    Err(back) => {
                        self.spill.start();
                        break self.spill.push(back, stamp_at);
                    }
                }
            };
        }
        self.ring.push(task, stamp_at)
    }

    /// Adds a task without waiting for any other thread (see
    /// [`TaskRing::push_now`]); hands it back if the ring cannot take it at once
    /// or is closed, and always once the lane spills (the spill queue
    /// allocates).
    #[inline]
    pub(crate) fn push_now(&self, task: T) -> Result<(), T> {
        if self.spill.is_spilling(Ordering::Relaxed) {
            return Err(task);
        }
        self.ring.push_now(task)
    }

    /// Takes the oldest task, if any. (`None` may be stale by the time it
    /// returns, or mean a claimed slot not yet written; callers that must know
    /// use [`has_ready`](Self::has_ready) or [`has_tasks`](Self::has_tasks).)
    #[inline]
    pub(crate) fn pop(&self) -> Option<Stamped<T>> {
        if self.spill.is_spilling(Ordering::Acquire) {
            // Nothing new goes to the ring now: skip it once it looks drained.
            if !self.ring.looks_empty() {
                if let Some(task) = self.ring.pop() {
                    return Some(task);
                }
            }
            return self.spill.pop();
        }
        self.ring.pop()
    }

    /// Whether the lane looked empty a moment ago (two loads: for polling).
    #[inline]
    pub(crate) fn looks_empty(&self) -> bool {
        if self.spill.is_spilling(Ordering::Relaxed) && !self.spill.is_empty() {
            return false;
        }
        self.ring.looks_empty()
    }

    /// Whether the lane holds a task, read the way a handshake needs after
    /// the caller's `SeqCst` fence (one fence for every lane: `lanes.rs`):
    /// after a swap of the control word, the fence and these reads by RMW see
    /// every push whose submitter then read the word — fenced, or by RMW —
    /// and saw it from before our swap (see `engine/README.md`,
    /// "Handshakes").
    #[inline]
    pub(crate) fn has_tasks_fenced(&self) -> bool {
        self.spill_has_tasks() || self.ring.has_tasks()
    }

    /// Whether a task is ready to pop, read the way the push-vs-park
    /// handshake needs after the caller's `SeqCst` fence (see
    /// [`TaskRing::has_ready`]; the spill queue's `is_empty` counts a claimed
    /// slot too, and its `pop` waits for the write).
    #[inline]
    pub(crate) fn has_ready_fenced(&self) -> bool {
        self.spill_has_tasks() || self.ring.has_ready()
    }

    /// Whether the spill queue holds a task (or a claimed slot), for the two
    /// handshake reads above. (Its `is_empty` is the handshake's read there.)
    #[inline]
    fn spill_has_tasks(&self) -> bool {
        self.spill.is_spilling(Ordering::SeqCst) && !self.spill.is_empty()
    }

    /// Closes the lane: every push from now on fails, and every push that
    /// claimed a slot before is counted by a later
    /// [`has_tasks`](Self::has_tasks) of a reader that synchronized with the
    /// closer (see [`TaskRing::close`]). The ring first, then the spill queue: a
    /// push the spill queue refused finds the ring closed.
    pub(crate) fn close(&self) {
        self.ring.close();
        self.spill.close();
    }

    /// Opens a closed lane again.
    pub(crate) fn reopen(&self) {
        self.spill.reopen();
        self.ring.reopen();
    }

    /// Whether the lane is closed: a push it refused was refused for that.
    #[inline]
    pub(crate) fn is_closed(&self) -> bool {
        self.ring.is_closed()
    }

    /// About how many tasks wait (exact when nothing moves).
    pub(crate) fn len(&self) -> usize {
        let ring = self.ring.len();
        if self.spill.is_spilling(Ordering::Relaxed) {
            return ring + self.spill.len();
        }
        ring
    }
}
