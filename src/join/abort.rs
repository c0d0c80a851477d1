//! Cancelling a spawned task from elsewhere: [`AbortHandle`], apart from the
//! handle that gets the result, and [`AbortOnDrop`], a guard that aborts when
//! it is dropped (tokio-util's `AbortOnDropHandle`). Both act on the task's
//! slot (`slot.rs`): an abort that wins while the task has not begun keeps it
//! from running; one that comes later cancels the running task's
//! [`CancelToken`](super::cancel::CancelToken), which the task may poll to
//! stop early.
//!
//! # The rule
//!
//! `JoinHandle::abort`, an [`AbortHandle`] and an [`AbortOnDrop`] need no
//! engine change: the slot's phase is `QUEUED` until one compare-and-swap moves
//! it to `STARTED` (the task, as a worker begins it: `Reply::begin`) or to
//! `CANCELLED` (an abort, or the reply dropped unrun). Exactly one wins. An
//! abort is one read-modify-write that also sets the slot's `ABORTED` flag,
//! whatever the phase: the token a running task reads (`cancel.rs`), so
//! "aborted before it began" and "asked to stop while it runs" are one
//! protocol on one word. A winning abort fills the slot with `Cancelled` at
//! once (a joiner or an awaiting task wakes); the task, when a worker reaches
//! it, sees `CANCELLED`, drops its closure unrun and reports
//! `Outcome::Skipped` (counted in `Stats::skipped`, not as completed). The
//! slot is filled once, by the winner: the aborted task's reply, dropping,
//! leaves it as it is. A task that left the pool unrun (`release_drain`,
//! `clear_queue`) is the same. An abort of a `spawn_async` still waiting for
//! room wakes the future (it registered with the slot), which withdraws from
//! the line. An abort that loses to the start returns `false`: the task runs
//! on, its token cancelled, and ends as it chooses — what it returns is its
//! result, and it counts as completed.
//!
//! An abort does not take the task out of the task queue: the queue is a
//! lock-free FIFO with no removal from the middle, and an exact `queued()` at
//! the abort would need each handle to reach its pool's counters (an `Arc` on
//! the pool in every handle, for a rare call). So an aborted task counts in
//! `queued()` and holds its place in a bounded queue until a worker skips it
//! (one CAS).
//!
//! loom: `abort vs start` (`tests/loom/abort.rs`: the abort racing the first
//! task of a pool on the worker that starts with it; fails with `begin`
//! ignoring the phase), `abort vs start vs await` (`tests/loom/join.rs`), and
//! `cancel vs start` (`tests/loom/cancel.rs`: the task never runs, or its
//! check after the abort returned sees its token cancelled).

use ::std::sync::Arc;
use core::fmt;
use core::future::Future;
use core::mem::ManuallyDrop;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::error::JoinError;
use super::handle::JoinHandle;
use super::slot::ResultSlot;

/// What an [`AbortHandle`] needs of a slot, whatever its result type.
trait Abortable: Send + Sync {
    fn cancel(&self) -> bool;
    fn is_finished(&self) -> bool;
}

impl<R: Send> Abortable for ResultSlot<R> {
    fn cancel(&self) -> bool {
        ResultSlot::abort(self)
    }

    fn is_finished(&self) -> bool {
        ResultSlot::is_finished(self)
    }
}

/// Aborts one spawned task from anywhere: `Clone`, `Send + Sync`, and without
/// the task's result type, so it can be kept in a registry, handed to a
/// shutdown path or a timer, while the [`JoinHandle`] (or the future of
/// `spawn_async`) waits for the result somewhere else. Made by
/// [`JoinHandle::abort_handle`] and
/// [`SpawnAsync::abort_handle`](super::spawn_async::SpawnAsync::abort_handle).
///
/// ```
/// use std::sync::mpsc;
/// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(8).build().unwrap();
/// let (hold, wait) = mpsc::channel::<()>();
/// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
/// let handles: Vec<_> = (0..3).map(|i| pool.spawn(move || i).unwrap()).collect();
/// let aborts: Vec<antpool::AbortHandle> = handles.iter().map(|h| h.abort_handle()).collect();
/// for a in &aborts {
///     assert!(a.abort()); // queued: none of them will run
/// }
/// drop(hold);
/// for h in handles {
///     assert!(h.join().unwrap_err().is_cancelled());
/// }
/// ```
#[derive(Clone)]
pub struct AbortHandle {
    slot: Arc<dyn Abortable + ::std::panic::RefUnwindSafe>,
}

impl AbortHandle {
    pub(crate) fn new<R: Send + 'static>(slot: Arc<ResultSlot<R>>) -> Self {
        AbortHandle { slot }
    }

    /// Aborts the task, as [`JoinHandle::abort`]: if it has not begun, it
    /// will never run, and its handle reports
    /// [`is_cancelled`](JoinError::is_cancelled) at once (`true`); if it is
    /// running, its [`CancelToken`](super::cancel::CancelToken) is cancelled,
    /// for it to see at its next check and stop early if it polls it
    /// (`false`: it will end as it chooses, with its value). A task done, or
    /// cancelled before: `false`, nothing changes.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let h = pool.spawn(|| 5).unwrap();
    /// let abort = h.abort_handle();
    /// assert_eq!(h.join().unwrap(), 5);
    /// assert!(!abort.abort()); // it ran
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect
    pub fn abort(&self) -> bool {
        self.slot.cancel()
    }

    /// Whether the task is over: it ran (or panicked), or was cancelled.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let h = pool.spawn(|| ()).unwrap();
    /// let abort = h.abort_handle();
    /// h.join().unwrap();
    /// assert!(abort.is_finished());
    /// ```
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.slot.is_finished()
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

/// A [`JoinHandle`], or the future of `spawn_async`, that aborts its task when
/// it is dropped: what `select!` or a timeout dropping it leaves behind is a
/// task that never runs, if it had not begun; one that had begun finds its
/// [`CancelToken`](super::cancel::CancelToken) cancelled, and stops at its
/// next check if it polls it (else it runs to its end; its result is
/// dropped). Await it, or [`join`](AbortOnDrop::join) it, as the handle
/// inside; [`detach`](AbortOnDrop::detach) takes that handle back out, and
/// the task no longer depends on the guard.
///
/// ```
/// use std::time::Duration;
/// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(8).build().unwrap();
/// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     let (hold, wait) = std::sync::mpsc::channel::<()>();
///     pool.submit_async(move || { let _ = wait.recv(); }).await.unwrap();
///     // Queued behind the busy worker; the timeout drops the guard, which aborts it.
///     let slow = pool.spawn_async(|| unreachable!("aborted")).abort_on_drop();
///     assert!(tokio::time::timeout(Duration::from_millis(10), slow).await.is_err());
///     drop(hold);
/// });
/// pool.wait_idle();
/// assert_eq!(pool.stats().completed, 1);
/// ```
#[must_use = "dropping the guard aborts the task"]
pub struct AbortOnDrop<T> {
    inner: T,
    abort: AbortHandle,
}

impl<T> AbortOnDrop<T> {
    pub(crate) fn new(inner: T, abort: AbortHandle) -> Self {
        AbortOnDrop { inner, abort }
    }

    /// The handle inside, no longer aborting on drop.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let guard = pool.spawn(|| 3).unwrap().abort_on_drop();
    /// let handle: antpool::JoinHandle<i32> = guard.detach();
    /// assert_eq!(handle.join().unwrap(), 3);
    /// ```
    pub fn detach(self) -> T {
        let this = ManuallyDrop::new(self);
        // SAFETY: each field is read once, and `this` is never used or dropped
        // again (`ManuallyDrop`), so nothing is dropped twice.
        unsafe {
            drop(core::ptr::read(&this.abort));
            core::ptr::read(&this.inner)
        }
    }

    /// An [`AbortHandle`] to the same task.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let guard = pool.spawn(|| ()).unwrap().abort_on_drop();
    /// let abort = guard.abort_handle();
    /// guard.join().unwrap();
    /// assert!(abort.is_finished());
    /// ```
    #[must_use]
    pub fn abort_handle(&self) -> AbortHandle {
        self.abort.clone()
    }

    /// Aborts the task now (see [`AbortHandle::abort`]).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(4).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap();
    /// let guard = pool.spawn(|| 1).unwrap().abort_on_drop();
    /// assert!(guard.abort());
    /// assert!(guard.join().unwrap_err().is_cancelled());
    /// drop(hold);
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect
    pub fn abort(&self) -> bool {
        self.abort.abort()
    }
}

impl<R> AbortOnDrop<JoinHandle<R>> {
    /// Blocks until the task has finished, as [`JoinHandle::join`].
    ///
    /// # Errors
    ///
    /// As [`JoinHandle::join`]: the task panicked, or was cancelled.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// assert_eq!(pool.spawn(|| 9).unwrap().abort_on_drop().join().unwrap(), 9);
    /// ```
    pub fn join(self) -> Result<R, JoinError> {
        self.detach().join()
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.abort.abort();
    }
}

impl<T: Future> Future for AbortOnDrop<T> {
    type Output = T::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T::Output> {
        // SAFETY: `inner` is pinned with the guard (structural pinning): it is
        // never moved out while pinned (`detach` takes the guard by value,
        // which a pinned `!Unpin` guard cannot give), and `Drop` leaves it
        // where it is.
        unsafe { self.map_unchecked_mut(|g| &mut g.inner) }.poll(cx)
    }
}

impl<T: fmt::Debug> fmt::Debug for AbortOnDrop<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortOnDrop")
            .field("inner", &self.inner)
            .finish()
    }
}

/// The ways to abort a task apart from its handle (here, beside the types
/// they make).
impl<R> JoinHandle<R> {
    /// A handle that can abort this task from anywhere, apart from this
    /// handle: [`Clone`], `Send + Sync`, and without the result's type (as
    /// tokio's `AbortHandle`). Aborting through it is
    /// [`abort`](JoinHandle::abort).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(4).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap();
    /// let queued = pool.spawn(|| 7).unwrap();
    /// let abort = queued.abort_handle();
    /// std::thread::spawn(move || assert!(abort.abort())).join().unwrap();
    /// assert!(queued.join().unwrap_err().is_cancelled());
    /// drop(hold);
    /// ```
    #[must_use]
    pub fn abort_handle(&self) -> AbortHandle
    where
        R: Send + 'static,
    {
        AbortHandle::new(self.slot.clone())
    }

    /// This handle, made to abort its task when it is dropped (tokio-util's
    /// `AbortOnDropHandle`): a task still queued then never runs, a running
    /// one finds its [`CancelToken`](super::cancel::CancelToken) cancelled. Join or
    /// await the guard as the handle itself; [`detach`](AbortOnDrop::detach)
    /// takes the handle back out.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(4).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap();
    /// let guarded = pool.spawn(|| unreachable!("aborted when its guard dropped")).unwrap().abort_on_drop();
    /// drop(guarded); // queued: it never runs
    /// drop(hold);
    /// pool.wait_idle();
    /// assert_eq!(pool.stats().completed, 1);
    /// ```
    pub fn abort_on_drop(self) -> AbortOnDrop<JoinHandle<R>>
    where
        R: Send + 'static,
    {
        let abort = self.abort_handle();
        AbortOnDrop::new(self, abort)
    }
}
