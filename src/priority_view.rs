//! Submitting at a [`Priority`]: `with_priority` on every pool, and the
//! [`Prioritized`] view's submit methods — each submits at the view's level
//! with the pool's own signature, errors and semantics; and a task group's
//! view, [`PrioritizedGroup`] (`std`). [`Priority`]'s docs show how to have a
//! batch start in level order (`pause`, submit, `resume`) and where each
//! level's queue wait is read (`Timings::queue_wait_at`).

use core::time::Duration;

use crate::clock::Clock;
use crate::engine::Mode;
use crate::error::SubmitError;
use crate::exec::WorkFn;
#[cfg(feature = "alloc")]
use crate::kind::Closures;
use crate::kind::sealed::{Storage, StorageReach};
use crate::kind::{Calls, Kind};
use crate::pool::PoolOf;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

/// A pool seen through one [`Priority`]: its submit methods submit at that
/// level (`pool.with_priority(Priority::High).submit(f)`), with the pool's
/// own signatures, errors and semantics. `Copy`: make one per call or keep it.
///
/// ```
/// use antpool::{Pool, Priority};
/// let pool = Pool::builder().capacity(2).priorities(true).build().unwrap();
/// let urgent = pool.with_priority(Priority::High);
/// urgent.submit(|| println!("first in line")).unwrap();
/// assert_eq!(urgent.priority(), Priority::High);
/// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
/// ```
#[derive(Debug)]
pub struct Prioritized<'a, P: ?Sized> {
    pub(crate) pool: &'a P,
    pub(crate) priority: Priority,
}

impl<P: ?Sized> Clone for Prioritized<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ?Sized> Copy for Prioritized<'_, P> {}

impl<'a, P: ?Sized> Prioritized<'a, P> {
    pub(crate) fn new(pool: &'a P, priority: Priority) -> Self {
        Prioritized { pool, priority }
    }

    /// The level this view submits at.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// assert_eq!(pool.with_priority(antpool::Priority::Low).priority(), antpool::Priority::Low);
    /// ```
    #[must_use]
    pub fn priority(&self) -> Priority {
        self.priority
    }
}

impl<K: Kind> PoolOf<K> {
    /// This pool seen through `priority`: the view's submit methods submit at
    /// that level (a pool built without `priorities(true)` maps every level
    /// to its one queue and line, so the view works on any pool). A static
    /// pool's queue is one ring (no heap for three), so there levels order
    /// its blocked submitters (and, with `reserve_for_high`, what it admits),
    /// not its queued tasks.
    ///
    /// ```
    /// use antpool::Priority;
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// let high = pool.with_priority(Priority::High);
    /// assert_eq!(high.priority(), Priority::High);
    /// high.submit(|| ()).unwrap();
    /// ```
    #[must_use]
    pub fn with_priority(&self, priority: Priority) -> Prioritized<'_, Self> {
        Prioritized::new(self, priority)
    }
}

#[cfg(feature = "alloc")]
impl<'a, Q: WorkerQueue, C: Clock, S: Spawner> Prioritized<'a, PoolOf<Closures<Q, C, S>>> {
    /// [`submit`](crate::Pool::submit) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `submit`: the task comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// pool.with_priority(antpool::Priority::High).submit(|| ()).unwrap();
    /// ```
    pub fn submit<T>(&self, task: T) -> Result<(), SubmitError<crate::task::Task>>
    where
        T: FnOnce() + Send + 'static,
    {
        self.pool.submit_at(task, Mode::Block, self.priority)
    }

    /// [`try_submit`](crate::Pool::try_submit) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `try_submit`: the task comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// pool.with_priority(antpool::Priority::Low).try_submit(|| ()).unwrap();
    /// ```
    pub fn try_submit<T>(&self, task: T) -> Result<(), SubmitError<crate::task::Task>>
    where
        T: FnOnce() + Send + 'static,
    {
        self.pool.submit_at(task, Mode::Try, self.priority)
    }

    /// [`submit_timeout`](crate::Pool::submit_timeout) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `submit_timeout`: the task comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// let d = std::time::Duration::from_secs(1);
    /// pool.with_priority(antpool::Priority::High).submit_timeout(|| (), d).unwrap();
    /// ```
    pub fn submit_timeout<T>(
        &self,
        task: T,
        timeout: Duration,
    ) -> Result<(), SubmitError<crate::task::Task>>
    where
        T: FnOnce() + Send + 'static,
    {
        self.pool
            .submit_at(task, Mode::Within(timeout), self.priority)
    }

    /// [`submit_async`](crate::Pool::submit_async) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `submit_async`: the task comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// let done = pool.with_priority(antpool::Priority::High).submit_async(|| ());
    /// futures_executor::block_on(done).unwrap();
    /// ```
    pub fn submit_async<T>(
        &self,
        task: T,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<crate::task::Task>>>
    + Send
    + 'static
    + use<T, Q, C, S>
    where
        T: FnOnce() + Send + 'static,
    {
        self.pool.submit_async_at(task, self.priority)
    }
}

impl<'a, A, F, Q, C, S, H> Prioritized<'a, PoolOf<Calls<A, F, Q, C, S, H>>>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: Storage,
    H: StorageReach<'a>,
{
    /// [`invoke`](crate::PoolWithFunc::invoke) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `invoke`: the argument comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |n: u8| drop(n)).unwrap();
    /// pool.with_priority(antpool::Priority::High).invoke(1).unwrap();
    /// ```
    pub fn invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.pool.invoke_at(arg, Mode::Block, self.priority)
    }

    /// [`try_invoke`](crate::PoolWithFunc::try_invoke) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `try_invoke`: the argument comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |n: u8| drop(n)).unwrap();
    /// pool.with_priority(antpool::Priority::Low).try_invoke(1).unwrap();
    /// ```
    pub fn try_invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.pool.invoke_at(arg, Mode::Try, self.priority)
    }

    /// [`invoke_timeout`](crate::PoolWithFunc::invoke_timeout) at the view's
    /// level.
    ///
    /// # Errors
    ///
    /// As for `invoke_timeout`: the argument comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |n: u8| drop(n)).unwrap();
    /// let d = std::time::Duration::from_secs(1);
    /// pool.with_priority(antpool::Priority::High).invoke_timeout(1, d).unwrap();
    /// ```
    pub fn invoke_timeout(&self, arg: A, timeout: Duration) -> Result<(), SubmitError<A>> {
        self.pool
            .invoke_at(arg, Mode::Within(timeout), self.priority)
    }

    /// [`invoke_async`](crate::PoolWithFunc::invoke_async) at the view's
    /// level.
    ///
    /// # Errors
    ///
    /// As for `invoke_async`: the argument comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |n: u8| drop(n)).unwrap();
    /// futures_executor::block_on(pool.with_priority(antpool::Priority::Low).invoke_async(1)).unwrap();
    /// ```
    pub fn invoke_async(
        &self,
        arg: A,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<'a, A, F, Q, C, S, H> {
        self.pool.invoke_async_at(arg, self.priority)
    }
}
