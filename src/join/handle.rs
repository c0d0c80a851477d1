//! Results: [`JoinHandle`] (blocking join, polling, and `Future`) and the
//! task side that fills its slot (`Reply`). The slot itself — one atomic byte,
//! the result and a waker, no lock — is in `slot.rs`, the [`JoinError`] it
//! reports in `join_error.rs`, aborting from elsewhere in `abort.rs`.
//!
//! A spawned task and its handle share one [`ResultSlot`] behind an `Arc`. The task
//! side fills it exactly once — with the value, the panic payload, or, if the
//! task is dropped without running (handed back by `release_drain`, or
//! rejected and dropped), `Cancelled` — so a handle never waits for a task
//! that will not run.
//!
//! Abort: the slot's phase goes from `QUEUED` to `STARTED` (the task, as it
//! begins) or to `CANCELLED` (an abort) by one compare-and-swap, so exactly one
//! of them wins. An aborted task is cancelled at once (the slot filled, a
//! joiner woken); when a worker reaches it, or whoever holds it drops it, its
//! closure is dropped unrun. An abort that comes after the start sets the
//! slot's `ABORTED` flag instead, which the running task reads as its
//! [`CancelToken`](super::cancel::CancelToken): `Reply::run` makes the slot
//! the thread's current task around the closure (`cancel.rs`).

use ::std::boxed::Box;
use ::std::panic::{AssertUnwindSafe, catch_unwind};
use ::std::sync::Arc;
use core::fmt;
use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::engine::Outcome;
use crate::error::{Rejected, SubmitError};
use crate::task::{Runnable, SmallTask, Task};

use super::cancel::Running;
use super::error::{JoinError, Why};
pub(crate) use super::slot::ResultSlot;

/// A handle to a task's result: [`join`](JoinHandle::join) blocks for it,
/// [`try_join`](JoinHandle::try_join) checks, and `.await` waits without blocking
/// (it implements `Future`; no async runtime is needed or assumed).
///
/// Dropping the handle detaches the task: it still runs, its result is
/// dropped, and if it panics the payload goes to the pool's panic handler (as
/// a `submit`ted task's does; a handle kept gets the payload instead).
///
/// ```
/// let pool = antpool::Pool::new(2).unwrap();
/// let handle = pool.spawn(|| 6 * 7).unwrap();
/// assert_eq!(handle.join().unwrap(), 42);
/// ```
#[must_use = "a dropped JoinHandle detaches its task; call join() or await it to get the result"]
pub struct JoinHandle<R> {
    pub(super) slot: Arc<ResultSlot<R>>,
}

/// What holds a task's slot for its [`Reply`]: the slot itself, a scoped
/// task's packet (`scope.rs`), or a task group's entry (`group/`).
pub(crate) trait Holder<R>: AsRef<ResultSlot<R>> {
    /// The reply, dropping, filled the slot (`Cancelled`: the task was dropped
    /// unrun) and lets `holder` go. A group's entry reports there (the slot
    /// has no joiner of its own to wake); others just drop it.
    fn filled_on_drop(holder: Arc<Self>) {
        drop(holder);
    }
}

impl<R> Holder<R> for ResultSlot<R> {}

/// The task side of a [`JoinHandle`]: fills the slot once; dropped unfilled, it
/// reports `Cancelled`. `P` is what holds the slot (see [`Holder`]).
pub(crate) struct Reply<R, P: Holder<R> = ResultSlot<R>> {
    slot: Option<Arc<P>>,
    result: PhantomData<fn(R)>,
}

impl<R, P: Holder<R>> Reply<R, P> {
    /// The reply that fills the slot in `holder`.
    pub(crate) fn new(holder: Arc<P>) -> Self {
        Reply {
            slot: Some(holder),
            result: PhantomData,
        }
    }

    /// The task is about to run: `false` if its handle aborted it (it must
    /// not run; dropping the reply then changes nothing).
    pub(crate) fn begin(&self) -> bool {
        self.slot
            .as_ref()
            .is_none_or(|holder| (**holder).as_ref().begin())
    }

    /// What holds the slot (until the reply delivers).
    pub(crate) fn holder(&self) -> Option<&P> {
        self.slot.as_deref()
    }
}

/// A handle and the reply that completes it.
pub(crate) fn pair<R>() -> (JoinHandle<R>, Reply<R>) {
    let slot = Arc::new(ResultSlot::new());
    (JoinHandle { slot: slot.clone() }, Reply::new(slot))
}

/// A spawned closure travelling with the reply for its handle: a task of its
/// own type (not a closure around `f`), so that a pool that rejects it can
/// hand `f` back to the caller as it was given.
struct Spawned<F, R> {
    f: F,
    reply: Reply<R>,
}

impl<F, R> Runnable for Spawned<F, R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    fn run(self) {
        if !self.reply.begin() {
            // Aborted: `f` is dropped unrun, the handle reports cancelled.
            crate::guard::panic::note_skipped();
            return;
        }
        // The outcome reaches the pool's statistics through the panic note.
        let _ = self.reply.run(self.f);
    }

    fn into_task(self: Box<Self>) -> Task {
        Task::new(move || Runnable::run(*self))
    }
}

/// `spawn` for every pool: wraps `f` with the reply for a new handle, has
/// `submit` admit it, and on rejection hands back `f` itself (its reply,
/// dropped unfilled, cancels the handle nobody will see).
pub(crate) fn spawn_with<F, R>(
    f: F,
    submit: impl FnOnce(SmallTask) -> Result<(), SubmitError<SmallTask>>,
) -> Result<JoinHandle<R>, SubmitError<Rejected<F>>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let (handle, task) = spawned(f);
    match submit(task) {
        Ok(()) => Ok(handle),
        Err(rejected) => Err(hand_back(rejected)),
    }
}

/// `f` as a task that fills the slot of the handle returned beside it.
pub(crate) fn spawned<F, R>(f: F) -> (JoinHandle<R>, SmallTask)
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let (handle, reply) = pair();
    (handle, SmallTask::new(Spawned { f, reply }))
}

/// A rejected spawn's closure, out of the task it travelled in (its reply,
/// dropped unfilled, cancels the handle nobody will see).
pub(crate) fn hand_back<F, R>(rejected: SubmitError<SmallTask>) -> SubmitError<Rejected<F>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    rejected.map(|task| match task.downcast::<Spawned<F, R>>() {
        Ok(spawned) => Rejected::new(spawned.f),
        // The pools hand back the very task they were given.
        Err(_) => unreachable!("antpool: a rejected spawn came back as another task"),
    })
}

/// Runs `f`, catching a panic. A caught panic is reported to the pool as
/// `Panicked` (for its statistics) and becomes the result's `JoinError`; it
/// does not go to the panic handler.
pub(crate) fn call<R>(f: impl FnOnce() -> R) -> (Result<R, JoinError>, Outcome) {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => (Ok(value), Outcome::Completed),
        Err(payload) => {
            crate::guard::panic::note_caught_panic(&*payload);
            (Err(JoinError::panicked(payload)), Outcome::Panicked)
        }
    }
}

impl<R: Send + 'static> Reply<R> {
    /// Runs `f` ([`call`]) with the task's slot as this thread's current
    /// task (its [`CancelToken`](super::cancel::CancelToken): `cancel.rs`),
    /// and delivers the result.
    pub(crate) fn run(mut self, f: impl FnOnce() -> R) -> Outcome {
        let running = self.slot.as_ref().map(Running::enter);
        let (result, outcome) = call(f);
        drop(running);
        self.complete(result);
        outcome
    }
}

impl<R, P: Holder<R>> Reply<R, P> {
    /// Drops the task unrun for `why`: as the reply's drop, with the cause
    /// the slot's `Cancelled` names (unless a cancel was first).
    pub(crate) fn skip(mut self, why: Why) {
        self.release(why);
    }

    /// Fills the slot `Cancelled` for `why` if the task never began (or
    /// began and left no result: nothing does that today), and reports it to
    /// the holder.
    fn release(&mut self, why: Why) {
        if let Some(holder) = self.slot.take() {
            let slot = (*holder).as_ref();
            let filled = if slot.cancel(why) {
                true
            } else if slot.is_started() {
                slot.fill(Err(JoinError::cancelled(why)));
                true
            } else {
                false
            };
            if filled {
                P::filled_on_drop(holder);
            }
        }
    }

    /// Delivers `result`, which the caller got from [`call`], and hands back
    /// what holds the slot, for the caller to drop once this has returned (a
    /// scoped task's packet, whose drop may let its scope return: see
    /// `scope.rs`).
    #[must_use = "the holder is the caller's to drop"]
    pub(crate) fn deliver(mut self, result: Result<R, JoinError>) -> Option<Arc<P>> {
        let holder = self.slot.take();
        if let Some(holder) = &holder {
            // (A task that did not call `begin` begins here: a scoped one.)
            if (**holder).as_ref().begin() {
                (**holder).as_ref().fill(result);
            }
        }
        holder
    }

    /// Fills the slot of a task that began, once (the holder is taken out,
    /// and dropped here: for a scoped task, possibly the last reference,
    /// which counts the task done).
    fn complete(&mut self, result: Result<R, JoinError>) {
        if let Some(holder) = self.slot.take() {
            (*holder).as_ref().fill(result);
        }
    }
}

impl<R, P: Holder<R>> Drop for Reply<R, P> {
    fn drop(&mut self) {
        // Dropped unrun: cancelled (unless an abort was first).
        self.release(Why::Dropped);
    }
}

impl<R> JoinHandle<R> {
    /// Blocks until the task has finished: its value, or a [`JoinError`] if it
    /// panicked (with the payload) or was dropped without running.
    ///
    /// # Errors
    ///
    /// [`JoinError`] when the task panicked ([`is_panic`](JoinError::is_panic), with the
    /// payload) or was dropped without running
    /// ([`is_cancelled`](JoinError::is_cancelled): handed back by `release_drain`, say).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let h = pool.spawn(|| "done").unwrap();
    /// assert_eq!(h.join().unwrap(), "done");
    /// ```
    pub fn join(self) -> Result<R, JoinError> {
        self.slot.join()
    }

    /// The result if the task has finished; otherwise the handle back.
    ///
    /// # Errors
    ///
    /// `Err(self)`, the handle back, while the task has not finished; once it has, `Ok`
    /// holds what [`join`](JoinHandle::join) would return.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut h = pool.spawn(|| 1).unwrap();
    /// let value = loop {
    ///     match h.try_join() {
    ///         Ok(result) => break result.unwrap(),
    ///         Err(back) => { h = back; std::thread::yield_now(); }
    ///     }
    /// };
    /// assert_eq!(value, 1);
    /// ```
    pub fn try_join(self) -> Result<Result<R, JoinError>, JoinHandle<R>> {
        match self.slot.try_take() {
            Some(result) => Ok(result),
            None => Err(self),
        }
    }

    /// Whether the task has finished (so `join` would not block).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let h = pool.spawn(|| ()).unwrap();
    /// pool.wait_idle();
    /// assert!(h.is_finished());
    /// ```
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.slot.is_finished()
    }

    /// Aborts the task. If it has not started, it will never run, and `join`
    /// (or awaiting the handle) returns at once with an error whose
    /// [`is_cancelled`](JoinError::is_cancelled) is true (and whose message
    /// says it was aborted): returns `true`. If it is running, its
    /// [`CancelToken`](super::cancel::CancelToken) is cancelled — a task that
    /// polls [`CancelToken::current`](super::cancel::CancelToken::current)
    /// sees it at its next check and may stop early — and returns `false`:
    /// the task ends as it chooses, and what it returns is its result (`join`
    /// gives `Ok`, [`is_finished`](Self::is_finished) is true once it
    /// returned, and the pool counts it completed). A task finished, or
    /// cancelled before: `false`, nothing changes. Takes `&self`: the handle
    /// can still be joined.
    ///
    /// The task races its abort on one atomic word, so exactly one of "it
    /// ran" and "it was aborted unrun" is true, and a task that ran sees its
    /// token cancelled at any check that happens after the abort returned
    /// (see `src/join/cancel.rs` for the ordering). An aborted task's closure is
    /// dropped when a worker reaches it in the queue (skipping it, counted
    /// neither completed nor panicked) or when `clear_queue` or a drained
    /// task's owner drops it; until then it still counts in
    /// [`queued`](crate::Pool::queued) and holds its place in a bounded queue.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(4).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// let first = pool.spawn(move || { let _ = wait.recv(); }).unwrap();
    /// let queued = pool.spawn(|| 7).unwrap();
    /// assert!(queued.abort());
    /// assert!(queued.join().unwrap_err().is_cancelled());
    /// drop(hold); // the first task ends; the worker skips the aborted one
    /// first.join().unwrap();
    /// pool.wait_idle();
    /// assert_eq!(pool.stats().completed, 1); // the aborted task is not counted
    ///
    /// let ran = pool.spawn(|| 8).unwrap();
    /// pool.wait_idle();
    /// assert!(!ran.abort()); // it began: no effect
    /// assert_eq!(ran.join().unwrap(), 8);
    /// ```
    // Called for its effect (`handle.abort();`): the answer is there for who
    // wants it, not a result to be handled.
    #[allow(clippy::must_use_candidate)]
    pub fn abort(&self) -> bool {
        self.slot.abort()
    }
}

/// A handle dropped unjoined detaches its task; if the task then panics, the
/// payload goes to the pool's panic handler, as a `submit`ted task's does.
impl<R> Drop for JoinHandle<R> {
    fn drop(&mut self) {
        self.slot.drop_interest();
    }
}

impl<R> JoinHandle<R> {
    /// Polls for the result as awaiting the handle does.
    pub(crate) fn poll_slot(&self, cx: &Context<'_>) -> Poll<Result<R, JoinError>> {
        self.slot.poll(cx)
    }
}

impl<R> Future for JoinHandle<R> {
    type Output = Result<R, JoinError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.slot.poll(cx)
    }
}

impl<R> fmt::Debug for JoinHandle<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}
