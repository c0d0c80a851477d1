//! [`Pool`]: a pool of workers that run boxed closures.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use crate::builder::PoolBuilder;
use crate::clock::Clock;
use crate::engine::{Engine, Mode, Parts, Slot};
#[cfg(feature = "std")]
use crate::error::BuildError;
use crate::error::SubmitError;
use crate::exec::{Guarded, RunTask};
use crate::owner::Owner;
use crate::priority::Priority;
use crate::queue::{IdleQueue, WorkerQueue};
use crate::spawner::Spawner;
use crate::task::{SmallTask, Task};

/// The engine flavor of a [`Pool`].
pub(crate) type PoolFlavor<Q, C, S> =
    Parts<SmallTask, Q, Box<[Slot<SmallTask>]>, C, S, Guarded<RunTask>>;
type PoolEngine<Q, C, S> = Engine<PoolFlavor<Q, C, S>>;

macro_rules! pool_struct {
    ($($defaults:tt)*) => {
        /// A bounded pool of reusable worker threads that run closures.
        ///
        /// `submit` hands each task straight to an idle worker, starts a new one
        /// while fewer than the capacity exist, and otherwise blocks (or rejects,
        /// when `nonblocking`) until a worker is free. Workers idle for the expiry
        /// (default 1 s) retire; `tune` resizes at run time; `release` closes.
        ///
        /// The type parameters pick the idle-queue policy `Q`, the clock `C` and
        /// the platform `S`; with `std` they default to OS threads, so the
        /// common case names none of them.
        ///
        /// Cloning a pool gives another handle to it. Dropping the last handle
        /// releases the pool (see [`release`](Pool::release): queued tasks still
        /// run, and idle workers exit now, busy ones after the queue is done);
        /// call [`release_timeout`](Pool::release_timeout) first to wait for them.
        ///
        /// ```
        /// use antpool::Pool;
        /// use std::sync::atomic::{AtomicUsize, Ordering};
        /// use std::sync::Arc;
        /// use std::time::Duration;
        ///
        /// let pool = Pool::new(4).unwrap();
        /// let done = Arc::new(AtomicUsize::new(0));
        /// for _ in 0..100 {
        ///     let done = done.clone();
        ///     pool.submit(move || { done.fetch_add(1, Ordering::Relaxed); }).unwrap();
        /// }
        /// assert!(pool.running() <= 4);
        /// pool.release_timeout(Duration::from_secs(5)).unwrap();
        /// assert_eq!(done.load(Ordering::Relaxed), 100);
        /// ```
        pub struct Pool<$($defaults)*>
        where
            Q: WorkerQueue,
            C: Clock,
            S: Spawner,
        {
            engine: Arc<PoolEngine<Q, C, S>>,
            /// Shared by this handle's clones; the last one releases the pool.
            /// It holds the engine too: `engine` beside it spares every submit
            /// the hop through the owner.
            owner: Arc<Owner<PoolFlavor<Q, C, S>>>,
        }
    };
}

#[cfg(feature = "std")]
pool_struct!(
    Q = IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner
);
#[cfg(not(feature = "std"))]
pool_struct!(Q, C, S);

#[cfg(feature = "std")]
impl Pool {
    /// A pool of at most `capacity` workers with the default options;
    /// 0 is [`BuildError::InvalidCapacity`].
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidCapacity`] for a capacity of 0,
    /// [`BuildError::CapacityTooLarge`] above [`MAX_CAPACITY`](crate::MAX_CAPACITY).
    ///
    /// ```
    /// use antpool::{BuildError, Pool};
    /// assert_eq!(Pool::new(8).unwrap().cap(), Some(8));
    /// assert_eq!(Pool::new(0).unwrap_err(), BuildError::InvalidCapacity);
    /// ```
    pub fn new(capacity: usize) -> Result<Pool, BuildError> {
        Pool::builder().capacity(capacity).build()
    }

    /// A pool with no limit on its workers (a new one starts whenever none is
    /// idle), with the default options.
    ///
    /// ```
    /// let pool = antpool::Pool::unbounded();
    /// assert_eq!(pool.cap(), None);
    /// assert_eq!(pool.free(), None);
    /// ```
    #[must_use]
    pub fn unbounded() -> Pool {
        match Pool::builder().unbounded().build() {
            Ok(pool) => pool,
            Err(e) => unreachable!("the default unbounded options are valid: {e}"),
        }
    }

    /// A builder with every option (see [`Builder`](crate::Builder)).
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).nonblocking(true).build().unwrap();
    /// assert_eq!(pool.cap(), Some(2));
    /// ```
    #[must_use]
    pub fn builder() -> PoolBuilder {
        PoolBuilder::new(
            crate::os::clock::StdClock::new(),
            crate::os::spawner::StdSpawner::new(),
        )
    }
}

impl<C: Clock, S: Spawner> Pool<IdleQueue, C, S> {
    /// A builder for a pool on another platform: your clock and spawner.
    ///
    /// ```
    /// use antpool::Pool;
    /// use antpool::port::{StdClock, StdSpawner};
    /// let pool = Pool::builder_with(StdClock::new(), StdSpawner::new()).capacity(2).build().unwrap();
    /// assert_eq!(pool.cap(), Some(2));
    /// ```
    pub fn builder_with(clock: C, spawner: S) -> PoolBuilder<IdleQueue, C, S> {
        PoolBuilder::new(clock, spawner)
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Pool<Q, C, S> {
    pub(crate) fn from_engine(engine: Arc<PoolEngine<Q, C, S>>) -> Self {
        Pool {
            owner: Owner::new(engine.clone()),
            engine,
        }
    }

    pub(crate) fn engine(&self) -> &Arc<PoolEngine<Q, C, S>> {
        &self.engine
    }

    /// Runs `task` on a worker: an idle one, a new one (while fewer than the
    /// capacity run), or — at capacity — the first to finish, blocking until then
    /// (unless `nonblocking` or `max_blocking_tasks` say otherwise).
    ///
    /// Returns once a worker has the task, not when the task is done. A rejected
    /// task comes back in the error: [`SubmitError::Overload`] (saturated and may
    /// not block), [`SubmitError::Closed`] (released, also while blocked),
    /// [`SubmitError::SpawnFailed`] (no thread could be started).
    ///
    /// A task that submits to its own pool can deadlock a full blocking pool
    /// (every worker waits for a worker); use `try_submit`, `nonblocking` or an
    /// unbounded pool for nested submission.
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
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.submit(move || tx.send(6 * 7).unwrap()).unwrap();
    /// assert_eq!(rx.recv().unwrap(), 42);
    /// ```
    ///
    /// A task must be `Send`; one that is not is rejected at compile time:
    ///
    /// ```compile_fail
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let rc = std::rc::Rc::new(1);
    /// pool.submit(move || drop(rc)).unwrap(); // `Rc` cannot cross threads
    /// ```
    pub fn submit<F>(&self, task: F) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.submit_in(task, Mode::Block, Priority::Normal)
    }

    /// [`submit`](Pool::submit) in `mode` (blocking, never, or for at most a
    /// time: `deadline.rs`) at `priority`.
    pub(crate) fn submit_in<F>(
        &self,
        task: F,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        Engine::submit(&self.engine, SmallTask::new(task), mode, priority)
            .map_err(|e| e.map(SmallTask::into_box))
    }

    /// Runs `f` on a worker like [`submit`](Pool::submit), and returns a
    /// [`JoinHandle`](crate::JoinHandle) for its result: `join()` blocks for it,
    /// `.await` waits for it in async code. If `f` panics, the payload goes to the
    /// handle (as `Err`), not to the panic handler — unless the handle was
    /// dropped before the task ended: then nobody would see it, and it goes to
    /// the panic handler as a `submit`ted task's does.
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
    /// let pool = antpool::Pool::new(4).unwrap();
    /// let handles: Vec<_> = (1..=4u64).map(|n| pool.spawn(move || n * n).unwrap()).collect();
    /// let sum: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    /// assert_eq!(sum, 30);
    /// ```
    ///
    /// A rejected `f` comes back in the error as it was given (not boxed, in
    /// a [`Rejected`](crate::Rejected) that keeps the error `Sync` whatever
    /// `f` captures, so `?` works), and the caller can run it, keep it, or
    /// read what it captured:
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let err = pool.spawn(|| 6 * 7).unwrap_err();
    /// assert!(err.is_closed());
    /// let f = err.into_closure();
    /// assert_eq!(f(), 42);
    /// ```
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

    /// [`spawn`](Pool::spawn) in `mode` at `priority`.
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
        crate::join::handle::spawn_with(f, |job| Engine::submit(&self.engine, job, mode, priority))
    }

    /// [`submit`](Pool::submit) for async code: a future that waits for room
    /// without blocking a thread, on any executor (no runtime is assumed).
    ///
    /// The future is `'static + Send`: it holds the pool's engine, not this
    /// handle (so it does not keep the pool open), and can be spawned on an
    /// executor; polled after the pool was released — or its last handle
    /// dropped — it resolves `Closed`. The task is moved into it when it is
    /// made; nothing is submitted until it is polled.
    ///
    /// While the pool is saturated every poll returns `Pending` at once: for
    /// the first few microseconds with its waker woken (the executor polls it
    /// again after its other tasks, as a blocked thread spins before it
    /// parks), then waiting in the same FIFO as blocked `submit` callers
    /// (served in arrival order; `max_blocking_tasks` counts both), its task
    /// with it: a worker that frees room takes the task from the line and
    /// runs it, and the future resolves `Ok` on its next poll.
    ///
    /// **Dropped before it resolves** (by `select!`, a timeout): if the pool
    /// has not taken the task yet — never polled, or still waiting in the
    /// line — the task is withdrawn and never runs, and nothing of the future
    /// is left in the pool; if a worker already took it from the line, it
    /// runs. A future that resolved `Ok` always had its task taken.
    ///
    /// # Errors
    ///
    /// As for [`submit`](Pool::submit), resolved instead of returned: the task
    /// comes back in [`SubmitError::Overload`], [`SubmitError::Closed`] (also
    /// while it waits) or [`SubmitError::SpawnFailed`].
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// futures_executor::block_on(async {
    ///     for i in 0..10 {
    ///         let tx = tx.clone();
    ///         pool.submit_async(move || tx.send(i).unwrap()).await.unwrap();
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

    /// [`submit_async`](Pool::submit_async) at `priority`.
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
        let task = SmallTask::new(task);
        crate::engine::Admit::<_, Arc<PoolEngine<Q, C, S>>>::new(
            self.engine.clone(),
            task,
            true,
            priority,
        )
        .map_err(SmallTask::into_box)
    }

    /// [`spawn`](Pool::spawn) for async code: waits for room as
    /// [`submit_async`](Pool::submit_async) does, then for the task's result,
    /// and resolves to it — one `.await`, as tokio's
    /// `spawn_blocking(f).await` — or to a [`SpawnError`](crate::SpawnError):
    /// the closure refused (handed back), or the task panicked or was
    /// cancelled. `'static + Send`, like `submit_async`'s future.
    ///
    /// Dropped before it resolves: if the pool has not taken the task, the
    /// task is withdrawn and never runs; if it has, the task runs and its
    /// result is dropped (as with a dropped [`JoinHandle`](crate::JoinHandle)).
    /// [`abort_on_drop`](crate::SpawnAsync::abort_on_drop) aborts it instead if
    /// it has not begun, and [`abort_handle`](crate::SpawnAsync::abort_handle)
    /// aborts it from elsewhere.
    ///
    /// Cheaper than `submit_async` with a channel for the result: the result
    /// travels in one slot without a lock, and a worker that takes the task
    /// from the line does not wake the future for that (the result does).
    ///
    /// # Errors
    ///
    /// [`SpawnError::Submit`](crate::SpawnError::Submit) with the closure, as
    /// [`spawn`](Pool::spawn) refuses it; [`SpawnError::Join`](crate::SpawnError::Join)
    /// if the task panicked or was cancelled.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    /// let pool = antpool::Pool::new(2)?;
    /// let answer = futures_executor::block_on(pool.spawn_async(|| 6 * 7))?;
    /// assert_eq!(answer, 42);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "std")]
    pub fn spawn_async<F, R>(&self, f: F) -> crate::join::spawn_async::SpawnAsync<F, R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_async_at(f, Priority::Normal)
    }

    /// [`spawn_async`](Pool::spawn_async) at `priority`.
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
        let admit = crate::engine::Admit::<_, Arc<PoolEngine<Q, C, S>>>::new(
            self.engine.clone(),
            task,
            false,
            priority,
        );
        crate::join::spawn_async::SpawnAsync::new(Box::pin(admit), handle)
    }

    /// Like [`submit`](Pool::submit), but never blocks: a saturated pool returns
    /// [`SubmitError::Overload`] with the task.
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
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // occupies the only worker
    /// assert!(pool.try_submit(|| ()).unwrap_err().is_overload());
    /// drop(hold);
    /// ```
    pub fn try_submit<F>(&self, task: F) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.submit_in(task, Mode::Try, Priority::Normal)
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Pool<Q, C, S> {
    /// Changes the capacity at run time. Growing starts workers for queued tasks
    /// and lets blocked submitters start workers at once; shrinking retires
    /// surplus idle workers at once, and busy ones as they finish their task.
    /// Ignored for 0, for unbounded pools and for `prealloc` pools.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.tune(8);
    /// assert_eq!(pool.cap(), Some(8));
    /// pool.tune(0); // ignored
    /// assert_eq!(pool.cap(), Some(8));
    /// ```
    pub fn tune(&self, capacity: usize) {
        Engine::tune(&self.engine, capacity)
    }

    /// Ends a [`pause`](Self::pause): the tasks queued meanwhile start, and
    /// blocked submitters are let in as room allows. Does nothing if the pool
    /// is not paused.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let pool = antpool::Pool::builder().capacity(2).max_queued_tasks(8).build().unwrap();
    /// pool.pause();
    /// let ran = Arc::new(AtomicUsize::new(0));
    /// for _ in 0..5 {
    ///     let ran = Arc::clone(&ran);
    ///     pool.submit(move || { ran.fetch_add(1, Ordering::Relaxed); }).unwrap();
    /// }
    /// assert_eq!(pool.queued(), 5); // paused: queued, none started
    /// assert_eq!(ran.load(Ordering::Relaxed), 0);
    /// pool.resume();
    /// pool.wait_idle();
    /// assert_eq!(ran.load(Ordering::Relaxed), 5);
    /// ```
    pub fn resume(&self) {
        Engine::resume(&self.engine)
    }

    crate::face::lifecycle_methods! {
        setup: "",
        pool: "antpool::Pool::new(3).unwrap()",
        submit: "pool.submit(|| ()).unwrap()",
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Pool<Q, C, S> {
    /// Drops every task waiting in the task queue (queue mode; in a hand-off
    /// pool, tasks admitted that no worker took yet) and returns how many. The
    /// pool stays open; running tasks go on. A dropped task never runs: the
    /// [`JoinHandle`](crate::JoinHandle) of a spawned one reports
    /// [`is_cancelled`](crate::JoinError::is_cancelled). Blocked submitters
    /// are let into the room it made. To keep the tasks instead, see
    /// [`release_drain`](Pool::release_drain).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(10).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
    /// pool.submit(|| unreachable!("cleared")).unwrap();
    /// let late = pool.spawn(|| 7).unwrap();
    /// assert_eq!(pool.clear_queue(), 2);
    /// assert_eq!(pool.queued(), 0);
    /// assert!(late.join().unwrap_err().is_cancelled());
    /// drop(hold);
    /// pool.wait_idle();
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect; the count is extra
    pub fn clear_queue(&self) -> usize {
        Engine::clear_queue(&self.engine)
    }

    /// Closes the pool like [`release`](Pool::release), but hands back the tasks
    /// still in the task queue (queue mode) instead of running them, oldest
    /// first. Tasks already handed to a worker still run. On a pool already
    /// released it takes back whatever has not started yet.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(10).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
    /// pool.submit(|| println!("queued 1")).unwrap();
    /// pool.submit(|| println!("queued 2")).unwrap();
    /// assert_eq!(pool.queued(), 2);
    /// let back = pool.release_drain();
    /// assert_eq!(back.len(), 2); // not run: yours to run, store or drop
    /// drop(hold);
    /// ```
    pub fn release_drain(&self) -> Vec<Task> {
        let tasks = Engine::release_drain(&self.engine);
        tasks.into_iter().map(SmallTask::into_box).collect()
    }
}

crate::face::unwind_safe!([Q, C, S] Pool<Q, C, S> where Q: WorkerQueue, C: Clock, S: Spawner);

/// Another handle to the same pool (two reference counts, no new worker):
/// submit from anywhere without wrapping the pool in an `Arc`. Every handle
/// sees and controls the one pool (`release` on any closes it for all), and
/// the pool is released when the last handle is dropped.
///
/// ```
/// use std::time::Duration;
/// let pool = antpool::Pool::new(2).unwrap();
/// let handle = pool.clone();
/// let producer = std::thread::spawn(move || {
///     for _ in 0..10 {
///         handle.submit(|| ()).unwrap();
///     }
/// }); // `handle` is dropped here: the pool stays open for `pool`
/// producer.join().unwrap();
/// pool.wait_idle();
/// assert_eq!(pool.stats().completed, 10);
/// pool.release_timeout(Duration::from_secs(5)).unwrap();
/// ```
impl<Q: WorkerQueue, C: Clock, S: Spawner> Clone for Pool<Q, C, S> {
    fn clone(&self) -> Self {
        Pool {
            engine: self.engine.clone(),
            owner: self.owner.clone(),
        }
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> fmt::Debug for Pool<Q, C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.engine.fmt_as("Pool", f)
    }
}
