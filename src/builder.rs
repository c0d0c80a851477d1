//! The builders of [`Pool`] and [`PoolWithFunc`]: [`Options`] around the
//! [`Pieces`] that are not plain data — what the pool runs, the clock, the
//! spawner, the idle-queue type and (with `std`) the panic handler and thread
//! settings — validated into [`BuildError`] by `build`. The options' setters
//! are [`Options`]'s own, written once (`options.rs`).

use core::marker::PhantomData;

use crate::clock::Clock;
use crate::engine::{Config, Engine, boxed_slots};
use crate::error::BuildError;
use crate::exec::{self, CallFn, FnHooks, RunTask};
use crate::kind::heap::SharedHome;
use crate::options::Options;
use crate::pool::{Pool, PoolOf, PoolWithFunc};
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

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

/// What a builder holds besides its options: what the pool runs (`()` for
/// closures, [`ForFunc`] for a function), the clock `C`, the spawner `S`, the
/// idle-queue type `Q` and (with `std`) the panic handler and worker hooks.
/// Made by [`Pool::builder`], [`PoolWithFunc::builder`] and their
/// `builder_with`; you never name it but through [`Builder`].
///
/// ```
/// let builder: antpool::Builder<(), _, _, _> = antpool::Pool::builder();
/// assert_eq!(builder.capacity(2).build().unwrap().cap(), Some(2));
/// ```
pub struct Pieces<M, Q, C, S> {
    make: M,
    clock: C,
    spawner: S,
    /// The panic handler and worker hooks (`guard/policy.rs`; their setters are in `hooks.rs`).
    #[cfg(feature = "std")]
    policy: crate::guard::policy::Policy,
    _queue: PhantomData<fn() -> Q>,
}

impl<M: Clone, Q, C: Clone, S: Clone> Clone for Pieces<M, Q, C, S> {
    fn clone(&self) -> Self {
        Pieces {
            make: self.make.clone(),
            clock: self.clock.clone(),
            spawner: self.spawner.clone(),
            #[cfg(feature = "std")]
            policy: self.policy.clone(),
            _queue: PhantomData,
        }
    }
}

/// The builder of [`Pool`] and [`PoolWithFunc`]: the [`Options`] (every
/// setter of theirs), plus the clock, the spawner and the idle-queue type (and
/// with `std` the panic handler, worker hooks and thread settings). Every
/// setter returns the builder; `build` validates.
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
pub type Builder<M, Q, C, S> = Options<Pieces<M, Q, C, S>>;

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
> = Builder<(), Q, C, S>;
/// Builds a [`Pool`]: [`Pool::builder_with`].
#[cfg(not(feature = "std"))]
pub type PoolBuilder<Q, C, S> = Builder<(), Q, C, S>;

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

impl<Q, C, S> PoolBuilder<Q, C, S> {
    pub(crate) fn new(clock: C, spawner: S) -> Self {
        Options::with(Pieces::new((), clock, spawner))
    }
}

impl<A, F, Q, C, S> PoolWithFuncBuilder<A, F, Q, C, S> {
    pub(crate) fn new_func(func: F, clock: C, spawner: S) -> Self {
        let make = ForFunc {
            func,
            _arg: PhantomData,
        };
        Options::with(Pieces::new(make, clock, spawner))
    }
}

impl<M, Q, C, S> Pieces<M, Q, C, S> {
    fn new(make: M, clock: C, spawner: S) -> Self {
        Pieces {
            make,
            clock,
            spawner,
            #[cfg(feature = "std")]
            policy: crate::guard::policy::Policy::none(),
            _queue: PhantomData,
        }
    }

    /// The same pieces with another queue type, and the clock and spawner
    /// `f` makes of these.
    fn retype<Q2, C2, S2>(self, f: impl FnOnce(C, S) -> (C2, S2)) -> Pieces<M, Q2, C2, S2> {
        let (clock, spawner) = f(self.clock, self.spawner);
        Pieces {
            make: self.make,
            clock,
            spawner,
            #[cfg(feature = "std")]
            policy: self.policy,
            _queue: PhantomData,
        }
    }
}

impl<M, Q, C, S> Builder<M, Q, C, S> {
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
        self.map_extra(|pieces| pieces.retype(|_, spawner| (clock, spawner)))
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
        self.map_extra(|pieces| pieces.retype(|clock, _| (clock, spawner)))
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
        self.map_extra(|pieces| pieces.retype(|clock, spawner| (clock, spawner)))
    }

    /// The validated configuration, the idle queue, and the pieces to build
    /// an engine with.
    fn parts(self) -> Result<Built<M, Q, C, S>, BuildError>
    where
        Q: WorkerQueue,
    {
        let config = self.config()?;
        let queue = Q::with_capacity(config.capacity, config.prealloc);
        let pieces = self.extra;
        #[cfg(feature = "std")]
        let exec = exec::Exec::new(pieces.policy);
        #[cfg(not(feature = "std"))]
        let exec = exec::Exec::new();
        let built = Assembly {
            make: pieces.make,
            clock: pieces.clock,
            spawner: pieces.spawner,
            exec,
        };
        Ok((config, queue, built))
    }
}

/// What `build` assembles an engine from.
type Built<M, Q, C, S> = (Config, Q, Assembly<M, C, S>);

/// A builder's pieces, with the panic policy turned into the executor's.
struct Assembly<M, C, S> {
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
        &mut self.extra.policy
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
    pub fn thread_name(self, prefix: impl Into<alloc::string::String>) -> Self {
        self.map_extra(|mut pieces| {
            pieces.spawner = pieces.spawner.name(prefix);
            pieces
        })
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
        self,
        name: impl Fn(usize) -> alloc::string::String + Send + Sync + 'static,
    ) -> Self {
        self.map_extra(|mut pieces| {
            pieces.spawner = pieces.spawner.name_with(name);
            pieces
        })
    }

    /// Stack size of worker threads, in bytes (default: the platform's).
    ///
    /// ```
    /// assert!(antpool::Pool::builder().capacity(1).stack_size(256 << 10).build().is_ok());
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn stack_size(self, bytes: usize) -> Self {
        self.map_extra(|mut pieces| {
            pieces.spawner = pieces.spawner.stack_size(bytes);
            pieces
        })
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> PoolBuilder<Q, C, S> {
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
        let pool = PoolOf {
            home: SharedHome::new(engine),
        };
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
        let pool = PoolOf {
            home: SharedHome::new(engine),
        };
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
