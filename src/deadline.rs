//! Deadlines: submitting with a limit on how long to wait for room.
//!
//! `submit_timeout`, `spawn_timeout` and `invoke_timeout` behave as `submit`,
//! `spawn` and `invoke` do — a task goes to an idle worker, a new worker, or
//! the queue, and a saturated pool that may block makes the caller wait in the
//! same FIFO as every blocking submitter, counted by `max_blocking_tasks` —
//! except that a caller still waiting when its time is up takes itself out of
//! the FIFO and gets its task back as [`SubmitError::Timeout`]. A waiter the
//! pool let in just before the time ran out is let in (the engine decides
//! under its lock: `engine/README.md`, "Waiters"); one that left never runs.
//!
//! The time counts from when the pool was first found saturated, on the
//! pool's clock; a call that finds room at once never looks at the clock. A
//! `nonblocking` pool, or `max_blocking_tasks` callers already waiting, is
//! `Overload` at once, as for `submit`. Needs no allocator: the static pool
//! has `invoke_timeout` too.

use core::time::Duration;

use crate::clock::Clock;
use crate::engine::Mode;
use crate::error::SubmitError;
use crate::exec::WorkFn;
use crate::kind::Calls;
#[cfg(feature = "alloc")]
use crate::kind::Closures;
use crate::kind::sealed::{Storage, StorageReach};
use crate::pool::PoolOf;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
#[cfg(feature = "alloc")]
use crate::task::Task;

#[cfg(feature = "alloc")]
impl<Q: WorkerQueue, C: Clock, S: Spawner> PoolOf<Closures<Q, C, S>> {
    /// Like [`submit`](Self::submit), but waits at most `timeout` for room in a
    /// saturated pool.
    ///
    /// # Errors
    ///
    /// The task comes back inside the error, untouched: [`SubmitError::Timeout`]
    /// when the pool stayed saturated for all of `timeout` (the task never
    /// runs); otherwise as for [`submit`](Self::submit).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // occupies the only worker
    /// let err = pool.submit_timeout(|| (), Duration::from_millis(5)).unwrap_err();
    /// assert!(err.is_timeout());
    /// assert_eq!(pool.waiting(), 0); // it left no waiter behind
    /// drop(hold);
    /// pool.submit_timeout(|| (), Duration::from_secs(5)).unwrap(); // room comes in time
    /// ```
    pub fn submit_timeout<F>(&self, task: F, timeout: Duration) -> Result<(), SubmitError<Task>>
    where
        F: FnOnce() + Send + 'static,
    {
        self.submit_at(task, Mode::Within(timeout), Priority::Normal)
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
    /// Like [`invoke`](Self::invoke), but waits at most `timeout` for
    /// room in a saturated pool. Needs no allocator: a static pool has it too.
    ///
    /// # Errors
    ///
    /// The argument comes back inside the error, untouched:
    /// [`SubmitError::Timeout`] when the pool stayed saturated for all of
    /// `timeout` (the function never runs on it); otherwise as for
    /// [`invoke`](Self::invoke).
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::PoolWithFunc::new(1, |ms: u64| {
    ///     std::thread::sleep(Duration::from_millis(ms));
    /// })
    /// .unwrap();
    /// pool.invoke(200).unwrap(); // the only worker sleeps
    /// let err = pool.invoke_timeout(0, Duration::from_millis(5)).unwrap_err();
    /// assert_eq!(err.into_inner(), 0);
    /// ```
    pub fn invoke_timeout<'a>(&'a self, arg: A, timeout: Duration) -> Result<(), SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        self.invoke_at(arg, Mode::Within(timeout), Priority::Normal)
    }
}
