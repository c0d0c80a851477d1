//! The task queue of queue mode: where a saturated pool keeps accepted tasks
//! until a worker is free (gammazero/workerpool's model, opt-in).
//!
//! Lives under the pool's lock. `NoBacklog` is the queue of a pool without queue
//! mode (and of every pool without `alloc`): it never holds a task, so the engine
//! pays nothing for the feature when it is off.

/// A FIFO of accepted tasks waiting for a worker.
pub(crate) trait Backlog<T>: Send + 'static {
    /// Appends `task`, or hands it back when full (or when queueing is off).
    fn push_back(&mut self, task: T) -> Result<(), T>;
    /// Puts a task taken with `pop_front` back at the front, even if that makes
    /// the queue one longer than its limit for a moment (a failed start).
    fn push_front(&mut self, task: T);
    fn pop_front(&mut self) -> Option<T>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn is_full(&self) -> bool;
    /// Takes every queued task, leaving the queue empty (without allocating).
    fn take(&mut self) -> Self
    where
        Self: Sized;
}

/// The queue of a pool that does not queue.
pub(crate) struct NoBacklog;

impl<T> Backlog<T> for NoBacklog {
    fn push_back(&mut self, task: T) -> Result<(), T> {
        Err(task)
    }

    fn push_front(&mut self, _task: T) {
        unreachable!("antpool: a pool without a queue never takes a task out of it");
    }

    fn pop_front(&mut self) -> Option<T> {
        None
    }

    fn len(&self) -> usize {
        0
    }

    fn is_full(&self) -> bool {
        true
    }

    fn take(&mut self) -> Self {
        NoBacklog
    }
}

#[cfg(feature = "alloc")]
pub(crate) use queue::TaskQueue;

#[cfg(feature = "alloc")]
mod queue {
    use alloc::collections::VecDeque;

    use super::Backlog;

    /// A `VecDeque` with a limit: 0 turns queueing off, `usize::MAX` is unbounded.
    pub(crate) struct TaskQueue<T> {
        items: VecDeque<T>,
        limit: usize,
    }

    impl<T> TaskQueue<T> {
        pub(crate) const fn new(limit: usize) -> Self {
            TaskQueue {
                items: VecDeque::new(),
                limit,
            }
        }

        pub(crate) fn into_vec(mut self) -> alloc::vec::Vec<T> {
            core::mem::take(&mut self.items).into()
        }
    }

    impl<T: Send + 'static> Backlog<T> for TaskQueue<T> {
        fn push_back(&mut self, task: T) -> Result<(), T> {
            if self.items.len() >= self.limit {
                return Err(task);
            }
            self.items.push_back(task);
            Ok(())
        }

        fn push_front(&mut self, task: T) {
            self.items.push_front(task);
        }

        fn pop_front(&mut self) -> Option<T> {
            self.items.pop_front()
        }

        fn len(&self) -> usize {
            self.items.len()
        }

        fn is_full(&self) -> bool {
            self.items.len() >= self.limit
        }

        fn take(&mut self) -> Self {
            core::mem::replace(self, TaskQueue::new(self.limit))
        }
    }

    impl<T> Drop for TaskQueue<T> {
        fn drop(&mut self) {
            if !self.items.is_empty() {
                // Only reachable when no worker could ever be started to drain the
                // queue and the pool was dropped without `release_drain`.
                #[cfg(feature = "std")]
                log::error!(
                    "antpool: {} queued tasks dropped with their pool: no worker could be started to run them",
                    self.items.len()
                );
            }
        }
    }
}
