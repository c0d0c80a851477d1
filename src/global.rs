//! The default pool: an unbounded [`Pool`] behind free functions, created on first
//! use — or, configured once before that, any pool the builder makes.
//!
//! Unlike ants' package-level pool, nothing exists until a function here is first
//! called, and no thread exists until the first task: importing antpool starts
//! nothing (ants #244, #373).

use ::std::sync::OnceLock;
use core::time::Duration;

use crate::builder::PoolBuilder;
use crate::error::{BuildError, ReleaseError, SubmitError};
use crate::pool::Pool;
use crate::release::Release;
use crate::task::Task;

static DEFAULT: OnceLock<Pool> = OnceLock::new();

/// The default pool, created (without any thread) on first use.
fn pool() -> &'static Pool {
    DEFAULT.get_or_init(Pool::unbounded)
}

/// Makes the default pool from `builder` instead of the unbounded default, as
/// rayon's `build_global` does: once, before the pool's first use (any
/// function of this module but the read-only `running`, `cap`, `free` and
/// `wait_idle`; waiting for a release is a use). A capacity bounds how many
/// threads `antpool::spawn` calls across a whole program start; a pool that
/// blocks at capacity makes them wait.
///
/// # Errors
///
/// The builder's own [`BuildError`] for invalid options, and
/// [`BuildError::DefaultPoolExists`] if the default pool was already configured
/// or used (it is then left as it is).
///
/// ```
/// # use std::time::Duration;
/// antpool::configure(antpool::Pool::builder().capacity(2).max_queued_tasks(1_000))?;
/// assert_eq!(antpool::cap(), Some(2));
/// for _ in 0..10 {
///     antpool::submit(|| ())?; // queued beyond the two workers, never a third thread
/// }
/// antpool::wait_idle();
/// assert_eq!(
///     antpool::configure(antpool::Pool::builder().capacity(8)),
///     Err(antpool::BuildError::DefaultPoolExists)
/// );
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
pub fn configure(builder: PoolBuilder) -> Result<(), BuildError> {
    let made = builder.build()?;
    // Built, and never used, if another was there first: dropping it releases
    // a pool that started no thread.
    DEFAULT
        .set(made)
        .map_err(|_unused| BuildError::DefaultPoolExists)
}

/// Runs `task` on the default pool: unbounded unless [`configure`]d otherwise,
/// so by default it never blocks and never rejects while open; a worker is
/// started whenever none is idle.
///
/// # Errors
///
/// [`SubmitError::Closed`] with the task after [`release`](crate::release) (until
/// [`reboot`](crate::reboot)); [`SubmitError::SpawnFailed`] with the task when no idle
/// worker was free and the OS could not start a thread. The default pool, unbounded,
/// never returns `Overload`; one [`configure`]d otherwise returns what its options say.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// antpool::submit(move || tx.send(1).unwrap()).unwrap();
/// assert_eq!(rx.recv().unwrap(), 1);
/// ```
pub fn submit<F>(task: F) -> Result<(), SubmitError<Task>>
where
    F: FnOnce() + Send + 'static,
{
    pool().submit(task)
}

/// [`submit`] for async code: waits for room without blocking a thread; see
/// [`Pool::submit_async`].
///
/// # Errors
///
/// As for [`submit`], resolved instead of returned.
///
/// ```
/// futures_executor::block_on(async {
///     antpool::submit_async(|| println!("from async")).await.unwrap();
/// });
/// ```
pub fn submit_async<F>(
    task: F,
) -> impl core::future::Future<Output = Result<(), SubmitError<Task>>> + Send + 'static
where
    F: FnOnce() + Send + 'static,
{
    pool().submit_async(task)
}

/// [`spawn`] for async code: waits for room without blocking a thread, then
/// for the result, in one `.await`; see [`Pool::spawn_async`].
///
/// # Errors
///
/// As for [`Pool::spawn_async`]: the closure comes back in
/// [`SpawnError::Submit`](crate::SpawnError::Submit) if refused;
/// [`SpawnError::Join`](crate::SpawnError::Join) if it panicked or was
/// cancelled.
///
/// ```
/// let n = futures_executor::block_on(antpool::spawn_async(|| 40 + 2)).unwrap();
/// assert_eq!(n, 42);
/// ```
pub fn spawn_async<F, R>(f: F) -> crate::join::spawn_async::SpawnAsync<F, R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    pool().spawn_async(f)
}

/// Runs `f` on the default pool and returns a handle to its result; see
/// [`Pool::spawn`].
///
/// # Errors
///
/// As for [`submit`], with the closure `f` handed back.
///
/// ```
/// assert_eq!(antpool::spawn(|| 40 + 2).unwrap().join().unwrap(), 42);
/// ```
pub fn spawn<F, R>(
    f: F,
) -> Result<crate::join::handle::JoinHandle<R>, SubmitError<crate::error::Rejected<F>>>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    pool().spawn(f)
}

/// Runs `f` with a [`Scope`](crate::Scope) on the default pool: its tasks may
/// borrow from the caller's stack, and every one has finished when this
/// returns; see [`Pool::scope`].
///
/// **For data-parallel CPU work, use a pool sized to the CPUs with a queue.**
/// The default pool is unbounded, as ants' is: a task that finds no idle
/// worker gets a new thread. That suits tasks that block (I/O), not a burst
/// of short CPU tasks, which start a thread each and crowd the CPUs
/// (BENCHMARKS.md, "Where antpool loses"). Use
/// `Pool::builder().capacity(cpus).max_queued_tasks(1024)` instead (a
/// hand-off pool, `Pool::new(cpus)`, makes each spawn wait for a worker to
/// finish), or [`configure`] the default pool that way before its first use.
///
/// # Panics
///
/// As [`Pool::scope`]: with `f`'s panic, or when a task panicked unjoined, once
/// every task has finished.
///
/// ```
/// let mut parts = [0u32; 4];
/// antpool::scope(|s| {
///     for (i, p) in parts.iter_mut().enumerate() {
///         s.spawn(move || *p = i as u32 * 10).unwrap();
///     }
/// });
/// assert_eq!(parts, [0, 10, 20, 30]);
/// ```
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&'scope crate::scope::Scope<'scope, 'env>) -> T,
{
    pool().scope(f)
}

/// A [`TaskGroup`](crate::TaskGroup) on the default pool; see
/// [`Pool::group`].
///
/// ```
/// let mut group = antpool::group::<u32>();
/// for n in 0..4 {
///     group.spawn(move || n * n).unwrap();
/// }
/// let squares: Vec<u32> = group.join_all().into_iter().map(Result::unwrap).collect();
/// assert_eq!(squares, [0, 1, 4, 9]);
/// ```
#[must_use]
pub fn group<T: Send + 'static>() -> crate::group::TaskGroup<T> {
    pool().group()
}

/// Live workers of the default pool; 0 before its first task (and the pool is
/// not created just to answer).
///
/// ```
/// let _ = antpool::running();
/// ```
pub fn running() -> usize {
    DEFAULT.get().map_or(0, Pool::running)
}

/// The default pool's capacity: `None` (unbounded) unless it was
/// [`configure`]d with one.
///
/// ```
/// assert_eq!(antpool::cap(), None);
/// ```
pub fn cap() -> Option<usize> {
    DEFAULT.get().and_then(Pool::cap)
}

/// The default pool's free slots: `None` (unbounded) unless it was
/// [`configure`]d with a capacity.
///
/// ```
/// assert_eq!(antpool::free(), None);
/// ```
pub fn free() -> Option<usize> {
    DEFAULT.get().and_then(Pool::free)
}

/// Blocks until the default pool has no task running.
///
/// ```
/// antpool::submit(|| ()).unwrap();
/// antpool::wait_idle();
/// ```
pub fn wait_idle() {
    if let Some(pool) = DEFAULT.get() {
        pool.wait_idle();
    }
}

/// Releases the default pool (see [`Pool::release`]): later submits get
/// `Closed` until [`reboot`].
///
/// ```no_run
/// antpool::release();
/// assert!(antpool::submit(|| ()).is_err());
/// antpool::reboot();
/// ```
pub fn release() {
    pool().release();
}

/// Releases the default pool and waits up to `timeout` for its workers to exit
/// (see [`Pool::release_timeout`]).
///
/// # Errors
///
/// [`ReleaseError::Timeout`] if workers still run when the time is up (the pool stays
/// closed; they exit after their task), [`ReleaseError::Closed`] if it was already
/// released.
///
/// ```no_run
/// antpool::release_timeout(std::time::Duration::from_secs(1)).unwrap();
/// # antpool::reboot();
/// ```
pub fn release_timeout(timeout: Duration) -> Result<(), ReleaseError> {
    pool().release_timeout(timeout)
}

/// Releases the default pool **now** (see [`Pool::release_async`]) and returns
/// a future that waits, without holding a thread, for its workers to exit;
/// dropping it abandons the wait only (the pool stays released until
/// [`reboot`]).
///
/// # Errors
///
/// [`ReleaseError::Closed`] at the first poll if the default pool was already
/// released; [`ReleaseError::Reopened`] if a [`reboot`] came before its
/// workers were gone.
///
/// ```no_run
/// futures_executor::block_on(antpool::release_async()).unwrap();
/// assert_eq!(antpool::running(), 0);
/// antpool::reboot();
/// ```
pub fn release_async() -> Release<'static> {
    pool().release_async()
}

/// Waits, without holding a thread, until the default pool is released and
/// its workers have exited (see [`Pool::wait_released_async`]): the wait of a
/// dropped [`release_async`] future, resumed. On an open pool it waits for a
/// release first. Counts as a use of the default pool (see [`configure`]).
///
/// # Errors
///
/// [`ReleaseError::Reopened`] if a [`reboot`] came before the workers were
/// gone.
///
/// ```no_run
/// drop(antpool::release_async()); // released; the wait abandoned
/// futures_executor::block_on(antpool::wait_released_async()).unwrap();
/// antpool::reboot();
/// ```
pub fn wait_released_async() -> Release<'static> {
    pool().wait_released_async()
}

/// Blocks until the default pool is released and its workers have exited,
/// for at most `timeout`: `true` if so, `false` if the time ran out or a
/// [`reboot`] came first (see [`Pool::wait_released_timeout`]). Counts as a
/// use of the default pool (see [`configure`]).
///
/// ```no_run
/// antpool::release();
/// assert!(antpool::wait_released_timeout(std::time::Duration::from_secs(5)));
/// antpool::reboot();
/// ```
#[must_use]
pub fn wait_released_timeout(timeout: Duration) -> bool {
    pool().wait_released_timeout(timeout)
}

/// Reopens the default pool after a release.
///
/// ```
/// antpool::reboot(); // a no-op on an open pool
/// antpool::submit(|| ()).unwrap();
/// ```
pub fn reboot() {
    pool().reboot();
}
