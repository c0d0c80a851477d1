//! [`IdleQueue`]: the std pools' default queue, a stack or a ring chosen at build time.

use super::{IdleWorker, WorkerQueue, WorkerRingBuf, WorkerStack};
use crate::clock::Instant;

/// The default queue of [`Pool`](crate::Pool) and
/// [`PoolWithFunc`](crate::PoolWithFunc): a [`WorkerStack`] (LIFO, grows), or —
/// when the builder asks for `prealloc(true)` — a [`WorkerRingBuf`] (FIFO, one
/// buffer the size of the capacity, allocated once).
///
/// `prealloc` is a run-time choice, so the default queue type must be able to take
/// either policy; name `WorkerStack` or `WorkerRing<N>` as the pool's `Q` parameter
/// to fix the policy in the type instead.
///
/// ```
/// use antpool::IdleQueue;
/// use antpool::port::WorkerQueue;
/// assert!(matches!(IdleQueue::with_capacity(Some(4), true), IdleQueue::Ring(_)));
/// assert!(matches!(IdleQueue::with_capacity(Some(4), false), IdleQueue::Stack(_)));
/// ```
#[non_exhaustive]
pub enum IdleQueue {
    /// LIFO, growable.
    Stack(WorkerStack),
    /// FIFO, allocated once.
    Ring(WorkerRingBuf),
}

impl WorkerQueue for IdleQueue {
    fn with_capacity(capacity: Option<usize>, prealloc: bool) -> Self {
        match capacity {
            Some(cap) if prealloc => IdleQueue::Ring(WorkerRingBuf::new(cap)),
            _ => IdleQueue::Stack(WorkerStack::with_capacity(capacity, false)),
        }
    }

    fn insert(&mut self, worker: IdleWorker) -> Result<(), IdleWorker> {
        match self {
            IdleQueue::Stack(q) => q.insert(worker),
            IdleQueue::Ring(q) => q.insert(worker),
        }
    }

    fn detach(&mut self) -> Option<IdleWorker> {
        match self {
            IdleQueue::Stack(q) => q.detach(),
            IdleQueue::Ring(q) => q.detach(),
        }
    }

    fn refresh<F: FnMut(IdleWorker)>(&mut self, deadline: Instant, retire: F) -> usize {
        match self {
            IdleQueue::Stack(q) => q.refresh(deadline, retire),
            IdleQueue::Ring(q) => q.refresh(deadline, retire),
        }
    }

    fn reset<F: FnMut(IdleWorker)>(&mut self, retire: F) -> usize {
        match self {
            IdleQueue::Stack(q) => q.reset(retire),
            IdleQueue::Ring(q) => q.reset(retire),
        }
    }

    fn len(&self) -> usize {
        match self {
            IdleQueue::Stack(q) => q.len(),
            IdleQueue::Ring(q) => q.len(),
        }
    }
}
