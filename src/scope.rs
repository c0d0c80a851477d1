//! Scoped tasks: [`Scope`] and [`ScopedJoinHandle`], tasks that borrow from
//! the caller's stack, as `std::thread::scope` gives threads that do.
//!
//! # How the borrow stays sound
//!
//! A pool runs `'static` tasks, so a scoped task travels with its lifetime
//! erased ([`Erased`]: a pointer to the boxed job and the two functions that
//! know its type). What makes that sound is the count the scope waits for:
//!
//! - every task spawned in a scope holds, from `spawn` until it is gone, one
//!   reference to its [`Packet`] (the slot its result waits in), and so does
//!   its handle;
//! - the packet counts the task done (`running -= 1`, Release) only when its
//!   last reference goes, and only after it has dropped the result nobody
//!   took: a task's closure is consumed or dropped before its reply lets the
//!   packet go, so nothing that borrows from the scope is left when the count
//!   falls;
//! - `scope` returns only once the count is 0 (Acquire), even when its closure
//!   panicked.
//!
//! Whatever happens to a task on the way — run, rejected and handed back,
//! dropped by `clear_queue`, returned by `release_drain` as a [`Task`] — its
//! packet goes only with it, so the scope waits for it. A `Task` a caller keeps
//! (or leaks) past the scope's closure keeps the scope waiting: a hang, never a
//! dangling borrow.
//! The wake-up cannot be lost: `scope` checks the count under the scope's
//! lock, and the task that takes it to 0 notifies under the same lock. The
//! engine needs no change for any of this: the packet goes with the task.
//!
//! A task of a [`ScopedTaskGroup`](crate::ScopedTaskGroup) counts the same
//! way, through a ticket its closure carries in place of a packet
//! (`scope_group.rs`); a group dropped before its tasks ended leaves them to
//! the scope as an *orphan*, joined (and its panics counted) once the count
//! is 0.
//!
//! This is the argument of `std::thread::scope` (its `Packet` counts a thread
//! done on drop, after dropping the result), with a pool's task in place of a
//! thread. loom: `scope waits` (`tests/loom/scope.rs`) runs it on the real
//! pool — a lost wake-up is a deadlock, and with the Release/Acquire pair
//! weakened to Relaxed loom reports a race on the borrowed cells.
//! `tests/it/scope.rs` runs under Miri in CI.

use ::std::boxed::Box;
use ::std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use ::std::sync::{Arc, PoisonError};
use ::std::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;

#[cfg(antpool_loom)]
use loom::sync::{Condvar, Mutex};
#[cfg(not(antpool_loom))]
use std::sync::{Condvar, Mutex};

use crate::clock::Clock;
use crate::engine::{Engine, Mode};
use crate::error::SubmitError;
use crate::group::Target;
use crate::join::error::JoinError;
use crate::join::handle::{Holder, Reply, ResultSlot, call};
use crate::pool::Pool;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use crate::task::{Runnable, SmallTask, Task};

/// How a scope hands a task to its pool (`Pool::scope` and friends pass
/// their own submit).
pub(crate) type SubmitFn<'a> =
    dyn Fn(SmallTask, Mode) -> Result<(), SubmitError<SmallTask>> + Sync + 'a;

/// How a scope reaches its pool for a [`ScopedTaskGroup`](crate::ScopedTaskGroup)
/// (a group holds the pool's engine, as any `TaskGroup` does).
pub(crate) type PoolFn<'a> = dyn Fn() -> Box<dyn Target> + Sync + 'a;

/// What a dropped scoped group leaves to its scope: run once every task is
/// gone, it joins what is left and says whether a task panicked unjoined.
pub(crate) type Orphan = Box<dyn FnOnce() -> bool + Send>;

/// What a scope's tasks share with the thread that waits for them (and a
/// scoped group's tasks: `scope_group.rs`).
pub(crate) struct ScopeData {
    /// Tasks spawned and not yet gone (see the module docs).
    running: AtomicUsize,
    /// A task panicked and nobody joined it (or dropping its result panicked).
    a_task_panicked: AtomicBool,
    /// Where `scope` waits until `running` is 0: it checks the count under
    /// the lock, and the task that takes the count to 0 notifies under it, so
    /// the wake-up cannot fall between the check and the wait. (A mutex and
    /// condvar rather than `park`, so that loom can check it: `tests/loom.rs`,
    /// "scope waits".)
    lock: Mutex<()>,
    all_gone: Condvar,
    /// Scoped groups dropped with tasks not yet joined (see the module docs).
    orphans: Mutex<Vec<Orphan>>,
}

impl ScopeData {
    fn new() -> Self {
        ScopeData {
            running: AtomicUsize::new(0),
            a_task_panicked: AtomicBool::new(false),
            lock: Mutex::new(()),
            all_gone: Condvar::new(),
            orphans: Mutex::new(Vec::new()),
        }
    }

    /// Counts one more task (until its `task_gone`).
    pub(crate) fn task_came(&self) {
        // As std: a count this large means handles are being leaked in a loop.
        if self.running.fetch_add(1, Ordering::Relaxed) > usize::MAX / 2 {
            self.task_gone();
            panic!("antpool: too many scoped tasks");
        }
    }

    /// Counts one task gone; the last one wakes the waiter. The caller holds a
    /// reference to `self` (through its packet, or its ticket), so the notify
    /// after the count fell touches live memory even if the scope returns at
    /// once.
    pub(crate) fn task_gone(&self) {
        if self.running.fetch_sub(1, Ordering::Release) == 1 {
            let _locked = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.all_gone.notify_all();
        }
    }

    /// A task panicked and nobody joined it: the scope panics when it ends.
    pub(crate) fn note_unjoined_panic(&self) {
        self.a_task_panicked.store(true, Ordering::Relaxed);
    }

    /// Leaves `orphan` to the scope, which runs it once every task is gone
    /// (the module docs).
    pub(crate) fn leave(&self, orphan: Orphan) {
        self.orphans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(orphan);
    }

    /// Runs what dropped groups left (once every task is gone): a result's
    /// `Drop` that panics counts as a task's panic, as in `Packet::drop` (its
    /// payload leaked, not dropped).
    fn join_orphans(&self) {
        let orphans =
            core::mem::take(&mut *self.orphans.lock().unwrap_or_else(PoisonError::into_inner));
        for orphan in orphans {
            let panicked = catch_unwind(AssertUnwindSafe(orphan)).unwrap_or_else(|payload| {
                core::mem::forget(payload);
                true
            });
            if panicked {
                self.note_unjoined_panic();
            }
        }
    }

    /// Blocks until every task is gone. Acquire pairs with each task's
    /// Release in `task_gone`: everything the tasks did is visible after.
    fn wait_all_gone(&self) {
        let mut locked = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        while self.running.load(Ordering::Acquire) != 0 {
            locked = self
                .all_gone
                .wait(locked)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A scoped task's result slot, and its place in the scope's count.
struct Packet<T> {
    slot: ResultSlot<T>,
    scope: Arc<ScopeData>,
}

impl<T> AsRef<ResultSlot<T>> for Packet<T> {
    fn as_ref(&self) -> &ResultSlot<T> {
        &self.slot
    }
}

impl<T> Holder<T> for Packet<T> {}

impl<T> Drop for Packet<T> {
    fn drop(&mut self) {
        // The result may borrow from the scope's environment: drop it here,
        // before the count says the task is gone (a field would drop after).
        let unjoined = self.slot.take_unjoined();
        let panicked = matches!(&unjoined, Some(Err(e)) if e.is_panic());
        // This may run on a worker, outside any task's `catch_unwind`: a
        // panicking `Drop` of the result must not skip the count (the scope
        // would wait for ever). It counts as a panic of the task; its payload
        // is leaked, not dropped, since dropping it could panic again.
        let dropped = catch_unwind(AssertUnwindSafe(move || drop(unjoined)))
            .map_err(core::mem::forget)
            .is_ok();
        if panicked || !dropped {
            self.scope.a_task_panicked.store(true, Ordering::Relaxed);
        }
        self.scope.task_gone();
    }
}

/// A scoped closure and the reply for its handle.
struct ScopedJob<F, T> {
    f: F,
    reply: Reply<T, Packet<T>>,
}

/// A `ScopedJob<F, T>` with its types (and their lifetimes) erased, so the
/// pool can carry it as a `'static` task. The scope's count keeps what it
/// borrows alive for as long as it exists (module docs).
struct Erased {
    job: NonNull<()>,
    run: unsafe fn(NonNull<()>),
    drop: unsafe fn(NonNull<()>),
}

// SAFETY: `job` is a `Box<ScopedJob<F, T>>` with `F: Send` and `T: Send`
// (`Scope::spawn` requires both), owned by this value alone.
unsafe impl Send for Erased {}

impl Erased {
    fn new<F, T>(job: Box<ScopedJob<F, T>>) -> Self
    where
        F: FnOnce() -> T + Send,
        T: Send,
    {
        Erased {
            job: NonNull::from(Box::leak(job)).cast(),
            run: run_job::<F, T>,
            drop: drop_job::<F, T>,
        }
    }

    /// The job back.
    ///
    /// # Safety
    ///
    /// `F` and `T` must be the types this was made with.
    unsafe fn into_job<F, T>(self) -> Box<ScopedJob<F, T>> {
        let this = ManuallyDrop::new(self);
        // SAFETY: made by `new::<F, T>` from a box (per the contract); the
        // `ManuallyDrop` keeps `Drop` from freeing it too.
        unsafe { Box::from_raw(this.job.cast::<ScopedJob<F, T>>().as_ptr()) }
    }
}

/// Runs the job behind `job`.
///
/// # Safety
///
/// `job` is a `Box<ScopedJob<F, T>>` leaked by `Erased::new`, used once.
unsafe fn run_job<F: FnOnce() -> T, T>(job: NonNull<()>) {
    // SAFETY: per the contract.
    let job = unsafe { Box::from_raw(job.cast::<ScopedJob<F, T>>().as_ptr()) };
    let ScopedJob { f, reply } = *job;
    // A panic goes to the handle (and, unjoined, to the scope), not to the
    // pool's panic handler; the pool counts it through the panic note.
    let (result, _) = call(f);
    // The packet goes (which may count the task gone and let the scope
    // return) here, in this frame, once `call` and `deliver` have returned:
    // while a function that took `f` or the result by value runs, the borrows
    // inside it are still "in use" (Stacked Borrows protects a by-value
    // argument's references until its function returns; Miri reported the
    // caller's next use of the borrowed data as UB when `Reply::run` let the
    // packet go from inside).
    drop(reply.deliver(result));
}

/// Drops the job behind `job` unrun: its reply reports it cancelled.
///
/// # Safety
///
/// As for `run_job`.
unsafe fn drop_job<F, T>(job: NonNull<()>) {
    // SAFETY: per the contract. `f` drops before `reply` (field order), so the
    // closure is gone before the packet may count the task gone.
    drop(unsafe { Box::from_raw(job.cast::<ScopedJob<F, T>>().as_ptr()) });
}

impl Runnable for Erased {
    fn run(self) {
        let this = ManuallyDrop::new(self);
        // SAFETY: `run` and `job` were made together by `new`; the
        // `ManuallyDrop` keeps `Drop` from touching the job again.
        unsafe { (this.run)(this.job) }
    }

    fn into_task(self: Box<Self>) -> Task {
        Task::new(move || Runnable::run(*self))
    }
}

impl Drop for Erased {
    fn drop(&mut self) {
        // SAFETY: `drop` and `job` were made together by `new`, and a value
        // that ran (or was taken back) never reaches this `Drop`.
        unsafe { (self.drop)(self.job) }
    }
}

/// A scope for tasks that borrow from the caller's stack: given by
/// [`Pool::scope`](crate::Pool::scope) and [`antpool::scope`](crate::scope).
/// Every task spawned in it has finished
/// when the scope returns.
///
/// ```
/// let pool = antpool::Pool::new(2).unwrap();
/// let words = vec!["ant", "pool"];
/// let lens = pool.scope(|s| {
///     let handles: Vec<_> = words.iter().map(|w| s.spawn(|| w.len()).unwrap()).collect();
///     handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
/// });
/// assert_eq!(lens, [3, 4]);
/// ```
pub struct Scope<'scope, 'env: 'scope> {
    data: Arc<ScopeData>,
    submit: &'scope SubmitFn<'scope>,
    pool: &'scope PoolFn<'scope>,
    /// Invariant over `'scope` and `'env`, as `std::thread::Scope`.
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

/// A handle to a scoped task's result: [`join`](ScopedJoinHandle::join) blocks
/// for it. Dropping it detaches the task (it still runs, and the scope still
/// waits for it); a detached task that panics makes the scope panic. Not
/// `#[must_use]`, as std's: a scope joins every task it started, so dropping a
/// handle loses nothing.
///
/// ```
/// let pool = antpool::Pool::new(1).unwrap();
/// let mut total = 0;
/// pool.scope(|s| {
///     let h = s.spawn(|| { total += 5; total }).unwrap();
///     assert_eq!(h.join().unwrap(), 5);
/// });
/// assert_eq!(total, 5);
/// ```
pub struct ScopedJoinHandle<'scope, T> {
    packet: Arc<Packet<T>>,
    scope: PhantomData<&'scope ()>,
}

impl<'scope, 'env> Scope<'scope, 'env> {
    /// Runs `f` on a worker of the scope's pool, as the pool's `spawn` does
    /// (blocking while the pool is saturated, unless its options say
    /// otherwise). `f` may borrow anything that outlives the scope.
    ///
    /// # Errors
    ///
    /// [`SubmitError::Overload`] when the pool is saturated and may not block;
    /// [`SubmitError::Closed`] when the pool is released (also while the call
    /// waits); [`SubmitError::SpawnFailed`] when a new worker was needed and the
    /// platform could not start a thread. `f` never ran, and is dropped here,
    /// inside the scope, before the error is returned: it may borrow from the
    /// scope, and an error that `?` passes up (into `anyhow::Error`, a
    /// `Box<dyn Error>`) must not. So the error holds `()`, not `f`.
    ///
    /// ```
    /// fn lengths(pool: &antpool::Pool, words: &[&str]) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
    ///     pool.scope(|s| {
    ///         let mut total = 0;
    ///         for w in words {
    ///             total += s.spawn(|| w.len())?.join()?;
    ///         }
    ///         Ok(total)
    ///     })
    /// }
    /// let pool = antpool::Pool::new(2).unwrap();
    /// assert_eq!(lengths(&pool, &["ab", "c"]).unwrap(), 3);
    /// pool.release();
    /// assert!(lengths(&pool, &["ab"]).is_err()); // Closed, passed up by `?`
    /// ```
    pub fn spawn<F, T>(&'scope self, f: F) -> Result<ScopedJoinHandle<'scope, T>, SubmitError<()>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.spawn_in(f, Mode::Block)
    }

    /// Like [`spawn`](Scope::spawn), but never blocks: a saturated pool returns
    /// [`SubmitError::Overload`].
    ///
    /// # Errors
    ///
    /// As for [`spawn`](Scope::spawn), with `Overload` at once instead of
    /// waiting; `f` is dropped inside the scope.
    ///
    /// ```
    /// use std::sync::Barrier;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let gate = Barrier::new(2);
    /// pool.scope(|s| {
    ///     s.spawn(|| { gate.wait(); }).unwrap(); // the only worker waits at the gate
    ///     assert!(s.try_spawn(|| ()).unwrap_err().is_overload());
    ///     gate.wait();
    /// });
    /// ```
    pub fn try_spawn<F, T>(
        &'scope self,
        f: F,
    ) -> Result<ScopedJoinHandle<'scope, T>, SubmitError<()>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.spawn_in(f, Mode::Try)
    }

    fn spawn_in<F, T>(
        &'scope self,
        f: F,
        mode: Mode,
    ) -> Result<ScopedJoinHandle<'scope, T>, SubmitError<()>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.data.task_came();
        let packet = Arc::new(Packet {
            slot: ResultSlot::new(),
            scope: self.data.clone(),
        });
        let handle = ScopedJoinHandle {
            packet: packet.clone(),
            scope: PhantomData,
        };
        let job = Erased::new(Box::new(ScopedJob {
            f,
            reply: Reply::new(packet),
        }));
        match (self.submit)(SmallTask::new(job), mode) {
            Ok(()) => Ok(handle),
            Err(rejected) => {
                drop(handle);
                Err(rejected.map(|task| match task.downcast::<Erased>() {
                    Ok(erased) => {
                        // SAFETY: made just above, with these `F` and `T`.
                        let job = unsafe { erased.into_job::<F, T>() };
                        // The closure drops first (it may borrow), then the
                        // reply, which cancels the handle nobody holds, and
                        // the packet counts the task gone.
                        let ScopedJob { f, reply } = *job;
                        drop(f);
                        drop(reply);
                    }
                    Err(_) => unreachable!("antpool: a rejected scoped task came back as another"),
                }))
            }
        }
    }
}

impl Scope<'_, '_> {
    /// The scope's shared part, as a scoped group keeps it.
    pub(crate) fn data(&self) -> Arc<ScopeData> {
        self.data.clone()
    }

    /// The scope's pool, as a group holds it.
    pub(crate) fn pool(&self) -> Box<dyn Target> {
        (self.pool)()
    }
}

impl<T> ScopedJoinHandle<'_, T> {
    /// Blocks until the task has finished: its value, or a [`JoinError`] if it
    /// panicked (with the payload; the scope then does not panic for it) or was
    /// dropped without running.
    ///
    /// # Errors
    ///
    /// [`JoinError`] when the task panicked ([`is_panic`](JoinError::is_panic))
    /// or was dropped unrun ([`is_cancelled`](JoinError::is_cancelled): by
    /// `clear_queue`, say).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.scope(|s| {
    ///     let h = s.spawn(|| -> u8 { panic!("boom") }).unwrap();
    ///     assert_eq!(h.join().unwrap_err().panic_message(), Some("boom"));
    /// }); // joined: the scope itself does not panic
    /// ```
    pub fn join(self) -> Result<T, JoinError> {
        self.packet.slot.join()
    }

    /// Whether the task has finished (so `join` would not block).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.scope(|s| {
    ///     let h = s.spawn(|| ()).unwrap();
    ///     while !h.is_finished() {
    ///         std::thread::yield_now();
    ///     }
    /// });
    /// ```
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.packet.slot.is_finished()
    }
}

impl<T> fmt::Debug for ScopedJoinHandle<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopedJoinHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

impl fmt::Debug for Scope<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scope")
            .field("running", &self.data.running.load(Ordering::Relaxed))
            .field(
                "a_task_panicked",
                &self.data.a_task_panicked.load(Ordering::Relaxed),
            )
            .finish_non_exhaustive()
    }
}

/// `scope` for every pool: runs `f` with a scope whose tasks go through
/// `submit`, waits until every one of them is gone, then returns what `f`
/// returned — or resumes `f`'s panic, or panics if a task panicked unjoined.
pub(crate) fn scope_with<'env, F, T>(submit: &SubmitFn<'_>, pool: &PoolFn<'_>, f: F) -> T
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
{
    let scope = Scope {
        data: Arc::new(ScopeData::new()),
        submit,
        pool,
        scope: PhantomData,
        env: PhantomData,
    };
    let result = catch_unwind(AssertUnwindSafe(|| f(&scope)));
    scope.data.wait_all_gone();
    // Every task is gone, and nothing can leave an orphan any more (whatever
    // could was in `f` or in a task).
    scope.data.join_orphans();
    match result {
        Err(payload) => resume_unwind(payload),
        Ok(_) if scope.data.a_task_panicked.load(Ordering::Relaxed) => {
            panic!("antpool: a scoped task panicked and was not joined")
        }
        Ok(value) => value,
    }
}

/// `scope` on a pool of closures (here, beside the scope it makes).
impl<Q: WorkerQueue, C: Clock, S: Spawner> Pool<Q, C, S> {
    /// Runs `f` with a [`Scope`](crate::Scope) whose tasks may borrow from the
    /// caller's stack (as `std::thread::scope` does for threads), and returns
    /// what `f` returned once every task spawned in it has finished.
    ///
    /// `s.spawn` runs a task on this pool as [`spawn`](Pool::spawn) would (it
    /// blocks while the pool is saturated) and hands back a
    /// [`ScopedJoinHandle`](crate::ScopedJoinHandle); `s.group()` makes a
    /// [`ScopedTaskGroup`](crate::ScopedTaskGroup), for tasks joined as they
    /// complete and cancelled together.
    ///
    /// # Panics
    ///
    /// If `f` panics, once every task has finished, with `f`'s payload; if a
    /// task panicked and no join took its panic (its handle's, or its
    /// group's), once every task has finished. Called from one of this pool's
    /// own tasks it can deadlock a full pool, as nested `submit` can.
    ///
    /// A task of the scope that is taken out of the pool unrun — by
    /// [`release_drain`](Pool::release_drain) — keeps the scope waiting until
    /// it is run or dropped.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    /// let pool = antpool::Pool::new(4).unwrap();
    /// let data: Vec<u64> = (1..=10_000).collect();
    /// let total = AtomicU64::new(0);
    /// pool.scope(|s| {
    ///     for chunk in data.chunks(1024) {
    ///         s.spawn(|| { total.fetch_add(chunk.iter().sum(), Relaxed); }).unwrap();
    ///     }
    /// }); // every task has finished here
    /// assert_eq!(total.into_inner(), 50_005_000);
    /// ```
    pub fn scope<'env, F, T>(&self, f: F) -> T
    where
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
    {
        scope_with(
            &|task, mode| {
                self.with_ref(|engine| Engine::submit(engine, task, mode, Priority::Normal))
            },
            &|| Box::new(self.reach()),
            f,
        )
    }
}
