//! [`Transport`]: where admitted tasks wait for a worker to take them — the
//! lock-free [`Ring`], and with `alloc` an unbounded *spill* queue behind it.
//!
//! The control word admits a task before it is pushed, so the transport never
//! holds more tasks than `tasks` counts: a ring as large as the pool's bound
//! (capacity, plus the queue limit) never fills. Three cases outgrow their
//! ring, and spill:
//!
//! * `tune` raised the bound above the ring's size;
//! * an unbounded queue, or an unbounded pool (their bound is [`MAX_TASKS`]);
//! * a bounded queue larger than [`MAX_RING`], which is not allocated up front.
//!
//! A push that finds the ring full turns on spilling for good, and from then on
//! every push goes to the spill queue, crossbeam's `SegQueue` (lock-free, a block
//! of 31 slots allocated per 31 tasks): so a submitter's tasks stay in order,
//! the ring's being older than the spill's. A pop takes from the ring first.
//! A pool in a `static` has no heap and no spill: its ring holds `N` slots and
//! its bound never exceeds `N` (the static face clamps `tune`).
//!
//! [`MAX_TASKS`]: super::ctl::MAX_TASKS

use super::ring::{Ring, Slots};
#[cfg(not(feature = "alloc"))]
use crate::sync::spin_hint;
#[cfg(feature = "alloc")]
use crate::sync::{AtomicBool, Ordering};

/// The largest ring the heap faces allocate up front (one slot per task the
/// bound admits, at most this many); a bigger bound spills past it.
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
}

/// The transport: a ring, and with `alloc` the spill queue behind it.
pub(crate) struct Transport<T, S: Slots<T>> {
    ring: Ring<T, S>,
    #[cfg(feature = "alloc")]
    spilling: AtomicBool,
    #[cfg(feature = "alloc")]
    spill: Spill<T>,
}

impl<T: Send + 'static, S: Slots<T>> Transport<T, S> {
    maybe_const_fn! {
        /// A transport over `slots`, which hold `cap` slots; with `spill_now`
        /// every task goes to the spill queue from the start (an unbounded
        /// queue, whose ring would soon overflow anyway).
        pub(crate) fn new(slots: S, cap: usize, spill_now: bool) -> Self {
            #[cfg(not(feature = "alloc"))]
            let _ = spill_now;
            Transport {
                ring: Ring::new(slots, cap),
                #[cfg(feature = "alloc")]
                spilling: AtomicBool::new(spill_now),
                #[cfg(feature = "alloc")]
                spill: Spill::new(),
            }
        }
    }

    /// Adds an admitted task. Never fails: the ring has room for every task the
    /// bound admits, and past it the spill queue takes the rest.
    pub(crate) fn push(&self, task: T) {
        #[cfg(feature = "alloc")]
        {
            if self.spilling.load(Ordering::Relaxed) {
                self.spill.push(task);
                return;
            }
            if let Err(task) = self.ring.push(task) {
                self.spilling.store(true, Ordering::Release);
                self.spill.push(task);
            }
        }
        #[cfg(not(feature = "alloc"))]
        {
            // The bound never exceeds the ring, so a full ring only means a
            // worker has claimed a slot and not yet emptied it.
            let mut task = task;
            while let Err(back) = self.ring.push(task) {
                task = back;
                spin_hint();
            }
        }
    }

    /// Takes the oldest task, if any. (`None` may be stale by the time it
    /// returns; every caller polls again or treats it as a hint.)
    pub(crate) fn pop(&self) -> Option<T> {
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::Acquire) {
            // Nothing is pushed to the ring any more: skip it (and its fence)
            // once it looks drained.
            if !self.ring.looks_empty() {
                if let Some(task) = self.ring.pop() {
                    return Some(task);
                }
            }
            return self.spill.pop();
        }
        self.ring.pop()
    }

    /// Whether the transport looked empty a moment ago (cheap, for polling).
    #[inline]
    pub(crate) fn looks_empty(&self) -> bool {
        #[cfg(feature = "alloc")]
        if self.spilling.load(Ordering::Relaxed) && !self.spill.is_empty() {
            return false;
        }
        self.ring.looks_empty()
    }
}
