//! [`StaticPoolWithFunc`]: a [`PoolWithFunc`](crate::PoolWithFunc) in a
//! `static`, with no heap at all — its worker slots, idle queue and the ring
//! that carries arguments are inline, and it is `const`-constructible (see
//! `func.rs` for why it is a type of its own).

use core::fmt;

use crate::clock::Clock;
use crate::engine::{Engine, Mode, Parts, Slot};
use crate::error::{BuildError, SubmitError};
use crate::exec::{Call, CallFn, CallOf, FnHooks, Guarded, guard_default, hooks_mut};
use crate::options::Options;
use crate::priority::Priority;
use crate::queue::WorkerRing;
use crate::spawner::Spawner;

/// One task of a static pool over `A`.
type StaticCall<A> = CallOf<A, fn(A)>;
type StaticEngine<A, const N: usize, C, S> = Engine<
    Parts<
        StaticCall<A>,
        WorkerRing<N>,
        [Slot<StaticCall<A>>; N],
        C,
        S,
        Guarded<FnHooks<CallFn<fn(A)>>>,
    >,
>;

/// A [`PoolWithFunc`](crate::PoolWithFunc) that lives in a `static`: no heap, not
/// even when it is built. Made for embedded targets: `N` worker slots — at most
/// `N` workers, their idle queue (a [`WorkerRing<N>`](crate::WorkerRing)) and the
/// ring that carries arguments to them, all inline — on your platform's clock
/// and spawner.
///
/// Workers hold a `&'static` to the pool, so the methods that may start one take
/// `&'static self`. The first task of a new worker is handed over on the
/// submitter's stack: the submitter waits until the new thread has taken it (a
/// thread start, once per worker; never per task).
///
/// The capacity may not exceed `N` ([`BuildError::CapacityTooLarge`]: an
/// unbounded static pool included), and `tune` never raises it past `N`.
///
/// ```
/// use antpool::{Options, StaticPoolWithFunc};
/// use antpool::port::{StdClock, StdSpawner};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::LazyLock;
/// use std::time::Duration;
///
/// static SUM: AtomicU32 = AtomicU32::new(0);
/// fn work(n: u32) {
///     SUM.fetch_add(n, Ordering::Relaxed);
/// }
///
/// // On std, the clock and spawner are not `const`, hence the `LazyLock`; an RTOS
/// // port's zero-sized clock and spawner go straight into the initialiser.
/// static POOL: LazyLock<StaticPoolWithFunc<u32, 4, StdClock, StdSpawner>> =
///     LazyLock::new(|| StaticPoolWithFunc::new(Options::new().capacity(4), work, StdClock::new(), StdSpawner::new()));
///
/// for n in 1..=10 {
///     POOL.invoke(n).unwrap();
/// }
/// POOL.release_timeout(Duration::from_secs(5)).unwrap();
/// assert_eq!(SUM.load(Ordering::Relaxed), 55);
/// ```
pub struct StaticPoolWithFunc<A, const N: usize, C, S>
where
    A: Send + 'static,
    C: Clock,
    S: Spawner,
{
    engine: StaticEngine<A, N, C, S>,
}

crate::face::unwind_safe!([A, const N: usize, C, S] StaticPoolWithFunc<A, N, C, S>
    where A: Send + 'static, C: Clock, S: Spawner);

impl<A, const N: usize, C, S> StaticPoolWithFunc<A, N, C, S>
where
    A: Send + 'static,
    C: Clock,
    S: Spawner,
{
    /// The engine (for the faces' level methods, `prioritized.rs`).
    #[cfg(feature = "alloc")]
    pub(crate) fn engine_ref(&self) -> &StaticEngine<A, N, C, S> {
        &self.engine
    }

    /// The engine (what a metrics reporter reads).
    #[cfg(feature = "metrics")]
    pub(crate) fn engine(&'static self) -> &'static StaticEngine<A, N, C, S> {
        &self.engine
    }

    /// Checks `options` for a static pool of `N` slots.
    const fn static_config(options: &Options) -> Result<crate::engine::Config, BuildError> {
        match options.config() {
            Ok(config) if config.queue_limit != 0 => Err(BuildError::QueueUnsupported),
            Ok(crate::engine::Config {
                capacity: Some(cap),
                ..
            }) if cap <= N => match options.config() {
                Ok(config) => Ok(config),
                Err(e) => Err(e),
            },
            Ok(_) => Err(BuildError::CapacityTooLarge),
            Err(e) => Err(e),
        }
    }

    maybe_const_fn! {
        /// A pool of `N` worker slots running `func`, configured by `options`, on
        /// `clock` and `spawner`.
        ///
        /// `const`: in a `static` initialiser, invalid options are a compile error
        /// that names the problem. At run time, [`try_new`](Self::try_new) returns the
        /// [`BuildError`] instead of panicking.
        ///
        /// # Panics
        ///
        /// If `options` are invalid (see [`Options`]), ask for queue mode, or for a
        /// capacity above `N`.
        ///
        /// ```
        /// use antpool::{Options, StaticPoolWithFunc};
        /// use antpool::port::{ManualClock, StdSpawner};
        /// static CLOCK: ManualClock = ManualClock::new();
        /// fn work(_: u8) {}
        /// let pool: StaticPoolWithFunc<u8, 2, _, _> =
        ///     StaticPoolWithFunc::new(Options::new().capacity(2), work, &CLOCK, StdSpawner::new());
        /// assert_eq!(pool.cap(), Some(2));
        /// ```
        pub fn new(options: Options, func: fn(A), clock: C, spawner: S) -> Self {
            let config = match Self::static_config(&options) {
                Ok(config) => config,
                Err(e) => panic!("{}", e.message()),
            };
            let exec = guard_default(FnHooks::new(CallFn::new(func)));
            StaticPoolWithFunc {
                engine: Engine::new(
                    config,
                    WorkerRing::new(),
                    Self::slots(),
                    N,
                    clock,
                    spawner,
                    exec,
                ),
            }
        }
    }

    maybe_const_fn! {
        /// Runs `hook` on each worker's thread when it starts, before its first
        /// task (as [`PoolBuilder::on_worker_start`](crate::PoolBuilder::on_worker_start)
        /// does for the heap pools). A plain function: it needs no heap, and
        /// works without `std` (`const`, so a pool in a `static` has it from the
        /// start). With `std` a panic in it goes to the log (a static pool has
        /// no panic handler) and does not lose the worker or its task; without
        /// `std` it is a panic on the worker's thread, as a task's would be.
        ///
        /// ```
        /// use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        /// use antpool::{Options, StaticPoolWithFunc};
        /// use antpool::port::{StdClock, StdSpawner};
        /// static STARTED: AtomicUsize = AtomicUsize::new(0);
        /// static STOPPED: AtomicUsize = AtomicUsize::new(0);
        /// fn started() { STARTED.fetch_add(1, SeqCst); }
        /// fn stopped() { STOPPED.fetch_add(1, SeqCst); }
        /// let pool: &'static StaticPoolWithFunc<u8, 2, StdClock, StdSpawner> = Box::leak(Box::new(
        ///     StaticPoolWithFunc::new(Options::new().capacity(2), |_| (), StdClock::new(), StdSpawner::new())
        ///         .on_worker_start(started)
        ///         .on_worker_stop(stopped),
        /// ));
        /// pool.invoke(1).unwrap();
        /// pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
        /// assert_eq!((STARTED.load(SeqCst), STOPPED.load(SeqCst)), (1, 1));
        /// ```
        #[must_use = "the pool with the hook is the one this returns"]
        pub fn on_worker_start(mut self, hook: fn()) -> Self {
            hooks_mut(self.engine.exec_mut()).set_start(hook);
            self
        }
    }

    maybe_const_fn! {
        /// Runs `hook` on each worker's thread as the last thing before it
        /// ends (expiry, `tune` down, release): part of the exit that
        /// `release_timeout` waits for. See [`on_worker_start`](Self::on_worker_start).
        ///
        /// ```
        /// use antpool::{Options, StaticPoolWithFunc};
        /// use antpool::port::{StdClock, StdSpawner};
        /// fn flush() {}
        /// let pool: StaticPoolWithFunc<u8, 2, StdClock, StdSpawner> =
        ///     StaticPoolWithFunc::new(Options::new().capacity(2), |_| (), StdClock::new(), StdSpawner::new())
        ///         .on_worker_stop(flush);
        /// assert_eq!(pool.cap(), Some(2));
        /// ```
        #[must_use = "the pool with the hook is the one this returns"]
        pub fn on_worker_stop(mut self, hook: fn()) -> Self {
            hooks_mut(self.engine.exec_mut()).set_stop(hook);
            self
        }
    }

    maybe_const_fn! {
        /// `N` empty slots.
        fn slots() -> [Slot<StaticCall<A>>; N] {
            #[cfg(not(antpool_loom))]
            return [const { Slot::new() }; N];
            #[cfg(antpool_loom)]
            return core::array::from_fn(|_| Slot::new());
        }
    }

    /// Like [`new`](Self::new), but returns the [`BuildError`] for invalid options.
    ///
    /// # Errors
    ///
    /// [`BuildError`](crate::BuildError) for invalid options, and
    /// [`BuildError::CapacityTooLarge`](crate::BuildError::CapacityTooLarge) for a
    /// capacity above `N` (or an unbounded pool: a static pool has only its `N` slots).
    ///
    /// ```
    /// use antpool::{BuildError, Options, StaticPoolWithFunc};
    /// use antpool::port::{ManualClock, StdSpawner};
    /// static CLOCK: ManualClock = ManualClock::new();
    /// let pool = StaticPoolWithFunc::<u8, 2, _, _>::try_new(Options::new().capacity(0), |_| (), &CLOCK, StdSpawner::new());
    /// assert_eq!(pool.err(), Some(BuildError::InvalidCapacity));
    /// let pool = StaticPoolWithFunc::<u8, 2, _, _>::try_new(Options::new().capacity(3), |_| (), &CLOCK, StdSpawner::new());
    /// assert_eq!(pool.err(), Some(BuildError::CapacityTooLarge));
    /// ```
    pub fn try_new(
        options: Options,
        func: fn(A),
        clock: C,
        spawner: S,
    ) -> Result<Self, BuildError> {
        Self::static_config(&options)?;
        Ok(Self::new(options, func, clock, spawner))
    }

    /// Runs the pool's function on `arg` on a worker; see
    /// [`PoolWithFunc::invoke`](crate::PoolWithFunc::invoke).
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`crate::SubmitError::Overload`] when the pool is saturated and may not block
    /// (`nonblocking`, or `max_blocking_tasks` callers already waiting);
    /// [`crate::SubmitError::Closed`] when the pool is released (also while the call
    /// waits); [`crate::SubmitError::SpawnFailed`] when a new worker was needed and the
    /// platform could not start a thread (the pool's counts are as before the call).
    ///
    /// ```
    /// # use antpool::{Options, StaticPoolWithFunc};
    /// # use antpool::port::StdSpawner;
    /// # use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, antpool::port::StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1), |n| assert_eq!(n, 9), antpool::port::StdClock::new(), StdSpawner::new())
    /// });
    /// POOL.invoke(9).unwrap();
    /// ```
    pub fn invoke(&'static self, arg: A) -> Result<(), SubmitError<A>> {
        self.invoke_in(arg, Mode::Block, Priority::Normal)
    }

    /// [`invoke`](Self::invoke) for async code, without `std` or a heap: a
    /// future that waits for room without blocking a thread; see
    /// [`Pool::submit_async`](crate::Pool::submit_async).
    ///
    /// # Errors
    ///
    /// As for [`invoke`](Self::invoke): the argument comes back inside the
    /// error, untouched.
    ///
    /// ```
    /// # use antpool::{Options, StaticPoolWithFunc};
    /// # use antpool::port::{StdClock, StdSpawner};
    /// # use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 2, StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(2), |n| assert!(n < 8), StdClock::new(), StdSpawner::new())
    /// });
    /// futures_executor::block_on(async {
    ///     for n in 0..8 {
    ///         POOL.invoke_async(n).await.unwrap();
    ///     }
    /// });
    /// ```
    pub fn invoke_async(
        &'static self,
        arg: A,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>> + Send + 'static {
        self.invoke_async_at(arg, Priority::Normal)
    }

    /// [`invoke_async`](Self::invoke_async) at `priority`.
    pub(crate) fn invoke_async_at(
        &'static self,
        arg: A,
        priority: Priority,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>> + Send + 'static {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        crate::engine::Admit::<_, &'static StaticEngine<A, N, C, S>>::new(
            handle,
            Call::new(arg),
            true,
            priority,
        )
        .map_err(Call::into_arg)
    }

    /// [`invoke`](StaticPoolWithFunc::invoke) in `mode` at `priority`.
    pub(crate) fn invoke_in(
        &'static self,
        arg: A,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<A>> {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        Engine::submit(&handle, Call::new(arg), mode, priority).map_err(|e| e.map(Call::into_arg))
    }

    /// Like [`invoke`](Self::invoke), but never blocks: a saturated pool returns
    /// [`SubmitError::Overload`] with the argument.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`crate::SubmitError::Overload`] when no worker is free at once (it never blocks);
    /// [`crate::SubmitError::Closed`] when the pool is released (also while the call
    /// waits); [`crate::SubmitError::SpawnFailed`] when a new worker was needed and the
    /// platform could not start a thread (the pool's counts are as before the call).
    ///
    /// ```
    /// # use antpool::{Options, StaticPoolWithFunc};
    /// # use antpool::port::StdSpawner;
    /// # use std::sync::LazyLock;
    /// static POOL: LazyLock<StaticPoolWithFunc<u8, 1, antpool::port::StdClock, StdSpawner>> = LazyLock::new(|| {
    ///     StaticPoolWithFunc::new(Options::new().capacity(1), |_| (), antpool::port::StdClock::new(), StdSpawner::new())
    /// });
    /// POOL.try_invoke(1).unwrap(); // starts the first worker
    /// ```
    pub fn try_invoke(&'static self, arg: A) -> Result<(), SubmitError<A>> {
        self.invoke_in(arg, Mode::Try, Priority::Normal)
    }

    /// Hands `arg` to a worker that is parked waiting for work, and wakes it;
    /// if there is none, returns at once. Made for interrupt handlers: it
    /// never starts a thread, never waits, never queues `arg` behind other
    /// work, never allocates and never reads the clock. It takes the pool's
    /// lock once, for a few instructions, and notifies one worker's signal.
    ///
    /// Call it from an interrupt only where the platform's lock and signal
    /// may be used there: `antpool-freertos` with its `isr` feature (an
    /// interrupt at or below `configMAX_SYSCALL_INTERRUPT_PRIORITY`; its README
    /// has the rules). Workers park only once they exist: start them with
    /// [`Options::min_idle`](crate::Options::min_idle) and
    /// [`start_min_idle`](Self::start_min_idle), or with earlier work. From a
    /// thread it is a [`try_invoke`](Self::try_invoke) that starts nothing.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`crate::SubmitError::Overload`] when no worker is parked (all busy,
    /// or not started), the pool is paused or at capacity, or blocked
    /// submitters wait (they keep their turn); [`crate::SubmitError::Closed`]
    /// when the pool is released.
    ///
    /// ```
    /// use std::time::Duration;
    /// use antpool::{Options, StaticPoolWithFunc, SubmitError};
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool: &'static StaticPoolWithFunc<u8, 2, StdClock, StdSpawner> = Box::leak(Box::new(
    ///     StaticPoolWithFunc::new(Options::new().capacity(2).min_idle(2), |_| (), StdClock::new(), StdSpawner::new()),
    /// ));
    /// // No worker yet: nothing is started for it.
    /// assert!(matches!(pool.try_invoke_from_isr(1), Err(SubmitError::Overload(1))));
    /// pool.start_min_idle().unwrap();
    /// while pool.idle() < 2 {
    ///     std::thread::sleep(Duration::from_millis(1)); // the warm workers park
    /// }
    /// pool.try_invoke_from_isr(2).unwrap();
    /// pool.wait_idle();
    /// assert_eq!(pool.stats().completed, 1);
    /// ```
    pub fn try_invoke_from_isr(&'static self, arg: A) -> Result<(), SubmitError<A>> {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        Engine::submit_to_parked(&handle, Call::new(arg)).map_err(|e| e.map(Call::into_arg))
    }

    /// Changes the capacity at run time, up to `N`; see
    /// [`Pool::tune`](crate::Pool::tune).
    ///
    /// ```
    /// use antpool::{Options, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool: &'static StaticPoolWithFunc<u8, 4, StdClock, StdSpawner> = Box::leak(Box::new(
    ///     StaticPoolWithFunc::new(Options::new().capacity(3), |_| (), StdClock::new(), StdSpawner::new()),
    /// ));
    /// pool.tune(4);
    /// assert_eq!(pool.cap(), Some(4));
    /// pool.tune(9); // at most N
    /// assert_eq!(pool.cap(), Some(4));
    /// ```
    pub fn tune(&'static self, capacity: usize) {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        Engine::tune(&handle, capacity.min(N))
    }

    /// Ends a [`pause`](Self::pause); see [`Pool::resume`](crate::Pool::resume).
    /// (Needs no heap: pause and resume work without `std`.)
    ///
    /// ```
    /// use antpool::{Options, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool: &'static StaticPoolWithFunc<u8, 4, StdClock, StdSpawner> = Box::leak(Box::new(
    ///     StaticPoolWithFunc::new(Options::new().capacity(3), |_| (), StdClock::new(), StdSpawner::new()),
    /// ));
    /// pool.pause();
    /// assert!(pool.try_invoke(7).is_err()); // paused: as at capacity
    /// pool.resume();
    /// pool.invoke(7).unwrap();
    /// ```
    pub fn resume(&'static self) {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        Engine::resume(&handle)
    }

    /// Drops every argument admitted that no worker took yet, and returns how
    /// many; see [`Pool::clear_queue`](crate::Pool::clear_queue). (A static
    /// pool has no queue mode: this clears only what waits for a busy worker
    /// to come free, which is never more than the capacity.)
    ///
    /// ```
    /// use antpool::{Options, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool: &'static StaticPoolWithFunc<u8, 2, StdClock, StdSpawner> = Box::leak(Box::new(
    ///     StaticPoolWithFunc::new(Options::new().capacity(2), |_| (), StdClock::new(), StdSpawner::new()),
    /// ));
    /// pool.invoke(1).unwrap();
    /// pool.wait_idle();
    /// assert_eq!(pool.clear_queue(), 0);
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect; the count is extra
    pub fn clear_queue(&'static self) -> usize {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        Engine::clear_queue(&handle)
    }

    /// Starts the warm workers that [`Options::min_idle`] asks for (until the
    /// pool runs that many, or its capacity): what the heap pools' builders do
    /// at build, which a `const` initialiser cannot. Call it once the
    /// platform can start threads (on an RTOS, once the scheduler runs);
    /// calling it again starts only what is missing. Without it, workers start
    /// with the first tasks as usual, and expiry still keeps `min_idle` of them.
    /// A released pool keeps no workers: on one, this starts none (`reboot`
    /// it first).
    ///
    /// # Errors
    ///
    /// [`BuildError::SpawnFailed`] if the spawner could not start a worker; the
    /// ones started before it stay (call again to retry).
    ///
    /// ```
    /// use antpool::{Options, StaticPoolWithFunc};
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool: &'static StaticPoolWithFunc<u8, 4, StdClock, StdSpawner> = Box::leak(Box::new(
    ///     StaticPoolWithFunc::new(Options::new().capacity(4).min_idle(2), |_| (), StdClock::new(), StdSpawner::new()),
    /// ));
    /// assert_eq!(pool.running(), 0);
    /// pool.start_min_idle().unwrap();
    /// assert_eq!(pool.running(), 2);
    /// ```
    pub fn start_min_idle(&'static self) -> Result<(), BuildError> {
        let handle: &'static StaticEngine<A, N, C, S> = &self.engine;
        match Engine::warm(&handle) {
            true => Ok(()),
            false => Err(BuildError::SpawnFailed),
        }
    }

    crate::face::lifecycle_methods! {
        setup: "use antpool::{Options, StaticPoolWithFunc};\nuse antpool::port::{StdClock, StdSpawner};
let pool: &'static StaticPoolWithFunc<u32, 4, StdClock, StdSpawner> = Box::leak(Box::new(
    StaticPoolWithFunc::new(Options::new().capacity(3), |n| drop(n), StdClock::new(), StdSpawner::new()),
));
",
        pool: "pool",
        submit: "pool.invoke(1).unwrap()",
    }
}

impl<A, const N: usize, C, S> fmt::Debug for StaticPoolWithFunc<A, N, C, S>
where
    A: Send + 'static,
    C: Clock,
    S: Spawner,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.engine.fmt_as("StaticPoolWithFunc", f)
    }
}
