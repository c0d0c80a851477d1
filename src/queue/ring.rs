//! [`WorkerRing<N>`]: a FIFO of idle workers in `N` inline slots (no heap).

use heapless::Deque;

use super::{IdleWorker, WorkerQueue, clamp, expired_run};
use crate::clock::Instant;

/// A FIFO ring of at most `N` idle workers, stored inline: it never allocates, so
/// a pool built on it can live in a `static` on a machine without a heap.
///
/// `detach` hands out the worker that has been idle longest. When the ring is
/// full, `insert` hands the worker back and the pool retires that worker instead
/// of parking it, so a pool may still run more than `N` workers at once; only
/// `N` of them can wait idle.
///
/// ```
/// use antpool::WorkerRing;
/// use antpool::port::{IdleWorker, Instant, WorkerId, WorkerQueue};
///
/// let mut ring = WorkerRing::<2>::new();
/// let w = |i: usize| IdleWorker { id: WorkerId::from_index(i), since: Instant::ZERO };
/// ring.insert(w(1)).unwrap();
/// ring.insert(w(2)).unwrap();
/// assert_eq!(ring.insert(w(3)), Err(w(3))); // full: handed back
/// assert_eq!(ring.detach(), Some(w(1)));     // oldest first
/// ```
pub struct WorkerRing<const N: usize> {
    slots: Deque<IdleWorker, N>,
}

impl<const N: usize> WorkerRing<N> {
    /// An empty ring; `const`, so it can initialise a `static`.
    ///
    /// ```
    /// use antpool::WorkerRing;
    /// use antpool::port::WorkerQueue;
    /// const RING: WorkerRing<8> = WorkerRing::new();
    /// assert!(RING.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        WorkerRing {
            slots: Deque::new(),
        }
    }

    /// Whether all `N` slots are taken.
    ///
    /// ```
    /// use antpool::WorkerRing;
    /// use antpool::port::{IdleWorker, Instant, WorkerId, WorkerQueue};
    /// let mut ring = WorkerRing::<1>::new();
    /// assert!(!ring.is_full());
    /// ring.insert(IdleWorker { id: WorkerId::from_index(1), since: Instant::ZERO }).unwrap();
    /// assert!(ring.is_full());
    /// ```
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.slots.is_full()
    }
}

impl<const N: usize> Default for WorkerRing<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> WorkerQueue for WorkerRing<N> {
    fn with_capacity(_capacity: Option<usize>, _prealloc: bool) -> Self {
        Self::new()
    }

    fn insert(&mut self, worker: IdleWorker) -> Result<(), IdleWorker> {
        if self.slots.is_full() {
            return Err(worker); // handed back exactly as given
        }
        let clamped = clamp(worker, self.slots.back());
        self.slots.push_back(clamped).map_err(|_| worker)
    }

    fn detach(&mut self) -> Option<IdleWorker> {
        self.slots.pop_front()
    }

    fn refresh<F: FnMut(IdleWorker)>(&mut self, deadline: Instant, mut retire: F) -> usize {
        let (older, newer) = self.slots.as_slices();
        let k = expired_run(older, newer, deadline);
        for _ in 0..k {
            if let Some(w) = self.slots.pop_front() {
                retire(w);
            }
        }
        k
    }

    fn reset<F: FnMut(IdleWorker)>(&mut self, mut retire: F) -> usize {
        let mut k = 0;
        while let Some(w) = self.slots.pop_front() {
            retire(w);
            k += 1;
        }
        k
    }

    fn len(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::WorkerId;

    fn w(i: usize) -> IdleWorker {
        IdleWorker {
            id: WorkerId::from_index(i),
            since: Instant::from_nanos(i as u64),
        }
    }

    /// `is_full` says whether an insert would be handed back: false until all
    /// `N` slots are taken, true then, false again once one is detached.
    #[test]
    fn is_full_says_whether_the_next_insert_is_handed_back() {
        let mut ring = WorkerRing::<3>::new();
        for i in 1..=3 {
            assert!(!ring.is_full(), "{} of 3 slots taken", i - 1);
            ring.insert(w(i)).unwrap();
        }
        assert!(ring.is_full());
        assert_eq!(ring.insert(w(4)), Err(w(4)));
        assert_eq!(ring.detach(), Some(w(1)));
        assert!(!ring.is_full());
        ring.insert(w(4)).unwrap();
        assert!(ring.is_full());
    }
}
