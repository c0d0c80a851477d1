//! [`IdleQueue`]: the heap pools' default queue, a stack or a ring chosen at build time.

use super::ring_buf::WorkerRingBuf;
use super::stack::WorkerStack;
use super::{IdleWorker, WorkerQueue};
use crate::clock::Instant;

/// The default queue of [`Pool`](crate::Pool) and
/// [`PoolWithFunc`](crate::PoolWithFunc): a stack (LIFO, grows: the most
/// recently parked worker takes the next task while its cache is warm, and
/// the others sink and expire), or — when the builder asks for
/// `prealloc(true)` — a ring buffer (FIFO, one buffer the size of the
/// capacity, allocated once).
///
/// `prealloc` is a run-time choice, so the default queue type takes either
/// policy; name [`WorkerRing<N>`](crate::WorkerRing) (or a queue of your own)
/// as the pool's `Q` parameter to fix the policy in the type instead.
///
/// ```
/// use antpool::IdleQueue;
/// use antpool::port::{IdleWorker, Instant, WorkerId, WorkerQueue};
/// let worker = |i| IdleWorker { id: WorkerId::from_index(i), since: Instant::ZERO };
/// let mut lifo = IdleQueue::with_capacity(Some(4), false);
/// let mut fifo = IdleQueue::with_capacity(Some(4), true);
/// for q in [&mut lifo, &mut fifo] {
///     q.insert(worker(1)).unwrap();
///     q.insert(worker(2)).unwrap();
/// }
/// assert_eq!(lifo.detach().unwrap().id, WorkerId::from_index(2)); // newest first
/// assert_eq!(fifo.detach().unwrap().id, WorkerId::from_index(1)); // oldest first
/// ```
pub struct IdleQueue(Policy);

/// The policy an [`IdleQueue`] was built with.
enum Policy {
    /// LIFO, growable.
    Stack(WorkerStack),
    /// FIFO, allocated once.
    Ring(WorkerRingBuf),
}

impl WorkerQueue for IdleQueue {
    fn with_capacity(capacity: Option<usize>, prealloc: bool) -> Self {
        IdleQueue(match capacity {
            Some(cap) if prealloc => Policy::Ring(WorkerRingBuf::new(cap)),
            _ => Policy::Stack(WorkerStack::new()),
        })
    }

    fn insert(&mut self, worker: IdleWorker) -> Result<(), IdleWorker> {
        match &mut self.0 {
            Policy::Stack(q) => q.insert(worker),
            Policy::Ring(q) => q.insert(worker),
        }
    }

    fn detach(&mut self) -> Option<IdleWorker> {
        match &mut self.0 {
            Policy::Stack(q) => q.detach(),
            Policy::Ring(q) => q.detach(),
        }
    }

    fn refresh<F: FnMut(IdleWorker)>(&mut self, deadline: Instant, retire: F) -> usize {
        match &mut self.0 {
            Policy::Stack(q) => q.refresh(deadline, retire),
            Policy::Ring(q) => q.refresh(deadline, retire),
        }
    }

    fn reset<F: FnMut(IdleWorker)>(&mut self, retire: F) -> usize {
        match &mut self.0 {
            Policy::Stack(q) => q.reset(retire),
            Policy::Ring(q) => q.reset(retire),
        }
    }

    fn len(&self) -> usize {
        match &self.0 {
            Policy::Stack(q) => q.len(),
            Policy::Ring(q) => q.len(),
        }
    }
}
