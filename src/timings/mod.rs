//! Timing histograms (feature `timings`): how long blocked submitters waited
//! for room, how long tasks waited to start (per [`Priority`] too, in a pool
//! with a queue per level: [`Timings::queue_wait_at`]), and how long they ran
//! — measured on the pool's own [`Clock`](crate::port::Clock), so without
//! `std` too.
//!
//! | file | idea |
//! |---|---|
//! | `sampling.rs` | [`Sampling`]: which tasks are timed |
//! | `histogram.rs` | [`Histogram`]: a snapshot, and the bucket layout |
//!
//! The counters themselves are the engine's (`engine/timed/recorder.rs`);
//! where the clock is read, and what carries a task's admission time (and
//! level) to its worker, is in `engine/timed.rs` and `engine/timed/stamp.rs`.

mod histogram;
mod sampling;

use crate::boxed::{Boxed, boxed};
use crate::priority::Priority;

pub use histogram::Histogram;
#[cfg(feature = "metrics")]
pub(crate) use histogram::upper_edges_us;
pub(crate) use histogram::{BUCKETS, bucket_of};
pub use sampling::Sampling;

/// What a pool's timings hold: four histograms of durations, read by
/// `timings()` on any pool without a lock (see [`Sampling`] for which
/// tasks are timed; with [`Sampling::Off`], the default, they stay empty).
///
/// * `submit_wait`: a submit that found the pool saturated and waited (a
///   blocked `submit`, `submit_timeout`, `submit_async`, and their kin), from
///   that moment to its admission — every one that got in, whatever the
///   sampling. Submits turned away (`Overload`, `Timeout`, `Closed`,
///   `SpawnFailed`) count in [`Stats::rejected`](crate::Stats::rejected),
///   not here. A hand-off pool spends its latency here, before admission.
/// * `withdrawn_wait`: an async submit that waited as `submit_wait` counts
///   and was dropped before the pool took its task (a timeout or `select!`
///   around it): from finding the pool saturated to its drop. Those that
///   gave up stay apart from those that got in.
/// * `queue_wait`: a timed task, from its admission (pushed into the queue,
///   carried by a new worker — whose thread start it then includes — or let
///   in from the blocked submitters) until a worker begins it. A task aborted
///   before it started is not recorded. A pool with a queue per level also
///   keeps it per level: [`queue_wait_at`](Self::queue_wait_at).
/// * `run`: a timed task, from its start to the end of its run, panics
///   included (so `run.count` is the timed tasks that completed or panicked).
///
/// ```
/// use antpool::{Pool, Sampling};
/// use std::time::Duration;
///
/// let pool = Pool::builder()
///     .capacity(1)
///     .max_queued_tasks(8)
///     .timings(Sampling::Every)
///     .build()
///     .unwrap();
/// for _ in 0..4 {
///     pool.submit(|| std::thread::sleep(Duration::from_millis(1))).unwrap();
/// }
/// pool.wait_idle();
/// let t = pool.timings();
/// assert_eq!((t.run.count, t.queue_wait.count), (4, 4));
/// assert!(t.queue_wait.quantile(1.0) >= Duration::from_millis(2)); // the last waited for 3 runs
/// assert_eq!(t.submit_wait.count, 0); // nobody had to wait for room
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timings {
    /// Blocked submits, from finding the pool saturated to their admission.
    pub submit_wait: Histogram,
    /// Async submits that found the pool saturated and were dropped before
    /// the pool took their task ([`Stats::withdrawn`](crate::Stats::withdrawn)),
    /// from finding the pool saturated to their drop.
    pub withdrawn_wait: Histogram,
    /// Timed tasks, from admission to their start.
    pub queue_wait: Histogram,
    /// Timed tasks, from start to end.
    pub run: Histogram,
    /// `queue_wait` per level, most urgent first (`High`, `Normal`, `Low`),
    /// in a pool with a queue per level (a heap pool's: without a heap,
    /// always `None`); `queue_wait` is their sum.
    pub(crate) levels: Option<Boxed<[Histogram; 3]>>,
}

impl Timings {
    /// The [`queue_wait`](Self::queue_wait) of the timed tasks that waited at
    /// `level`, in a pool that keeps a queue per level — a `Pool` or
    /// `PoolWithFunc` (or a `MultiPool` of them) built with
    /// `priorities(true)` — where the three levels' add up to `queue_wait`.
    /// A task carried by a new worker or let in from the blocked submitters
    /// counts at the level it was submitted at.
    ///
    /// `None` for a pool without `priorities(true)`, and for a
    /// `StaticPoolWithFunc`, whose one queue holds every level: `queue_wait`
    /// is all they keep.
    ///
    /// (Per level, the pool's clock must read less than 2⁶² ns — 146 years —
    /// from its origin: the level rides in the top bits of a task's
    /// admission time.)
    ///
    /// ```
    /// use antpool::{Pool, Priority, Sampling};
    ///
    /// let pool = Pool::builder()
    ///     .capacity(1)
    ///     .max_queued_tasks(8)
    ///     .priorities(true)
    ///     .timings(Sampling::Every)
    ///     .build()
    ///     .unwrap();
    /// let urgent = pool.with_priority(Priority::High);
    /// for _ in 0..3 {
    ///     urgent.submit(|| ()).unwrap();
    /// }
    /// pool.with_priority(Priority::Low).submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// let t = pool.timings();
    /// let count = |level| t.queue_wait_at(level).map(|h| h.count);
    /// assert_eq!(count(Priority::High), Some(3));
    /// assert_eq!(count(Priority::Normal), Some(0));
    /// assert_eq!(count(Priority::Low), Some(1));
    /// assert_eq!(t.queue_wait.count, 4); // every level
    ///
    /// let plain = Pool::builder().capacity(1).timings(Sampling::Every).build().unwrap();
    /// assert_eq!(plain.timings().queue_wait_at(Priority::Normal), None);
    /// ```
    #[must_use]
    pub fn queue_wait_at(&self, level: Priority) -> Option<&Histogram> {
        let levels = self.levels.as_ref()?;
        Some(&levels[level.index()])
    }

    /// These timings with `queue_wait` per level (most urgent first), and
    /// `queue_wait` their sum.
    pub(crate) fn with_levels(mut self, levels: [Histogram; 3]) -> Self {
        let mut total = Histogram::default();
        for level in &levels {
            total.add(level);
        }
        self.queue_wait = total;
        self.levels = boxed(levels);
        self
    }
}
