//! [`Stats`]: a snapshot of a pool's counters.

/// A snapshot of a pool's counters, cheap enough to read at any time: every field
/// is one relaxed atomic load, and no lock is taken. Fields are read one after
/// another, so under load they may be a few events apart from each other.
///
/// The event counts (`completed`, `panicked`, `skipped`, `rejected`,
/// `withdrawn`, `spawned`, `retired`) run from the pool's creation and wrap
/// around at `usize::MAX`.
///
/// # The books
///
/// Every submission a pool is handed — by any submit, spawn or invoke, blocking,
/// `try_`, `_timeout` or async — ends in exactly one place:
///
/// ```text
/// submitted = completed + panicked + skipped      (a worker reached it)
///           + rejected + withdrawn                (the pool never took it)
///           + cleared + drained                   (clear_queue's and release_drain's returns)
///           + in flight                           (waiting, queued, or held by a busy worker)
/// ```
///
/// `rejected` counts the tasks handed back to their caller, `withdrawn` the
/// async submissions dropped (a timeout around them, a `select!` that took
/// another branch, an aborted request) before the pool took their task, whose
/// task is dropped unrun. Once the pool is quiet (`wait_idle`) and no
/// submitter waits, nothing is in flight and the sum is exact.
///
/// ```
/// use std::time::Duration;
/// let pool = antpool::Pool::new(2).unwrap();
/// for _ in 0..10 {
///     pool.submit(|| ()).unwrap();
/// }
/// pool.submit(|| panic!("counted, not fatal")).unwrap();
/// pool.wait_idle();
/// let stats = pool.stats();
/// assert_eq!(stats.completed, 10);
/// assert_eq!(stats.panicked, 1);
/// assert!(stats.spawned <= 2);
/// assert_eq!(stats.queued, 0);
/// assert_eq!(stats.busy, 0);
/// assert_eq!(stats.skipped, 0);
/// assert_eq!(stats.rejected, 0);
/// assert_eq!(stats.withdrawn, 0);
/// pool.release_timeout(Duration::from_secs(5)).unwrap();
/// assert!(pool.submit(|| ()).is_err()); // closed: handed back, and counted
/// assert_eq!(pool.stats().rejected, 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Stats {
    /// Workers that serve, busy or idle (a worker told to retire leaves this
    /// count at once, before its thread has ended).
    pub running: usize,
    /// Workers parked idle.
    pub idle: usize,
    /// Submitters blocked waiting for a worker.
    pub waiting: usize,
    /// Tasks admitted and waiting for a worker to take them. A task aborted
    /// while queued counts here until a worker reaches it and skips it (the
    /// queue has no removal from the middle).
    pub queued: usize,
    /// Tasks that ran to the end.
    pub completed: usize,
    /// Tasks that panicked (the worker survived each).
    pub panicked: usize,
    /// Worker threads started.
    pub spawned: usize,
    /// Worker threads that ended (expired, shrunk, released).
    pub retired: usize,
    /// Submissions handed back to their caller: `Overload`, `Closed`,
    /// `Timeout` and `SpawnFailed` alike (a blocked submit that later got
    /// room is not one). For a multi-pool, the submissions the multi-pool as
    /// a whole refused.
    pub rejected: usize,
    /// Workers holding a task now (running it, or about to): `running` less
    /// the idle ones and those looking for a task.
    pub busy: usize,
    /// Tasks a worker reached and dropped unrun because they were aborted
    /// (`JoinHandle::abort`, an `AbortHandle`, an `abort_on_drop` guard) or
    /// cancelled: counted neither `completed` nor `panicked`.
    pub skipped: usize,
    /// Async submissions (`submit_async`, `spawn_async`, `invoke_async`, a
    /// group's `spawn_async`) dropped before they resolved and before the
    /// pool took their task: the task was dropped unrun, and nobody was told
    /// (a timeout or `select!` around the future, a cancelled request). A
    /// future dropped after the pool took its task is not one: that task
    /// runs. With feature `timings`, the time such a submission waited is in
    /// the timings' `withdrawn_wait`.
    pub withdrawn: usize,
}
