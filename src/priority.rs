//! [`Priority`]: three levels of urgency a task can be submitted at (the
//! view of a pool that submits at one of them is `priority_view.rs`).
//!
//! A pool built with `priorities(true)` keeps a queue and a line of blocked
//! submitters per level: a worker takes the oldest task of the highest level
//! that has one, and room that frees goes to the oldest waiter of the highest
//! level. It is never preemptive: a task handed to an idle or new worker
//! starts at once whatever its level, and a running task is never
//! interrupted. Without `priorities(true)`, every level maps to the one queue
//! and the one line, so code written for levels runs on any pool.
//!
//! Beside the levels, on [`Priority`]'s docs: how long each level waited
//! (`Timings::queue_wait_at`, feature `timings`), and `pause` to have a
//! batch start in level order.

/// How urgent a task is: `Low < Normal < High`. Plain submits are `Normal`;
/// `with_priority(level)` on a pool or a task group submits at another. A
/// pool built with `priorities(true)` keeps a queue and a line of blocked
/// submitters per level, most urgent served first (`starvation_bound` puts a
/// floor under `Low`).
///
/// ```
/// use antpool::Priority;
/// assert!(Priority::Low < Priority::Normal && Priority::Normal < Priority::High);
/// assert_eq!(Priority::default(), Priority::Normal);
/// ```
///
/// Levels order what waits, never what an idle worker is handed: a task
/// submitted while a worker is free starts at once, whatever its level. To
/// have a batch start in level order, [`pause`](crate::PoolOf::pause) the
/// pool, submit the batch (it queues: give the pool room with
/// `max_queued_tasks`), and `resume`:
///
/// ```
/// use antpool::{Pool, Priority};
/// use std::sync::{Arc, Mutex};
///
/// let pool = Pool::builder().capacity(1).max_queued_tasks(8).priorities(true).build().unwrap();
/// let order = Arc::new(Mutex::new(Vec::new()));
/// pool.pause();
/// for level in [Priority::Low, Priority::Normal, Priority::High] {
///     let order = order.clone();
///     pool.with_priority(level).submit(move || order.lock().unwrap().push(level)).unwrap();
/// }
/// pool.resume();
/// pool.wait_idle();
/// assert_eq!(*order.lock().unwrap(), [Priority::High, Priority::Normal, Priority::Low]);
/// ```
///
/// How long each level waits — the sign that one starves — is
/// `Timings::queue_wait_at(level)` (feature `timings`), also exported per
/// level by the `metrics` feature's reporter (a `priority` label on
/// `antpool_queue_wait_seconds`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Runs when no `Normal` or `High` task waits (see the pool's
    /// `starvation_bound` for a floor).
    Low,
    /// The level of every plain submit.
    #[default]
    Normal,
    /// Runs before any waiting `Normal` or `Low` task; a hand-off pool can keep
    /// room for it (`reserve_for_high`).
    High,
}

impl Priority {
    /// Every level, most urgent first: the order workers take tasks in.
    pub(crate) const ALL: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

    /// The level's place in [`ALL`](Self::ALL): 0 for `High`.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        match self {
            Priority::High => 0,
            Priority::Normal => 1,
            Priority::Low => 2,
        }
    }
}
