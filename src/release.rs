//! The futures that wait for a pool's release to end, one type each for
//! every pool: [`Release`] (`release_async`: the pool is closed when it is
//! made, the future only waits) and [`Released`] (`wait_released_async`: a
//! wait resumed, or begun on an open pool). Built on `core::task` alone: no
//! runtime, no `std`, no heap (but a multi-pool's, one node per pool).

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::engine::Drain;
use crate::error::ReleaseError;
#[cfg(feature = "alloc")]
use crate::multi::MultiDrain;

/// What a release future waits on: one pool's release, or a multi-pool's.
pub(crate) enum Wait<'a> {
    One(Drain<'a>),
    #[cfg(feature = "alloc")]
    All(MultiDrain<'a>),
}

impl Future for Wait<'_> {
    type Output = Result<(), ReleaseError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: structural pinning: the variant's future is never moved out
        // of the pinned enum (it has no `Drop`, and nothing replaces it).
        match unsafe { self.get_unchecked_mut() } {
            // SAFETY: as above.
            Wait::One(one) => unsafe { Pin::new_unchecked(one) }.poll(cx),
            #[cfg(feature = "alloc")]
            // SAFETY: as above.
            Wait::All(all) => unsafe { Pin::new_unchecked(all) }.poll(cx),
        }
    }
}

/// The future of `release_async`, on every pool type (see
/// [`Pool::release_async`](crate::Pool::release_async)): the pool **is already
/// released** when you get it, as by `release`; the future only waits for
/// every worker to exit.
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
#[must_use = "the pool is already closed; awaiting waits for its workers, dropping stops waiting"]
pub struct Release<'a> {
    wait: Wait<'a>,
}

impl<'a> Release<'a> {
    pub(crate) fn new(wait: Wait<'a>) -> Self {
        Release { wait }
    }
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

/// The future of `wait_released_async`, on every pool type (see
/// [`Pool::wait_released_async`](crate::Pool::wait_released_async)): waits
/// until the pool is released and every worker has exited — the wait a
/// dropped [`Release`] gave up, resumed. On a pool that is still open it
/// waits for a release (by any handle) first.
///
/// It resolves `Ok(())` once no worker thread of the released pool is left
/// (every stop hook has run), and [`ReleaseError::Reopened`] if a `reboot`
/// reopened the pool first. Like any future it does nothing until polled;
/// dropped, it leaves nothing behind.
///
/// ```
/// use antpool::Pool;
///
/// let pool = Pool::new(2)?;
/// pool.submit(|| ())?;
/// drop(pool.release_async()); // released; the wait abandoned
/// futures_executor::block_on(pool.wait_released_async())?;
/// assert_eq!(pool.running(), 0);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Released<'a> {
    wait: Wait<'a>,
}

impl<'a> Released<'a> {
    pub(crate) fn new(wait: Wait<'a>) -> Self {
        Released { wait }
    }
}

impl Future for Released<'_> {
    type Output = Result<(), ReleaseError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: as for `Release::poll`.
        unsafe { self.map_unchecked_mut(|r| &mut r.wait) }.poll(cx)
    }
}

impl fmt::Debug for Released<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Released").finish_non_exhaustive()
    }
}
