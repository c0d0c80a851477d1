//! [`Stats`]: a snapshot of a pool's counters.

/// A snapshot of a pool's counters, cheap enough to read at any time: every field
/// is one relaxed atomic load, and no lock is taken. Fields are read one after
/// another, so under load they may be a few events apart from each other.
///
/// The event counts (`completed`, `panicked`, `skipped`, `spawned`, `retired`,
/// `rejected`) run from the pool's creation and wrap around at `usize::MAX`.
///
/// The books of the tasks a pool took: each one that left the pool by a
/// worker is `completed`, `panicked` or `skipped` once it ends; the rest were
/// dropped by `clear_queue` (which returns how many), handed out by
/// `release_drain`, or are still `queued` or running (`busy` counts the
/// workers that hold one).
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
}
