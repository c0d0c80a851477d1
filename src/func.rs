//! One function over typed arguments: [`PoolWithFunc`] (behind an `Arc`), and
//! its twin in a `static`, [`StaticPoolWithFunc`](crate::StaticPoolWithFunc)
//! (`static_func.rs`: no heap at all).
//!
//! A task is just the argument, carried by value in a slot of the pool's lane:
//! no allocation per task, on any target.
//!
//! Two faces, because a worker must be able to reach its pool for as long as it
//! lives. `PoolWithFunc` gives each worker an `Arc` clone (one allocation when the
//! pool is built). `StaticPoolWithFunc` lives in a `static`, so workers hold a
//! `&'static`; its methods that start workers take `&'static self`, and it is
//! `const`-constructible. (One type for both would make its API depend on the
//! `alloc` feature, and features must only add.)

use alloc::sync::Arc;
use core::fmt;

use crate::clock::Clock;
use crate::engine::{Engine, Mode, Parts, Slot};
#[cfg(feature = "std")]
use crate::error::BuildError;
use crate::error::SubmitError;
use crate::exec::{Call, CallFn, CallOf, Guarded, WorkFn};
use crate::owner::Owner;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

/// The engine flavor of a [`PoolWithFunc`].
pub(crate) type FuncFlavor<A, F, Q, C, S> =
    Parts<CallOf<A, F>, Q, alloc::boxed::Box<[Slot<CallOf<A, F>>]>, C, S, Guarded<CallFn<F>>>;
type FuncEngine<A, F, Q, C, S> = Engine<FuncFlavor<A, F, Q, C, S>>;

macro_rules! pool_with_func_struct {
    ($($defaults:tt)*) => {
        /// A bounded pool of reusable workers that all run one function, each call
        /// on an argument of type `A`.
        ///
        /// Behaves exactly like [`Pool`](crate::Pool) — hand-off, capacity,
        /// blocking, expiry, tune, release — but a task is the argument itself,
        /// travelling by value: no allocation per task.
        ///
        /// ```
        /// use antpool::PoolWithFunc;
        /// use std::sync::atomic::{AtomicU64, Ordering};
        /// use std::sync::Arc;
        /// use std::time::Duration;
        ///
        /// let sum = Arc::new(AtomicU64::new(0));
        /// let s = sum.clone();
        /// let pool = PoolWithFunc::new(4, move |n: u64| { s.fetch_add(n, Ordering::Relaxed); }).unwrap();
        /// for n in 1..=100 {
        ///     pool.invoke(n).unwrap();
        /// }
        /// pool.release_timeout(Duration::from_secs(5)).unwrap();
        /// assert_eq!(sum.load(Ordering::Relaxed), 5050);
        /// ```
        pub struct PoolWithFunc<A, F, $($defaults)*>
        where
            A: Send + 'static,
            F: WorkFn<A>,
            Q: WorkerQueue,
            C: Clock,
            S: Spawner,
        {
            engine: Arc<FuncEngine<A, F, Q, C, S>>,
            /// Shared by this handle's clones; the last one releases the pool.
            /// It holds the engine too: `engine` beside it spares every submit
            /// the hop through the owner.
            owner: Arc<Owner<FuncFlavor<A, F, Q, C, S>>>,
        }
    };
}

crate::face::unwind_safe!([A, F, Q, C, S] PoolWithFunc<A, F, Q, C, S>
    where A: Send + 'static, F: WorkFn<A>, Q: WorkerQueue, C: Clock, S: Spawner);

#[cfg(feature = "std")]
pool_with_func_struct!(
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner
);
#[cfg(all(feature = "alloc", not(feature = "std")))]
pool_with_func_struct!(Q, C, S);

#[cfg(feature = "std")]
impl<A, F> PoolWithFunc<A, F>
where
    A: Send + 'static,
    F: WorkFn<A>,
{
    /// A pool of at most `capacity` workers running `func`, with the default
    /// options; 0 is [`BuildError::InvalidCapacity`].
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
    pub fn new(capacity: usize, func: F) -> Result<Self, BuildError> {
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

impl<A, F, Q, C, S> PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    pub(crate) fn from_engine(engine: Arc<FuncEngine<A, F, Q, C, S>>) -> Self {
        PoolWithFunc {
            owner: Owner::new(engine.clone()),
            engine,
        }
    }

    pub(crate) fn engine(&self) -> &Arc<FuncEngine<A, F, Q, C, S>> {
        &self.engine
    }

    /// Runs the pool's function on `arg` on a worker, like
    /// [`Pool::submit`](crate::Pool::submit): blocks at capacity unless the
    /// options say otherwise; a rejected argument comes back in the error.
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
    pub fn invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.invoke_in(arg, Mode::Block, Priority::Normal)
    }

    /// [`invoke`](PoolWithFunc::invoke) in `mode` (blocking, never, or for at
    /// most a time: `deadline.rs`) at `priority`.
    pub(crate) fn invoke_in(
        &self,
        arg: A,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<A>> {
        Engine::submit(&self.engine, Call::new(arg), mode, priority)
            .map_err(|e| e.map(Call::into_arg))
    }

    /// [`invoke`](PoolWithFunc::invoke) for async code: a future that waits for
    /// room without blocking a thread; see
    /// [`Pool::submit_async`](crate::Pool::submit_async). Dropped before it
    /// resolves, it submits nothing and leaves no waiter behind.
    ///
    /// # Errors
    ///
    /// As for [`invoke`](PoolWithFunc::invoke): the argument comes back inside
    /// the error, untouched.
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
    pub fn invoke_async(
        &self,
        arg: A,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<A, F, Q, C, S> {
        self.invoke_async_at(arg, Priority::Normal)
    }

    /// [`invoke_async`](PoolWithFunc::invoke_async) at `priority`.
    pub(crate) fn invoke_async_at(
        &self,
        arg: A,
        priority: Priority,
    ) -> impl core::future::Future<Output = Result<(), SubmitError<A>>>
    + Send
    + 'static
    + use<A, F, Q, C, S> {
        crate::engine::Admit::<_, Arc<FuncEngine<A, F, Q, C, S>>>::new(
            self.engine.clone(),
            Call::new(arg),
            true,
            priority,
        )
        .map_err(Call::into_arg)
    }

    /// Runs the pool's function on `arg` like [`invoke`](PoolWithFunc::invoke),
    /// and returns a [`JoinHandle`](crate::JoinHandle) for what it returns. If the
    /// function panics, the payload goes to the handle, not to the panic handler
    /// (unless the handle was dropped first: then to the panic handler).
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
    /// let pool = antpool::PoolWithFunc::new(2, |n: u64| n * n).unwrap();
    /// let handles: Vec<_> = (1..=3).map(|n| pool.call(n).unwrap()).collect();
    /// let squares: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    /// assert_eq!(squares, [1, 4, 9]);
    /// ```
    #[cfg(feature = "std")]
    pub fn call(
        &self,
        arg: A,
    ) -> Result<crate::join::handle::JoinHandle<F::Output>, SubmitError<A>> {
        self.call_at(arg, Priority::Normal)
    }

    /// [`call`](PoolWithFunc::call) at `priority`.
    #[cfg(feature = "std")]
    pub(crate) fn call_at(
        &self,
        arg: A,
        priority: Priority,
    ) -> Result<crate::join::handle::JoinHandle<F::Output>, SubmitError<A>> {
        let (handle, reply) = crate::join::handle::pair();
        Engine::submit(
            &self.engine,
            Call::with_reply(arg, reply),
            Mode::Block,
            priority,
        )
        .map_err(|e| e.map(Call::into_arg))?;
        Ok(handle)
    }

    /// Like [`invoke`](PoolWithFunc::invoke), but never blocks: a saturated pool
    /// returns [`SubmitError::Overload`] with the argument.
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
    /// use std::sync::mpsc;
    /// let (hold, wait) = mpsc::channel::<()>();
    /// let wait = std::sync::Mutex::new(wait);
    /// let pool = antpool::PoolWithFunc::new(1, move |_: u8| { let _ = wait.lock().unwrap().recv(); }).unwrap();
    /// pool.invoke(1).unwrap(); // occupies the only worker
    /// assert_eq!(pool.try_invoke(2).unwrap_err(), antpool::SubmitError::Overload(2));
    /// drop(hold);
    /// ```
    pub fn try_invoke(&self, arg: A) -> Result<(), SubmitError<A>> {
        self.invoke_in(arg, Mode::Try, Priority::Normal)
    }

    /// Changes the capacity at run time; see [`Pool::tune`](crate::Pool::tune).
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(3, |n: u32| drop(n)).unwrap();
    /// pool.tune(8);
    /// assert_eq!(pool.cap(), Some(8));
    /// ```
    pub fn tune(&self, capacity: usize) {
        Engine::tune(&self.engine, capacity)
    }

    /// Ends a [`pause`](Self::pause); see [`Pool::resume`](crate::Pool::resume).
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(3, |n: u32| drop(n)).unwrap();
    /// pool.pause();
    /// assert_eq!(pool.try_invoke(1).unwrap_err().into_inner(), 1); // as at capacity
    /// pool.resume();
    /// pool.invoke(2).unwrap();
    /// ```
    pub fn resume(&self) {
        Engine::resume(&self.engine)
    }

    crate::face::lifecycle_methods! {
        setup: "",
        pool: "antpool::PoolWithFunc::new(3, |n: u32| drop(n)).unwrap()",
        submit: "pool.invoke(1).unwrap()",
    }
}

impl<A, F, Q, C, S> PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    /// Drops every argument waiting in the task queue and returns how many;
    /// see [`Pool::clear_queue`](crate::Pool::clear_queue). The function never
    /// sees them; the pool stays open.
    ///
    /// ```
    /// use std::sync::{mpsc, Mutex};
    /// let (hold, wait) = mpsc::channel::<()>();
    /// let wait = Mutex::new(wait);
    /// let pool = antpool::PoolWithFunc::builder(move |n: u32| if n == 0 { let _ = wait.lock().unwrap().recv(); } else { unreachable!() })
    ///     .capacity(1)
    ///     .unbounded_queue()
    ///     .build()
    ///     .unwrap();
    /// pool.invoke(0).unwrap(); // holds the only worker
    /// pool.invoke(1).unwrap();
    /// pool.invoke(2).unwrap();
    /// assert_eq!(pool.clear_queue(), 2);
    /// drop(hold);
    /// pool.wait_idle();
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect; the count is extra
    pub fn clear_queue(&self) -> usize {
        Engine::clear_queue(&self.engine)
    }

    /// Closes the pool like `release`, but hands back the arguments still in the
    /// task queue (queue mode) instead of running them, oldest first; see
    /// [`Pool::release_drain`](crate::Pool::release_drain).
    ///
    /// ```
    /// use std::sync::{mpsc, Mutex};
    /// let (hold, wait) = mpsc::channel::<()>();
    /// let wait = Mutex::new(wait);
    /// let pool = antpool::PoolWithFunc::builder(move |n: u32| if n == 0 { let _ = wait.lock().unwrap().recv(); })
    ///     .capacity(1)
    ///     .unbounded_queue()
    ///     .build()
    ///     .unwrap();
    /// pool.invoke(0).unwrap(); // holds the only worker
    /// pool.invoke(1).unwrap();
    /// pool.invoke(2).unwrap();
    /// assert_eq!(pool.release_drain(), vec![1, 2]);
    /// drop(hold);
    /// ```
    pub fn release_drain(&self) -> alloc::vec::Vec<A> {
        let calls = Engine::release_drain(&self.engine);
        calls.into_iter().map(Call::into_arg).collect()
    }
}

/// Another handle to the same pool, as [`Pool`](crate::Pool)'s `clone`: the
/// pool is released when the last handle is dropped.
///
/// ```
/// let pool = antpool::PoolWithFunc::new(2, |n: u32| assert!(n < 100)).unwrap();
/// let handle = pool.clone();
/// std::thread::spawn(move || handle.invoke(7).unwrap()).join().unwrap();
/// pool.wait_idle();
/// assert_eq!(pool.stats().completed, 1);
/// ```
impl<A, F, Q, C, S> Clone for PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    fn clone(&self) -> Self {
        PoolWithFunc {
            engine: self.engine.clone(),
            owner: self.owner.clone(),
        }
    }
}

impl<A, F, Q, C, S> fmt::Debug for PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.engine.fmt_as("PoolWithFunc", f)
    }
}
