//! [`CancelToken`]: cooperative cancellation of a task that is running. A task
//! spawned with a handle (`spawn`, `spawn_timeout`, `spawn_async`, `call`, a
//! group's spawns) reads its own token with [`CancelToken::current`] and polls
//! it; whoever may cancel the task cancels the token: the task's
//! `JoinHandle::abort`, its `AbortHandle`, its `AbortOnDrop` guard dropped,
//! its group (`abort_all`, a failure under `cancel_on_error`, a group token's
//! `cancel`, the group dropped), or anyone holding a clone of the token.
//!
//! # One word for "never run" and "stop now"
//!
//! A spawned task's token is its result slot's state byte (`slot.rs`): an
//! abort is one read-modify-write that sets the slot's `ABORTED` flag and, if
//! the phase is still `QUEUED`, moves it to `CANCELLED` in the same step. The
//! task begins by its own compare-and-swap `QUEUED → STARTED` on that byte.
//! The two are ordered on the one word, so:
//!
//! * the abort came first: the task never runs (the abort fills the slot
//!   `Cancelled`, and returns `true`);
//! * the task began first: the abort returns `false`, and the flag is set. A
//!   check of the token (`is_cancelled`, one `Acquire` load of the byte) that
//!   happens after the abort returned — after anything that tells the task
//!   the abort is done: a lock, a channel, a flag it reads with `Acquire` —
//!   sees it cancelled, and sees what the aborter wrote before the abort. A
//!   check with no such order sees it as soon as the store reaches the
//!   task's core (the hardware's coherence; no bound in time is promised).
//!
//! A group's task reads its group's cancel word (`group/shared.rs`): the
//! token it gets is the one [`TaskGroup::cancel_token`](crate::TaskGroup::cancel_token)
//! gave for its generation when it was spawned, with the same ordering (the
//! word is raised `AcqRel`, read `Acquire`).
//!
//! A task that saw its token cancelled and returned has *completed*: its value
//! is its result (`join` gives `Ok`, `is_finished` is then true), and the
//! pool counts it completed. Only a task that never ran joins as cancelled.
//!
//! # How a task finds its token
//!
//! The spawn wrapper — `Reply::run` (`handle.rs`, for `spawn` and `call`) and
//! a group's job (`group/shared.rs`) — points a thread-local at what holds the
//! task's slot just before it calls the closure, and puts back what was there
//! after ([`Running`], a guard, so a nested run — a drained task run inside a
//! task — restores its caller's). That costs a spawned task one thread-local
//! read and two writes; [`CancelToken::current`] follows the pointer and
//! clones the holder's `Arc` into a token. A task submitted without a handle
//! (`submit`, `invoke`) runs through none of this: the thread-local is not
//! touched, and `current` there gives a token that is never cancelled.
//!
//! loom (`tests/loom/cancel.rs`): `cancel vs start` (an abort racing the
//! worker that begins the task: the task either never runs, or runs and its
//! check after the abort returned sees the token cancelled, and a cancel it
//! sees earlier carries the aborter's prior write — the model fails with the
//! flag loaded `Relaxed`, or with an abort that leaves a running task's flag
//! alone), and `group: cancel vs start` (the same for `abort_all`).

use ::std::sync::Arc;
use core::cell::Cell;
use core::fmt;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::slot::ResultSlot;

/// What a [`CancelToken`] reads and cancels, without its result type: a
/// spawned task's slot, or a group's cancel word (`generation` says which of
/// its generations; a slot ignores it).
pub(crate) trait Cancel: Send + Sync {
    fn is_cancelled(&self, generation: usize) -> bool;
    fn cancel(&self, generation: usize);
}

impl<R: Send> Cancel for ResultSlot<R> {
    fn is_cancelled(&self, _: usize) -> bool {
        self.is_aborted()
    }

    fn cancel(&self, _: usize) {
        self.abort();
    }
}

/// What holds the slot of the task running on this thread, as far as its
/// token goes: it makes the token.
pub(crate) trait Current {
    fn token(&self) -> CancelToken;
}

impl<R: Send + 'static> Current for Arc<ResultSlot<R>> {
    fn token(&self) -> CancelToken {
        CancelToken::new(self.clone(), 0)
    }
}

/// The holder of the running task's slot, while the task's closure runs.
type CurrentHolder = Option<NonNull<dyn Current>>;

#[cfg(not(antpool_loom))]
::std::thread_local! {
    /// Set by [`Running`] around a spawned task's closure; `None` elsewhere.
    /// A `Cell` of a pointer: no destructor, a plain load and store.
    static CURRENT: Cell<CurrentHolder> = const { Cell::new(None) };
}
// Loom runs its threads on one OS thread: its own thread-locals.
#[cfg(antpool_loom)]
loom::thread_local! {
    static CURRENT: Cell<CurrentHolder> = Cell::new(None);
}

/// The running task's holder is `holder` on this thread until this guard
/// drops, which puts back what was there before. The borrow keeps `holder`
/// where it is, and alive, for as long.
pub(crate) struct Running<'a> {
    prev: CurrentHolder,
    holder: PhantomData<&'a dyn Current>,
}

impl<'a> Running<'a> {
    pub(crate) fn enter<H: Current + 'static>(holder: &'a H) -> Self {
        let ptr: NonNull<dyn Current> = NonNull::from(holder as &(dyn Current + 'static));
        let prev = CURRENT.with(|c| c.replace(Some(ptr)));
        Running {
            prev,
            holder: PhantomData,
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let prev = self.prev;
        CURRENT.with(|c| c.set(prev));
    }
}

/// A task's cancellation, for the task to poll (Go's `ctx.Done()`, tokio-util's
/// `CancellationToken` without the waiting): [`Clone`], `Send + Sync`; once
/// cancelled, it stays cancelled.
///
/// - **A task's own**, from [`CancelToken::current`] inside a task spawned
///   with a handle: cancelled by the task's
///   [`JoinHandle::abort`](crate::JoinHandle::abort), an
///   [`AbortHandle`](crate::AbortHandle), its [`AbortOnDrop`](crate::AbortOnDrop)
///   guard dropped, or [`cancel`](Self::cancel) on any clone — all one
///   operation: a task not begun never runs, a running one sees its token
///   cancelled.
/// - **A group's**, from [`TaskGroup::cancel_token`](crate::TaskGroup::cancel_token),
///   or `current` inside a group's task: cancelled by
///   [`abort_all`](crate::TaskGroup::abort_all), by dropping the group, by the
///   first failure of a [`cancel_on_error`](crate::TaskGroup::cancel_on_error)
///   group, or by `cancel` on any clone — for the tasks in the group when it
///   was made.
///
/// A task that sees its token cancelled and returns has completed: its value
/// is its result. The module docs of `src/join/cancel.rs` give the ordering
/// guaranteed between a cancel and the task's next check.
///
/// ```
/// use antpool::CancelToken;
/// let pool = antpool::Pool::new(2).unwrap();
/// let (started, wait) = std::sync::mpsc::channel();
/// let handle = pool
///     .spawn(move || {
///         let token = CancelToken::current();
///         started.send(()).unwrap();
///         let mut rounds = 0u64;
///         while !token.is_cancelled() {
///             rounds += 1; // a slice of the work
///             std::thread::yield_now();
///         }
///         rounds
///     })
///     .unwrap();
/// wait.recv().unwrap();
/// assert!(!handle.abort()); // it began: asked to stop, not cancelled unrun
/// let rounds = handle.join().unwrap(); // it returned: its value is the result
/// # let _ = rounds;
/// ```
#[derive(Clone)]
pub struct CancelToken {
    /// `None`: the token of no task, never cancelled.
    source: Option<Arc<dyn Cancel>>,
    generation: usize,
}

impl CancelToken {
    pub(crate) fn new(source: Arc<dyn Cancel>, generation: usize) -> Self {
        CancelToken {
            source: Some(source),
            generation,
        }
    }

    /// The token of the task running on this thread: its own, if it was
    /// spawned with a handle ([`spawn`](crate::Pool::spawn),
    /// [`spawn_timeout`](crate::Pool::spawn_timeout),
    /// [`spawn_async`](crate::Pool::spawn_async),
    /// [`call`](crate::PoolWithFunc::call)); its group's, in a
    /// [`TaskGroup`](crate::TaskGroup)'s task. Elsewhere — a task
    /// [`submit`](crate::Pool::submit)ted without a handle, a scoped task,
    /// a thread that runs no task — a token that is never cancelled (and whose
    /// `cancel` does nothing). Take it once, at the top of the task, and poll
    /// it (each call clones an `Arc`).
    ///
    /// ```
    /// use antpool::CancelToken;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let h = pool.spawn(|| {
    ///     let token = CancelToken::current();
    ///     token.cancel(); // its own: the same as its handle's abort
    ///     token.is_cancelled()
    /// });
    /// assert!(h.unwrap().join().unwrap());
    /// assert!(!CancelToken::current().is_cancelled()); // no task here
    /// ```
    #[must_use]
    pub fn current() -> CancelToken {
        let holder = CURRENT.with(Cell::get);
        match holder {
            // SAFETY: a holder is set only by a `Running` guard on this
            // thread, which borrows it for its whole life and puts the
            // previous one back when it drops: the pointer is to a live
            // holder, not moved since.
            Some(ptr) => unsafe { ptr.as_ref() }.token(),
            None => CancelToken {
                source: None,
                generation: 0,
            },
        }
    }

    /// Whether the token was cancelled (for a group's: for the tasks it is
    /// for).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<()>();
    /// let token = group.cancel_token();
    /// assert!(!token.is_cancelled());
    /// group.abort_all();
    /// assert!(token.is_cancelled());
    /// assert!(!group.cancel_token().is_cancelled()); // tasks spawned from now on are not
    /// ```
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.source
            .as_ref()
            .is_some_and(|s| s.is_cancelled(self.generation))
    }

    /// Cancels what the token is for, from anywhere (the task, another
    /// thread). A task's own token: as its
    /// [`JoinHandle::abort`](crate::JoinHandle::abort) — it never runs if it
    /// has not begun, and a running one sees `is_cancelled`. A group's: as
    /// [`abort_all`](crate::TaskGroup::abort_all) would — its tasks that have
    /// not begun never run and join as cancelled, running ones see
    /// `is_cancelled`, and tasks spawned afterwards in the same generation
    /// (before the group's next `abort_all`) do not run either. The token of
    /// no task: nothing.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<u8>();
    /// let token = group.cancel_token();
    /// group.spawn(move || { token.cancel(); 1 }).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 1);
    /// group.spawn(|| 2).unwrap(); // the group is cancelled: it never runs
    /// assert!(group.join_next().unwrap().unwrap_err().is_cancelled());
    /// ```
    pub fn cancel(&self) {
        if let Some(source) = &self.source {
            source.cancel(self.generation);
        }
    }
}

impl fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
