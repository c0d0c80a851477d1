//! Closing a pool, and waiting for it to end: `release` and its timed, async
//! and draining forms, `wait_released_*` and `reboot`, on every pool; and the
//! future that waits, [`Release`] (from `release_async`, which closes the
//! pool when it is called, and from `wait_released_async`, which resumes a
//! wait or begins one on an open pool). Built on `core::task` alone: no
//! runtime, no `std`, no heap. The protocol is the engine's (`drain.rs`).

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;

use crate::engine::{Awaited, Drain};
use crate::error::ReleaseError;
use crate::kind::Kind;
use crate::pool::PoolOf;

/// A wait for a pool's release to end: the future of
/// [`release_async`](crate::PoolOf::release_async) — the pool **is already
/// released** when you get it, as by `release`; the future only waits for
/// every worker to exit — and of
/// [`wait_released_async`](crate::PoolOf::wait_released_async), which waits
/// for a release first if the pool is open.
///
/// It resolves `Ok(())` once no worker thread is left (every stop hook has
/// run); [`ReleaseError::Closed`] at its first poll, without waiting, if the
/// pool was already released when `release_async` was called; and
/// [`ReleaseError::Reopened`] if a `reboot` reopened the pool first. It never
/// times out: **dropping it abandons the wait, and nothing else** — the pool
/// stays closed, queued and running tasks go on, the workers exit as they
/// finish, and `wait_released_async` waits again. It holds no thread (it is
/// woken by the worker that exits last, on any executor), borrows the pool,
/// is `Send`, and is cancel-safe under `select!`.
///
/// ```
/// use antpool::Pool;
/// use std::time::Duration;
///
/// let pool = Pool::new(2)?;
/// let (tx, rx) = std::sync::mpsc::channel::<()>();
/// pool.submit(move || { let _ = rx.recv_timeout(Duration::from_secs(5)); })?;
/// let release = pool.release_async(); // closed now, before any poll
/// assert!(pool.is_closed());
/// assert!(pool.submit(|| ()).unwrap_err().is_closed());
/// drop(tx); // the task ends, and its worker exits
/// futures_executor::block_on(release)?;
/// assert_eq!(pool.running(), 0);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[must_use = "futures do nothing unless awaited; after `release_async` the pool is closed already"]
pub struct Release<'a> {
    wait: Drain<'a>,
}

impl Future for Release<'_> {
    type Output = Result<(), ReleaseError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: structural pinning: `wait` is never moved out (we have no
        // `Drop`, and are `Unpin` only if it is).
        unsafe { self.map_unchecked_mut(|r| &mut r.wait) }.poll(cx)
    }
}

impl fmt::Debug for Release<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Release").finish_non_exhaustive()
    }
}

impl<K: Kind> PoolOf<K> {
    /// Closes the pool: later submits are rejected, blocked submitters get
    /// [`SubmitError::Closed`](crate::SubmitError::Closed) with their task,
    /// and tasks already queued still run: the workers finish them, then exit
    /// (idle ones at once). Does not wait — the tasks run on detached workers,
    /// which end with the process if `main` returns first: `wait_idle_timeout`
    /// waits for them, `release_timeout` (or, in async code, `release_async`)
    /// for the workers to exit, and `release_drain` takes back the queued
    /// tasks instead. A second call does nothing.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.release();
    /// assert!(pool.is_closed());
    /// ```
    pub fn release(&self) {
        self.engine().release();
    }

    /// Releases the pool and waits up to `timeout` for every worker to exit.
    /// Called from one of the pool's own tasks it can only time out, since the
    /// calling worker is still running. `release_async` waits without a
    /// thread, and without a timeout chosen up front.
    ///
    /// # Errors
    ///
    /// [`ReleaseError::Timeout`] if workers still run when the time is up (the
    /// pool stays closed, they exit after their task, and
    /// `wait_released_timeout` keeps waiting); [`ReleaseError::Closed`] if the
    /// pool was already released; [`ReleaseError::Reopened`] if a `reboot`
    /// reopened it during the wait.
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.release_timeout(Duration::from_secs(5)).unwrap();
    /// assert_eq!(pool.running(), 0);
    /// assert_eq!(pool.release_timeout(Duration::from_secs(1)), Err(antpool::ReleaseError::Closed));
    /// ```
    pub fn release_timeout(&self, timeout: Duration) -> Result<(), ReleaseError> {
        self.engine().release_timeout(timeout)
    }

    /// Releases the pool **now**, as `release` does — before this returns, not
    /// when the future is first polled — and returns a future that waits for
    /// every worker to exit, without holding a thread (any executor).
    ///
    /// It resolves `Ok(())` once no worker thread is left (every stop hook has
    /// run). Dropping it abandons the wait and nothing else: the pool stays
    /// closed, queued and running tasks go on, the workers exit as they
    /// finish; `release_drain` takes back what has not started, and
    /// `wait_released_async` waits again. So
    /// `select! { r = pool.release_async() => r?, _ = ctrl_c() => drop(pool.release_drain()) }`
    /// gives up the wait on a signal. Awaited on one of the pool's own workers
    /// it never resolves (that worker is still running). See [`Release`].
    ///
    /// # Errors
    ///
    /// [`ReleaseError::Closed`] at the first poll, without waiting, if the
    /// pool was already released at the call; [`ReleaseError::Reopened`] if a
    /// `reboot` reopened the pool before its workers were gone. Never a
    /// timeout: drop the future instead.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// let release = pool.release_async(); // closed already
    /// assert!(pool.is_closed());
    /// futures_executor::block_on(release).unwrap();
    /// assert_eq!(pool.running(), 0);
    /// assert_eq!(
    ///     futures_executor::block_on(pool.release_async()),
    ///     Err(antpool::ReleaseError::Closed)
    /// );
    /// ```
    pub fn release_async(&self) -> Release<'_> {
        Release {
            wait: self.engine().release_async(),
        }
    }

    /// Waits, without holding a thread, until the pool is released and every
    /// worker has exited: resumes the wait of a dropped `release_async`
    /// future. On an open pool it waits for a release (by any handle), then
    /// for the workers. Lazy, as futures are: nothing happens until it is
    /// polled, unlike `release_async`'s, which releases at the call. See
    /// [`Release`].
    ///
    /// # Errors
    ///
    /// [`ReleaseError::Reopened`] if a `reboot` reopened the pool before its
    /// workers were gone.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// drop(pool.release_async()); // released; the wait abandoned
    /// futures_executor::block_on(pool.wait_released_async()).unwrap();
    /// assert_eq!(pool.running(), 0);
    /// ```
    pub fn wait_released_async(&self) -> Release<'_> {
        Release {
            wait: self.engine().wait_released_async(),
        }
    }

    /// Blocks until the pool is released and every worker has exited, for at
    /// most `timeout`: `true` if that happened, `false` if the time ran out
    /// first or a `reboot` reopened the pool. On an open pool it waits for a
    /// release (by another thread) too. The blocking twin of
    /// `wait_released_async`, and the way to keep waiting after
    /// `release_timeout` timed out.
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// assert!(!pool.wait_released_timeout(Duration::ZERO)); // open
    /// pool.release();
    /// assert!(pool.wait_released_timeout(Duration::from_secs(5)));
    /// assert_eq!(pool.running(), 0);
    /// ```
    pub fn wait_released_timeout(&self, timeout: Duration) -> bool {
        self.engine()
            .wait_released(Awaited::Any, Some(timeout))
            .is_ok()
    }

    /// Reopens a released pool. A release still waiting for the workers to
    /// exit (`release_timeout`, `release_async`, `wait_released_*`) ends with
    /// [`ReleaseError::Reopened`]. On an open pool it does nothing.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.release();
    /// pool.reboot();
    /// assert!(!pool.is_closed());
    /// pool.submit(|| ()).unwrap();
    /// ```
    pub fn reboot(&self) {
        self.engine().reboot()
    }

    /// Closes the pool like [`release`](Self::release), but hands back the
    /// tasks still in the task queue (queue mode) instead of running them,
    /// oldest first: closures as [`Task`](crate::Task)s, a function pool's
    /// arguments as they were given. Tasks already handed to a worker still
    /// run. On a pool already released it takes back whatever has not started
    /// yet.
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
    #[cfg(feature = "alloc")]
    pub fn release_drain<'a>(&'a self) -> alloc::vec::Vec<K::Input>
    where
        K: crate::kind::Reach<'a>,
    {
        let tasks = self.with_ref(crate::engine::Engine::release_drain);
        tasks.into_iter().map(K::input).collect()
    }
}
