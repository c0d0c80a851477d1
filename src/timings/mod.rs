//! Timing histograms (feature `timings`): how long blocked submitters waited
//! for room, how long tasks waited to start, and how long they ran — measured
//! on the pool's own [`Clock`](crate::port::Clock), so without `std` too.
//!
//! | file | idea |
//! |---|---|
//! | `sampling.rs` | [`Sampling`]: which tasks are timed |
//! | `histogram.rs` | [`Histogram`]: a snapshot, and the bucket layout |
//!
//! The counters themselves are the engine's (`engine/recorder.rs`); where the
//! clock is read, and what carries a task's admission time to its worker, is
//! in `engine/timed.rs`.

mod histogram;
mod sampling;

pub use histogram::Histogram;
#[cfg(feature = "metrics")]
pub(crate) use histogram::midpoint;
pub(crate) use histogram::{BUCKETS, bucket_of};
pub use sampling::Sampling;

/// What a pool's timings hold: three histograms of durations, read by
/// `timings()` on any pool without a lock (see [`Sampling`] for which
/// tasks are timed; with [`Sampling::Off`], the default, they stay empty).
///
/// * `submit_wait`: a submit that found the pool saturated and waited (a
///   blocked `submit`, `submit_timeout`, `submit_async`, and their kin), from
///   that moment to its admission — every one that got in, whatever the
///   sampling. Submits turned away (`Overload`, `Timeout`, `Closed`,
///   `SpawnFailed`) count in [`Stats::rejected`](crate::Stats::rejected),
///   not here. A hand-off pool spends its latency here, before admission.
/// * `queue_wait`: a timed task, from its admission (pushed into the queue,
///   carried by a new worker — whose thread start it then includes — or let
///   in from the blocked submitters) until a worker begins it. A task aborted
///   before it started is not recorded.
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
    /// Timed tasks, from admission to their start.
    pub queue_wait: Histogram,
    /// Timed tasks, from start to end.
    pub run: Histogram,
}

impl Timings {
    /// Adds `other`'s samples to these (a multi-pool's sums).
    #[cfg(feature = "alloc")]
    pub(crate) fn add(&mut self, other: &Timings) {
        self.submit_wait.add(&other.submit_wait);
        self.queue_wait.add(&other.queue_wait);
        self.run.add(&other.run);
    }
}
