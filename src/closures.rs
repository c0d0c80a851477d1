//! The methods of a pool of closures ([`Pool`]): making one, and the submit
//! family — `submit`, `try_submit`, `submit_async`, `spawn`, `spawn_async`
//! (`submit_timeout` and `spawn_timeout` are in `deadline.rs`). Each submits
//! at `Priority::Normal`; the same family at another level is on the
//! [`Prioritized`](crate::Prioritized) view.

use crate::builder::PoolBuilder;
use crate::clock::Clock;
use crate::engine::{Admit, Engine, Mode};
#[cfg(feature = "std")]
use crate::error::BuildError;
use crate::error::SubmitError;
use crate::kind::Closures;
use crate::pool::PoolOf;
use crate::priority::Priority;
use crate::queue::{IdleQueue, WorkerQueue};
use crate::spawner::Spawner;
use crate::task::{SmallTask, Task};

#[cfg(feature = "std")]
impl crate::pool::Pool {
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
    pub fn new(capacity: usize) -> Result<Self, BuildError> {
        Self::builder().capacity(capacity).build()
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
    pub fn unbounded() -> Self {
        match Self::builder().unbounded().build() {
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

impl<C: Clock, S: Spawner> PoolOf<Closures<IdleQueue, C, S>> {
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

impl<Q: WorkerQueue, C: Clock, S: Spawner> PoolOf<Closures<Q, C, S>> {
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
        self.submit_at(task, Mode::Block, Priority::Normal)
    }

    /// [`submit`](Self::submit) in `mode` (blocking, never, or for at most a
    /// time: `deadline.rs`) at `priority`.
    #[inline]
    pub(crate) fn submit_at<F>(
        &self,
        task: F,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.with_ref(|engine| Engine::submit(engine, SmallTask::new(task), mode, priority))
            .map_err(|e| e.map(SmallTask::into_box))
    }

    /// [`submit`](Self::submit) for async code: a future that waits for room
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
    /// As for [`submit`](Self::submit), resolved instead of returned: the task
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

    /// [`submit_async`](Self::submit_async) at `priority`.
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
        Admit::new(self.reach(), task, true, priority).map_err(SmallTask::into_box)
    }

    /// Like [`submit`](Self::submit), but never blocks: a saturated pool returns
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
        self.submit_at(task, Mode::Try, Priority::Normal)
    }
}
