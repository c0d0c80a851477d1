//! A multi-pool's release as a future: every pool is closed at once (by
//! `release_async`, before it returns), and [`MultiDrain`] waits for them all
//! together, each pool's wait one [`Drain`] — the future behind
//! `MultiPool::release_async` and `wait_released_async`, and
//! `MultiPoolWithFunc`'s.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::future::Future;
use core::marker::PhantomPinned;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::engine::Drain;
use crate::error::ReleaseError;

/// Waits for every pool of a multi-pool to end its release: `Ok` once all
/// have, else `Err(Pools(..))` with each failing pool's index and error (as
/// `release_timeout` reports them); `Closed` at once if the multi-pool was
/// already released when `release_async` was called.
pub(crate) struct MultiDrain<'a> {
    /// The pools' waits, by index; `None`: released already at the call.
    waits: Option<Box<[Drain<'a>]>>,
    /// How each pool's wait ended, by index (`None`: it has not yet).
    ends: Box<[Option<Result<(), ReleaseError>>]>,
    /// The pools' waits are pinned where the box put them.
    _pinned: PhantomPinned,
}

impl<'a> MultiDrain<'a> {
    pub(super) fn new(waits: impl Iterator<Item = Drain<'a>>) -> Self {
        let waits: Box<[Drain<'a>]> = waits.collect();
        MultiDrain {
            ends: (0..waits.len()).map(|_| None).collect(),
            waits: Some(waits),
            _pinned: PhantomPinned,
        }
    }

    /// The wait of a multi-pool that was released already: `Closed`.
    pub(super) fn closed() -> Self {
        MultiDrain {
            waits: None,
            ends: Box::new([]),
            _pinned: PhantomPinned,
        }
    }
}

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
