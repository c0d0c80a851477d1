//! [`Transport`]: the *lane* where admitted tasks wait for a worker to take
//! them — the lock-free [`Ring`], and with `alloc` an unbounded *spill* queue
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
//! pop takes from the ring first. The spill queue is crossbeam's `SegQueue`:
//! lock-free, a block allocated per 31 tasks — a well-kept crate doing what we
//! would otherwise write and verify ourselves.

use super::ring::{Ring, Slots};
#[cfg(feature = "alloc")]
use crate::sync::AtomicBool;
use crate::sync::{Ordering, fence};

/// The largest ring the heap faces allocate for a spilling lane (one slot per
/// task the pool admits, at most this many); more spill.
#[cfg(feature = "alloc")]
pub(crate) const MAX_RING: usize = 1024;

/// The unbounded queue behind a ring: crossbeam's lock-free `SegQueue`.
#[cfg(all(feature = "alloc", not(antpool_loom)))]
type Spill<T> = crossbeam_queue::SegQueue<T>;

/// Under loom, a stand-in for `SegQueue` that loom can see (its own code is
/// crossbeam's to verify).
#[cfg(all(feature = "alloc", antpool_loom))]
struct Spill<T>(loom::sync::Mutex<alloc::collections::VecDeque<T>>);

#[cfg(all(feature = "alloc", antpool_loom))]
impl<T> Spill<T> {
    fn new() -> Self {
        Spill(loom::sync::Mutex::new(alloc::collections::VecDeque::new()))
    }
    fn push(&self, value: T) {
        self.0.lock().unwrap().push_back(value);
    }
    fn pop(&self) -> Option<T> {
        self.0.lock().unwrap().pop_front()
    }
    fn is_empty(&self) -> bool {
        self.0.lock().unwrap().is_empty()
    }
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

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

/// The lane: a ring, and with `alloc` the spill queue behind it.
pub(crate) struct Transport<T, S: Slots<T>> {
    ring: Ring<T, S>,
    #[cfg(feature = "alloc")]
    may_spill: bool,
    #[cfg(feature = "alloc")]
    spilling: AtomicBool,
    #[cfg(feature = "alloc")]
    spill: Spill<T>,
}

impl<T: Send + 'static, S: Slots<T>> Transport<T, S> {
    maybe_const_fn! {
        /// A lane over `slots`, which hold `cap` slots, growing as `growth`
        /// says (without `alloc`, always bounded).
        pub(crate) fn new(slots: S, cap: usize, growth: Growth) -> Self {
            #[cfg(not(feature = "alloc"))]
            let _ = growth;
            Transport {
                ring: Ring::new(slots, cap),
                #[cfg(feature = "alloc")]
                may_spill: !matches!(growth, Growth::Bounded),
                #[cfg(feature = "alloc")]
                spilling: AtomicBool::new(matches!(growth, Growth::Unbounded)),
                #[cfg(feature = "alloc")]
                spill: Spill::new(),
            }
        }
    }

    /// Adds a task; hands it back only when a bounded lane is full.
    #[inline]
    pub(crate) fn push(&self, task: T) -> Result<(), T> {
        #[cfg(feature = "alloc")]
        if self.may_spill {
            if self.spilling.load(Ordering::Relaxed) {
                self.spill.push(task);
                return Ok(());
            }
            if let Err(task) = self.ring.push(task) {
                self.spilling.store(true, Ordering::Release);
                self.spill.push(task);
            }
            return Ok(());
        }
        self.ring.push(task)
    }

    /// Adds a task without waiting for any other thread (see
    /// [`Ring::push_now`]); hands it back if the ring cannot take it at once,
    /// and always once the lane spills (the spill queue allocates).
    #[inline]
    pub(crate) fn push_now(&self, task: T) -> Result<(), T> {
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::Relaxed) {
            return Err(task);
        }
        self.ring.push_now(task)
    }

    /// Takes the oldest task, if any. (`None` may be stale by the time it
    /// returns, or mean a claimed slot not yet written; callers that must know
    /// use [`has_ready`](Self::has_ready) or [`has_tasks`](Self::has_tasks).)
    #[inline]
    pub(crate) fn pop(&self) -> Option<T> {
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::Acquire) {
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
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::Relaxed) && !self.spill.is_empty() {
            return false;
        }
        self.ring.looks_empty()
    }

    /// Whether the lane holds a task, read the way a handshake needs: after a
    /// swap of the control word, this (a `SeqCst` fence, then reads by RMW)
    /// sees every push whose submitter then read the word — fenced, or by RMW
    /// — and saw it from before our swap (see `engine/README.md`,
    /// "Handshakes").
    #[inline]
    pub(crate) fn has_tasks(&self) -> bool {
        fence(Ordering::SeqCst);
        self.spill_has_tasks() || self.ring.has_tasks()
    }

    /// Whether a task is ready to pop, read the way the push-vs-park handshake
    /// needs (a `SeqCst` fence first, as in [`has_tasks`](Self::has_tasks); see
    /// [`Ring::has_ready`]; the spill queue's `is_empty` counts a claimed slot
    /// too, and its `pop` waits for the write).
    #[inline]
    pub(crate) fn has_ready(&self) -> bool {
        fence(Ordering::SeqCst);
        self.spill_has_tasks() || self.ring.has_ready()
    }

    /// Whether the spill queue holds a task (or a claimed slot), for the two
    /// handshake reads above. (Its `is_empty` is the handshake's read there.)
    #[inline]
    fn spill_has_tasks(&self) -> bool {
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::SeqCst) {
            return !self.spill.is_empty();
        }
        false
    }

    /// Closes a bounded lane: every push from now on fails, and every push
    /// that claimed a slot before is counted by a later
    /// [`has_tasks`](Self::has_tasks) (see [`Ring::close`]). Only the ring has
    /// a mark: a lane that may spill is never closed (its pools count their
    /// pushes in and out instead).
    pub(crate) fn close(&self) {
        #[cfg(feature = "alloc")]
        debug_assert!(!self.may_spill, "antpool: only a bounded lane closes");
        self.ring.close();
    }

    /// Opens a closed lane again.
    pub(crate) fn reopen(&self) {
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
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::Relaxed) {
            return ring + self.spill.len();
        }
        ring
    }
}
