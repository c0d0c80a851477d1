//! Options and builders, validated into [`BuildError`].
//!
//! [`Options`] is the plain, `const` set of choices every pool shares; the
//! builders ([`PoolBuilder`], [`PoolWithFuncBuilder`]) wrap it with the pieces
//! that are not plain data: the clock, the spawner, the queue type and (with
//! `std`) the panic handler and thread settings.

use core::time::Duration;

use crate::engine::Config;
use crate::error::BuildError;

/// The most workers any pool runs at once: 65 534 on targets with 64-bit
/// atomics, 510 on those with only 32-bit ones (microcontrollers). A larger
/// capacity is [`BuildError::CapacityTooLarge`]; an unbounded pool stops
/// starting workers here (further tasks wait in its queue for a free one).
///
/// ```
/// use antpool::{BuildError, MAX_CAPACITY, Pool};
/// assert!(MAX_CAPACITY >= 127);
/// assert_eq!(Pool::new(MAX_CAPACITY + 1).unwrap_err(), BuildError::CapacityTooLarge);
/// ```
pub const MAX_CAPACITY: usize = crate::engine::MAX_WORKERS;

/// How long an idle worker lives before it retires, unless told otherwise: 1 s.
///
/// ```
/// assert_eq!(antpool::DEFAULT_EXPIRY, core::time::Duration::from_secs(1));
/// ```
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capacity {
    Unset,
    Bounded(usize),
    Unbounded,
}

/// The choices every pool shares. `const`, so a pool in a `static` can be
/// configured at compile time; the builders expose the same setters.
///
/// | option | default | meaning |
/// |---|---|---|
/// | `capacity(n)` / `unbounded()` | none: one must be chosen | at most `n` workers at once, or no limit |
/// | `expiry(d)` | 1 s | an idle worker retires after `d` |
/// | `disable_purge(b)` | `false` | `true`: idle workers never expire |
/// | `prealloc(b)` | `false` | `true`: the idle queue is one FIFO ring sized to the capacity, allocated at build; `tune` is then ignored |
/// | `nonblocking(b)` | `false` | `true`: a saturated pool rejects instead of blocking the submitter |
/// | `max_blocking_tasks(n)` | 0 (no limit) | at most `n` submitters block at once; more are rejected |
/// | `max_queued_tasks(n)` / `unbounded_queue()` | off | queue mode: a saturated pool queues up to `n` tasks (or any number) before blocking or rejecting |
///
/// Validation, in this order: an expiry of zero is [`BuildError::InvalidExpiry`]
/// (whatever the capacity); no capacity chosen is [`BuildError::MissingCapacity`];
/// a capacity of 0 is [`BuildError::InvalidCapacity`], one above
/// [`MAX_CAPACITY`] [`BuildError::CapacityTooLarge`]; `prealloc` with an
/// unbounded pool is [`BuildError::InvalidPreAllocSize`].
///
/// ```
/// use antpool::{BuildError, Options};
/// use core::time::Duration;
///
/// const OPTIONS: Options = Options::new().capacity(4).expiry(Duration::from_millis(500));
/// assert_eq!(OPTIONS.validate(), Ok(()));
/// assert_eq!(Options::new().capacity(0).validate(), Err(BuildError::InvalidCapacity));
/// assert_eq!(Options::new().validate(), Err(BuildError::MissingCapacity));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    capacity: Capacity,
    expiry: Duration,
    disable_purge: bool,
    prealloc: bool,
    nonblocking: bool,
    max_blocking_tasks: usize,
    queue_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

impl Options {
    /// The defaults, with no capacity chosen yet.
    ///
    /// ```
    /// let o = antpool::Options::new().unbounded();
    /// assert_eq!(o.validate(), Ok(()));
    /// ```
    pub const fn new() -> Self {
        Options {
            capacity: Capacity::Unset,
            expiry: DEFAULT_EXPIRY,
            disable_purge: false,
            prealloc: false,
            nonblocking: false,
            max_blocking_tasks: 0,
            queue_limit: 0,
        }
    }

    /// At most `n` workers at once (0 is rejected at validation).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(8).validate().is_ok());
    /// ```
    pub const fn capacity(mut self, n: usize) -> Self {
        self.capacity = Capacity::Bounded(n);
        self
    }

    /// No limit on the number of workers.
    ///
    /// ```
    /// assert!(antpool::Options::new().unbounded().validate().is_ok());
    /// ```
    pub const fn unbounded(mut self) -> Self {
        self.capacity = Capacity::Unbounded;
        self
    }

    /// An idle worker retires after `d` (default 1 s; zero is rejected).
    ///
    /// ```
    /// use antpool::{BuildError, Options};
    /// use core::time::Duration;
    /// let o = Options::new().capacity(1).expiry(Duration::ZERO);
    /// assert_eq!(o.validate(), Err(BuildError::InvalidExpiry));
    /// ```
    pub const fn expiry(mut self, d: Duration) -> Self {
        self.expiry = d;
        self
    }

    /// `true`: idle workers never expire (they live until release).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(1).disable_purge(true).validate().is_ok());
    /// ```
    pub const fn disable_purge(mut self, disable: bool) -> Self {
        self.disable_purge = disable;
        self
    }

    /// `true`: the idle queue is a FIFO ring sized to the capacity, allocated once
    /// at build time; the capacity can then not be tuned.
    ///
    /// ```
    /// use antpool::{BuildError, Options};
    /// let o = Options::new().unbounded().prealloc(true);
    /// assert_eq!(o.validate(), Err(BuildError::InvalidPreAllocSize));
    /// ```
    pub const fn prealloc(mut self, prealloc: bool) -> Self {
        self.prealloc = prealloc;
        self
    }

    /// `true`: when every worker is busy and the pool is at capacity, `submit`
    /// returns [`SubmitError::Overload`](crate::SubmitError::Overload) instead of
    /// blocking. Wins over `max_blocking_tasks`.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(1).nonblocking(true).validate().is_ok());
    /// ```
    pub const fn nonblocking(mut self, nonblocking: bool) -> Self {
        self.nonblocking = nonblocking;
        self
    }

    /// At most `n` submitters may block at once; one more gets
    /// [`SubmitError::Overload`](crate::SubmitError::Overload). 0: no limit.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(1).max_blocking_tasks(16).validate().is_ok());
    /// ```
    pub const fn max_blocking_tasks(mut self, n: usize) -> Self {
        self.max_blocking_tasks = n;
        self
    }

    /// Queue mode with room for `n` tasks: a saturated pool (every worker busy, at
    /// capacity) queues a submitted task instead of blocking or rejecting it, and
    /// workers drain the queue before they go idle. Only when the queue is full do
    /// the blocking and `nonblocking` rules apply. 0 turns queue mode off (the
    /// default). Needs a [`Pool`](crate::Pool) or [`PoolWithFunc`](crate::PoolWithFunc):
    /// a [`StaticPoolWithFunc`](crate::StaticPoolWithFunc) has no heap for a queue.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(2).max_queued_tasks(100).validate().is_ok());
    /// ```
    pub const fn max_queued_tasks(mut self, n: usize) -> Self {
        self.queue_limit = n;
        self
    }

    /// Queue mode with no limit: a saturated pool queues every task (and memory
    /// grows with the queue; `max_queued_tasks` bounds it).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(2).unbounded_queue().validate().is_ok());
    /// ```
    pub const fn unbounded_queue(mut self) -> Self {
        self.queue_limit = usize::MAX;
        self
    }

    /// Checks the options (see the [type docs](Options) for the rules and order).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(2).validate().is_ok());
    /// ```
    pub const fn validate(&self) -> Result<(), BuildError> {
        match self.config() {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub(crate) const fn config(&self) -> Result<Config, BuildError> {
        if self.expiry.is_zero() {
            return Err(BuildError::InvalidExpiry);
        }
        let capacity = match self.capacity {
            Capacity::Unset => return Err(BuildError::MissingCapacity),
            Capacity::Bounded(0) => return Err(BuildError::InvalidCapacity),
            Capacity::Bounded(n) if n > MAX_CAPACITY => return Err(BuildError::CapacityTooLarge),
            Capacity::Bounded(n) => Some(n),
            Capacity::Unbounded => None,
        };
        if self.prealloc && capacity.is_none() {
            return Err(BuildError::InvalidPreAllocSize);
        }
        Ok(Config {
            capacity,
            expiry: self.expiry,
            purge: !self.disable_purge,
            prealloc: self.prealloc,
            nonblocking: self.nonblocking,
            max_blocking: self.max_blocking_tasks,
            queue_limit: self.queue_limit,
        })
    }
}

#[cfg(feature = "alloc")]
pub use builder::{Builder, ForFunc, ForPool, PoolBuilder, PoolWithFuncBuilder};

#[cfg(feature = "alloc")]
mod builder {
    use alloc::sync::Arc;
    use core::marker::PhantomData;
    use core::time::Duration;

    use super::Options;
    use crate::clock::Clock;
    use crate::engine::{Config, Engine, boxed_slots};
    use crate::error::BuildError;
    use crate::exec::{self, CallFn, RunTask};
    use crate::func::PoolWithFunc;
    use crate::pool::Pool;
    use crate::queue::WorkerQueue;
    use crate::spawner::Spawner;

    /// Marks a [`Builder`] that builds a [`Pool`].
    #[derive(Debug, Default, Clone, Copy)]
    pub struct ForPool;

    /// Marks a [`Builder`] that builds a [`PoolWithFunc`] over `func`.
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
    #[cfg(feature = "std")]
    pub type PoolBuilder<Q = crate::IdleQueue, C = crate::StdClock, S = crate::StdSpawner> =
        Builder<ForPool, Q, C, S>;
    /// Builds a [`Pool`]: [`Pool::builder_with`].
    #[cfg(not(feature = "std"))]
    pub type PoolBuilder<Q, C, S> = Builder<ForPool, Q, C, S>;

    /// Builds a [`PoolWithFunc`]: [`PoolWithFunc::builder`] (std) or
    /// [`PoolWithFunc::builder_with`].
    #[cfg(feature = "std")]
    pub type PoolWithFuncBuilder<
        A,
        F,
        Q = crate::IdleQueue,
        C = crate::StdClock,
        S = crate::StdSpawner,
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
        #[cfg(feature = "std")]
        panic_handler: Option<crate::PanicHandler>,
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
                panic_handler: self.panic_handler.clone(),
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
                panic_handler: None,
                _queue: PhantomData,
            }
        }

        /// At most `n` workers at once; 0 is [`BuildError::InvalidCapacity`].
        ///
        /// ```
        /// assert_eq!(antpool::Pool::builder().capacity(3).build().unwrap().cap(), Some(3));
        /// ```
        pub fn capacity(mut self, n: usize) -> Self {
            self.options = self.options.capacity(n);
            self
        }

        /// No limit on the number of workers.
        ///
        /// ```
        /// assert_eq!(antpool::Pool::builder().unbounded().build().unwrap().cap(), None);
        /// ```
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
        pub fn expiry(mut self, d: Duration) -> Self {
            self.options = self.options.expiry(d);
            self
        }

        /// `true`: idle workers never expire.
        ///
        /// ```
        /// assert!(antpool::Pool::builder().capacity(1).disable_purge(true).build().is_ok());
        /// ```
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
        pub fn prealloc(mut self, prealloc: bool) -> Self {
            self.options = self.options.prealloc(prealloc);
            self
        }

        /// `true`: a saturated pool rejects with `Overload` instead of blocking.
        ///
        /// ```
        /// assert!(antpool::Pool::builder().capacity(1).nonblocking(true).build().is_ok());
        /// ```
        pub fn nonblocking(mut self, nonblocking: bool) -> Self {
            self.options = self.options.nonblocking(nonblocking);
            self
        }

        /// At most `n` submitters block at once (0: no limit).
        ///
        /// ```
        /// assert!(antpool::Pool::builder().capacity(1).max_blocking_tasks(2).build().is_ok());
        /// ```
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
        pub fn max_queued_tasks(mut self, n: usize) -> Self {
            self.options = self.options.max_queued_tasks(n);
            self
        }

        /// Queue mode with no limit; see [`Options::unbounded_queue`].
        ///
        /// ```
        /// assert!(antpool::Pool::builder().capacity(2).unbounded_queue().build().is_ok());
        /// ```
        pub fn unbounded_queue(mut self) -> Self {
            self.options = self.options.unbounded_queue();
            self
        }

        /// Replaces all [`Options`] at once.
        ///
        /// ```
        /// use antpool::{Options, Pool};
        /// let pool = Pool::builder().options(Options::new().capacity(2)).build().unwrap();
        /// assert_eq!(pool.cap(), Some(2));
        /// ```
        pub fn options(mut self, options: Options) -> Self {
            self.options = options;
            self
        }

        /// Uses another clock (a [`ManualClock`](crate::ManualClock) in tests).
        ///
        /// ```
        /// use antpool::{ManualClock, Pool};
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
                panic_handler: self.panic_handler,
                _queue: PhantomData,
            }
        }

        /// Uses another spawner (another platform, or a test harness).
        ///
        /// ```
        /// use antpool::{Pool, StdSpawner};
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
                panic_handler: self.panic_handler,
                _queue: PhantomData,
            }
        }

        /// Fixes the idle-queue type, e.g. [`WorkerStack`](crate::WorkerStack) or
        /// [`WorkerRing<N>`](crate::WorkerRing).
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
                panic_handler: self.panic_handler,
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
            let exec = exec::Exec::new(self.panic_handler);
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

    #[cfg(feature = "std")]
    impl<M, Q, C, S> Builder<M, Q, C, S> {
        /// What to do with the payload of a task that panicked (the worker
        /// survives). Default: log it through `log::error!`.
        ///
        /// ```
        /// use std::sync::atomic::{AtomicUsize, Ordering};
        /// use std::sync::Arc;
        /// let seen = Arc::new(AtomicUsize::new(0));
        /// let s = seen.clone();
        /// let pool = antpool::Pool::builder()
        ///     .capacity(1)
        ///     .panic_handler(move |_payload| { s.fetch_add(1, Ordering::SeqCst); })
        ///     .build()
        ///     .unwrap();
        /// pool.submit(|| panic!("boom")).unwrap();
        /// pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
        /// assert_eq!(seen.load(Ordering::SeqCst), 1);
        /// ```
        pub fn panic_handler<H>(mut self, handler: H) -> Self
        where
            H: Fn(alloc::boxed::Box<dyn core::any::Any + Send>) + Send + Sync + 'static,
        {
            self.panic_handler = Some(Arc::new(handler));
            self
        }
    }

    #[cfg(feature = "std")]
    impl<M, Q, C> Builder<M, Q, C, crate::StdSpawner> {
        /// Names worker threads `"{prefix}-{index}"` (default `antpool-worker`).
        ///
        /// ```
        /// let pool = antpool::Pool::builder().capacity(1).thread_name("db").build().unwrap();
        /// let (tx, rx) = std::sync::mpsc::channel();
        /// pool.submit(move || tx.send(std::thread::current().name().map(String::from)).unwrap()).unwrap();
        /// assert_eq!(rx.recv().unwrap().as_deref(), Some("db-0"));
        /// ```
        pub fn thread_name(mut self, prefix: impl Into<alloc::string::String>) -> Self {
            self.spawner = self.spawner.name(prefix);
            self
        }

        /// Stack size of worker threads, in bytes (default: the platform's).
        ///
        /// ```
        /// assert!(antpool::Pool::builder().capacity(1).stack_size(256 << 10).build().is_ok());
        /// ```
        pub fn stack_size(mut self, bytes: usize) -> Self {
            self.spawner = self.spawner.stack_size(bytes);
            self
        }
    }

    impl<Q: WorkerQueue, C: Clock, S: Spawner> Builder<ForPool, Q, C, S> {
        /// Validates the options and builds the pool. No thread starts until the
        /// first task.
        ///
        /// ```
        /// use antpool::{BuildError, Pool};
        /// assert_eq!(Pool::builder().capacity(0).build().unwrap_err(), BuildError::InvalidCapacity);
        /// assert!(Pool::builder().capacity(1).build().is_ok());
        /// ```
        pub fn build(self) -> Result<Pool<Q, C, S>, BuildError> {
            let (config, queue, parts) = self.parts()?;
            let ring = config.ring_size();
            let engine = Engine::new(
                config,
                queue,
                boxed_slots(ring),
                ring,
                parts.clock,
                parts.spawner,
                parts.exec.wrap(RunTask),
            );
            Ok(Pool::from_engine(Arc::new(engine)))
        }
    }

    impl<A, F, Q, C, S> Builder<ForFunc<A, F>, Q, C, S>
    where
        A: Send + 'static,
        F: crate::WorkFn<A>,
        Q: WorkerQueue,
        C: Clock,
        S: Spawner,
    {
        /// Validates the options and builds the pool. No thread starts until the
        /// first argument.
        ///
        /// ```
        /// let pool = antpool::PoolWithFunc::builder(|n: u32| drop(n)).capacity(2).build().unwrap();
        /// assert_eq!(pool.cap(), Some(2));
        /// ```
        pub fn build(self) -> Result<PoolWithFunc<A, F, Q, C, S>, BuildError> {
            let (config, queue, parts) = self.parts()?;
            let exec = parts.exec.wrap(CallFn::new(parts.make.func));
            let ring = config.ring_size();
            let slots = boxed_slots(ring);
            let engine = Engine::new(config, queue, slots, ring, parts.clock, parts.spawner, exec);
            Ok(PoolWithFunc::from_engine(Arc::new(engine)))
        }
    }
}
