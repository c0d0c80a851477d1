//! [`MultiPool`] and [`MultiPoolWithFunc`]: several pools behind one face, to
//! spread the lock over shards when many threads submit at once (ants' `MultiPool`).
//!
//! Both are thin wrappers over `Shards<P>` (`shards.rs`), which holds the pools
//! and does the load balancing and the sums; the two faces differ only in what a
//! task is. This file holds [`LoadBalancing`], the macros that write the faces'
//! struct and shared methods, and [`MultiPool`]; [`MultiPoolWithFunc`] is in
//! `with_func.rs`.

#[cfg(feature = "metrics")]
mod reported;
pub(crate) mod shards;
mod with_func;

use core::fmt;

use crate::builder::PoolBuilder;
use crate::clock::Clock;
use crate::engine::{Engine, Mode};
use crate::error::{BuildError, ReleaseError, SubmitError};
use crate::pool::Pool;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::task::SmallTask;
use crate::task::Task;

use shards::Shards;

pub use with_func::MultiPoolWithFunc;

/// How a multi-pool picks the pool for each task.
///
/// ```
/// use antpool::{LoadBalancing, MultiPool};
/// let mp = MultiPool::new(2, 4, LoadBalancing::LeastTasks).unwrap();
/// mp.submit(|| ()).unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LoadBalancing {
    /// In turn: pool 0, 1, …, n − 1, 0, … (one atomic counter). A task that
    /// finds its pool saturated and may not block (`Overload`) is retried once on
    /// the pool with the fewest running workers.
    RoundRobin,
    /// The pool with the fewest running workers (busy or idle), the first one on
    /// ties.
    LeastTasks,
}

/// Expands to the shared methods of a multi-pool face whose `Shards` are
/// `self.shards`. `mp` is doc-test code for a multi-pool of 2 pools of 3
/// workers, `submit` a statement that submits a trivial task to `mp`.
macro_rules! multi_methods {
    (mp: $mp:literal, submit: $submit:literal $(,)?) => {
        #[doc = "Live workers over all pools, busy or idle."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.running(), 0);\n", $submit, ";\n", "assert_eq!(mp.running(), 1);\n```")]
        pub fn running(&self) -> usize {
            self.shards.sum(Engine::running)
        }

        #[doc = "Free worker slots over all pools; `None` if the pools are unbounded."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.free(), Some(6));\n```")]
        pub fn free(&self) -> Option<usize> {
            self.shards.sum_bounded(Engine::free)
        }

        #[doc = "Blocked submitters over all pools."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.waiting(), 0);\n```")]
        pub fn waiting(&self) -> usize {
            self.shards.sum(Engine::waiting)
        }

        #[doc = "Drops every queued task of every pool (see `Pool::clear_queue`); returns how many."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.clear_queue(), 0);\n```")]
        pub fn clear_queue(&self) -> usize {
            self.shards.engines().map(Engine::clear_queue).sum()
        }

        #[doc = "Queued tasks over all pools (queue mode)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.queued(), 0);\n```")]
        pub fn queued(&self) -> usize {
            self.shards.sum(Engine::queued)
        }

        #[doc = "The capacity over all pools; `None` if the pools are unbounded."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.cap(), Some(6));\n```")]
        pub fn cap(&self) -> Option<usize> {
            self.shards.sum_bounded(Engine::cap)
        }

        #[doc = "How many pools there are."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.len(), 2);\n```")]
        #[allow(clippy::len_without_is_empty)] // never empty: 0 pools is a BuildError
        pub fn len(&self) -> usize {
            self.shards.len()
        }

        #[doc = "Live workers of pool `index`; `None` for a bad index."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.running_by_index(1), Some(0));\n", "assert_eq!(mp.running_by_index(2), None);\n```")]
        pub fn running_by_index(&self, index: usize) -> Option<usize> {
            self.shards.by_index(index, Engine::running)
        }

        #[doc = "Free slots of pool `index`; `None` for a bad index or an unbounded pool."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.free_by_index(0), Some(3));\n", "assert_eq!(mp.free_by_index(9), None);\n```")]
        pub fn free_by_index(&self, index: usize) -> Option<usize> {
            self.shards.by_index(index, Engine::free).flatten()
        }

        #[doc = "Blocked submitters of pool `index`; `None` for a bad index."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert_eq!(mp.waiting_by_index(0), Some(0));\n", "assert_eq!(mp.waiting_by_index(2), None);\n```")]
        pub fn waiting_by_index(&self, index: usize) -> Option<usize> {
            self.shards.by_index(index, Engine::waiting)
        }

        #[doc = "The counters summed over all pools; see [`Stats`](crate::Stats)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", $submit, ";\n", "mp.wait_idle();\n", "assert_eq!(mp.stats().completed, 1);\n```")]
        pub fn stats(&self) -> crate::stats::Stats {
            self.shards.stats()
        }

        #[doc = "The timing histograms summed over all pools (feature `timings`); see"]
        #[doc = "[`Timings`](crate::Timings). Each pool times as its builder's"]
        #[doc = "`timings(..)` said."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", $submit, ";\n", "mp.wait_idle();\n", "assert_eq!(mp.timings().run.count, 0); // Sampling::Off\n```")]
        #[cfg(feature = "timings")]
        pub fn timings(&self) -> crate::timings::Timings {
            self.shards.timings()
        }

        #[doc = "Sets each pool's capacity to `capacity` (so the total becomes `len() * capacity`)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "mp.tune(5);\n", "assert_eq!(mp.cap(), Some(10));\n```")]
        pub fn tune(&self, capacity: usize) {
            self.shards.tune(capacity)
        }

        #[doc = "Pauses every pool (see [`Pool::pause`](crate::Pool::pause)) and blocks"]
        #[doc = "until no task runs in any: all pause first, then the wait."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "mp.pause();\n", "assert!(mp.is_paused());\n", "mp.resume();\n", $submit, ";\n", "mp.wait_idle();\n```")]
        pub fn pause(&self) {
            self.shards.pause(None);
        }

        #[doc = "Like `pause`, but waits at most `timeout` (over all pools): `true` once"]
        #[doc = "no task runs in any paused pool; see [`Pool::pause_timeout`](crate::Pool::pause_timeout)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert!(mp.pause_timeout(std::time::Duration::from_secs(5)));\n```")]
        pub fn pause_timeout(&self, timeout: core::time::Duration) -> bool {
            self.shards.pause(Some(timeout))
        }

        #[doc = "Resumes every pool (see [`Pool::resume`](crate::Pool::resume))."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "mp.pause();\n", "mp.resume();\n", "assert!(!mp.is_paused());\n```")]
        pub fn resume(&self) {
            self.shards.resume()
        }

        #[doc = "Whether the multi-pool is paused (every pool is)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert!(!mp.is_paused());\n", "mp.pause();\n", "assert!(mp.is_paused());\n```")]
        pub fn is_paused(&self) -> bool {
            self.shards.is_paused()
        }

        #[doc = "Whether the multi-pool is released."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "mp.release();\n", "assert!(mp.is_closed());\n```")]
        pub fn is_closed(&self) -> bool {
            self.shards.is_closed()
        }

        #[doc = "Releases every pool (see [`Pool::release`](crate::Pool::release)); does not wait."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "mp.release();\n", "assert!(mp.is_closed());\n```")]
        pub fn release(&self) {
            self.shards.release()
        }

        #[doc = "Releases every pool and waits up to `timeout` for all their workers"]
        #[doc = "to exit, the pools together (about `timeout` in all, not per pool)."]
        #[doc = "[`ReleaseError::Closed`](crate::ReleaseError::Closed) if already released;"]
        #[doc = "[`ReleaseError::Pools`](crate::ReleaseError::Pools) lists every pool"]
        #[doc = "that did not finish in time, by index."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`ReleaseError::Closed`](crate::ReleaseError::Closed) if already released;"]
        #[doc = "[`ReleaseError::Pools`](crate::ReleaseError::Pools) with each pool that did not finish in"]
        #[doc = "time, by index and with its own error."]
        #[doc = ""]
        #[doc = concat!("```\n", "use std::time::Duration;\n", "let mp = ", $mp, ";\n", $submit, ";\n", "mp.release_timeout(Duration::from_secs(5)).unwrap();\n", "assert_eq!(mp.running(), 0);\n", "assert_eq!(mp.release_timeout(Duration::from_secs(1)), Err(antpool::ReleaseError::Closed));\n```")]
        pub fn release_timeout(&self, timeout: core::time::Duration) -> Result<(), ReleaseError> {
            self.shards.release_timeout(timeout)
        }

        #[doc = "Releases every pool **now** (before this returns, as `release` does) and"]
        #[doc = "returns a future that waits for all their workers to exit, the pools"]
        #[doc = "together, without holding a thread; see"]
        #[doc = "[`Pool::release_async`](crate::Pool::release_async). Dropping it abandons the"]
        #[doc = "wait only: the pools stay closed."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`ReleaseError::Closed`](crate::ReleaseError::Closed) at the first poll if the"]
        #[doc = "multi-pool was already released; [`ReleaseError::Pools`](crate::ReleaseError::Pools)"]
        #[doc = "with each pool whose wait failed, by index and with its own error (such as"]
        #[doc = "[`ReleaseError::Reopened`](crate::ReleaseError::Reopened) after a `reboot`)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", $submit, ";\n", "let release = mp.release_async();\n", "assert!(mp.is_closed());\n", "futures_executor::block_on(release).unwrap();\n", "assert_eq!(mp.running(), 0);\n```")]
        pub fn release_async(&self) -> crate::release::Release<'_> {
            crate::release::Release::new(crate::release::Wait::All(self.shards.release_async()))
        }

        #[doc = "Waits, without holding a thread, until every pool is released and all"]
        #[doc = "their workers have exited (on an open multi-pool: for a release first);"]
        #[doc = "see [`Pool::wait_released_async`](crate::Pool::wait_released_async)."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`ReleaseError::Pools`](crate::ReleaseError::Pools) with each pool whose wait"]
        #[doc = "failed ([`ReleaseError::Reopened`](crate::ReleaseError::Reopened) after a `reboot`)."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", $submit, ";\n", "drop(mp.release_async());\n", "futures_executor::block_on(mp.wait_released_async()).unwrap();\n", "assert_eq!(mp.running(), 0);\n```")]
        pub fn wait_released_async(&self) -> crate::release::Released<'_> {
            crate::release::Released::new(crate::release::Wait::All(
                self.shards.wait_released_async(),
            ))
        }

        #[doc = "Blocks until every pool is released and all their workers have exited,"]
        #[doc = "for at most `timeout` over all pools: `true` if so, `false` if the time"]
        #[doc = "ran out or a `reboot` came first; see"]
        #[doc = "[`Pool::wait_released_timeout`](crate::Pool::wait_released_timeout)."]
        #[doc = ""]
        #[doc = concat!("```\n", "use std::time::Duration;\n", "let mp = ", $mp, ";\n", $submit, ";\n", "mp.release();\n", "assert!(mp.wait_released_timeout(Duration::from_secs(5)));\n", "assert_eq!(mp.running(), 0);\n```")]
        pub fn wait_released_timeout(&self, timeout: core::time::Duration) -> bool {
            self.shards.wait_released_timeout(timeout)
        }

        #[doc = "Reopens every pool; round robin starts again at pool 0. A release"]
        #[doc = "still waiting for the workers ends with"]
        #[doc = "[`ReleaseError::Reopened`](crate::ReleaseError::Reopened) for each pool."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "mp.release();\n", "mp.reboot();\n", "assert!(!mp.is_closed());\n", $submit, ";\n```")]
        pub fn reboot(&self) {
            self.shards.reboot()
        }

        #[doc = "Blocks until no pool has a task running, queued or waiting."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", $submit, ";\n", "mp.wait_idle();\n", "assert_eq!(mp.stats().completed, 1);\n```")]
        pub fn wait_idle(&self) {
            self.shards.wait_idle(None);
        }

        #[doc = "Like `wait_idle`, but gives up after `timeout` (over all pools);"]
        #[doc = "`false` if the time ran out."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", "assert!(mp.wait_idle_timeout(std::time::Duration::from_secs(1)));\n```")]
        pub fn wait_idle_timeout(&self, timeout: core::time::Duration) -> bool {
            self.shards.wait_idle(Some(timeout))
        }

        #[doc = "`wait_idle` for async code: resolves once no pool has a task running,"]
        #[doc = "queued or waiting, without blocking a thread."]
        #[doc = ""]
        #[doc = concat!("```\n", "let mp = ", $mp, ";\n", $submit, ";\n", "futures_executor::block_on(mp.wait_idle_async());\n", "assert_eq!(mp.stats().completed, 1);\n```")]
        pub fn wait_idle_async(&self) -> impl core::future::Future<Output = ()> + Send + '_ {
            self.shards.wait_idle_async()
        }
    };
}

macro_rules! multi_struct {
    (
        $(#[$doc:meta])* $name:ident < $($param:ident),* > => $pool:ty;
        where ($($bounds:tt)*); $($defaults:tt)*
    ) => {
        $(#[$doc])*
        pub struct $name<$($param,)* $($defaults)*>
        where
            $($bounds)*
            Q: WorkerQueue,
            C: Clock,
            S: Spawner,
        {
            pub(crate) shards: Shards<$pool>,
        }
    };
}

// For `with_func.rs`, which writes `MultiPoolWithFunc` with them.
use {multi_methods, multi_struct};

#[cfg(feature = "std")]
multi_struct!(
    /// `n` [`Pool`]s of the same capacity and options behind one face: a task
    /// goes to one of them by [`LoadBalancing`]. Counts are sums over the pools.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool};
    /// use std::time::Duration;
    ///
    /// let mp = MultiPool::new(4, 10, LoadBalancing::RoundRobin).unwrap(); // 4 pools of 10
    /// for _ in 0..100 {
    ///     mp.submit(|| ()).unwrap();
    /// }
    /// assert_eq!(mp.cap(), Some(40));
    /// mp.release_timeout(Duration::from_secs(5)).unwrap();
    /// ```
    MultiPool<> => Pool<Q, C, S>; where (); Q = crate::queue::IdleQueue, C = crate::os::clock::StdClock, S = crate::os::spawner::StdSpawner
);
#[cfg(not(feature = "std"))]
multi_struct!(
    /// `n` [`Pool`]s of the same capacity and options behind one face: a task
    /// goes to one of them by [`LoadBalancing`]. Counts are sums over the pools.
    MultiPool<> => Pool<Q, C, S>; where (); Q, C, S
);

#[cfg(feature = "std")]
impl MultiPool {
    /// `n` pools of `capacity` workers each, with the default options.
    /// `n == 0` is [`BuildError::InvalidMultiPoolSize`]; `capacity == 0` is
    /// [`BuildError::InvalidCapacity`].
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for `n` = 0, and the errors of [`Pool::new`]
    /// for `capacity`.
    ///
    /// ```
    /// use antpool::{BuildError, LoadBalancing, MultiPool};
    /// assert_eq!(MultiPool::new(2, 3, LoadBalancing::RoundRobin).unwrap().cap(), Some(6));
    /// assert_eq!(MultiPool::new(0, 3, LoadBalancing::RoundRobin).unwrap_err(), BuildError::InvalidMultiPoolSize);
    /// ```
    pub fn new(n: usize, capacity: usize, balancing: LoadBalancing) -> Result<Self, BuildError> {
        Self::from_builder(n, balancing, Pool::builder().capacity(capacity))
    }
}

impl<Q: WorkerQueue, C: Clock + Clone, S: Spawner + Clone> MultiPool<Q, C, S> {
    /// `n` pools, each built from a copy of `builder` (every option, clock and
    /// spawner shared by value).
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for `n` = 0, and what the builder's `build`
    /// reports (see [`PoolBuilder::build`](crate::PoolBuilder::build)).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool, Pool};
    /// let builder = Pool::builder().capacity(2).nonblocking(true).thread_name("shard");
    /// let mp = MultiPool::from_builder(3, LoadBalancing::LeastTasks, builder).unwrap();
    /// assert_eq!(mp.cap(), Some(6));
    /// ```
    pub fn from_builder(
        n: usize,
        balancing: LoadBalancing,
        builder: PoolBuilder<Q, C, S>,
    ) -> Result<Self, BuildError> {
        let shards = Shards::build(n, balancing, || builder.clone().build())?;
        Ok(MultiPool { shards })
    }

    /// Runs `task` on one of the pools (see [`LoadBalancing`]), like
    /// [`Pool::submit`].
    ///
    /// # Errors
    ///
    /// The task comes back inside the error, untouched: [`SubmitError::Overload`] when
    /// the pool is saturated and may not block (`nonblocking`, or `max_blocking_tasks`
    /// callers already waiting); [`SubmitError::Closed`] when the pool is released (also
    /// while the call waits); [`SubmitError::SpawnFailed`] when a new worker was needed
    /// and the platform could not start a thread (the pool's counts are as before the
    /// call).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool};
    /// let mp = MultiPool::new(2, 2, LoadBalancing::RoundRobin).unwrap();
    /// mp.submit(|| println!("hello")).unwrap();
    /// ```
    pub fn submit<F>(&self, task: F) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.submit_in(task, Mode::Block, Priority::Normal)
    }

    /// [`submit`](MultiPool::submit) in `mode` at `priority` (see
    /// `Pool::submit_in`).
    pub(crate) fn submit_in<F>(
        &self,
        task: F,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.shards
            .submit(SmallTask::new(task), mode, priority)
            .map_err(|e| e.map(SmallTask::into_box))
    }

    /// Like [`submit`](MultiPool::submit), but never blocks.
    ///
    /// # Errors
    ///
    /// The task comes back inside the error, untouched: [`SubmitError::Overload`] when no
    /// worker is free at once (it never blocks); [`SubmitError::Closed`] when the pool is
    /// released (also while the call waits); [`SubmitError::SpawnFailed`] when a new
    /// worker was needed and the platform could not start a thread (the pool's counts are
    /// as before the call).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool};
    /// let mp = MultiPool::new(2, 2, LoadBalancing::RoundRobin).unwrap();
    /// mp.try_submit(|| ()).unwrap();
    /// ```
    pub fn try_submit<F>(&self, task: F) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.submit_in(task, Mode::Try, Priority::Normal)
    }

    /// Runs `f` on one of the pools and returns a handle to its result; see
    /// [`Pool::spawn`].
    ///
    /// # Errors
    ///
    /// The closure `f` comes back inside the error, untouched: [`SubmitError::Overload`]
    /// when the pool is saturated and may not block (`nonblocking`, or
    /// `max_blocking_tasks` callers already waiting); [`SubmitError::Closed`] when the
    /// pool is released (also while the call waits); [`SubmitError::SpawnFailed`] when a
    /// new worker was needed and the platform could not start a thread (the pool's counts
    /// are as before the call).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool};
    /// let mp = MultiPool::new(2, 2, LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.spawn(|| 2 + 2).unwrap().join().unwrap(), 4);
    /// ```
    ///
    /// A rejected `f` comes back in the error as it was given.
    #[cfg(feature = "std")]
    pub fn spawn<F, R>(
        &self,
        f: F,
    ) -> Result<crate::join::handle::JoinHandle<R>, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_in(f, Mode::Block, Priority::Normal)
    }

    /// [`spawn`](MultiPool::spawn) in `mode` at `priority`.
    #[cfg(feature = "std")]
    pub(crate) fn spawn_in<F, R>(
        &self,
        f: F,
        mode: Mode,
        priority: Priority,
    ) -> Result<crate::join::handle::JoinHandle<R>, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        crate::join::handle::spawn_with(f, |job| self.shards.submit(job, mode, priority))
    }

    /// [`submit`](MultiPool::submit) for async code: waits for room on the
    /// pool the load-balancing rule picks, without blocking a thread, in that
    /// pool's one line with its blocking submitters; see
    /// [`Pool::submit_async`](crate::Pool::submit_async), whose contract it
    /// keeps (a `'static + Send` future; dropped before the pool took the
    /// task, it withdraws it).
    ///
    /// # Errors
    ///
    /// As for [`submit`](MultiPool::submit): the task comes back inside the
    /// error, untouched.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool};
    /// let mp = MultiPool::new(2, 1, LoadBalancing::RoundRobin).unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// futures_executor::block_on(async {
    ///     for i in 0..10 {
    ///         let tx = tx.clone();
    ///         mp.submit_async(move || tx.send(i).unwrap()).await.unwrap();
    ///     }
    /// });
    /// drop(tx);
    /// assert_eq!(rx.iter().sum::<i32>(), 45);
    /// ```
    pub fn submit_async<F>(
        &self,
        task: F,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<Task>>>
    + Send
    + 'static
    + use<F, Q, C, S>
    where
        F: FnOnce() + Send + 'static,
    {
        self.submit_async_at(task, Priority::Normal)
    }

    /// [`submit_async`](MultiPool::submit_async) at `priority`.
    pub(crate) fn submit_async_at<F>(
        &self,
        task: F,
        priority: Priority,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<Task>>>
    + Send
    + 'static
    + use<F, Q, C, S>
    where
        F: FnOnce() + Send + 'static,
    {
        let admit = self
            .shards
            .submit_async(SmallTask::new(task), true, priority);
        async move { admit.await.map_err(|e| e.map(SmallTask::into_box)) }
    }

    /// [`spawn`](MultiPool::spawn) for async code: waits for room as
    /// [`submit_async`](MultiPool::submit_async) does, then for the result,
    /// in one `.await`; see [`Pool::spawn_async`](crate::Pool::spawn_async).
    ///
    /// # Errors
    ///
    /// As for [`Pool::spawn_async`](crate::Pool::spawn_async): the closure
    /// comes back untouched if refused.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool};
    /// let mp = MultiPool::new(2, 1, LoadBalancing::LeastTasks).unwrap();
    /// let n = futures_executor::block_on(mp.spawn_async(|| 6 * 7));
    /// assert_eq!(n.unwrap(), 42);
    /// ```
    #[cfg(feature = "std")]
    pub fn spawn_async<F, R>(&self, f: F) -> crate::join::spawn_async::SpawnAsync<F, R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_async_at(f, Priority::Normal)
    }

    /// [`spawn_async`](MultiPool::spawn_async) at `priority`.
    #[cfg(feature = "std")]
    pub(crate) fn spawn_async_at<F, R>(
        &self,
        f: F,
        priority: Priority,
    ) -> crate::join::spawn_async::SpawnAsync<F, R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (handle, task) = crate::join::handle::spawned(f);
        let admit = self.shards.submit_async(task, false, priority);
        crate::join::spawn_async::SpawnAsync::new(alloc::boxed::Box::pin(admit), handle)
    }

    multi_methods! {
        mp: "antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap()",
        submit: "mp.submit(|| ()).unwrap()",
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> fmt::Debug for MultiPool<Q, C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MultiPool")
            .field("pools", &self.shards.len())
            .field("balancing", &self.shards.balancing())
            .field("stats", &self.shards.stats())
            .finish()
    }
}
