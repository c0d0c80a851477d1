//! The methods of a pool that runs one function over typed arguments
//! ([`PoolWithFunc`], and without a heap [`StaticPoolWithFunc`]): making a
//! heap one (the static one is made in `static_pool.rs`), and the invoke
//! family — `invoke`, `try_invoke`, `invoke_async`, `call`,
//! `try_invoke_from_isr` (`invoke_timeout` is in `deadline.rs`).
//!
//! A task is the argument itself, carried by value in a slot of the pool's
//! task queue: no allocation per task, on any target. Each method submits at
//! `Priority::Normal`; the same family at another level is on the
//! [`Prioritized`](crate::Prioritized) view.
//!
//! [`StaticPoolWithFunc`]: crate::StaticPoolWithFunc

use crate::clock::Clock;
use crate::engine::{Admit, Engine, Mode};
use crate::error::SubmitError;
use crate::exec::{Call, WorkFn};
use crate::kind::Calls;
use crate::kind::sealed::{Storage, StorageReach};
use crate::pool::PoolOf;
#[cfg(feature = "alloc")]
use crate::pool::PoolWithFunc;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

#[cfg(feature = "std")]
impl<A, F> PoolWithFunc<A, F>
where
    A: Send + 'static,
    F: WorkFn<A>,
{
    /// A pool of at most `capacity` workers running `func`, with the default
    /// options; 0 is [`BuildError::InvalidCapacity`](crate::BuildError::InvalidCapacity).
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidCapacity`](crate::BuildError::InvalidCapacity) for a capacity
    /// of 0, [`BuildError::CapacityTooLarge`](crate::BuildError::CapacityTooLarge) above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY).
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |s: String| println!("{s}")).unwrap();
    /// pool.invoke("hello".to_string()).unwrap();
    /// ```
    pub fn new(capacity: usize, func: F) -> Result<Self, crate::error::BuildError> {
        Self::builder(func).capacity(capacity).build()
    }

    /// A pool with no limit on its workers, running `func`.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::unbounded(|n: u8| drop(n));
    /// assert_eq!(pool.cap(), None);
    /// ```
    pub fn unbounded(func: F) -> Self {
        match Self::builder(func).unbounded().build() {
            Ok(pool) => pool,
            Err(e) => unreachable!("the default unbounded options are valid: {e}"),
        }
    }

    /// A builder with every option (see [`Builder`](crate::Builder)).
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::builder(|n: u32| drop(n))
    ///     .capacity(4)
    ///     .nonblocking(true)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.cap(), Some(4));
    /// ```
    pub fn builder(func: F) -> crate::builder::PoolWithFuncBuilder<A, F> {
        crate::builder::PoolWithFuncBuilder::new_func(
            func,
            crate::os::clock::StdClock::new(),
            crate::os::spawner::StdSpawner::new(),
        )
    }
}

#[cfg(feature = "alloc")]
impl<A, F, C, S> PoolWithFunc<A, F, crate::queue::IdleQueue, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    C: Clock,
    S: Spawner,
{
    /// A builder for a pool on another platform: your clock and spawner.
    ///
    /// ```
    /// use antpool::PoolWithFunc;
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool = PoolWithFunc::builder_with(|n: u32| drop(n), StdClock::new(), StdSpawner::new())
    ///     .capacity(1)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.cap(), Some(1));
    /// ```
    pub fn builder_with(
        func: F,
        clock: C,
        spawner: S,
    ) -> crate::builder::PoolWithFuncBuilder<A, F, crate::queue::IdleQueue, C, S> {
        crate::builder::PoolWithFuncBuilder::new_func(func, clock, spawner)
    }
}

impl<A, F, Q, C, S, H> PoolOf<Calls<A, F, Q, C, S, H>>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: Storage,
{
    /// Runs the pool's function on `arg` on a worker, as
    /// [`Pool::submit`](crate::Pool::submit) runs a closure: an idle worker, a
    /// new one (while fewer than the capacity run), or — at capacity — the
    /// first to finish, blocking until then unless the options say otherwise.
    /// A static pool takes it through a `&'static`.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`SubmitError::Overload`] when the pool is saturated and may not block
    /// (`nonblocking`, or `max_blocking_tasks` callers already waiting);
    /// [`SubmitError::Closed`] when the pool is released (also while the call
    /// waits); [`SubmitError::SpawnFailed`] when a new worker was needed and the
    /// platform could not start a thread (the pool's counts are as before the call).
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(1, |n: u32| assert!(n < 10)).unwrap();
    /// pool.invoke(3).unwrap();
    /// pool.release();
    /// assert_eq!(pool.invoke(4).unwrap_err().into_inner(), 4);
    /// ```
    ///
    /// The argument type must be `Send`:
    ///
    /// ```compile_fail
    /// let pool = antpool::PoolWithFunc::new(1, |rc: std::rc::Rc<u8>| drop(rc)).unwrap();
    /// ```
    pub fn invoke<'a>(&'a self, arg: A) -> Result<(), SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        self.invoke_at(arg, Mode::Block, Priority::Normal)
    }

    /// Like [`invoke`](Self::invoke), but never blocks: a saturated pool
    /// returns [`SubmitError::Overload`] with the argument.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`SubmitError::Overload`] when no worker is free at once;
    /// [`SubmitError::Closed`] when the pool is released;
    /// [`SubmitError::SpawnFailed`] when a new worker was needed and the
    /// platform could not start a thread.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let (hold, wait) = mpsc::channel::<()>();
    /// let wait = std::sync::Mutex::new(wait);
    /// let pool = antpool::PoolWithFunc::new(1, move |_: u8| { let _ = wait.lock().unwrap().recv(); }).unwrap();
    /// pool.invoke(1).unwrap(); // occupies the only worker
    /// assert_eq!(pool.try_invoke(2).unwrap_err(), antpool::SubmitError::Overload(2));
    /// drop(hold);
    /// ```
    pub fn try_invoke<'a>(&'a self, arg: A) -> Result<(), SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        self.invoke_at(arg, Mode::Try, Priority::Normal)
    }

    /// [`invoke`](Self::invoke) in `mode` (blocking, never, or for at most a
    /// time: `deadline.rs`) at `priority`.
    #[inline]
    pub(crate) fn invoke_at<'a>(
        &'a self,
        arg: A,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        self.with_ref(|engine| Engine::submit(engine, Call::new(arg), mode, priority))
            .map_err(|e| e.map(Call::into_arg))
    }

    /// [`invoke`](Self::invoke) for async code, without `std` or a heap: a
    /// future that waits for room without blocking a thread; see
    /// [`Pool::submit_async`](crate::Pool::submit_async). It holds the pool's
    /// engine (not a handle: it keeps no heap pool open) and is
    /// `'static + Send`. Dropped before it resolves, it submits nothing and
    /// leaves no waiter behind.
    ///
    /// # Errors
    ///
    /// As for [`invoke`](Self::invoke): the argument comes back inside the
    /// error, untouched.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    /// use std::sync::Arc;
    /// let total = Arc::new(AtomicU64::new(0));
    /// let t = total.clone();
    /// let pool = antpool::PoolWithFunc::new(2, move |n: u64| { t.fetch_add(n, Relaxed); }).unwrap();
    /// futures_executor::block_on(async {
    ///     for n in 1..=10 {
    ///         pool.invoke_async(n).await.unwrap();
    ///     }
    ///     pool.wait_idle_async().await;
    /// });
    /// assert_eq!(total.load(Relaxed), 55);
    /// ```
    pub fn invoke_async<'a>(
        &'a self,
        arg: A,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<'a, A, F, Q, C, S, H>
    where
        H: StorageReach<'a>,
    {
        self.invoke_async_at(arg, Priority::Normal)
    }

    /// [`invoke_async`](Self::invoke_async) at `priority`.
    pub(crate) fn invoke_async_at<'a>(
        &'a self,
        arg: A,
        priority: Priority,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<'a, A, F, Q, C, S, H>
    where
        H: StorageReach<'a>,
    {
        Admit::new(self.reach(), Call::new(arg), true, priority).map_err(Call::into_arg)
    }

    /// Hands `arg` to a worker that is parked waiting for work, and wakes it;
    /// if there is none, returns at once. Made for interrupt handlers: it
    /// never starts a thread, never waits, never queues `arg` behind other
    /// work, never allocates and never reads the clock. It takes the pool's
    /// lock once, for a few instructions, and notifies one worker's signal.
    ///
    /// Call it from an interrupt only where the platform's lock and signal
    /// may be used there: `antpool-threadx` (ThreadX's own calls work in
    /// interrupts), or `antpool-freertos` with its `isr` feature (an interrupt
    /// at or below `configMAX_SYSCALL_INTERRUPT_PRIORITY`); their READMEs have
    /// the rules. Workers park only once they exist: start them with
    /// [`Options::min_idle`](crate::Options::min_idle) (and, on a static pool,
    /// `start_min_idle`), or with earlier work. From a thread it is a
    /// [`try_invoke`](Self::try_invoke) that starts nothing.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`SubmitError::Overload`] when no worker is parked (all busy, or not
    /// started), the pool is paused or at capacity, or blocked submitters
    /// wait (they keep their turn); [`SubmitError::Closed`] when the pool is
    /// released.
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
    pub fn try_invoke_from_isr<'a>(&'a self, arg: A) -> Result<(), SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        self.with_ref(|engine| Engine::submit_to_parked(engine, Call::new(arg)))
            .map_err(|e| e.map(Call::into_arg))
    }
}
