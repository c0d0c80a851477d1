//! A task group inside a scope: [`ScopedTaskGroup`], made by
//! [`Scope::group`]. Its tasks borrow from the caller's stack, as
//! [`Scope::spawn`]'s do, and it joins as a [`TaskGroup`] does — it *is* one
//! inside (its completion queue, cancel word, [`CancelToken`] and sweep), with
//! a scope's ticket in each task.
//!
//! # How the borrow stays sound
//!
//! The pool and the `TaskGroup` run `'static` closures, so `spawn` boxes the
//! closure and erases its lifetime ([`Borrowed`]). It travels with a
//! [`Ticket`]: one count in the scope's `running`, the count `scope` waits
//! for (`scope.rs`, module docs). Three facts make that enough:
//!
//! - **The ticket goes only after the closure.** Run, the closure is over —
//!   returned or unwound — before [`Borrowed::call`] drops the ticket. Not run
//!   (aborted by the group and skipped by a worker, cleared from the queue,
//!   drained and dropped by its holder, or refused and handed back to
//!   `spawn`, which drops it), `Borrowed`'s `Drop` drops the closure first and
//!   its fields, the ticket among them, after. Whichever way the task goes,
//!   its closure goes with the `Borrowed`, and so does its ticket.
//! - **`scope` returns only once the count is 0** (its Acquire load pairs with
//!   each ticket's Release decrement), so every use of the closure's borrows
//!   happens-before `scope` returns and `'scope` ends.
//! - **Nothing else of the task borrows.** The group's results are `'static`
//!   (`T: 'static`), and so are its entries and queue: what the worker does
//!   after the ticket went (deliver the result, queue it) touches nothing of
//!   the scope's. (A task whose result borrows is [`Scope::spawn`]'s.)
//!
//! The ticket is dropped in `Borrowed::call`, whose frame holds no borrow of
//! the scope's: the closure went by value into its own call, which has
//! returned, so no function still holds its borrows as protected arguments
//! when the scope may return (Stacked Borrows: the care `scope.rs`'s `run_job`
//! takes with its packet). `tests/it/scope_group.rs` runs under Miri.
//!
//! The count is the scope's own protocol (a ticket is a packet's place in it,
//! without the packet), and the joins are `TaskGroup`'s: nothing here is a new
//! concurrency protocol. What is new is what the scope does with a group that
//! goes before its tasks, below. loom: `scoped group waits`
//! (`tests/loom/scope.rs`) races the group's drop against the worker
//! beginning a task whose closure writes the caller's cell as it goes; it
//! fails without the ticket.
//!
//! # A group dropped before its tasks ended
//!
//! As a `TaskGroup`, it aborts its tasks that have not begun (they never run);
//! it joins at once what is done, and leaves the group with what still runs to
//! the scope (an *orphan*), which joins it once every task is gone. A panic
//! among the results nobody joined makes `scope` panic when it ends, as a
//! panicking `ScopedJoinHandle` left unjoined does.

use ::std::boxed::Box;
use ::std::sync::Arc;
use ::std::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

use crate::engine::Mode;
use crate::error::SubmitError;
use crate::group::{GroupError, TaskGroup, TaskId};
use crate::join::cancel::CancelToken;
use crate::join::error::JoinError;
use crate::priority::Priority;
use crate::scope::{Scope, ScopeData};

/// A [`TaskGroup`] inside a [`Scope`]: its tasks may borrow from the caller's
/// stack (as [`Scope::spawn`]'s), and it joins as a `TaskGroup` does — in
/// completion order with [`join_next`](Self::join_next), cancelled together
/// with [`abort_all`](Self::abort_all) or, made with
/// [`cancel_on_error`](Self::cancel_on_error), by the first `Err` or panic.
/// A task cancelled before it began joins as a cancelled
/// [`JoinError`](crate::JoinError), so the joins tell which tasks never ran.
/// Made by [`Scope::group`], on the scope's pool.
///
/// - **Results are `'static`.** A task borrows; what it returns may not (a
///   task whose result borrows is [`Scope::spawn`]'s).
/// - **Every task has ended when the scope returns**, joined or not: the
///   scope waits for them as for its own.
/// - **Dropped** (or left at the end of the scope's closure), the group aborts
///   its tasks that have not begun, as a `TaskGroup` does; the scope still
///   waits for the running ones, and drops the results nobody joined.
/// - **Panics**: a join hands a task's panic out as its `JoinError`; a panic
///   nobody joined makes the scope panic when it ends, as for a
///   [`ScopedJoinHandle`](crate::ScopedJoinHandle) left unjoined.
/// - The [`cancel_token`](Self::cancel_token) is the group's [`CancelToken`].
///
/// The scoped version of a fan-out with its bookkeeping — borrowed input,
/// results in completion order, the first error cancelling the rest, and
/// which never ran:
///
/// ```
/// use std::collections::BTreeMap;
/// use antpool::{Pool, SubmitError};
///
/// /// Parses every line on the pool; stops at the first bad one.
/// fn parse_all(pool: &Pool, lines: &[String]) -> Result<Report, SubmitError<()>> {
///     pool.scope(|s| {
///         let mut group = s.group::<Result<u64, String>>().cancel_on_error();
///         let mut line_of = BTreeMap::new();
///         for (n, line) in lines.iter().enumerate() {
///             // Borrows `line`: no clone, no `Arc`.
///             let id = group.spawn(move || line.trim().parse().map_err(|_| format!("line {n}: {line:?}")))?;
///             line_of.insert(id, n);
///         }
///         let mut report = Report::default();
///         while let Some((id, result)) = group.join_next_with_id() {
///             match result {
///                 Ok(Ok(value)) => report.parsed.push((line_of[&id], value)),
///                 Ok(Err(e)) => report.errors.push(e),
///                 Err(e) if e.is_cancelled() => report.never_ran.push(line_of[&id]),
///                 Err(e) => std::panic::resume_unwind(e.into_panic()),
///             }
///         }
///         Ok(report)
///     })
/// }
///
/// #[derive(Default)]
/// struct Report {
///     parsed: Vec<(usize, u64)>, // (line, value), in the order they finished
///     errors: Vec<String>,
///     never_ran: Vec<usize>,
/// }
///
/// // One worker: the lines run in order, so what the error cancels is known.
/// let pool = Pool::builder().capacity(1).max_queued_tasks(16).build().unwrap();
/// let lines: Vec<String> = ["1", "2", "x", "4", "5"].map(String::from).into();
/// let report = parse_all(&pool, &lines).unwrap();
/// assert_eq!(report.parsed, [(0, 1), (1, 2)]);
/// assert_eq!(report.errors, ["line 2: \"x\""]);
/// let mut never_ran = report.never_ran;
/// never_ran.sort();
/// assert_eq!(never_ran, [3, 4]);
/// ```
pub struct ScopedTaskGroup<'scope, T: Send + 'static> {
    /// `None` only once `join_all` or `try_join_all` took it.
    group: Option<TaskGroup<T>>,
    scope: Arc<ScopeData>,
    /// Invariant over `'scope`, as `Scope`: a shorter `'scope` would let a
    /// task borrow what goes before the scope waits.
    _scope: PhantomData<&'scope mut &'scope ()>,
}

impl<'scope> Scope<'scope, '_> {
    /// A [`ScopedTaskGroup`] on the scope's pool: a task group whose tasks
    /// may borrow from the caller's stack, joined as they complete, inside
    /// the scope.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let words = vec!["ant", "pool", "scope"];
    /// let total = pool.scope(|s| {
    ///     let mut group = s.group::<usize>();
    ///     for w in &words {
    ///         group.spawn(move || w.len()).unwrap(); // borrows `words`
    ///     }
    ///     let mut total = 0;
    ///     while let Some(len) = group.join_next() {
    ///         total += len.unwrap();
    ///     }
    ///     total
    /// });
    /// assert_eq!(total, 12);
    /// ```
    #[must_use]
    pub fn group<T: Send + 'static>(&self) -> ScopedTaskGroup<'scope, T> {
        ScopedTaskGroup {
            group: Some(TaskGroup::new(self.pool())),
            scope: self.data(),
            _scope: PhantomData,
        }
    }
}

impl<'scope, T: Send + 'static> ScopedTaskGroup<'scope, T> {
    fn group(&mut self) -> &mut TaskGroup<T> {
        match &mut self.group {
            Some(group) => group,
            None => unreachable!("antpool: a scoped group used after it was joined whole"),
        }
    }

    /// Runs `f` on the scope's pool as [`Scope::spawn`] does (blocking while
    /// the pool is saturated, unless its options say otherwise), and adds it
    /// to the group. `f` may borrow anything that outlives the scope. Returns
    /// the task's [`TaskId`], as the joins give it back.
    ///
    /// # Errors
    ///
    /// As [`Scope::spawn`]: [`SubmitError::Overload`], [`SubmitError::Closed`]
    /// or [`SubmitError::SpawnFailed`]. `f` never ran and is dropped inside
    /// the scope, so the error holds `()` (and `?` passes it on); the group is
    /// unchanged.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut hits = [0u32; 2];
    /// pool.scope(|s| {
    ///     let mut group = s.group::<()>();
    ///     for h in &mut hits {
    ///         group.spawn(move || *h += 1).unwrap(); // a `&mut` into the caller's array
    ///     }
    ///     group.join_all();
    /// });
    /// assert_eq!(hits, [1, 1]);
    /// ```
    pub fn spawn<F>(&mut self, f: F) -> Result<TaskId, SubmitError<()>>
    where
        F: FnOnce() -> T + Send + 'scope,
    {
        self.spawn_in(f, Mode::Block)
    }

    /// Like [`spawn`](Self::spawn), but never blocks: a saturated pool returns
    /// [`SubmitError::Overload`].
    ///
    /// # Errors
    ///
    /// As for [`spawn`](Self::spawn), with `Overload` at once instead of
    /// waiting; `f` is dropped inside the scope.
    ///
    /// ```
    /// use std::sync::Barrier;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let gate = Barrier::new(2);
    /// pool.scope(|s| {
    ///     let mut group = s.group::<u8>();
    ///     group.spawn(|| { gate.wait(); 1 }).unwrap(); // the only worker waits at the gate
    ///     assert!(group.try_spawn(|| 2).unwrap_err().is_overload());
    ///     gate.wait();
    ///     assert_eq!(group.join_next().unwrap().unwrap(), 1);
    ///     assert!(group.join_next().is_none()); // the refused one is not in the group
    /// });
    /// ```
    pub fn try_spawn<F>(&mut self, f: F) -> Result<TaskId, SubmitError<()>>
    where
        F: FnOnce() -> T + Send + 'scope,
    {
        self.spawn_in(f, Mode::Try)
    }

    fn spawn_in<F>(&mut self, f: F, mode: Mode) -> Result<TaskId, SubmitError<()>>
    where
        F: FnOnce() -> T + Send + 'scope,
    {
        let borrowed = Borrowed::new(f, Ticket::new(&self.scope));
        self.group()
            .spawn_in(move || borrowed.call(), mode, Priority::Normal)
            // Refused: the closure drops here, inside the scope, and then its
            // ticket (`Borrowed`'s field order).
            .map_err(|rejected| rejected.map(drop))
    }

    /// Blocks until a task of the group completes and gives its result, in
    /// the order they completed: its value, or a [`JoinError`] if it panicked
    /// or was cancelled before it began. `None` once every task was joined.
    /// As [`TaskGroup::join_next`].
    ///
    /// ```
    /// use std::sync::Barrier;
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let (first, second) = (Barrier::new(2), Barrier::new(2));
    /// pool.scope(|s| {
    ///     let mut group = s.group::<&str>();
    ///     group.spawn(|| { second.wait(); "slow" }).unwrap();
    ///     group.spawn(|| { first.wait(); "fast" }).unwrap();
    ///     first.wait();
    ///     assert_eq!(group.join_next().unwrap().unwrap(), "fast");
    ///     second.wait();
    ///     assert_eq!(group.join_next().unwrap().unwrap(), "slow");
    /// });
    /// ```
    pub fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.group().join_next()
    }

    /// [`join_next`](Self::join_next), with the [`TaskId`] its spawn returned:
    /// which task this is (the one that panicked, or never ran).
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let name = String::from("ant");
    /// pool.scope(|s| {
    ///     let mut group = s.group::<usize>();
    ///     let id = group.spawn(|| name.len()).unwrap();
    ///     let (joined, len) = group.join_next_with_id().unwrap();
    ///     assert_eq!((joined, len.unwrap()), (id, 3));
    /// });
    /// ```
    pub fn join_next_with_id(&mut self) -> Option<(TaskId, Result<T, JoinError>)> {
        self.group().join_next_with_id()
    }

    /// Waits for every task of the group and returns their results in the
    /// order they were spawned. Never panics: a task's panic is its
    /// [`JoinError`]. As [`TaskGroup::join_all`].
    ///
    /// ```
    /// let pool = antpool::Pool::new(4).unwrap();
    /// let data: Vec<u64> = (1..=100).collect();
    /// let sums = pool.scope(|s| {
    ///     let mut group = s.group::<u64>();
    ///     for chunk in data.chunks(25) {
    ///         group.spawn(move || chunk.iter().sum()).unwrap();
    ///     }
    ///     group.join_all()
    /// });
    /// let sums: Vec<u64> = sums.into_iter().map(Result::unwrap).collect();
    /// assert_eq!(sums, [325, 950, 1575, 2200]);
    /// ```
    #[allow(clippy::must_use_candidate)] // waiting for the tasks is a use of its own
    pub fn join_all(mut self) -> Vec<Result<T, JoinError>> {
        match self.group.take() {
            Some(group) => group.join_all(),
            None => unreachable!("antpool: a scoped group used after it was joined whole"),
        }
    }

    /// Cancels every task of the group that has not begun: it never runs, and
    /// joins at once as cancelled; running ones finish, and see the
    /// [`cancel_token`](Self::cancel_token) cancelled. As
    /// [`TaskGroup::abort_all`].
    ///
    /// ```
    /// use std::sync::Barrier;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(4).build().unwrap();
    /// let gate = Barrier::new(2);
    /// pool.scope(|s| {
    ///     let mut group = s.group::<u8>();
    ///     group.spawn(|| { gate.wait(); gate.wait(); 0 }).unwrap();
    ///     gate.wait(); // it runs, on the only worker
    ///     group.spawn(|| 1).unwrap(); // queued
    ///     group.abort_all();
    ///     assert!(group.join_next().unwrap().unwrap_err().is_cancelled()); // at once
    ///     gate.wait();
    ///     assert_eq!(group.join_next().unwrap().unwrap(), 0);
    /// });
    /// ```
    pub fn abort_all(&mut self) {
        self.group().abort_all();
    }

    /// The group's [`CancelToken`], for its running tasks to poll: cancelled
    /// by [`abort_all`](Self::abort_all), by dropping the group, by the first
    /// failure under [`cancel_on_error`](Self::cancel_on_error), or through
    /// any clone. As [`TaskGroup::cancel_token`].
    ///
    /// ```
    /// use std::sync::Barrier;
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let started = &Barrier::new(2);
    /// pool.scope(|s| {
    ///     let mut group = s.group::<u64>();
    ///     let token = group.cancel_token();
    ///     group.spawn(move || {
    ///         started.wait();
    ///         let mut rounds = 0;
    ///         while !token.is_cancelled() {
    ///             rounds += 1;
    ///             std::hint::spin_loop();
    ///         }
    ///         rounds
    ///     }).unwrap();
    ///     started.wait();
    ///     group.abort_all(); // the running task sees it and returns
    ///     assert!(group.join_next().unwrap().is_ok()); // it began: its value
    /// });
    /// ```
    #[must_use]
    pub fn cancel_token(&self) -> CancelToken {
        match &self.group {
            Some(group) => group.cancel_token(),
            None => unreachable!("antpool: a scoped group used after it was joined whole"),
        }
    }
}

impl<'scope, U: Send + 'static, E: Send + 'static> ScopedTaskGroup<'scope, Result<U, E>> {
    /// Makes the first task that returns `Err` or panics cancel the group: no
    /// task of the group that begins after that completion runs, and each
    /// joins as cancelled. As [`TaskGroup::cancel_on_error`]: make the group
    /// with it.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap(); // one worker: in order
    /// let input = ["1", "x", "3"];
    /// pool.scope(|s| {
    ///     let mut group = s.group::<Result<u32, std::num::ParseIntError>>().cancel_on_error();
    ///     for text in &input {
    ///         group.spawn(move || text.parse()).unwrap();
    ///     }
    ///     let results = group.join_all();
    ///     assert_eq!(results[0].as_ref().unwrap(), &Ok(1));
    ///     assert!(results[1].as_ref().unwrap().is_err());
    ///     assert!(results[2].as_ref().unwrap_err().is_cancelled()); // never ran
    /// });
    /// ```
    #[must_use]
    pub fn cancel_on_error(mut self) -> Self {
        self.group = self.group.take().map(TaskGroup::cancel_on_error);
        self
    }

    /// Waits for every task of the group and returns their values in spawn
    /// order, or the first failure in completion order. As
    /// [`TaskGroup::try_join_all`].
    ///
    /// # Errors
    ///
    /// [`GroupError::Failed`] with the first `Err` a task returned,
    /// [`GroupError::Panicked`] if the first failure was a panic, or
    /// [`GroupError::Cancelled`] when none failed but some were cancelled.
    ///
    /// ```
    /// fn total(pool: &antpool::Pool, parts: &[&str]) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
    ///     pool.scope(|s| {
    ///         let mut group = s.group::<Result<u32, std::num::ParseIntError>>().cancel_on_error();
    ///         for part in parts {
    ///             group.spawn(move || part.parse())?;
    ///         }
    ///         Ok(group.try_join_all()?.into_iter().sum())
    ///     })
    /// }
    /// let pool = antpool::Pool::new(2).unwrap();
    /// assert_eq!(total(&pool, &["1", "2"]).unwrap(), 3);
    /// assert!(total(&pool, &["1", "x"]).is_err());
    /// ```
    pub fn try_join_all(mut self) -> Result<Vec<U>, GroupError<E>> {
        match self.group.take() {
            Some(group) => group.try_join_all(),
            None => unreachable!("antpool: a scoped group used after it was joined whole"),
        }
    }
}

/// Dropped inside the scope: aborts the tasks that have not begun (they never
/// run), drops the results that are in, and leaves the tasks still running to
/// the scope, which waits for them and drops their results. A panic among
/// the results nobody joined makes the scope panic when it ends.
impl<T: Send + 'static> Drop for ScopedTaskGroup<'_, T> {
    fn drop(&mut self) {
        let Some(mut group) = self.group.take() else {
            return;
        };
        // Cancels the token too, as a `TaskGroup`'s drop does.
        group.abort_all();
        while let Some(result) = group.try_join_next() {
            if matches!(&result, Err(e) if e.is_panic()) {
                self.scope.note_unjoined_panic();
            }
        }
        if !group.is_empty() {
            // Running: the scope joins them once every task is gone (each
            // then has delivered, or is about to: `join_next` waits for it).
            self.scope.leave(Box::new(move || {
                let mut panicked = false;
                while let Some(result) = group.join_next() {
                    panicked |= matches!(&result, Err(e) if e.is_panic());
                }
                panicked
            }));
        }
    }
}

impl<T: Send + 'static> fmt::Debug for ScopedTaskGroup<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopedTaskGroup")
            .field("group", &self.group)
            .finish()
    }
}

/// One task's place in its scope's count (`scope.rs`), for a task that has
/// no packet: whoever holds it drops it only once nothing of the task's
/// borrows from the scope.
struct Ticket(Arc<ScopeData>);

impl Ticket {
    fn new(scope: &Arc<ScopeData>) -> Self {
        scope.task_came();
        Ticket(scope.clone())
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.task_gone();
    }
}

/// A scoped group's closure, its lifetime erased so that it can travel as a
/// `'static` task, with its [`Ticket`] (module docs: "How the borrow stays
/// sound"). Fields drop in order: the closure (`Drop`), then the ticket.
struct Borrowed<T> {
    /// A `Box<dyn FnOnce() -> T + Send + 'scope>`, leaked, owned by this
    /// value alone.
    f: NonNull<dyn FnOnce() -> T + Send>,
    ticket: Ticket,
}

// SAFETY: `f` is a `Box<dyn FnOnce() -> T + Send>` (so `Send`) that this
// value owns alone; the ticket is an `Arc` of the scope's shared data.
unsafe impl<T> Send for Borrowed<T> {}

impl<T> Borrowed<T> {
    fn new<'scope, F>(f: F, ticket: Ticket) -> Self
    where
        F: FnOnce() -> T + Send + 'scope,
    {
        let f: Box<dyn FnOnce() -> T + Send + 'scope> = Box::new(f);
        // SAFETY: only the lifetime bound changes (same type, same layout).
        // The closure does not outlive `'scope` in fact: it is called or
        // dropped before `ticket` goes (`call`, and this type's `Drop` and
        // field order), and the scope does not return, ending `'scope`,
        // before every ticket is gone (module docs).
        let f: Box<dyn FnOnce() -> T + Send + 'static> = unsafe { core::mem::transmute(f) };
        Borrowed {
            f: NonNull::from(Box::leak(f)),
            ticket,
        }
    }

    /// Runs the closure, then lets the ticket go: here, once the call (which
    /// took the closure by value) has returned or unwound, in a frame that
    /// holds no borrow of the scope's (module docs).
    fn call(self) -> T {
        let this = ManuallyDrop::new(self);
        // SAFETY: read once, from a value that is never dropped (so the ticket
        // is not dropped twice); a local, it goes even if the closure unwinds.
        let ticket = unsafe { core::ptr::read(&this.ticket) };
        // SAFETY: `f` came from `Box::leak` in `new` and is taken back once:
        // `this` is never dropped, so `Drop` does not take it again.
        let f = unsafe { Box::from_raw(this.f.as_ptr()) };
        let value = f();
        drop(ticket);
        value
    }
}

impl<T> Drop for Borrowed<T> {
    /// Dropped unrun: the closure goes here, and the ticket after it (a field).
    fn drop(&mut self) {
        // SAFETY: `f` came from `Box::leak` in `new`, and a value that ran
        // (`call`) never reaches this `Drop`.
        drop(unsafe { Box::from_raw(self.f.as_ptr()) });
    }
}
