//! [`MultiPoolOf`]: `n` pools of one kind behind one handle, each task going
//! to one of them by [`LoadBalancing`] — ants' `MultiPool` and
//! `MultiPoolWithFunc`, with exactly what those offer: submit (or invoke),
//! the counts summed and by index, `tune`, `is_closed`, `release_timeout` and
//! `reboot`. Everything else a pool does is on [`PoolOf`]: a multi-pool is
//! for code ported from ants.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::time::Duration;

use crate::sync::{AtomicBool, AtomicUsize, Ordering};

use crate::builder::{PoolBuilder, PoolWithFuncBuilder};
use crate::clock::Clock;
use crate::engine::{Awaited, Engine, Mode};
use crate::error::{BuildError, ReleaseError, SubmitError};
use crate::exec::{Call, WorkFn};
use crate::kind::{Calls, Closures, Kind, Reach, Shared};
use crate::pool::PoolOf;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::task::{SmallTask, Task};

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
    /// finds its pool saturated and may not block (`Overload`) is retried once
    /// on the pool with the fewest running workers.
    RoundRobin,
    /// The pool with the fewest running workers (busy or idle), the first one
    /// on ties.
    LeastTasks,
}

/// `n` pools of kind `K` behind one handle (ants' `MultiPool`): each task
/// goes to one pool, picked by a [`LoadBalancing`] rule; the counts are sums
/// over the pools. Met as [`MultiPool`] and [`MultiPoolWithFunc`].
///
/// ```
/// use antpool::{LoadBalancing, MultiPool};
/// use std::time::Duration;
/// let mp = MultiPool::new(4, 10, LoadBalancing::RoundRobin).unwrap();
/// for _ in 0..8 {
///     mp.submit(|| ()).unwrap();
/// }
/// assert_eq!(mp.cap(), Some(40));
/// mp.release_timeout(Duration::from_secs(5)).unwrap();
/// ```
pub struct MultiPoolOf<K: Kind> {
    pools: Box<[PoolOf<K>]>,
    balancing: LoadBalancing,
    /// The round robin's turn.
    next: AtomicUsize,
    /// Whether the multi-pool is released (and not rebooted).
    closed: AtomicBool,
}

/// `n` [`Pool`](crate::Pool)s behind one handle, by [`LoadBalancing`].
///
/// ```
/// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
/// mp.submit(|| ()).unwrap();
/// ```
#[cfg(feature = "std")]
pub type MultiPool<
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner,
> = MultiPoolOf<Closures<Q, C, S>>;
/// `n` pools of closures behind one handle (see the `std` build's docs).
#[cfg(not(feature = "std"))]
pub type MultiPool<Q, C, S> = MultiPoolOf<Closures<Q, C, S>>;

/// `n` [`PoolWithFunc`](crate::PoolWithFunc)s running the same function
/// behind one handle, by [`LoadBalancing`].
///
/// ```
/// use antpool::{LoadBalancing, MultiPoolWithFunc};
/// let mf = MultiPoolWithFunc::new(2, 3, LoadBalancing::LeastTasks, |n: u64| assert!(n < 9)).unwrap();
/// mf.invoke(4).unwrap();
/// ```
#[cfg(feature = "std")]
pub type MultiPoolWithFunc<
    A,
    F,
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner,
> = MultiPoolOf<Calls<A, F, Q, C, S, Shared>>;
/// `n` pools running one function behind one handle (see the `std` build's
/// docs).
#[cfg(not(feature = "std"))]
pub type MultiPoolWithFunc<A, F, Q, C, S> = MultiPoolOf<Calls<A, F, Q, C, S, Shared>>;

impl<K: Kind> MultiPoolOf<K> {
    /// `n` pools, each made by `make`; 0 is
    /// [`BuildError::InvalidMultiPoolSize`].
    fn build(
        n: usize,
        balancing: LoadBalancing,
        make: impl FnMut() -> Result<PoolOf<K>, BuildError>,
    ) -> Result<Self, BuildError> {
        if n == 0 {
            return Err(BuildError::InvalidMultiPoolSize);
        }
        let pools = core::iter::repeat_with(make)
            .take(n)
            .collect::<Result<Box<[_]>, _>>()?;
        Ok(MultiPoolOf {
            pools,
            balancing,
            next: AtomicUsize::new(0),
            closed: AtomicBool::new(false),
        })
    }

    /// The pool with the fewest running workers, the first on ties.
    fn least(&self) -> usize {
        let mut best = 0;
        let mut fewest = usize::MAX;
        for (i, pool) in self.pools.iter().enumerate() {
            let running = pool.running();
            if running < fewest {
                best = i;
                fewest = running;
            }
        }
        best
    }

    /// The pool the rule picks for the next task.
    fn pick(&self) -> usize {
        match self.balancing {
            LoadBalancing::RoundRobin => {
                self.next.fetch_add(1, Ordering::Relaxed) % self.pools.len()
            }
            LoadBalancing::LeastTasks => self.least(),
        }
    }

    /// Submits `task` to the pool the rule picks; round robin retries an
    /// `Overload` once on the least loaded pool.
    fn place(&self, task: K::Task) -> Result<(), SubmitError<K::Input>>
    where
        K: for<'a> Reach<'a>,
    {
        let submit = |pool: &PoolOf<K>, task| {
            pool.with_ref(|engine| Engine::submit(engine, task, Mode::Block, Priority::Normal))
        };
        if self.closed.load(Ordering::Acquire) {
            return Err(SubmitError::Closed(K::input(task)));
        }
        let result = match submit(&self.pools[self.pick()], task) {
            Err(SubmitError::Overload(task)) if self.balancing == LoadBalancing::RoundRobin => {
                submit(&self.pools[self.least()], task)
            }
            other => other,
        };
        result.map_err(|e| e.map(K::input))
    }

    /// The sum of `f` over the pools.
    fn sum<T: core::iter::Sum<T>>(&self, f: impl Fn(&PoolOf<K>) -> T) -> T {
        self.pools.iter().map(f).sum()
    }

    /// Live workers over all pools, busy or idle.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.running(), 0);
    /// mp.submit(|| ()).unwrap();
    /// assert_eq!(mp.running(), 1);
    /// ```
    pub fn running(&self) -> usize {
        self.sum(PoolOf::running)
    }

    /// Live workers of pool `index`; `None` for a bad index.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.running_by_index(1), Some(0));
    /// assert_eq!(mp.running_by_index(2), None);
    /// ```
    pub fn running_by_index(&self, index: usize) -> Option<usize> {
        self.pools.get(index).map(PoolOf::running)
    }

    /// Free worker slots over all pools; `None` if the pools are unbounded.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.free(), Some(6));
    /// ```
    pub fn free(&self) -> Option<usize> {
        self.sum(PoolOf::free)
    }

    /// Free slots of pool `index`; `None` for a bad index or an unbounded
    /// pool.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.free_by_index(0), Some(3));
    /// assert_eq!(mp.free_by_index(9), None);
    /// ```
    pub fn free_by_index(&self, index: usize) -> Option<usize> {
        self.pools.get(index).and_then(PoolOf::free)
    }

    /// Submitters waiting for room, over all pools.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.waiting(), 0);
    /// ```
    pub fn waiting(&self) -> usize {
        self.sum(PoolOf::waiting)
    }

    /// Submitters waiting for room in pool `index`; `None` for a bad index.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.waiting_by_index(0), Some(0));
    /// assert_eq!(mp.waiting_by_index(2), None);
    /// ```
    pub fn waiting_by_index(&self, index: usize) -> Option<usize> {
        self.pools.get(index).map(PoolOf::waiting)
    }

    /// The capacity over all pools; `None` if the pools are unbounded.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert_eq!(mp.cap(), Some(6));
    /// ```
    pub fn cap(&self) -> Option<usize> {
        self.sum(PoolOf::cap)
    }

    /// Sets every pool's capacity to `capacity` (not the total: as ants'
    /// `Tune`); see [`PoolOf::tune`].
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// mp.tune(5);
    /// assert_eq!(mp.cap(), Some(10));
    /// ```
    pub fn tune(&self, capacity: usize)
    where
        K: for<'a> Reach<'a>,
    {
        for pool in self.pools.iter() {
            pool.tune(capacity);
        }
    }

    /// Whether the multi-pool is released.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// assert!(!mp.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Releases every pool and waits up to `timeout` for all their workers to
    /// exit, the pools together (about `timeout` in all, not per pool).
    ///
    /// # Errors
    ///
    /// [`ReleaseError::Closed`] if already released; [`ReleaseError::Pools`]
    /// with each pool that did not finish in time, by index and with its own
    /// error.
    ///
    /// ```
    /// use std::time::Duration;
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// mp.submit(|| ()).unwrap();
    /// mp.release_timeout(Duration::from_secs(5)).unwrap();
    /// assert_eq!(mp.running(), 0);
    /// assert_eq!(mp.release_timeout(Duration::from_secs(1)), Err(antpool::ReleaseError::Closed));
    /// ```
    pub fn release_timeout(&self, timeout: Duration) -> Result<(), ReleaseError> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Err(ReleaseError::Closed);
        }
        let mut errors = Vec::new();
        let mut awaited = Vec::with_capacity(self.pools.len());
        for (index, pool) in self.pools.iter().enumerate() {
            awaited.push(match pool.engine().close() {
                Some(reboots) => Awaited::Since(reboots),
                None => {
                    errors.push((index, ReleaseError::Closed));
                    Awaited::Any
                }
            });
        }
        let start = self.pools[0].engine().now();
        for ((index, pool), awaited) in self.pools.iter().enumerate().zip(awaited) {
            let engine = pool.engine();
            let left = timeout.saturating_sub(engine.now().saturating_duration_since(start));
            if let Err(e) = engine.wait_released(awaited, Some(left)) {
                errors.push((index, e));
            }
        }
        if errors.is_empty() {
            return Ok(());
        }
        errors.sort_by_key(|(index, _)| *index);
        Err(ReleaseError::Pools(errors))
    }

    /// Reopens every pool; round robin starts again at pool 0. A release still
    /// waiting for the workers ends with
    /// [`ReleaseError::Reopened`](crate::ReleaseError::Reopened) for each pool.
    ///
    /// ```
    /// use std::time::Duration;
    /// let mp = antpool::MultiPool::new(2, 3, antpool::LoadBalancing::RoundRobin).unwrap();
    /// mp.release_timeout(Duration::from_secs(5)).unwrap();
    /// mp.reboot();
    /// assert!(!mp.is_closed());
    /// mp.submit(|| ()).unwrap();
    /// ```
    pub fn reboot(&self) {
        for pool in self.pools.iter() {
            pool.reboot();
        }
        self.next.store(0, Ordering::Relaxed);
        self.closed.store(false, Ordering::Release);
    }
}

#[cfg(feature = "std")]
impl MultiPool {
    /// `n` pools of `capacity` workers each, with the default options; 0 pools
    /// is [`BuildError::InvalidMultiPoolSize`].
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for 0 pools; otherwise what
    /// [`Pool::new`](crate::Pool::new) returns for `capacity`.
    ///
    /// ```
    /// use antpool::{BuildError, LoadBalancing, MultiPool};
    /// assert_eq!(MultiPool::new(2, 5, LoadBalancing::RoundRobin).unwrap().cap(), Some(10));
    /// assert_eq!(MultiPool::new(0, 5, LoadBalancing::RoundRobin).unwrap_err(), BuildError::InvalidMultiPoolSize);
    /// ```
    pub fn new(n: usize, capacity: usize, balancing: LoadBalancing) -> Result<Self, BuildError> {
        Self::from_builder(
            n,
            balancing,
            crate::pool::Pool::builder().capacity(capacity),
        )
    }
}

impl<Q: WorkerQueue, C: Clock + Clone, S: Spawner + Clone> MultiPoolOf<Closures<Q, C, S>> {
    /// `n` pools, each built from a clone of `builder` (every option, the
    /// platform too).
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for 0 pools; otherwise the first
    /// pool's [`BuildError`].
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPool, Pool};
    /// let builder = Pool::builder().capacity(2).nonblocking(true);
    /// let mp = MultiPool::from_builder(3, LoadBalancing::LeastTasks, builder).unwrap();
    /// assert_eq!(mp.cap(), Some(6));
    /// ```
    pub fn from_builder(
        n: usize,
        balancing: LoadBalancing,
        builder: PoolBuilder<Q, C, S>,
    ) -> Result<Self, BuildError> {
        Self::build(n, balancing, || builder.clone().build())
    }

    /// Runs `task` on a worker of the pool the rule picks, as
    /// [`Pool::submit`](crate::Pool::submit) does; round robin tries the least
    /// loaded pool once if the first says `Overload`.
    ///
    /// # Errors
    ///
    /// The task comes back inside the error: [`SubmitError::Closed`] if the
    /// multi-pool is released; otherwise as for `Pool::submit`.
    ///
    /// ```
    /// let mp = antpool::MultiPool::new(2, 1, antpool::LoadBalancing::RoundRobin).unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// mp.submit(move || tx.send(42).unwrap()).unwrap();
    /// assert_eq!(rx.recv().unwrap(), 42);
    /// ```
    pub fn submit<F>(&self, task: F) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.place(SmallTask::new(task))
    }
}

#[cfg(feature = "std")]
impl<A: Send + 'static, F: WorkFn<A> + Clone> MultiPoolWithFunc<A, F> {
    /// `n` pools of `capacity` workers each, all running `func`, with the
    /// default options; 0 pools is [`BuildError::InvalidMultiPoolSize`].
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for 0 pools; otherwise what
    /// [`PoolWithFunc::new`](crate::PoolWithFunc::new) returns for `capacity`.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// let mf = MultiPoolWithFunc::new(2, 2, LoadBalancing::RoundRobin, |n: u8| drop(n)).unwrap();
    /// assert_eq!(mf.cap(), Some(4));
    /// ```
    pub fn new(
        n: usize,
        capacity: usize,
        balancing: LoadBalancing,
        func: F,
    ) -> Result<Self, BuildError> {
        let builder = crate::pool::PoolWithFunc::builder(func).capacity(capacity);
        Self::from_builder(n, balancing, builder)
    }
}

impl<A, F, Q, C, S> MultiPoolOf<Calls<A, F, Q, C, S, Shared>>
where
    A: Send + 'static,
    F: WorkFn<A> + Clone,
    Q: WorkerQueue,
    C: Clock + Clone,
    S: Spawner + Clone,
{
    /// `n` pools, each built from a clone of `builder` (and so of its
    /// function).
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidMultiPoolSize`] for 0 pools; otherwise the first
    /// pool's [`BuildError`].
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc, PoolWithFunc};
    /// let builder = PoolWithFunc::builder(|n: u32| drop(n)).capacity(2);
    /// let mf = MultiPoolWithFunc::from_builder(2, LoadBalancing::RoundRobin, builder).unwrap();
    /// assert_eq!(mf.cap(), Some(4));
    /// ```
    pub fn from_builder(
        n: usize,
        balancing: LoadBalancing,
        builder: PoolWithFuncBuilder<A, F, Q, C, S>,
    ) -> Result<Self, BuildError> {
        Self::build(n, balancing, || builder.clone().build())
    }
}

impl<A, F, Q, C, S> MultiPoolOf<Calls<A, F, Q, C, S, Shared>>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    /// Runs the pools' function on `arg` on the pool the rule picks, as
    /// [`PoolWithFunc::invoke`](crate::PoolWithFunc::invoke) does; round
    /// robin tries the least loaded pool once if the first says `Overload`.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error: [`SubmitError::Closed`] if
    /// the multi-pool is released; otherwise as for `invoke`.
    ///
    /// ```
    /// use antpool::{LoadBalancing, MultiPoolWithFunc};
    /// let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::LeastTasks, |n: u8| assert!(n < 9)).unwrap();
    /// mf.invoke(3).unwrap();
    /// ```
    pub fn invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.place(Call::new(arg))
    }
}

impl<K: Kind> fmt::Debug for MultiPoolOf<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MultiPool")
            .field("pools", &self.pools.len())
            .field("balancing", &self.balancing)
            .field("cap", &self.cap())
            .field("running", &self.running())
            .field("closed", &self.is_closed())
            .finish()
    }
}

/// As a [`PoolOf`]: a multi-pool observed after a caught panic is consistent.
impl<K: Kind> core::panic::UnwindSafe for MultiPoolOf<K> {}
impl<K: Kind> core::panic::RefUnwindSafe for MultiPoolOf<K> {}
