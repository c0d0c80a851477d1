//! The submit methods of [`Prioritized`] views, per pool face: each submits
//! at the view's [`Priority`] with the face's own signature, errors and
//! semantics; and the faces' `with_priority`, `queued_at` and
//! `has_priorities`.

use core::time::Duration;

use crate::clock::Clock;
use crate::engine::Mode;
use crate::error::SubmitError;
use crate::exec::WorkFn;
use crate::func::PoolWithFunc;
use crate::multi::{MultiPool, MultiPoolWithFunc};
use crate::pool::Pool;
use crate::priority::{Prioritized, Priority};
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::static_func::StaticPoolWithFunc;
use crate::task::Task;

/// `with_priority`, `queued_at` and `has_priorities` on a face; `$pool` is
/// a doc example's pool, `$submit` a statement that submits one task to it.
macro_rules! level_methods {
    ($pool:literal, $levels:literal) => {
        /// This pool seen through `priority`: the view's submit methods submit
        /// at that level (a pool built without `priorities(true)` maps every
        /// level to its one queue and line, so the view works on any pool).
        ///
        #[doc = concat!("```\nuse antpool::Priority;\nlet pool = ", $levels, ";\n")]
        #[doc = "let high = pool.with_priority(Priority::High);\nassert_eq!(high.priority(), Priority::High);\n```"]
        #[must_use]
        pub fn with_priority(&self, priority: Priority) -> Prioritized<'_, Self> {
            Prioritized::new(self, priority)
        }

        /// Tasks waiting at `level`: in a pool with a queue per level, that
        /// queue's length; otherwise every queued task, whatever its level.
        ///
        #[doc = concat!("```\nuse antpool::Priority;\nlet pool = ", $levels, ";\n")]
        #[doc = "assert_eq!(pool.queued_at(Priority::Low), 0);\n```"]
        #[must_use]
        pub fn queued_at(&self, level: Priority) -> usize {
            self.engine().queued_at(level)
        }

        /// Whether the pool was built with `priorities(true)`: a line (and,
        /// with a heap and a queue, a queue) per level.
        ///
        #[doc = concat!("```\nlet plain = ", $pool, ";\nassert!(!plain.has_priorities());\n")]
        #[doc = concat!("let levels = ", $levels, ";\nassert!(levels.has_priorities());\n```")]
        #[must_use]
        pub fn has_priorities(&self) -> bool {
            self.engine().has_priorities()
        }
    };
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Pool<Q, C, S> {
    level_methods!(
        "antpool::Pool::new(2).unwrap()",
        "antpool::Pool::builder().capacity(2).priorities(true).build().unwrap()"
    );
}

impl<A: Send + 'static, F: WorkFn<A>, Q: WorkerQueue, C: Clock, S: Spawner>
    PoolWithFunc<A, F, Q, C, S>
{
    level_methods!(
        "antpool::PoolWithFunc::new(2, |n: u8| drop(n)).unwrap()",
        "antpool::PoolWithFunc::builder(|n: u8| drop(n)).capacity(2).priorities(true).build().unwrap()"
    );
}

impl<Q: WorkerQueue, C: Clock + Clone, S: Spawner + Clone> MultiPool<Q, C, S> {
    /// This multi-pool seen through `priority`: the view's submits go to the
    /// pool the load balancing picks, at that level there.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool, Pool, Priority};
    /// let builder = Pool::builder().capacity(2).priorities(true);
    /// let mp = MultiPool::from_builder(2, LoadBalancing::RoundRobin, builder).unwrap();
    /// mp.with_priority(Priority::High).submit(|| ()).unwrap();
    /// # mp.release_timeout(std::time::Duration::from_secs(5)).unwrap();
    /// ```
    #[must_use]
    pub fn with_priority(&self, priority: Priority) -> Prioritized<'_, Self> {
        Prioritized::new(self, priority)
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
    /// This multi-pool seen through `priority` (see
    /// [`MultiPool::with_priority`]).
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc, Priority};
    /// let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::RoundRobin, |n: u8| drop(n)).unwrap();
    /// mf.with_priority(Priority::Low).invoke(3).unwrap();
    /// ```
    #[must_use]
    pub fn with_priority(&self, priority: Priority) -> Prioritized<'_, Self> {
        Prioritized::new(self, priority)
    }
}

impl<A: Send + 'static, const N: usize, C: Clock, S: Spawner> StaticPoolWithFunc<A, N, C, S> {
    /// This static pool seen through `priority`. Its queue is one ring (no
    /// heap for three), so levels order its blocked submitters (and, with
    /// `reserve_for_high`, what it admits), not its queued tasks.
    ///
    /// ```
    /// use antpool::{Options, Priority, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 2, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     let options = Options::new().capacity(2).priorities(true);
    ///     StaticPoolWithFunc::new(options, |n| assert!(n < 9), StdClock::new(), StdSpawner::new())
    /// });
    /// POOL.with_priority(Priority::High).invoke(1).unwrap();
    /// assert!(POOL.has_priorities());
    /// ```
    #[must_use]
    pub fn with_priority(&'static self, priority: Priority) -> Prioritized<'static, Self> {
        Prioritized::new(self, priority)
    }

    /// Whether the pool was built with `priorities(true)`.
    ///
    /// ```
    /// use antpool::{Options, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1), drop, StdClock::new(), StdSpawner::new())
    /// });
    /// assert!(!POOL.has_priorities());
    /// ```
    #[must_use]
    pub fn has_priorities(&'static self) -> bool {
        self.engine_ref().has_priorities()
    }
}

/// The submits of a view of a face whose tasks are closures (`Pool`,
/// `MultiPool`).
macro_rules! closure_view {
    ($pool:literal) => {
        /// [`submit`](crate::Pool::submit) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `submit`: the task comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "pool.with_priority(antpool::Priority::High).submit(|| ()).unwrap();\n```"]
        pub fn submit<T>(&self, task: T) -> Result<(), SubmitError<Task>>
        where
            T: FnOnce() + Send + 'static,
        {
            self.pool.submit_in(task, Mode::Block, self.priority)
        }

        /// [`try_submit`](crate::Pool::try_submit) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `try_submit`: the task comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "pool.with_priority(antpool::Priority::Low).try_submit(|| ()).unwrap();\n```"]
        pub fn try_submit<T>(&self, task: T) -> Result<(), SubmitError<Task>>
        where
            T: FnOnce() + Send + 'static,
        {
            self.pool.submit_in(task, Mode::Try, self.priority)
        }

        /// [`submit_timeout`](crate::Pool::submit_timeout) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `submit_timeout`: the task comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\nlet d = std::time::Duration::from_secs(1);\n")]
        #[doc = "pool.with_priority(antpool::Priority::High).submit_timeout(|| (), d).unwrap();\n```"]
        pub fn submit_timeout<T>(&self, task: T, timeout: Duration) -> Result<(), SubmitError<Task>>
        where
            T: FnOnce() + Send + 'static,
        {
            self.pool.submit_in(task, Mode::Within(timeout), self.priority)
        }

        /// [`submit_async`](crate::Pool::submit_async) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `submit_async`: the task comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "let done = pool.with_priority(antpool::Priority::High).submit_async(|| ());\nfutures_executor::block_on(done).unwrap();\n```"]
        pub fn submit_async<T>(
            &self,
            task: T,
        ) -> impl core::future::Future<Output = Result<(), SubmitError<Task>>>
        + Send
        + 'static
        + use<T, Q, C, S>
        where
            T: FnOnce() + Send + 'static,
        {
            self.pool.submit_async_at(task, self.priority)
        }

        /// [`spawn`](crate::Pool::spawn) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `spawn`: the closure comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "let h = pool.with_priority(antpool::Priority::High).spawn(|| 2).unwrap();\nassert_eq!(h.join().unwrap(), 2);\n```"]
        #[cfg(feature = "std")]
        pub fn spawn<T, R>(
            &self,
            f: T,
        ) -> Result<crate::join::handle::JoinHandle<R>, SubmitError<crate::error::Rejected<T>>>
        where
            T: FnOnce() -> R + Send + 'static,
            R: Send + 'static,
        {
            self.pool.spawn_in(f, Mode::Block, self.priority)
        }

        /// [`spawn_timeout`](crate::Pool::spawn_timeout) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `spawn_timeout`: the closure comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\nlet d = std::time::Duration::from_secs(1);\n")]
        #[doc = "let h = pool.with_priority(antpool::Priority::Low).spawn_timeout(|| 3, d).unwrap();\nassert_eq!(h.join().unwrap(), 3);\n```"]
        #[cfg(feature = "std")]
        pub fn spawn_timeout<T, R>(
            &self,
            f: T,
            timeout: Duration,
        ) -> Result<crate::join::handle::JoinHandle<R>, SubmitError<crate::error::Rejected<T>>>
        where
            T: FnOnce() -> R + Send + 'static,
            R: Send + 'static,
        {
            self.pool.spawn_in(f, Mode::Within(timeout), self.priority)
        }

        /// [`spawn_async`](crate::Pool::spawn_async) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `spawn_async`.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "let n = futures_executor::block_on(pool.with_priority(antpool::Priority::High).spawn_async(|| 4));\nassert_eq!(n.unwrap(), 4);\n```"]
        #[cfg(feature = "std")]
        pub fn spawn_async<T, R>(&self, f: T) -> crate::join::spawn_async::SpawnAsync<T, R>
        where
            T: FnOnce() -> R + Send + 'static,
            R: Send + 'static,
        {
            self.pool.spawn_async_at(f, self.priority)
        }
    };
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Prioritized<'_, Pool<Q, C, S>> {
    closure_view!("antpool::Pool::builder().capacity(2).priorities(true).build().unwrap()");
}

impl<Q: WorkerQueue, C: Clock + Clone, S: Spawner + Clone> Prioritized<'_, MultiPool<Q, C, S>> {
    closure_view!("antpool::MultiPool::new(2, 2, antpool::LoadBalancing::RoundRobin).unwrap()");
}

/// The submits of a view of a face that runs one function over arguments.
macro_rules! func_view {
    ($pool:literal) => {
        /// [`invoke`](crate::PoolWithFunc::invoke) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `invoke`: the argument comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "pool.with_priority(antpool::Priority::High).invoke(1).unwrap();\n```"]
        pub fn invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
            self.pool.invoke_in(arg, Mode::Block, self.priority)
        }

        /// [`try_invoke`](crate::PoolWithFunc::try_invoke) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `try_invoke`: the argument comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "pool.with_priority(antpool::Priority::Low).try_invoke(2).unwrap();\n```"]
        pub fn try_invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
            self.pool.invoke_in(arg, Mode::Try, self.priority)
        }

        /// [`invoke_timeout`](crate::PoolWithFunc::invoke_timeout) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `invoke_timeout`: the argument comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\nlet d = std::time::Duration::from_secs(1);\n")]
        #[doc = "pool.with_priority(antpool::Priority::High).invoke_timeout(3, d).unwrap();\n```"]
        pub fn invoke_timeout(&self, arg: A, timeout: Duration) -> Result<(), SubmitError<A>> {
            self.pool.invoke_in(arg, Mode::Within(timeout), self.priority)
        }

        /// [`invoke_async`](crate::PoolWithFunc::invoke_async) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `invoke_async`: the argument comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "futures_executor::block_on(pool.with_priority(antpool::Priority::High).invoke_async(4)).unwrap();\n```"]
        pub fn invoke_async(
            &self,
            arg: A,
        ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>> + Send + 'static + use<A, F, Q, C, S>
        {
            self.pool.invoke_async_at(arg, self.priority)
        }

        /// [`call`](crate::PoolWithFunc::call) at the view's level.
        ///
        /// # Errors
        ///
        /// As for `call`: the argument comes back inside the error.
        ///
        #[doc = concat!("```\nlet pool = ", $pool, ";\n")]
        #[doc = "let h = pool.with_priority(antpool::Priority::High).call(5).unwrap();\nh.join().unwrap();\n```"]
        #[cfg(feature = "std")]
        pub fn call(&self, arg: A) -> Result<crate::join::handle::JoinHandle<F::Output>, SubmitError<A>> {
            self.pool.call_at(arg, self.priority)
        }
    };
}

impl<A, F, Q, C, S> Prioritized<'_, PoolWithFunc<A, F, Q, C, S>>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    func_view!(
        "antpool::PoolWithFunc::builder(|n: u8| drop(n)).capacity(2).priorities(true).build().unwrap()"
    );
}

impl<A, F, Q, C, S> Prioritized<'_, MultiPoolWithFunc<A, F, Q, C, S>>
where
    A: Send + 'static,
    F: WorkFn<A> + Clone,
    Q: WorkerQueue,
    C: Clock + Clone,
    S: Spawner + Clone,
{
    func_view!(
        "antpool::MultiPoolWithFunc::new(2, 1, antpool::LoadBalancing::RoundRobin, |n: u8| drop(n)).unwrap()"
    );
}

impl<A: Send + 'static, const N: usize, C: Clock, S: Spawner>
    Prioritized<'static, StaticPoolWithFunc<A, N, C, S>>
{
    /// [`invoke`](StaticPoolWithFunc::invoke) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `invoke`: the argument comes back inside the error.
    ///
    /// ```
    /// use antpool::{Options, Priority, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1).priorities(true), drop, StdClock::new(), StdSpawner::new())
    /// });
    /// POOL.with_priority(Priority::High).invoke(1).unwrap();
    /// ```
    pub fn invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.pool.invoke_in(arg, Mode::Block, self.priority)
    }

    /// [`try_invoke`](StaticPoolWithFunc::try_invoke) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `try_invoke`: the argument comes back inside the error.
    ///
    /// ```
    /// use antpool::{Options, Priority, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1).priorities(true), drop, StdClock::new(), StdSpawner::new())
    /// });
    /// POOL.with_priority(Priority::Low).try_invoke(1).unwrap();
    /// ```
    pub fn try_invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.pool.invoke_in(arg, Mode::Try, self.priority)
    }

    /// [`invoke_timeout`](StaticPoolWithFunc::invoke_timeout) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `invoke_timeout`: the argument comes back inside the error.
    ///
    /// ```
    /// use antpool::{Options, Priority, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// use std::sync::LazyLock;
    /// use std::time::Duration;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1).priorities(true), drop, StdClock::new(), StdSpawner::new())
    /// });
    /// POOL.with_priority(Priority::High).invoke_timeout(1, Duration::from_secs(1)).unwrap();
    /// ```
    pub fn invoke_timeout(&self, arg: A, timeout: Duration) -> Result<(), SubmitError<A>> {
        self.pool
            .invoke_in(arg, Mode::Within(timeout), self.priority)
    }

    /// [`invoke_async`](StaticPoolWithFunc::invoke_async) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `invoke_async`: the argument comes back inside the error.
    ///
    /// ```
    /// use antpool::{Options, Priority, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1).priorities(true), drop, StdClock::new(), StdSpawner::new())
    /// });
    /// futures_executor::block_on(POOL.with_priority(Priority::High).invoke_async(1)).unwrap();
    /// ```
    pub fn invoke_async(
        &self,
        arg: A,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>> + Send + 'static + use<A, N, C, S>
    {
        self.pool.invoke_async_at(arg, self.priority)
    }
}

/// A [`TaskGroup`](crate::TaskGroup) seen through one [`Priority`]: its spawns
/// submit at that level (made by
/// [`TaskGroup::with_priority`](crate::TaskGroup::with_priority)).
///
/// ```
/// use antpool::{Pool, Priority};
/// let pool = Pool::builder().capacity(2).priorities(true).build().unwrap();
/// let mut group = pool.group::<u8>();
/// group.with_priority(Priority::High).spawn(|| 1).unwrap();
/// assert_eq!(group.join_next().unwrap().unwrap(), 1);
/// ```
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct PrioritizedGroup<'a, T> {
    group: &'a mut crate::group::TaskGroup<T>,
    priority: Priority,
}

#[cfg(feature = "std")]
impl<T: Send + 'static> crate::group::TaskGroup<T> {
    /// This group seen through `priority`: the view's spawns submit at that
    /// level (see [`Pool::with_priority`]).
    ///
    /// ```
    /// use antpool::{Pool, Priority};
    /// let pool = Pool::builder().capacity(1).priorities(true).build().unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.with_priority(Priority::Low).spawn(|| 2).unwrap();
    /// assert_eq!(group.join_all().into_iter().map(Result::unwrap).collect::<Vec<_>>(), [2]);
    /// ```
    #[must_use]
    pub fn with_priority(&mut self, priority: Priority) -> PrioritizedGroup<'_, T> {
        PrioritizedGroup {
            group: self,
            priority,
        }
    }
}

#[cfg(feature = "std")]
impl<T: Send + 'static> PrioritizedGroup<'_, T> {
    /// [`TaskGroup::spawn`](crate::TaskGroup::spawn) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.with_priority(antpool::Priority::High).spawn(|| 3).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 3);
    /// ```
    pub fn spawn<F>(
        &mut self,
        f: F,
    ) -> Result<crate::group::TaskId, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_in(f, Mode::Block, self.priority)
    }

    /// [`TaskGroup::try_spawn`](crate::TaskGroup::try_spawn) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `try_spawn`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.with_priority(antpool::Priority::Low).try_spawn(|| 4).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 4);
    /// ```
    pub fn try_spawn<F>(
        &mut self,
        f: F,
    ) -> Result<crate::group::TaskId, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_in(f, Mode::Try, self.priority)
    }

    /// [`TaskGroup::spawn_timeout`](crate::TaskGroup::spawn_timeout) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn_timeout`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// let d = std::time::Duration::from_secs(1);
    /// group.with_priority(antpool::Priority::High).spawn_timeout(|| 5, d).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 5);
    /// ```
    pub fn spawn_timeout<F>(
        &mut self,
        f: F,
        timeout: Duration,
    ) -> Result<crate::group::TaskId, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_in(f, Mode::Within(timeout), self.priority)
    }

    /// [`TaskGroup::spawn_async`](crate::TaskGroup::spawn_async) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn_async`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// futures_executor::block_on(group.with_priority(antpool::Priority::High).spawn_async(|| 6)).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 6);
    /// ```
    pub fn spawn_async<F>(&mut self, f: F) -> crate::group::GroupSpawnAsync<'_, F, T>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_async_at(f, self.priority)
    }
}
