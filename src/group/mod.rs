//! Task groups: [`TaskGroup`], a set of tasks on one pool joined as they
//! complete (tokio's `JoinSet`), cancelled together (Go's `errgroup`), and
//! the group's side of their [`CancelToken`] (`join/cancel.rs`).
//!
//! # Exactly one completion per task
//!
//! Each task carries an `Entry` (`shared.rs`): a result slot (`slot.rs`), its
//! [`TaskId`], and the group's `Shared` part — the completion queue behind one
//! lock, and the cancel word. The group's registry holds the entry too (to
//! cancel it), and so does the task's reply (`join.rs`'s `Reply`, over the
//! entry as its holder). The slot's phase decides who fills it, by one
//! compare-and-swap out of `QUEUED`: the task as it begins (`STARTED`), or a
//! canceller (`CANCELLED`) — the group's abort, which sweeps its registry, or
//! the reply dropped unrun (cleared from a queue, a drained task dropped, a
//! task that found its group cancelled as it began). **Whoever fills the slot
//! queues the entry**: the worker after it delivered, the reply's drop
//! (`Holder::filled_on_drop`), the sweep. So every task comes out of the
//! queue once: its value, its panic, or `Cancelled`; and `len` (the registry)
//! counts the tasks not yet joined (a keyed group's keys sit beside the
//! entries there, and come out with their completions: `registry.rs`,
//! `keyed.rs`). A rejected spawn's task is ours again: its
//! entry is cancelled first, so its reply, dropping, queues nothing. The
//! engine needs no change: a group task is a spawned task whose slot's holder
//! is its entry, run, queued, cleared, drained or dropped as any other.
//!
//! The completion queue is one `Mutex<VecDeque>` with a condvar for a blocked
//! joiner and a waker for an async one: one lock per completion, and one per
//! batch of joins (the joiner swaps the whole queue out with its own buffer).
//! The joiner is woken after the lock is let go (woken under it, it would
//! find the lock still held and sleep again), and only if it waits.
//!
//! # Cancel
//!
//! The cancel word says which *generations* are cancelled (all below it). A
//! task reads it as it begins (one load before the phase's CAS) and does not
//! run if its generation is cancelled. `abort_all` cancels the current
//! generation, sweeps every task that has not begun (they join `Cancelled`
//! at once), and starts the next: tasks spawned after it run. A failure under
//! `cancel_on_error`, or [`CancelToken::cancel`], cancels the task's (or the
//! token's) generation from any thread and wakes the joiner, which sweeps;
//! tasks spawned into a cancelled generation are swept as they join the
//! group. The lock is not on this path: a worker beginning a task reads one
//! word. A failure raises the word (AcqRel) *before* its result is queued, so
//! a task that begins after that completion is known — on the same worker or
//! elsewhere — sees it; the raiser then takes the lock and wakes the joiner,
//! which checks the word under the lock before it waits, so it sees the
//! cancel or is waiting when the wake comes.
//!
//! A running task sees the same word through its token: the group's job makes
//! its entry the thread's current task around the closure (`join/cancel.rs`),
//! and [`CancelToken::current`] there gives the group's token for the task's
//! generation (what [`TaskGroup::cancel_token`] gave when it was spawned). A
//! check of it (`Acquire`) that happens after a cancel (`AcqRel`) — the
//! joiner's `abort_all` or drop, a sibling's failure, a token's `cancel` —
//! sees it. So the one word decides both "never runs" (read as the task
//! begins) and "stop now" (read by the task while it runs). A task that
//! stops early on its token and returns joins with its value: it ran.
//!
//! # Async spawns
//!
//! `spawn_async`'s task counts only once its future says so (the pool took
//! it: the future resolved `Ok`; or the future was dropped and the task is
//! still alive or ran). Until then its entry is `UNCOUNTED`, and a completion
//! that comes first is left for the future to decide (`ARRIVED`), under the
//! group's lock: a task dropped unrun before that — withdrawn by the future's
//! drop, or taken and dropped unrun — is not counted and never ran.
//!
//! # When the group goes
//!
//! The queue holds entries that point back to it: a dropped group (or one
//! that detached its tasks) marks it abandoned and empties it, and later
//! completions are dropped where they happen, so nothing keeps a cycle alive.
//!
//! # Checked by
//!
//! loom (`tests/loom/group.rs`): `group: abort vs start` (the sweep racing a
//! new worker beginning the task: one completion, matching what ran), `group:
//! a failure cancels the rest` (the next task begins after the failure and
//! must not run; fails without the word's load at the task's start, and by
//! deadlock without the notify of a waiting joiner), `group: a cancel wakes
//! the joiner` (fails, by deadlock, without the cancel's wake-up).
//! `group: cancel vs start` (`tests/loom/cancel.rs`: `abort_all` racing the
//! start of a task that reads `CancelToken::current`: it never runs, or sees
//! the token cancelled at its check after the abort returned).
//! `tests/it/group.rs` and `tests/it/group_async.rs` run under Miri.

mod faces;
mod fallible;
mod join;
mod keyed;
mod registry;
mod shared;
mod spawn_async;
mod target;
mod with_priority;

pub use with_priority::PrioritizedGroup;

use ::std::collections::VecDeque;
use ::std::sync::Arc;
use core::fmt;
use core::time::Duration;

use crate::engine::Mode;
use crate::error::{Rejected, SubmitError};
use crate::join::cancel::CancelToken;
use crate::priority::Priority;
use crate::task::SmallTask;

pub use fallible::GroupError;
pub use join::{JoinNext, TimedOut};
use registry::Registry;
pub use shared::TaskId;
use shared::{Entry, GroupJob, Shared};
pub use spawn_async::GroupSpawnAsync;
pub(crate) use target::Target;

/// A set of tasks spawned on one pool, joined as they complete, cancelled
/// together: tokio's `JoinSet`, Go's `errgroup`, pond's task groups. Made by
/// [`Pool::group`](crate::Pool::group) and [`antpool::group`](crate::group).
///
/// - **Spawn** with [`spawn`](Self::spawn) (blocks while the pool is
///   saturated, as the pool's `spawn`), [`try_spawn`](Self::try_spawn),
///   [`spawn_timeout`](Self::spawn_timeout) or [`spawn_async`](Self::spawn_async);
///   each returns the task's [`TaskId`] (its [`ordinal`](TaskId::ordinal)
///   says which spawn it was), and a closure the pool refused comes back in
///   the error, the group unchanged.
/// - **Keys**: a group made [`keyed`](Self::keyed) takes a key of yours with
///   each task ([`spawn_keyed`](Self::spawn_keyed)) and gives it back with the
///   task's result, panic or cancel ([`join_next_keyed`](Self::join_next_keyed)).
/// - **Join** in completion order with [`join_next`](Self::join_next) and its
///   variants, or all at once, in spawn order, with [`join_all`](Self::join_all)
///   (it never panics: a panic is that task's [`JoinError`](crate::JoinError)).
///   Every spawned task comes out exactly once: its value, its panic, or
///   cancelled.
/// - **Cancel** with [`abort_all`](Self::abort_all): tasks that have not begun
///   never run; running ones finish, and may stop early by polling their
///   token ([`CancelToken::current`] inside the task, or the
///   [`cancel_token`](Self::cancel_token)). For `TaskGroup<Result<U, E>>`,
///   [`cancel_on_error`](Self::cancel_on_error) makes the first failure cancel
///   the rest, and [`try_join_all`](Self::try_join_all) gives the values or
///   the first error.
/// - **Dropping** the group aborts its tasks that have not begun and forgets
///   the rest; it never blocks. [`detach_all`](Self::detach_all) first lets
///   them all run. (A group whose tasks borrow, and that never
///   outlives them, is [`Scope::group`](crate::Scope::group).)
///
/// The group holds the pool's engine, not a handle: it does not keep the pool
/// open. After the pool is released, spawns are refused
/// ([`SubmitError::Closed`]), and the tasks already spawned still run and
/// join. A task that a pool's `release_drain` hands out joins with its result
/// if its holder runs it, cancelled when it is dropped — and keeps the group
/// waiting while it is kept. Joining from inside a task of the same pool can
/// deadlock a full pool (every worker waiting for a worker), as nested
/// `submit` can.
///
/// `Send` (and `Sync`) when `T` is `Send` (and a keyed group's `K` is `Send`
/// (and `Sync`)); not `Clone`.
///
/// ```
/// let pool = antpool::Pool::new(4).unwrap();
/// let mut group = pool.group::<u64>();
/// for n in 1..=10u64 {
///     group.spawn(move || n * n).unwrap();
/// }
/// let mut total = 0;
/// while let Some(result) = group.join_next() {
///     total += result.unwrap(); // in the order they finished
/// }
/// assert_eq!(total, 385);
/// ```
pub struct TaskGroup<T, K = ()> {
    target: ::std::boxed::Box<dyn Target>,
    shared: Arc<Shared<T>>,
    /// Completions moved out of the shared queue, not handed out yet.
    taken: VecDeque<Arc<Entry<T>>>,
    registry: Registry<T, K>,
    /// The ordinal of the next task the group takes: how many it took
    /// before (a refused or withdrawn spawn gives its number back).
    next_id: u64,
    /// The cancel generation new tasks are spawned in.
    generation: usize,
    /// The current generation was found cancelled and swept.
    swept: bool,
    /// `cancel_on_error`: which values are failures.
    fails: Option<fn(&T) -> bool>,
}

impl<T, K> TaskGroup<T, K> {
    pub(crate) fn new(target: ::std::boxed::Box<dyn Target>) -> Self {
        TaskGroup {
            target,
            shared: Arc::new(Shared::new()),
            taken: VecDeque::new(),
            registry: Registry::new(),
            next_id: 0,
            generation: 0,
            swept: false,
            fails: None,
        }
    }

    /// How many tasks were spawned and not yet joined (running, queued, or
    /// done and waiting to be joined).
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<()>();
    /// group.spawn(|| ()).unwrap();
    /// group.spawn(|| ()).unwrap();
    /// assert_eq!(group.len(), 2);
    /// group.join_next();
    /// assert_eq!(group.len(), 1);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.registry.len
    }

    /// Whether every spawned task has been joined (so `join_next` returns
    /// `None` at once).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// assert!(group.is_empty());
    /// group.spawn(|| 1).unwrap();
    /// assert!(!group.is_empty());
    /// group.join_all();
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.registry.len == 0
    }

    /// A [`CancelToken`] for the tasks of this group: cancelled by
    /// [`abort_all`](Self::abort_all), by dropping the group, by the first
    /// failure under [`cancel_on_error`](Self::cancel_on_error), or through
    /// any clone. After `abort_all` (or [`detach_all`](Self::detach_all))
    /// the group gives a new token, for the tasks spawned from then on. A
    /// task of the group gets the same token from [`CancelToken::current`].
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<()>();
    /// let token = group.cancel_token();
    /// drop(group);
    /// assert!(token.is_cancelled());
    /// ```
    #[must_use]
    pub fn cancel_token(&self) -> CancelToken
    where
        T: Send + 'static,
    {
        CancelToken::new(self.shared.clone(), self.generation)
    }

    /// Cancels every task of the group: those that have not begun never run
    /// (their closures are dropped when a worker reaches them, or the pool
    /// clears or drains them) and join at once as cancelled
    /// ([`JoinError::is_cancelled`](crate::JoinError::is_cancelled)); running
    /// ones finish and join with their result — they may poll their token
    /// ([`CancelToken::current`], or the [`cancel_token`](Self::cancel_token)),
    /// which is now cancelled. The tasks
    /// stay in the group until joined. Tasks spawned afterwards run, with a
    /// new token.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(8).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
    /// let mut group = pool.group::<u32>();
    /// for n in 0..3 {
    ///     group.spawn(move || n).unwrap(); // queued
    /// }
    /// group.abort_all();
    /// assert_eq!(group.len(), 3);
    /// for result in group.join_all() {
    ///     assert!(result.unwrap_err().is_cancelled()); // at once: the worker is still busy
    /// }
    /// drop(hold);
    /// ```
    pub fn abort_all(&mut self) {
        self.shared.cancel(self.generation);
        self.shared.sweep(self.registry.iter());
        self.generation += 1;
        self.swept = false;
    }

    /// Forgets every task of the group without cancelling it: they run, and
    /// their results are dropped; the group is empty, and dropping it later
    /// cancels none of them (nor their token). Tasks spawned afterwards
    /// belong to the group as usual.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let ran = Arc::new(AtomicUsize::new(0));
    /// let mut group = pool.group::<()>();
    /// for _ in 0..4 {
    ///     let ran = ran.clone();
    ///     group.spawn(move || { ran.fetch_add(1, Ordering::Relaxed); }).unwrap();
    /// }
    /// group.detach_all();
    /// assert!(group.is_empty());
    /// drop(group); // cancels nothing
    /// pool.wait_idle();
    /// assert_eq!(ran.load(Ordering::Relaxed), 4);
    /// ```
    pub fn detach_all(&mut self) {
        drop(self.shared.abandon());
        self.shared = Arc::new(Shared::new());
        self.taken.clear();
        self.registry = Registry::new();
        self.generation = 0;
        self.swept = false;
    }

    /// Sweeps the current generation once it is found cancelled (a failure
    /// under `cancel_on_error`, or a token): its tasks that have not begun
    /// join `Cancelled` now, not when a worker reaches them.
    fn sweep_if_cancelled(&mut self) {
        if !self.swept && self.shared.is_cancelled(self.generation) {
            self.swept = true;
            self.shared.sweep(self.registry.iter());
        }
    }

    /// A new entry for `f` (`counted`: a blocking spawn's, counted from the
    /// start) and the task that carries it.
    fn prepare<F>(&mut self, f: F, counted: bool) -> (Arc<Entry<T>>, SmallTask)
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let id = TaskId(self.next_id);
        self.next_id += 1;
        let key = self.registry.reserve();
        let entry = Arc::new(Entry::new(
            self.shared.clone(),
            id,
            key,
            self.generation,
            self.fails,
            counted,
        ));
        let task = SmallTask::new(GroupJob::new(f, entry.clone()));
        (entry, task)
    }

    /// A counted entry joins the registry with the caller's key; spawned
    /// into a cancelled generation, it is swept at once.
    fn register(&mut self, entry: Arc<Entry<T>>, label: K) -> TaskId {
        let id = entry.id;
        if self.shared.is_cancelled(self.generation) {
            self.shared.sweep(core::iter::once(&entry));
        }
        self.registry.insert(entry, label);
        id
    }

    /// The group did not take the entry `prepare` just made (refused, or
    /// withdrawn): its ordinal goes to the next task. (Nothing was prepared
    /// since: a spawn, and an async spawn's future, hold the group.)
    fn give_back_ordinal(&mut self, entry: &Entry<T>) {
        debug_assert_eq!(entry.id.0 + 1, self.next_id);
        self.next_id = entry.id.0;
    }

    /// A refused task's closure, back out of it; the group is as before.
    fn hand_back<F>(
        &mut self,
        rejected: SubmitError<SmallTask>,
        entry: &Entry<T>,
    ) -> SubmitError<Rejected<F>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        // The task is ours again: cancel its slot, so that its reply,
        // dropping, queues nothing.
        entry.cancel();
        self.registry.release(entry.key);
        self.give_back_ordinal(entry);
        rejected.map(|task| match task.downcast::<GroupJob<F, T>>() {
            Ok(job) => Rejected::new(job.into_closure()),
            Err(_) => unreachable!("antpool: a rejected group task came back as another task"),
        })
    }
}

impl<T> TaskGroup<T> {
    /// An async spawn's entry joins the group, or not (see `Shared::adopt`).
    fn adopt(&mut self, entry: Arc<Entry<T>>, resolved: bool) -> TaskId {
        let id = entry.id;
        if self.shared.adopt(&entry, resolved) {
            self.register(entry, ());
        } else {
            self.registry.release(entry.key);
            self.give_back_ordinal(&entry);
        }
        id
    }
}

impl<T: Send + 'static> TaskGroup<T> {
    /// Runs `f` on the group's pool as the pool's `spawn` does (blocking
    /// while it is saturated, unless its options say otherwise), and adds it
    /// to the group: its result comes out of [`join_next`](Self::join_next).
    ///
    /// # Errors
    ///
    /// The closure `f` comes back inside the error, untouched, and the group
    /// is unchanged: [`SubmitError::Overload`] when the pool is saturated and
    /// may not block; [`SubmitError::Closed`] when it is released (also while
    /// the call waits); [`SubmitError::SpawnFailed`] when no thread could be
    /// started.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<u32>();
    /// let id = group.spawn(|| 7).unwrap();
    /// assert_eq!(group.join_next_with_id().map(|(i, r)| (i, r.unwrap())), Some((id, 7)));
    /// pool.release();
    /// let f = group.spawn(|| 8).unwrap_err().into_closure(); // refused: handed back
    /// assert_eq!(f(), 8);
    /// assert!(group.is_empty());
    /// ```
    pub fn spawn<F>(&mut self, f: F) -> Result<TaskId, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.spawn_in(f, Mode::Block, Priority::Normal)
    }

    /// Like [`spawn`](Self::spawn), but never blocks: a saturated pool
    /// returns [`SubmitError::Overload`] with the closure.
    ///
    /// # Errors
    ///
    /// As for [`spawn`](Self::spawn), with `Overload` at once instead of
    /// waiting.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
    /// let mut group = pool.group::<u8>();
    /// assert!(group.try_spawn(|| 1).unwrap_err().is_overload());
    /// assert_eq!(group.len(), 0);
    /// drop(hold);
    /// ```
    pub fn try_spawn<F>(&mut self, f: F) -> Result<TaskId, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.spawn_in(f, Mode::Try, Priority::Normal)
    }

    /// Like [`spawn`](Self::spawn), but waits at most `timeout` for room in
    /// a saturated pool.
    ///
    /// # Errors
    ///
    /// [`SubmitError::Timeout`] with the closure when the pool stayed
    /// saturated for all of `timeout`; otherwise as for [`spawn`](Self::spawn).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap();
    /// let mut group = pool.group::<u8>();
    /// let err = group.spawn_timeout(|| 1, Duration::from_millis(5)).unwrap_err();
    /// assert!(err.is_timeout());
    /// drop(hold);
    /// group.spawn_timeout(|| 2, Duration::from_secs(5)).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 2);
    /// ```
    pub fn spawn_timeout<F>(
        &mut self,
        f: F,
        timeout: Duration,
    ) -> Result<TaskId, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.spawn_in(f, Mode::Within(timeout), Priority::Normal)
    }

    /// [`spawn`](Self::spawn) in `mode` at `priority`.
    pub(crate) fn spawn_in<F>(
        &mut self,
        f: F,
        mode: Mode,
        priority: Priority,
    ) -> Result<TaskId, SubmitError<Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        let (entry, task) = self.prepare(f, true);
        match self.target.submit(task, mode, priority) {
            Ok(()) => Ok(self.register(entry, ())),
            Err(rejected) => Err(self.hand_back(rejected, &entry)),
        }
    }

    /// [`spawn`](Self::spawn) for async code: a future that waits for room
    /// in the pool without blocking a thread (in the pool's one line with
    /// its blocked submitters, as `submit_async` does), then adds the task to
    /// the group and resolves to its [`TaskId`]. The result comes out of
    /// [`join_next_async`](Self::join_next_async) (or any join).
    ///
    /// **Dropped before it resolves** (by `select!`, a timeout): if the pool
    /// had not taken the task, the task is withdrawn — it never runs, and the
    /// group does not count it; if the pool had taken it, it is in the group
    /// and joins as any other (a task taken and then dropped unrun, by
    /// `clear_queue` say, before the drop, is not counted either: it never
    /// ran). The pool's own async submits keep the same contract.
    ///
    /// # Errors
    ///
    /// As for [`spawn`](Self::spawn), resolved instead of returned: the
    /// closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<u32>();
    /// let total = futures_executor::block_on(async {
    ///     for n in 1..=4 {
    ///         group.spawn_async(move || n * 10).await.unwrap();
    ///     }
    ///     let mut total = 0;
    ///     while let Some(result) = group.join_next_async().await {
    ///         total += result.unwrap();
    ///     }
    ///     total
    /// });
    /// assert_eq!(total, 100);
    /// ```
    pub fn spawn_async<F>(&mut self, f: F) -> GroupSpawnAsync<'_, F, T>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.spawn_async_at(f, Priority::Normal)
    }

    /// [`spawn_async`](Self::spawn_async) at `priority`.
    pub(crate) fn spawn_async_at<F>(
        &mut self,
        f: F,
        priority: Priority,
    ) -> GroupSpawnAsync<'_, F, T>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        let (entry, task) = self.prepare(f, false);
        let admission = self.target.admit(task, priority);
        GroupSpawnAsync::new(self, admission, entry)
    }
}

impl<T, K> Drop for TaskGroup<T, K> {
    /// Aborts the tasks that have not begun (they never run) and forgets the
    /// rest (they finish; their results are dropped), as
    /// [`abort_all`](Self::abort_all) and then [`detach_all`](Self::detach_all)
    /// would. Never blocks.
    fn drop(&mut self) {
        let unjoined = self.shared.abandon();
        self.shared.cancel(self.generation);
        self.shared.sweep(self.registry.iter());
        drop(unjoined);
    }
}

impl<T, K> fmt::Debug for TaskGroup<T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskGroup")
            .field("len", &self.registry.len)
            .field("cancelled", &self.shared.is_cancelled(self.generation))
            .finish_non_exhaustive()
    }
}
