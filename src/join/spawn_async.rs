//! [`SpawnAsync`]: `spawn_async`'s future — it waits for room in the pool
//! without holding a thread, then for the task's result, and resolves to the
//! result in one `.await`, as `tokio::task::spawn_blocking(f).await` does.
//!
//! It is two stages on one slot (`slot.rs`):
//!
//! 1. **Admission**: the engine's `Admit` future (boxed, so that every pool —
//!    and a multi-pool, which may try a second pool — gives the same type),
//!    holding the task. Saturated, it waits in the pool's line with the task
//!    in its node, and a worker that frees room takes the task from there and
//!    runs it, without waking this future: the result will ("Async waiters"
//!    in `engine/README.md`). So the future registers its waker with the slot
//!    as well before it returns `Pending`: the result, or an abort, wakes it.
//! 2. **Result**: the slot, as a [`JoinHandle`] awaits it.
//!
//! Dropped in stage 1 before the pool took the task, it withdraws it: the task
//! never runs (its closure drops with the future). Once the pool has taken it
//! — placed it, or a worker took it from the line — the task is the pool's: it
//! runs, and dropping the future detaches it (its result dropped), as dropping
//! a [`JoinHandle`] does; [`abort_on_drop`](SpawnAsync::abort_on_drop) aborts
//! it instead if it has not begun.

use ::std::boxed::Box;
use core::fmt;
use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::error::SubmitError;
use crate::task::SmallTask;

use super::abort::{AbortHandle, AbortOnDrop};
use super::error::SpawnError;
use super::handle::{JoinHandle, hand_back};

/// The admission stage: a pool's `Admit` future, or a multi-pool's.
pub(crate) type Admission =
    Pin<Box<dyn Future<Output = Result<(), SubmitError<SmallTask>>> + Send + 'static>>;

/// The future of `spawn_async`: resolves to the closure's result, or a
/// [`SpawnError`] — the closure rejected (handed back, as `spawn` hands it
/// back), or the task panicked or was cancelled. `'static + Send` (it holds
/// the pool's engine, not a handle that keeps the pool open), so
/// `tokio::spawn(pool.spawn_async(f))` works.
///
/// What dropping it means: before the pool took the task, the task is
/// withdrawn and never runs; after, the task runs and its result is dropped
/// (as for a dropped [`JoinHandle`]). [`abort_on_drop`](SpawnAsync::abort_on_drop)
/// makes a drop abort the task if it has not begun;
/// [`abort_handle`](SpawnAsync::abort_handle) aborts it from elsewhere.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// let pool = antpool::Pool::new(4)?;
/// let rt = tokio::runtime::Builder::new_current_thread().build()?;
/// let total = rt.block_on(async {
///     let mut tasks = Vec::new();
///     for n in 1..=8u64 {
///         // 'static: spawned on the runtime, it outlives this borrow of `pool`.
///         tasks.push(tokio::spawn(pool.spawn_async(move || n * n)));
///     }
///     let mut total = 0;
///     for t in tasks {
///         total += t.await??; // the runtime's JoinError, then the pool's SpawnError
///     }
///     Ok::<u64, Box<dyn std::error::Error + Send + Sync>>(total)
/// })?;
/// assert_eq!(total, 204);
/// # Ok(())
/// # }
/// ```
#[must_use = "a future does nothing unless polled: the task is submitted when it is awaited"]
pub struct SpawnAsync<F, R> {
    /// Stage 1, until the pool took the task (or refused it).
    admission: Option<Admission>,
    /// Stage 2: the task's result.
    handle: JoinHandle<R>,
    _closure: PhantomData<fn() -> F>,
}

impl<F, R> SpawnAsync<F, R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    pub(crate) fn new(admission: Admission, handle: JoinHandle<R>) -> Self {
        SpawnAsync {
            admission: Some(admission),
            handle,
            _closure: PhantomData,
        }
    }

    /// A handle that aborts the task from anywhere (see [`AbortHandle`]):
    /// aborted before the pool took it, or while it waits in a queue, it never
    /// runs, and this future resolves cancelled; aborted while it runs, its
    /// [`CancelToken`](super::cancel::CancelToken) is cancelled.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let task = pool.spawn_async(|| unreachable!("aborted before it was awaited"));
    /// assert!(task.abort_handle().abort());
    /// let err = futures_executor::block_on(task).unwrap_err();
    /// assert!(err.is_cancelled());
    /// ```
    #[must_use]
    pub fn abort_handle(&self) -> AbortHandle {
        self.handle.abort_handle()
    }

    /// This future, made to abort its task when it is dropped: under
    /// `select!` or a timeout, a task that has not begun then never runs, and
    /// a running one finds its [`CancelToken`](super::cancel::CancelToken)
    /// cancelled. See [`AbortOnDrop`].
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let n = futures_executor::block_on(pool.spawn_async(|| 2 + 2).abort_on_drop()).unwrap();
    /// assert_eq!(n, 4);
    /// ```
    pub fn abort_on_drop(self) -> AbortOnDrop<Self> {
        let abort = self.abort_handle();
        AbortOnDrop::new(self, abort)
    }

    /// Whether the task is over: it ran (or panicked), or was cancelled.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let task = pool.spawn_async(|| 1);
    /// assert!(!task.is_finished()); // not even submitted: futures are lazy
    /// ```
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }
}

impl<F, R> Future for SpawnAsync<F, R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    type Output = Result<R, SpawnError<F>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(admission) = &mut this.admission {
            // Aborted while it waits for room: withdraw (the task drops
            // unrun), and report the cancellation below.
            if !this.handle.is_finished() {
                match admission.as_mut().poll(cx) {
                    Poll::Ready(Ok(())) => {}
                    Poll::Ready(Err(rejected)) => {
                        this.admission = None;
                        return Poll::Ready(Err(SpawnError::Submit(hand_back::<F, R>(rejected))));
                    }
                    Poll::Pending => {
                        // A worker may take the task from the line without
                        // waking us: the result (or an abort) will, once we
                        // are registered with the slot.
                        let polled = this.handle.poll_slot(cx);
                        if polled.is_pending() {
                            return Poll::Pending;
                        }
                        // Done already (served and run, or aborted): the
                        // admission settles as it drops, the task is gone.
                        this.admission = None;
                        return polled.map(|r| r.map_err(SpawnError::Join));
                    }
                }
            }
            this.admission = None;
        }
        this.handle
            .poll_slot(cx)
            .map(|r| r.map_err(SpawnError::Join))
    }
}

impl<F, R> fmt::Debug for SpawnAsync<F, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpawnAsync")
            .field("admitted", &self.admission.is_none())
            .field("finished", &self.handle.is_finished())
            .finish()
    }
}
