//! `WorkerStack`: a growable LIFO of idle workers (the policy of an
//! [`IdleQueue`](crate::IdleQueue) built without `prealloc`).

use alloc::vec::Vec;

use super::{IdleWorker, WorkerQueue, clamp};
use crate::clock::Instant;

/// A LIFO stack of idle workers that grows as needed.
///
/// `detach` hands out the worker that went idle last: its stack and caches are
/// still warm, and the workers at the bottom stay idle long enough to expire, so
/// a pool sheds exactly the threads a lull made surplus. Elements are stored
/// oldest first, so `refresh` removes a prefix found by binary search.
pub(crate) struct WorkerStack {
    items: Vec<IdleWorker>,
}

impl WorkerStack {
    /// An empty stack.
    pub(crate) const fn new() -> Self {
        WorkerStack { items: Vec::new() }
    }
}

impl WorkerQueue for WorkerStack {
    /// Empty, reserving nothing: it grows as workers park. (A preallocated
    /// idle queue is a ring, `WorkerRingBuf`: `IdleQueue` picks it.)
    fn with_capacity(_capacity: Option<usize>, _prealloc: bool) -> Self {
        WorkerStack::new()
    }

    fn insert(&mut self, worker: IdleWorker) -> Result<(), IdleWorker> {
        let worker = clamp(worker, self.items.last());
        self.items.push(worker);
        Ok(())
    }

    fn detach(&mut self) -> Option<IdleWorker> {
        self.items.pop()
    }

    fn refresh<F: FnMut(IdleWorker)>(&mut self, deadline: Instant, retire: F) -> usize {
        let k = self.items.partition_point(|w| w.since <= deadline);
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
