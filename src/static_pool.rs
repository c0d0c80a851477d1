//! Making a [`StaticPoolWithFunc`]: a pool with no heap at all, its worker
//! slots, idle queue and the ring that carries arguments inline, and
//! `const`-constructible so it can be a `static`. What it shares with every
//! pool is on [`PoolOf`]; its invoke family is in `calls.rs`.

use crate::clock::Clock;
use crate::engine::{Config, Engine, Slot};
use crate::error::BuildError;
use crate::exec::{Call, CallFn, FnHooks, guard_default, hooks_mut};
use crate::kind::sealed::InlineHome;
use crate::options::Options;
use crate::pool::{PoolOf, StaticPoolWithFunc};
use crate::queue::WorkerRing;
use crate::spawner::Spawner;

impl<A, const N: usize, C, S> StaticPoolWithFunc<A, N, C, S>
where
    A: Send + 'static,
    C: Clock,
    S: Spawner,
{
    /// Checks `options` for a static pool of `N` slots.
    const fn static_config(options: &Options) -> Result<Config, BuildError> {
        match options.config() {
            Ok(config) if config.queue_limit != 0 => Err(BuildError::QueueUnsupported),
            Ok(Config {
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
            PoolOf {
                home: InlineHome {
                    engine: Engine::new(
                        config,
                        WorkerRing::new(),
                        Self::slots(),
                        N,
                        clock,
                        spawner,
                        exec,
                    ),
                },
            }
        }
    }

    /// Like [`new`](Self::new), but returns the [`BuildError`] for invalid options.
    ///
    /// # Errors
    ///
    /// [`BuildError`] for invalid options, and
    /// [`BuildError::CapacityTooLarge`] for a capacity above `N` (or an
    /// unbounded pool: a static pool has only its `N` slots).
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

    maybe_const_fn! {
        /// Runs `hook` on each worker's thread when it starts, before its first
        /// task (as the heap pools' builders' `on_worker_start` does). A plain
        /// function: it needs no heap, and works without `std` (`const`, so a
        /// pool in a `static` has it from the start). With `std` a panic in it
        /// goes to the log (a static pool has no panic handler) and does not
        /// lose the worker or its task; without `std` it is a panic on the
        /// worker's thread, as a task's would be.
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
            hooks_mut(self.home.engine.exec_mut()).set_start(hook);
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
            hooks_mut(self.home.engine.exec_mut()).set_stop(hook);
            self
        }
    }

    maybe_const_fn! {
        /// `N` empty slots.
        fn slots() -> [Slot<Call<A, ()>>; N] {
            #[cfg(not(antpool_loom))]
            return [const { Slot::new() }; N];
            #[cfg(antpool_loom)]
            return core::array::from_fn(|_| Slot::new());
        }
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
        match self.with_ref(Engine::warm) {
            true => Ok(()),
            false => Err(BuildError::SpawnFailed),
        }
    }
}
