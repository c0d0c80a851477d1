//! The futures that wait for a pool's release to end, one type each for
//! every pool: [`Release`] (`release_async`: the pool is closed when it is
//! made, the future only waits) and [`Released`] (`wait_released_async`: a
//! wait resumed, or begun on an open pool). Built on `core::task` alone: no
//! runtime, no `std`, no heap (but a multi-pool's [`MultiDrain`], one wait
//! per pool).

#[cfg(feature = "alloc")]
use alloc::boxed::Box;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt;
use core::future::Future;
#[cfg(feature = "alloc")]
use core::marker::PhantomPinned;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::engine::Drain;
use crate::error::ReleaseError;

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

/// (A multi-pool's release: every pool is closed at once by `release_async`,
/// before it returns; this waits for them all together, each pool's wait one
/// [`Drain`].)
/// Waits for every pool of a multi-pool to end its release: `Ok` once all
/// have, else `Err(Pools(..))` with each failing pool's index and error (as
/// `release_timeout` reports them); `Closed` at once if the multi-pool was
/// already released when `release_async` was called.
#[cfg(feature = "alloc")]
pub(crate) struct MultiDrain<'a> {
    /// The pools' waits, by index; `None`: released already at the call.
    waits: Option<Box<[Drain<'a>]>>,
    /// How each pool's wait ended, by index (`None`: it has not yet).
    ends: Box<[Option<Result<(), ReleaseError>>]>,
    /// The pools' waits are pinned where the box put them.
    _pinned: PhantomPinned,
}

#[cfg(feature = "alloc")]
impl<'a> MultiDrain<'a> {
    pub(crate) fn new(waits: impl Iterator<Item = Drain<'a>>) -> Self {
        let waits: Box<[Drain<'a>]> = waits.collect();
        MultiDrain {
            ends: (0..waits.len()).map(|_| None).collect(),
            waits: Some(waits),
            _pinned: PhantomPinned,
        }
    }

    /// The wait of a multi-pool that was released already: `Closed`.
    pub(crate) fn closed() -> Self {
        MultiDrain {
            waits: None,
            ends: Box::new([]),
            _pinned: PhantomPinned,
        }
    }
}

#[cfg(feature = "alloc")]
impl Future for MultiDrain<'_> {
    type Output = Result<(), ReleaseError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: nothing is moved out of the pinned future; the pools' waits
        // stay in their box, which is never replaced while we live.
        let this = unsafe { self.get_unchecked_mut() };
        let Some(waits) = &mut this.waits else {
            return Poll::Ready(Err(ReleaseError::Closed));
        };
        let mut pending = false;
        for (wait, end) in waits.iter_mut().zip(this.ends.iter_mut()) {
            if end.is_some() {
                continue;
            }
            // SAFETY: the box's elements never move (structural pinning: the
            // box is ours, never reallocated, and drops them in place).
            match unsafe { Pin::new_unchecked(wait) }.poll(cx) {
                Poll::Ready(result) => *end = Some(result),
                Poll::Pending => pending = true,
            }
        }
        if pending {
            return Poll::Pending;
        }
        let errors: Vec<(usize, ReleaseError)> = this
            .ends
            .iter()
            .enumerate()
            .filter_map(|(index, end)| match end {
                Some(Err(e)) => Some((index, e.clone())),
                _ => None,
            })
            .collect();
        Poll::Ready(match errors.is_empty() {
            true => Ok(()),
            false => Err(ReleaseError::Pools(errors)),
        })
    }
}
