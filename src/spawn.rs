//! Spawning with a handle to the result (`std`): `spawn`, `spawn_timeout` and
//! `spawn_async` on a pool of closures, `call` on a pool of one function, and
//! the same on the [`Prioritized`] view. The task fills a result slot that
//! its [`JoinHandle`] reads (`join/`); a refused closure comes back as it was
//! given, in [`Rejected`].

use core::time::Duration;

use crate::clock::Clock;
use crate::engine::{Admit, Engine, Mode};
use crate::error::{Rejected, SubmitError};
use crate::exec::{Call, WorkFn};
use crate::join::handle::JoinHandle;
use crate::join::spawn_async::SpawnAsync;
use crate::kind::sealed::{Storage, StorageReach};
use crate::kind::{Calls, Closures};
use crate::pool::PoolOf;
use crate::priority::Priority;
use crate::priority_view::Prioritized;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

impl<Q: WorkerQueue, C: Clock, S: Spawner> PoolOf<Closures<Q, C, S>> {
    /// Runs `f` on a worker like [`submit`](Self::submit), and returns a
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
    pub fn spawn<F, R>(&self, f: F) -> Result<JoinHandle<R>, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_at(f, Mode::Block, Priority::Normal)
    }

    /// [`spawn`](Self::spawn) in `mode` at `priority`.
    pub(crate) fn spawn_at<F, R>(
        &self,
        f: F,
        mode: Mode,
        priority: Priority,
    ) -> Result<JoinHandle<R>, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        crate::join::handle::spawn_with(f, |job| {
            self.with_ref(|engine| Engine::submit(engine, job, mode, priority))
        })
    }

    /// Like [`spawn`](Self::spawn), but waits at most `timeout` for room in a
    /// saturated pool.
    ///
    /// # Errors
    ///
    /// The closure `f` comes back inside the error, untouched:
    /// [`SubmitError::Timeout`] when the pool stayed saturated for all of
    /// `timeout` (`f` never runs); otherwise as for [`spawn`](Self::spawn).
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let h = pool.spawn_timeout(|| 6 * 7, Duration::from_millis(50)).unwrap();
    /// assert_eq!(h.join().unwrap(), 42);
    /// ```
    pub fn spawn_timeout<F, R>(
        &self,
        f: F,
        timeout: Duration,
    ) -> Result<JoinHandle<R>, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_at(f, Mode::Within(timeout), Priority::Normal)
    }

    /// [`spawn`](Self::spawn) for async code: waits for room as
    /// [`submit_async`](Self::submit_async) does, then for the task's result,
    /// and resolves to it — one `.await`, as tokio's
    /// `spawn_blocking(f).await` — or to a [`SpawnError`](crate::SpawnError):
    /// the closure refused (handed back), or the task panicked or was
    /// cancelled. `'static + Send`, like `submit_async`'s future.
    ///
    /// Dropped before it resolves: if the pool has not taken the task, the
    /// task is withdrawn and never runs; if it has, the task runs and its
    /// result is dropped (as with a dropped [`JoinHandle`](crate::JoinHandle)).
    /// [`abort_on_drop`](crate::SpawnAsync::abort_on_drop) aborts it instead
    /// (it never runs if it has not begun; a running one finds its
    /// [`CancelToken`](crate::CancelToken) cancelled), and
    /// [`abort_handle`](crate::SpawnAsync::abort_handle) aborts it from
    /// elsewhere.
    ///
    /// Cheaper than `submit_async` with a channel for the result: the result
    /// travels in one slot without a lock, and a worker that takes the task
    /// from the line does not wake the future for that (the result does).
    ///
    /// # Errors
    ///
    /// [`SpawnError::Submit`](crate::SpawnError::Submit) with the closure, as
    /// [`spawn`](Self::spawn) refuses it; [`SpawnError::Join`](crate::SpawnError::Join)
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
    pub fn spawn_async<F, R>(&self, f: F) -> SpawnAsync<F, R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.spawn_async_at(f, Priority::Normal)
    }

    /// [`spawn_async`](Self::spawn_async) at `priority`.
    pub(crate) fn spawn_async_at<F, R>(&self, f: F, priority: Priority) -> SpawnAsync<F, R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        let (handle, task) = crate::join::handle::spawned(f);
        let admit = Admit::new(self.reach(), task, false, priority);
        SpawnAsync::new(alloc::boxed::Box::pin(admit), handle)
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
    /// Runs the pool's function on `arg` like [`invoke`](Self::invoke), and
    /// returns a [`JoinHandle`](crate::JoinHandle) for what it returns. If the
    /// function panics, the payload goes to the handle, not to the panic
    /// handler (unless the handle was dropped first: then to the panic
    /// handler).
    ///
    /// # Errors
    ///
    /// As for [`invoke`](Self::invoke): the argument comes back inside the
    /// error, untouched.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |n: u64| n * n).unwrap();
    /// let handles: Vec<_> = (1..=3).map(|n| pool.call(n).unwrap()).collect();
    /// let squares: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    /// assert_eq!(squares, [1, 4, 9]);
    /// ```
    pub fn call<'a>(&'a self, arg: A) -> Result<JoinHandle<F::Output>, SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        self.call_at(arg, Priority::Normal)
    }

    /// [`call`](Self::call) at `priority`.
    pub(crate) fn call_at<'a>(
        &'a self,
        arg: A,
        priority: Priority,
    ) -> Result<JoinHandle<F::Output>, SubmitError<A>>
    where
        H: StorageReach<'a>,
    {
        let (handle, reply) = crate::join::handle::pair();
        let call = Call::with_reply(arg, reply);
        self.with_ref(|engine| Engine::submit(engine, call, Mode::Block, priority))
            .map_err(|e| e.map(Call::into_arg))?;
        Ok(handle)
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Prioritized<'_, PoolOf<Closures<Q, C, S>>> {
    /// [`spawn`](crate::Pool::spawn) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// let h = pool.with_priority(antpool::Priority::High).spawn(|| 2).unwrap();
    /// assert_eq!(h.join().unwrap(), 2);
    /// ```
    pub fn spawn<T, R>(&self, f: T) -> Result<JoinHandle<R>, SubmitError<Rejected<T>>>
    where
        T: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.pool.spawn_at(f, Mode::Block, self.priority)
    }

    /// [`spawn_timeout`](crate::Pool::spawn_timeout) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn_timeout`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// let d = std::time::Duration::from_secs(1);
    /// let h = pool.with_priority(antpool::Priority::Low).spawn_timeout(|| 3, d).unwrap();
    /// assert_eq!(h.join().unwrap(), 3);
    /// ```
    pub fn spawn_timeout<T, R>(
        &self,
        f: T,
        timeout: Duration,
    ) -> Result<JoinHandle<R>, SubmitError<Rejected<T>>>
    where
        T: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.pool.spawn_at(f, Mode::Within(timeout), self.priority)
    }

    /// [`spawn_async`](crate::Pool::spawn_async) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn_async`.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// let n = futures_executor::block_on(pool.with_priority(antpool::Priority::High).spawn_async(|| 4));
    /// assert_eq!(n.unwrap(), 4);
    /// ```
    pub fn spawn_async<T, R>(&self, f: T) -> SpawnAsync<T, R>
    where
        T: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.pool.spawn_async_at(f, self.priority)
    }
}

impl<'a, A, F, Q, C, S, H> Prioritized<'a, PoolOf<Calls<A, F, Q, C, S, H>>>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: StorageReach<'a>,
{
    /// [`call`](crate::PoolWithFunc::call) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `call`: the argument comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::PoolWithFunc::new(2, |n: u8| n * 2).unwrap();
    /// let h = pool.with_priority(antpool::Priority::High).call(4).unwrap();
    /// assert_eq!(h.join().unwrap(), 8);
    /// ```
    pub fn call(&self, arg: A) -> Result<JoinHandle<F::Output>, SubmitError<A>> {
        self.pool.call_at(arg, self.priority)
    }
}
