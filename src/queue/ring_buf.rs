//! `WorkerRingBuf`: a FIFO of idle workers in one buffer sized at build time
//! (the policy of an [`IdleQueue`](crate::IdleQueue) built with `prealloc`).

use alloc::collections::VecDeque;

use super::{IdleWorker, WorkerQueue, clamp, expired_run};
use crate::clock::Instant;

/// A FIFO ring of idle workers whose size is chosen at run time and allocated
/// once: the queue behind the builder's `prealloc(true)`.
///
/// It never grows: a full ring hands the worker back, and the pool retires it.
pub(crate) struct WorkerRingBuf {
    items: VecDeque<IdleWorker>,
    capacity: usize,
}

impl WorkerRingBuf {
    /// An empty ring with room for `capacity` idle workers, allocated now.
    pub(crate) fn new(capacity: usize) -> Self {
        WorkerRingBuf {
            items: VecDeque::with_capacity(capacity),
            capacity,
        }
    }
}

impl WorkerQueue for WorkerRingBuf {
    /// An unbounded pool gets a ring of 0 slots (every idle worker retires); the
    /// builders reject `prealloc` with an unbounded capacity before it comes to that.
    fn with_capacity(capacity: Option<usize>, _prealloc: bool) -> Self {
        WorkerRingBuf::new(capacity.unwrap_or(0))
    }

    fn insert(&mut self, worker: IdleWorker) -> Result<(), IdleWorker> {
        if self.items.len() >= self.capacity {
            return Err(worker);
        }
        let worker = clamp(worker, self.items.back());
        self.items.push_back(worker);
        Ok(())
    }

    fn detach(&mut self) -> Option<IdleWorker> {
        self.items.pop_front()
    }

    fn refresh<F: FnMut(IdleWorker)>(&mut self, deadline: Instant, retire: F) -> usize {
        let (older, newer) = self.items.as_slices();
        let k = expired_run(older, newer, deadline);
        self.items.drain(..k).for_each(retire);
        k
    }

    fn reset<F: FnMut(IdleWorker)>(&mut self, retire: F) -> usize {
        let k = self.items.len();
        self.items.drain(..).for_each(retire);
        k
    }

    fn len(&self) -> usize {
        self.items.len()
    }
}
