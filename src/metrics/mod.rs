//! Export to the [`metrics`](https://docs.rs/metrics) facade (feature
//! `metrics`): a [`MetricsReporter`] pulls a pool's [`Stats`]
//! and [`Timings`] into whatever recorder the program
//! installed (Prometheus, StatsD, an OpenTelemetry bridge …), when the
//! program asks — never per task, and from no thread of the pool's.
//!
//! | name | kind | unit | what |
//! |---|---|---|---|
//! | `antpool_submit_wait_seconds` | histogram | seconds | [`Timings::submit_wait`](crate::Timings::submit_wait) |
//! | `antpool_withdrawn_wait_seconds` | histogram | seconds | [`Timings::withdrawn_wait`](crate::Timings::withdrawn_wait) |
//! | `antpool_queue_wait_seconds` | histogram | seconds | [`Timings::queue_wait`](crate::Timings::queue_wait) |
//! | `antpool_run_seconds` | histogram | seconds | [`Timings::run`](crate::Timings::run) |
//! | `antpool_workers` | gauge | count | [`Stats::running`](crate::Stats::running) |
//! | `antpool_workers_idle` | gauge | count | [`Stats::idle`](crate::Stats::idle) |
//! | `antpool_workers_busy` | gauge | count | [`Stats::busy`](crate::Stats::busy) |
//! | `antpool_tasks_queued` | gauge | count | [`Stats::queued`](crate::Stats::queued) |
//! | `antpool_submitters_waiting` | gauge | count | [`Stats::waiting`](crate::Stats::waiting) |
//! | `antpool_tasks_completed_total` | counter | count | [`Stats::completed`](crate::Stats::completed) |
//! | `antpool_tasks_panicked_total` | counter | count | [`Stats::panicked`](crate::Stats::panicked) |
//! | `antpool_tasks_skipped_total` | counter | count | [`Stats::skipped`](crate::Stats::skipped) |
//! | `antpool_tasks_rejected_total` | counter | count | [`Stats::rejected`](crate::Stats::rejected) |
//! | `antpool_tasks_withdrawn_total` | counter | count | [`Stats::withdrawn`](crate::Stats::withdrawn) |
//! | `antpool_workers_spawned_total` | counter | count | [`Stats::spawned`](crate::Stats::spawned) |
//! | `antpool_workers_retired_total` | counter | count | [`Stats::retired`](crate::Stats::retired) |
//!
//! The names follow Prometheus's conventions — base units (seconds), a
//! histogram's unit in its name, a counter's name ending in `_total` — so an
//! exporter's own naming option (`with_recommended_naming`) leaves them as
//! they are. Every metric has a `pool` label when the pool was built with a
//! [`metrics_label`](crate::Options::metrics_label). A pool with a queue per
//! level (`priorities(true)`: see
//! [`Timings::queue_wait_at`](crate::Timings::queue_wait_at)) reports
//! `antpool_queue_wait_seconds` per level instead, with a `priority` label
//! (`high`, `normal`, `low`), whose series add up to the total; no metric has
//! any other label, and none a label per task.
//!
//! The histograms are exact at [`BUCKET_EDGES`], antpool's own bucket edges:
//! give them (all, or the few a dashboard reads) to the exporter as the
//! histograms' buckets, and each exported bucket counts exactly the samples
//! at or under its edge. With other edges, a sample may move by at most one
//! of antpool's buckets. And ask for histograms: an exporter's default
//! summaries compute their quantiles from the replayed values, one per
//! bucket, so they are off (see [`BUCKET_EDGES`] for how to configure
//! `metrics-exporter-prometheus`).
//!
//! | file | idea |
//! |---|---|
//! | `source.rs` | [`MetricsSource`]: the pools a reporter reads |
//! | `replay.rs` | [`BUCKET_EDGES`], and the values a bucket is replayed at |

mod replay;
mod source;

use alloc::vec::Vec;

use ::metrics::{
    Counter, Gauge, Histogram as FacadeHistogram, Label, Unit, counter, describe_counter,
    describe_gauge, describe_histogram, gauge, histogram,
};

use crate::priority::Priority;
use crate::stats::Stats;
use crate::timings::{Histogram, Timings};

pub use replay::BUCKET_EDGES;
pub use source::MetricsSource;
pub(crate) use source::private;

/// A metric: its name, its help text, and where its value is read.
type Metric<F> = (&'static str, &'static str, F);
/// Where a histogram is read (`None`: the snapshot keeps no such levels).
type OfTimings = fn(&Timings) -> Option<&Histogram>;
/// Where a gauge or a counter is read.
type OfStats = fn(&Stats) -> usize;

/// The histograms, read from [`Timings`].
const HISTOGRAMS: [Metric<OfTimings>; 4] = [
    (
        "antpool_submit_wait_seconds",
        "Blocked submits: from finding the pool saturated to admission.",
        |t| Some(&t.submit_wait),
    ),
    (
        "antpool_withdrawn_wait_seconds",
        "Async submits dropped unserved: from finding the pool saturated to the drop.",
        |t| Some(&t.withdrawn_wait),
    ),
    (QUEUE_WAIT, "Timed tasks: from admission to start.", |t| {
        Some(&t.queue_wait)
    }),
    (
        "antpool_run_seconds",
        "Timed tasks: from start to end, panics included.",
        |t| Some(&t.run),
    ),
];

/// The histogram a pool with a queue per level reports per level.
const QUEUE_WAIT: &str = "antpool_queue_wait_seconds";

/// [`QUEUE_WAIT`] per level: the `priority` label's value, and where it is
/// read.
const QUEUE_WAIT_LEVELS: [(&str, OfTimings); 3] = [
    ("high", |t| t.queue_wait_at(Priority::High)),
    ("normal", |t| t.queue_wait_at(Priority::Normal)),
    ("low", |t| t.queue_wait_at(Priority::Low)),
];

/// The gauges, read from [`Stats`].
const GAUGES: [Metric<OfStats>; 5] = [
    ("antpool_workers", "Live workers, busy or idle.", |s| {
        s.running
    }),
    ("antpool_workers_idle", "Workers parked idle.", |s| s.idle),
    ("antpool_workers_busy", "Workers holding a task.", |s| {
        s.busy
    }),
    (
        "antpool_tasks_queued",
        "Tasks admitted and not yet taken by a worker.",
        |s| s.queued,
    ),
    (
        "antpool_submitters_waiting",
        "Submitters blocked waiting for room.",
        |s| s.waiting,
    ),
];

/// The counters, read from [`Stats`].
const COUNTERS: [Metric<OfStats>; 7] = [
    (
        "antpool_tasks_completed_total",
        "Tasks that ran to the end.",
        |s| s.completed,
    ),
    (
        "antpool_tasks_panicked_total",
        "Tasks that panicked.",
        |s| s.panicked,
    ),
    (
        "antpool_tasks_skipped_total",
        "Aborted or cancelled tasks dropped unrun.",
        |s| s.skipped,
    ),
    (
        "antpool_tasks_rejected_total",
        "Submissions handed back: overload, closed, timeout, spawn failed.",
        |s| s.rejected,
    ),
    (
        "antpool_tasks_withdrawn_total",
        "Async submissions dropped before the pool took their task.",
        |s| s.withdrawn,
    ),
    (
        "antpool_workers_spawned_total",
        "Worker threads started.",
        |s| s.spawned,
    ),
    (
        "antpool_workers_retired_total",
        "Worker threads that ended.",
        |s| s.retired,
    ),
];

/// Pulls a pool's [`Stats`] and [`Timings`] into the `metrics` facade
/// (feature `metrics`; the names are in the [module docs](self)).
///
/// [`new`](Self::new) registers every metric with the recorder in force on
/// the calling thread (the global one, or a
/// [`with_local_recorder`](::metrics::with_local_recorder)'s) and keeps the
/// handles; [`record`](Self::record) then emits what changed since the last
/// record: gauges set, counters raised by the change, and each histogram
/// bucket's new samples replayed as one `record_many` of a value inside the
/// bucket, on the same side of each of [`BUCKET_EDGES`] as they are, and
/// placed so the replayed samples add up to the recorded sum (see
/// [`BUCKET_EDGES`] for the exporter's buckets). The first `record` emits
/// everything since the pool was made. Nothing runs in between: call
/// `record` on a timer, or before each scrape.
///
/// ```
/// use antpool::metrics::MetricsReporter;
/// use antpool::{Pool, Sampling};
///
/// let pool = Pool::builder()
///     .capacity(4)
///     .timings(Sampling::OneIn(16))
///     .metrics_label("thumbnails")
///     .build()
///     .unwrap();
/// // After the recorder is installed, with `BUCKET_EDGES` as its buckets.
/// let mut reporter = MetricsReporter::new(&pool);
/// reporter.describe();
/// pool.submit(|| ()).unwrap();
/// pool.wait_idle();
/// reporter.record(); // on a timer, e.g. every 10 s
/// ```
pub struct MetricsReporter {
    read: private::Reader,
    /// Each histogram reported (one per level for `queue_wait` with levels),
    /// and where it is read.
    histograms: Vec<(OfTimings, FacadeHistogram)>,
    gauges: [Gauge; 5],
    counters: [Counter; 7],
    /// What the last `record` emitted up to.
    last: (Stats, Timings),
}

impl core::fmt::Debug for MetricsReporter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MetricsReporter")
            .field("pool", &self.read.label)
            .field("last", &self.last.0)
            .finish_non_exhaustive()
    }
}

impl MetricsReporter {
    /// A reporter for `pool` (`&pool` of any pool type; see
    /// [`MetricsSource`]), with the handles of every metric registered now,
    /// with the recorder in force on this thread.
    ///
    /// ```
    /// use antpool::metrics::MetricsReporter;
    /// let pool = antpool::PoolWithFunc::new(2, |n: u32| drop(n)).unwrap();
    /// let reporter = MetricsReporter::new(&pool);
    /// # drop(reporter);
    /// ```
    pub fn new(pool: impl MetricsSource) -> Self {
        let read = pool.reader();
        let labels: Vec<Label> = read
            .label
            .map(|pool| Label::new("pool", pool))
            .into_iter()
            .collect();
        let mut histograms = Vec::new();
        for (name, _, field) in HISTOGRAMS {
            if name != QUEUE_WAIT || !read.levels {
                histograms.push((field, histogram!(name, labels.iter())));
                continue;
            }
            for (priority, field) in QUEUE_WAIT_LEVELS {
                let mut labels = labels.clone();
                labels.push(Label::new("priority", priority));
                histograms.push((field, histogram!(name, labels)));
            }
        }
        MetricsReporter {
            histograms,
            gauges: GAUGES.map(|(name, _, _)| gauge!(name, labels.iter())),
            counters: COUNTERS.map(|(name, _, _)| counter!(name, labels.iter())),
            read,
            last: (Stats::default(), Timings::default()),
        }
    }

    /// Describes every metric (unit and help text) to the recorder in force
    /// on this thread: once, after the recorder is installed.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// antpool::metrics::MetricsReporter::new(&pool).describe();
    /// ```
    pub fn describe(&self) {
        for (name, help, _) in HISTOGRAMS {
            describe_histogram!(name, Unit::Seconds, help);
        }
        for (name, help, _) in GAUGES {
            describe_gauge!(name, Unit::Count, help);
        }
        for (name, help, _) in COUNTERS {
            describe_counter!(name, Unit::Count, help);
        }
    }

    /// One pull: reads the pool, sets the gauges, raises the counters by
    /// what changed since the last `record`, and replays each histogram's
    /// new samples (see the [type docs](Self)).
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut reporter = antpool::metrics::MetricsReporter::new(&pool);
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// reporter.record();
    /// ```
    pub fn record(&mut self) {
        let now = (self.read.read)();
        let (stats, timings) = &now;
        let (last_stats, last_timings) = &self.last;
        for ((_, _, field), gauge) in GAUGES.iter().zip(&self.gauges) {
            gauge.set(field(stats) as f64);
        }
        for ((_, _, field), counter) in COUNTERS.iter().zip(&self.counters) {
            let change = field(stats).wrapping_sub(field(last_stats));
            if change != 0 {
                counter.increment(change as u64);
            }
        }
        for (field, histogram) in &self.histograms {
            if let Some(new) = field(timings) {
                replay::replay(new, field(last_timings), |value, count| {
                    histogram.record_many(value, count);
                });
            }
        }
        self.last = now;
    }
}
