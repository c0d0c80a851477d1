//! The builders of [`Pool`] and [`PoolWithFunc`]: the plain [`Options`] plus
//! what is not plain data — the clock, the spawner, the idle-queue type and
//! (with `std`) the panic handler and thread settings — validated into
//! [`BuildError`] by `build`.

use core::marker::PhantomData;
use core::time::Duration;

use crate::clock::Clock;
use crate::engine::{Config, Engine, boxed_slots};
use crate::error::BuildError;
use crate::exec::{self, CallFn, FnHooks, RunTask};
use crate::options::Options;
use crate::pool::{Pool, PoolOf, PoolWithFunc};
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

/// Marks a [`Builder`] that builds a [`Pool`].
///
/// ```
/// let builder: antpool::Builder<antpool::ForPool, _, _, _> = antpool::Pool::builder();
/// assert_eq!(builder.capacity(2).build().unwrap().cap(), Some(2));
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct ForPool;

/// Marks a [`Builder`] that builds a [`PoolWithFunc`] over `func`.
///
/// ```
/// let builder: antpool::Builder<antpool::ForFunc<u8, _>, _, _, _> =
///     antpool::PoolWithFunc::builder(|n: u8| assert!(n < 9));
/// builder.capacity(1).build().unwrap().invoke(3).unwrap();
/// ```
#[derive(Debug)]
pub struct ForFunc<A, F> {
    func: F,
    _arg: PhantomData<fn(A)>,
}

impl<A, F: Clone> Clone for ForFunc<A, F> {
    fn clone(&self) -> Self {
        ForFunc {
            func: self.func.clone(),
            _arg: PhantomData,
        }
    }
}

/// Builds a [`Pool`]: [`Pool::builder`] (std) or [`Pool::builder_with`].
///
/// ```
/// let builder: antpool::PoolBuilder = antpool::Pool::builder().capacity(3);
/// assert_eq!(builder.build().unwrap().cap(), Some(3));
/// ```
#[cfg(feature = "std")]
pub type PoolBuilder<
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner,
> = Builder<ForPool, Q, C, S>;
/// Builds a [`Pool`]: [`Pool::builder_with`].
#[cfg(not(feature = "std"))]
pub type PoolBuilder<Q, C, S> = Builder<ForPool, Q, C, S>;

/// Builds a [`PoolWithFunc`]: [`PoolWithFunc::builder`] (std) or
/// [`PoolWithFunc::builder_with`].
///
/// ```
/// fn work(_: u32) {}
/// let builder: antpool::PoolWithFuncBuilder<u32, fn(u32)> =
///     antpool::PoolWithFunc::builder(work as fn(u32)).unbounded();
/// assert_eq!(builder.build().unwrap().cap(), None);
/// ```
#[cfg(feature = "std")]
pub type PoolWithFuncBuilder<
    A,
    F,
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner,
> = Builder<ForFunc<A, F>, Q, C, S>;
/// Builds a [`PoolWithFunc`]: [`PoolWithFunc::builder_with`].
#[cfg(not(feature = "std"))]
pub type PoolWithFuncBuilder<A, F, Q, C, S> = Builder<ForFunc<A, F>, Q, C, S>;

/// The builder of [`Pool`] and [`PoolWithFunc`]: the [`Options`], plus the
/// clock, the spawner and the idle-queue type (and with `std` the panic
/// handler and thread settings). Every setter returns the builder; `build`
/// validates.
///
/// ```
/// use antpool::Pool;
/// use std::time::Duration;
///
/// let pool = Pool::builder()
///     .capacity(10)
///     .expiry(Duration::from_secs(1))
///     .disable_purge(false)
///     .prealloc(false)
///     .nonblocking(false)
///     .max_blocking_tasks(0)
///     .panic_handler(|payload| eprintln!("task panicked: {payload:?}"))
///     .thread_name("antpool-worker")
///     .stack_size(2 << 20)
///     .build()
///     .unwrap();
/// assert_eq!(pool.cap(), Some(10));
/// ```
pub struct Builder<M, Q, C, S> {
    options: Options,
    make: M,
    clock: C,
    spawner: S,
    /// The panic handler and worker hooks (`guard/policy.rs`; the builder methods are in `hooks.rs`).
    #[cfg(feature = "std")]
    policy: crate::guard::policy::Policy,
    _queue: PhantomData<fn() -> Q>,
}

impl<M: Clone, Q, C: Clone, S: Clone> Clone for Builder<M, Q, C, S> {
    fn clone(&self) -> Self {
        Builder {
            options: self.options,
            make: self.make.clone(),
            clock: self.clock.clone(),
            spawner: self.spawner.clone(),
            #[cfg(feature = "std")]
            policy: self.policy.clone(),
            _queue: PhantomData,
        }
    }
}

impl<Q, C, S> Builder<ForPool, Q, C, S> {
    pub(crate) fn new(clock: C, spawner: S) -> Self {
        Builder::with_make(ForPool, clock, spawner)
    }
}

impl<A, F, Q, C, S> Builder<ForFunc<A, F>, Q, C, S> {
    pub(crate) fn new_func(func: F, clock: C, spawner: S) -> Self {
        let make = ForFunc {
            func,
            _arg: PhantomData,
        };
        Builder::with_make(make, clock, spawner)
    }
}

impl<M, Q, C, S> Builder<M, Q, C, S> {
    fn with_make(make: M, clock: C, spawner: S) -> Self {
        Builder {
            options: Options::new(),
            make,
            clock,
            spawner,
            #[cfg(feature = "std")]
            policy: crate::guard::policy::Policy::none(),
            _queue: PhantomData,
        }
    }

    /// At most `n` workers at once; 0 is [`BuildError::InvalidCapacity`].
    ///
    /// ```
    /// assert_eq!(antpool::Pool::builder().capacity(3).build().unwrap().cap(), Some(3));
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn capacity(mut self, n: usize) -> Self {
        self.options = self.options.capacity(n);
        self
    }

    /// No limit on the number of workers.
    ///
    /// ```
    /// assert_eq!(antpool::Pool::builder().unbounded().build().unwrap().cap(), None);
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn unbounded(mut self) -> Self {
        self.options = self.options.unbounded();
        self
    }

    /// An idle worker retires after `d` (default 1 s); zero is
    /// [`BuildError::InvalidExpiry`].
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::builder().capacity(1).expiry(Duration::from_millis(50)).build();
    /// assert!(pool.is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn expiry(mut self, d: Duration) -> Self {
        self.options = self.options.expiry(d);
        self
    }

    /// `true`: idle workers never expire.
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(1).disable_purge(true).build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn disable_purge(mut self, disable: bool) -> Self {
        self.options = self.options.disable_purge(disable);
        self
    }

    /// `true`: a FIFO idle ring sized to the capacity, allocated at build
    /// (capacity then fixed); with `unbounded()` it is
    /// [`BuildError::InvalidPreAllocSize`].
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(4).prealloc(true).build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn prealloc(mut self, prealloc: bool) -> Self {
        self.options = self.options.prealloc(prealloc);
        self
    }

    /// `true`: a saturated pool rejects with `Overload` instead of blocking.
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(1).nonblocking(true).build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn nonblocking(mut self, nonblocking: bool) -> Self {
        self.options = self.options.nonblocking(nonblocking);
        self
    }

    /// At most `n` submitters block at once (0: no limit).
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(1).max_blocking_tasks(2).build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn max_blocking_tasks(mut self, n: usize) -> Self {
        self.options = self.options.max_blocking_tasks(n);
        self
    }

    /// Queue mode with room for `n` tasks (0: off, the default); see
    /// [`Options::max_queued_tasks`].
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).max_queued_tasks(64).build().unwrap();
    /// assert_eq!(pool.queued(), 0);
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn max_queued_tasks(mut self, n: usize) -> Self {
        self.options = self.options.max_queued_tasks(n);
        self
    }

    /// Queue mode with no limit; see [`Options::unbounded_queue`].
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(2).unbounded_queue().build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn unbounded_queue(mut self) -> Self {
        self.options = self.options.unbounded_queue();
        self
    }

    /// Keeps `n` workers warm: started at build, never expired below `n` idle;
    /// see [`Options::min_idle`].
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(4).min_idle(2).build().unwrap();
    /// assert_eq!(pool.running(), 2); // started before the first task
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn min_idle(mut self, n: usize) -> Self {
        self.options = self.options.min_idle(n);
        self
    }

    /// A queue and a line of blocked submitters per
    /// [`Priority`](crate::Priority); see [`Options::priorities`].
    ///
    /// ```
    /// use antpool::{Pool, Priority};
    /// let pool = Pool::builder().capacity(2).max_queued_tasks(16).priorities(true).build().unwrap();
    /// assert!(pool.has_priorities());
    /// pool.with_priority(Priority::Low).submit(|| ()).unwrap();
    /// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn priorities(mut self, on: bool) -> Self {
        self.options = self.options.priorities(on);
        self
    }

    /// Keeps `r` of a hand-off pool's capacity for `High` tasks; see
    /// [`Options::reserve_for_high`].
    ///
    /// ```
    /// use antpool::{BuildError, Pool};
    /// let pool = Pool::builder().capacity(4).priorities(true).reserve_for_high(1).build();
    /// assert!(pool.is_ok());
    /// let queued = Pool::builder().capacity(4).max_queued_tasks(8).priorities(true).reserve_for_high(1);
    /// assert_eq!(queued.build().unwrap_err(), BuildError::InvalidReserve);
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn reserve_for_high(mut self, r: usize) -> Self {
        self.options = self.options.reserve_for_high(r);
        self
    }

    /// A floor for lower levels: after `k` takes in a row from higher levels
    /// while a lower one waits, it gets one; see [`Options::starvation_bound`].
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).starvation_bound(4).build();
    /// assert!(pool.is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn starvation_bound(mut self, k: u32) -> Self {
        self.options = self.options.starvation_bound(k);
        self
    }

    /// Which tasks the pool times (default [`Sampling::Off`](crate::Sampling::Off));
    /// see [`Sampling`](crate::Sampling), and `timings()` on the pool. Any
    /// clock: the pool's own measures. (Feature `timings`.)
    ///
    /// ```
    /// use antpool::{Pool, Sampling};
    /// let pool = Pool::builder().capacity(2).timings(Sampling::OneIn(16)).build().unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// assert!(pool.timings().run.count <= 1); // the first task: carried by a new worker, timed
    /// ```
    #[cfg(feature = "timings")]
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn timings(mut self, sampling: crate::timings::Sampling) -> Self {
        self.options = self.options.timings(sampling);
        self
    }

    /// The `pool` label of the metrics a
    /// [`MetricsReporter`](crate::metrics::MetricsReporter) emits for this
    /// pool; see [`Options::metrics_label`]. (Feature `metrics`.)
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).metrics_label("db").build().unwrap();
    /// # drop(pool);
    /// ```
    #[cfg(feature = "metrics")]
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn metrics_label(mut self, pool: &'static str) -> Self {
        self.options = self.options.metrics_label(pool);
        self
    }

    /// Replaces all [`Options`] at once.
    ///
    /// ```
    /// use antpool::{Options, Pool};
    /// let pool = Pool::builder().options(Options::new().capacity(2)).build().unwrap();
    /// assert_eq!(pool.cap(), Some(2));
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// Uses another clock (a [`ManualClock`](crate::clock::ManualClock) in tests).
    ///
    /// ```
    /// use antpool::Pool;
    /// use antpool::port::ManualClock;
    /// use std::sync::Arc;
    /// let clock = Arc::new(ManualClock::new());
    /// let pool = Pool::builder().capacity(1).clock(clock.clone()).build().unwrap();
    /// # drop(pool);
    /// ```
    pub fn clock<C2: Clock>(self, clock: C2) -> Builder<M, Q, C2, S> {
        Builder {
            options: self.options,
            make: self.make,
            clock,
            spawner: self.spawner,
            #[cfg(feature = "std")]
            policy: self.policy,
            _queue: PhantomData,
        }
    }

    /// Uses another spawner (another platform, or a test harness).
    ///
    /// ```
    /// use antpool::Pool;
    /// use antpool::port::StdSpawner;
    /// let pool = Pool::builder().capacity(1).spawner(StdSpawner::new().name("mine")).build();
    /// assert!(pool.is_ok());
    /// ```
    pub fn spawner<S2: Spawner>(self, spawner: S2) -> Builder<M, Q, C, S2> {
        Builder {
            options: self.options,
            make: self.make,
            clock: self.clock,
            spawner,
            #[cfg(feature = "std")]
            policy: self.policy,
            _queue: PhantomData,
        }
    }

    /// Fixes the idle-queue type, e.g. [`WorkerRing<N>`](crate::WorkerRing),
    /// or a [`WorkerQueue`] of your own.
    ///
    /// ```
    /// use antpool::{Pool, WorkerRing};
    /// let pool: Pool<WorkerRing<8>> = Pool::builder().capacity(8).queue::<WorkerRing<8>>().build().unwrap();
    /// # drop(pool);
    /// ```
    pub fn queue<Q2: WorkerQueue>(self) -> Builder<M, Q2, C, S> {
        Builder {
            options: self.options,
            make: self.make,
            clock: self.clock,
            spawner: self.spawner,
            #[cfg(feature = "std")]
            policy: self.policy,
            _queue: PhantomData,
        }
    }

    fn parts(self) -> Result<Built<M, Q, C, S>, BuildError>
    where
        Q: WorkerQueue,
    {
        let config = self.options.config()?;
        let queue = Q::with_capacity(config.capacity, config.prealloc);
        #[cfg(feature = "std")]
        let exec = exec::Exec::new(self.policy);
        #[cfg(not(feature = "std"))]
        let exec = exec::Exec::new();
        let parts = Pieces {
            make: self.make,
            clock: self.clock,
            spawner: self.spawner,
            exec,
        };
        Ok((config, queue, parts))
    }
}

/// What `build` assembles an engine from.
type Built<M, Q, C, S> = (Config, Q, Pieces<M, C, S>);

struct Pieces<M, C, S> {
    make: M,
    clock: C,
    spawner: S,
    exec: exec::Exec,
}

/// The std policy's setters (`panic_handler`, `on_worker_start`,
/// `on_worker_stop`) are in `hooks.rs`; this is their way in.
#[cfg(feature = "std")]
impl<M, Q, C, S> Builder<M, Q, C, S> {
    pub(crate) fn policy_mut(&mut self) -> &mut crate::guard::policy::Policy {
        &mut self.policy
    }
}

#[cfg(feature = "std")]
impl<M, Q, C> Builder<M, Q, C, crate::os::spawner::StdSpawner> {
    /// Names worker threads `"{prefix}-{index}"` (default `antpool-worker`),
    /// `index` being the worker's number in the pool (what
    /// [`current_worker_index`](crate::current_worker_index) gives on it).
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(1).thread_name("db").build().unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.submit(move || tx.send(std::thread::current().name().map(String::from)).unwrap()).unwrap();
    /// assert_eq!(rx.recv().unwrap().as_deref(), Some("db-0"));
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn thread_name(mut self, prefix: impl Into<alloc::string::String>) -> Self {
        self.spawner = self.spawner.name(prefix);
        self
    }

    /// Names each worker thread what `name` returns for the worker's number
    /// in the pool (as rayon's `thread_name`).
    ///
    /// ```
    /// let pool = antpool::Pool::builder()
    ///     .capacity(2)
    ///     .thread_name_with(|i| format!("{}-{i}", if i % 2 == 0 { "even" } else { "odd" }))
    ///     .min_idle(2)
    ///     .build()
    ///     .unwrap();
    /// let name = pool.spawn(|| std::thread::current().name().map(String::from)).unwrap();
    /// let name = name.join().unwrap().unwrap();
    /// assert!(name == "even-0" || name == "odd-1", "{name}");
    /// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn thread_name_with(
        mut self,
        name: impl Fn(usize) -> alloc::string::String + Send + Sync + 'static,
    ) -> Self {
        self.spawner = self.spawner.name_with(name);
        self
    }

    /// Stack size of worker threads, in bytes (default: the platform's).
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(1).stack_size(256 << 10).build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.spawner = self.spawner.stack_size(bytes);
        self
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Builder<ForPool, Q, C, S> {
    /// Validates the options and builds the pool. No thread starts until the
    /// first task, but for the `min_idle` workers, which start here.
    ///
    /// # Errors
    ///
    /// [`BuildError`](crate::BuildError) names the first invalid option: no capacity
    /// chosen (`MissingCapacity`), a capacity of 0 (`InvalidCapacity`) or above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY) (`CapacityTooLarge`), a zero expiry
    /// (`InvalidExpiry`), `prealloc` with `unbounded` (`InvalidPreAllocSize`),
    /// `min_idle` above the capacity (`InvalidMinIdle`); `SpawnFailed` if the
    /// spawner could not start the `min_idle` workers (those that started are
    /// released).
    ///
    /// ```
    /// use antpool::{BuildError, Pool};
    /// assert_eq!(Pool::builder().capacity(0).build().unwrap_err(), BuildError::InvalidCapacity);
    /// assert!(Pool::builder().capacity(1).build().is_ok());
    /// ```
    pub fn build(self) -> Result<Pool<Q, C, S>, BuildError> {
        let (config, queue, parts) = self.parts()?;
        let ring = config.ring_size();
        let mut engine = Engine::new(
            config,
            queue,
            boxed_slots(ring),
            ring,
            parts.clock,
            parts.spawner,
            parts.exec.wrap(RunTask),
        );
        engine.add_levels(ring);
        let pool = PoolOf::shared(engine);
        warm(pool.with_ref(Engine::warm))?;
        Ok(pool)
    }
}

impl<A, F, Q, C, S> Builder<ForFunc<A, F>, Q, C, S>
where
    A: Send + 'static,
    F: crate::exec::WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    /// Validates the options and builds the pool. No thread starts until the
    /// first argument, but for the `min_idle` workers, which start here.
    ///
    /// # Errors
    ///
    /// As for [`PoolBuilder::build`]: [`BuildError`](crate::BuildError) names the first
    /// invalid option.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::builder(|n: u32| drop(n)).capacity(2).build().unwrap();
    /// assert_eq!(pool.cap(), Some(2));
    /// ```
    pub fn build(self) -> Result<PoolWithFunc<A, F, Q, C, S>, BuildError> {
        let (config, queue, parts) = self.parts()?;
        let exec = parts.exec.wrap(FnHooks::new(CallFn::new(parts.make.func)));
        let ring = config.ring_size();
        let slots = boxed_slots(ring);
        let mut engine = Engine::new(config, queue, slots, ring, parts.clock, parts.spawner, exec);
        engine.add_levels(ring);
        let pool = PoolOf::shared(engine);
        warm(pool.with_ref(Engine::warm))?;
        Ok(pool)
    }
}

/// Whether a new pool's `min_idle` workers started (see
/// [`Options::min_idle`]). On failure the caller drops the pool, which
/// releases the ones that started.
fn warm(started: bool) -> Result<(), BuildError> {
    match started {
        true => Ok(()),
        false => Err(BuildError::SpawnFailed),
    }
}
