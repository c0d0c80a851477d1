//! [`MultiPoolWithFunc`]: `n` [`PoolWithFunc`]s running the same function
//! behind one face, each argument going to one of them by [`LoadBalancing`]
//! (ants' `MultiPoolWithFunc`). Like [`MultiPool`](super::MultiPool), a thin
//! wrapper over `Shards<P>` (`shards.rs`), written by the same macros
//! (`mod.rs`).

use core::fmt;

use crate::builder::PoolWithFuncBuilder;
use crate::clock::Clock;
use crate::engine::{Engine, Mode};
use crate::error::{BuildError, ReleaseError, SubmitError};
use crate::exec::{Call, WorkFn};
use crate::func::PoolWithFunc;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

use super::shards::Shards;
use super::{LoadBalancing, multi_methods, multi_struct};

#[cfg(feature = "std")]
multi_struct!(
    /// `n` [`PoolWithFunc`]s running the same function behind one face: each
    /// argument goes to one of them by [`LoadBalancing`].
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Arc;
    ///
    /// let total = Arc::new(AtomicU64::new(0));
    /// let t = total.clone();
    /// let mf = MultiPoolWithFunc::new(4, 10, LoadBalancing::LeastTasks, move |n: u64| {
    ///     t.fetch_add(n, Ordering::Relaxed);
    /// })
    /// .unwrap();
    /// for n in 1..=100 {
    ///     mf.invoke(n).unwrap();
    /// }
    /// mf.wait_idle();
    /// assert_eq!(total.load(Ordering::Relaxed), 5050);
    /// ```
    MultiPoolWithFunc<A, F> => PoolWithFunc<A, F, Q, C, S>;
    where (A: Send + 'static, F: WorkFn<A>,); Q = crate::queue::IdleQueue, C = crate::os::clock::StdClock, S = crate::os::spawner::StdSpawner
);
#[cfg(not(feature = "std"))]
multi_struct!(
    /// `n` [`PoolWithFunc`]s running the same function behind one face: each
    /// argument goes to one of them by [`LoadBalancing`].
    MultiPoolWithFunc<A, F> => PoolWithFunc<A, F, Q, C, S>;
    where (A: Send + 'static, F: WorkFn<A>,); Q, C, S
);

#[cfg(feature = "std")]
impl<A: Send + 'static, F: WorkFn<A> + Clone> MultiPoolWithFunc<A, F> {
    /// `n` pools of `capacity` workers each running a copy of `func` (wrap shared
    /// state in an `Arc`), with the default options.
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for `n` = 0, and the errors of
    /// [`PoolWithFunc::new`] for `capacity`.
    ///
    /// ```
    /// use antpool::{BuildError, LoadBalancing, MultiPoolWithFunc};
    /// let mf = MultiPoolWithFunc::new(2, 3, LoadBalancing::RoundRobin, |n: u8| drop(n)).unwrap();
    /// assert_eq!(mf.cap(), Some(6));
    /// let none = MultiPoolWithFunc::new(0, 3, LoadBalancing::RoundRobin, |n: u8| drop(n));
    /// assert_eq!(none.unwrap_err(), BuildError::InvalidMultiPoolSize);
    /// ```
    pub fn new(
        n: usize,
        capacity: usize,
        balancing: LoadBalancing,
        func: F,
    ) -> Result<Self, BuildError> {
        Self::from_builder(n, balancing, PoolWithFunc::builder(func).capacity(capacity))
    }
}

impl<A, F, Q, C, S> MultiPoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A> + Clone,
    Q: WorkerQueue,
    C: Clock + Clone,
    S: Spawner + Clone,
{
    /// `n` pools, each built from a copy of `builder`.
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for `n` = 0, and what the builder's `build`
    /// reports (see [`PoolBuilder::build`](crate::PoolBuilder::build)).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc, PoolWithFunc};
    /// let builder = PoolWithFunc::builder(|n: u32| drop(n)).capacity(2).max_queued_tasks(16);
    /// let mf = MultiPoolWithFunc::from_builder(2, LoadBalancing::RoundRobin, builder).unwrap();
    /// mf.invoke(1).unwrap();
    /// ```
    pub fn from_builder(
        n: usize,
        balancing: LoadBalancing,
        builder: PoolWithFuncBuilder<A, F, Q, C, S>,
    ) -> Result<Self, BuildError> {
        let shards = Shards::build(n, balancing, || builder.clone().build())?;
        Ok(MultiPoolWithFunc { shards })
    }
}

impl<A, F, Q, C, S> MultiPoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    /// Runs the function on `arg` in one of the pools; see
    /// [`PoolWithFunc::invoke`].
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched: [`SubmitError::Overload`]
    /// when the pool is saturated and may not block (`nonblocking`, or
    /// `max_blocking_tasks` callers already waiting); [`SubmitError::Closed`] when the
    /// pool is released (also while the call waits); [`SubmitError::SpawnFailed`] when a
    /// new worker was needed and the platform could not start a thread (the pool's counts
    /// are as before the call).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::RoundRobin, |n: u32| assert!(n < 5)).unwrap();
    /// mf.invoke(3).unwrap();
    /// ```
    pub fn invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.invoke_in(arg, Mode::Block, Priority::Normal)
    }

    /// [`invoke`](MultiPoolWithFunc::invoke) for async code: waits for room on
    /// the pool the load-balancing rule picks without blocking a thread; see
    /// [`PoolWithFunc::invoke_async`](crate::PoolWithFunc::invoke_async).
    ///
    /// # Errors
    ///
    /// As for [`invoke`](MultiPoolWithFunc::invoke): the argument comes back
    /// inside the error, untouched.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
    /// static SUM: AtomicU32 = AtomicU32::new(0);
    /// let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::RoundRobin, |n: u32| {
    ///     SUM.fetch_add(n, Relaxed);
    /// })
    /// .unwrap();
    /// futures_executor::block_on(async {
    ///     for n in 1..=10 {
    ///         mf.invoke_async(n).await.unwrap();
    ///     }
    ///     mf.wait_idle_async().await;
    /// });
    /// assert_eq!(SUM.load(Relaxed), 55);
    /// ```
    pub fn invoke_async(
        &self,
        arg: A,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<A, F, Q, C, S> {
        self.invoke_async_at(arg, Priority::Normal)
    }

    /// [`invoke_async`](MultiPoolWithFunc::invoke_async) at `priority`.
    pub(crate) fn invoke_async_at(
        &self,
        arg: A,
        priority: Priority,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<A, F, Q, C, S> {
        let admit = self.shards.submit_async(Call::new(arg), true, priority);
        async move { admit.await.map_err(|e| e.map(Call::into_arg)) }
    }

    /// [`invoke`](MultiPoolWithFunc::invoke) in `mode` at `priority` (see
    /// `Pool::submit_in`).
    pub(crate) fn invoke_in(
        &self,
        arg: A,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<A>> {
        self.shards
            .submit(Call::new(arg), mode, priority)
            .map_err(|e| e.map(Call::into_arg))
    }

    /// Like [`invoke`](MultiPoolWithFunc::invoke), but never blocks.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched: [`SubmitError::Overload`]
    /// when no worker is free at once (it never blocks); [`SubmitError::Closed`] when the
    /// pool is released (also while the call waits); [`SubmitError::SpawnFailed`] when a
    /// new worker was needed and the platform could not start a thread (the pool's counts
    /// are as before the call).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::RoundRobin, |n: u32| drop(n)).unwrap();
    /// mf.try_invoke(3).unwrap();
    /// ```
    pub fn try_invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.invoke_in(arg, Mode::Try, Priority::Normal)
    }

    /// Runs the function on `arg` in one of the pools and returns a handle to its
    /// result; see [`PoolWithFunc::call`].
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched: [`SubmitError::Overload`]
    /// when the pool is saturated and may not block (`nonblocking`, or
    /// `max_blocking_tasks` callers already waiting); [`SubmitError::Closed`] when the
    /// pool is released (also while the call waits); [`SubmitError::SpawnFailed`] when a
    /// new worker was needed and the platform could not start a thread (the pool's counts
    /// are as before the call).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::LeastTasks, |n: u32| n + 1).unwrap();
    /// assert_eq!(mf.call(41).unwrap().join().unwrap(), 42);
    /// ```
    #[cfg(feature = "std")]
    pub fn call(
        &self,
        arg: A,
    ) -> Result<crate::join::handle::JoinHandle<F::Output>, SubmitError<A>> {
        self.call_at(arg, Priority::Normal)
    }

    /// [`call`](MultiPoolWithFunc::call) at `priority`.
    #[cfg(feature = "std")]
    pub(crate) fn call_at(
        &self,
        arg: A,
        priority: Priority,
    ) -> Result<crate::join::handle::JoinHandle<F::Output>, SubmitError<A>> {
        let (handle, reply) = crate::join::handle::pair();
        self.shards
            .submit(Call::with_reply(arg, reply), Mode::Block, priority)
            .map_err(|e| e.map(Call::into_arg))?;
        Ok(handle)
    }

    multi_methods! {
        mp: "antpool::MultiPoolWithFunc::new(2, 3, antpool::LoadBalancing::RoundRobin, |n: u32| drop(n)).unwrap()",
        submit: "mp.invoke(1).unwrap()",
    }
}

impl<A, F, Q, C, S> fmt::Debug for MultiPoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MultiPoolWithFunc")
            .field("pools", &self.shards.len())
            .field("balancing", &self.shards.balancing())
            .field("stats", &self.shards.stats())
            .finish()
    }
}
