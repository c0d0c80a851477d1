//! `MetricsReporter` (feature `metrics`): what reaches the `metrics` facade,
//! read back through a `DebuggingRecorder` installed on this thread only
//! (`with_local_recorder`) — names, units, labels, and that counters and
//! histograms carry exactly what changed between two `record()`s, and nothing
//! else reaches the recorder.

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use antpool::metrics::MetricsReporter;
use antpool::{Pool, Priority, Sampling, Stats, SubmitError, Timings};
use common::{Counter, Gate, PATIENCE};
use metrics::{Label, Unit, with_local_recorder};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};

/// A metric as the recorder saw it: labels, unit, help text, value.
type Metric = (Vec<Label>, Option<Unit>, Option<String>, DebugValue);

/// One snapshot (which drains the recorder), by metric name.
struct Seen(HashMap<String, Metric>);

impl Seen {
    fn take(snapshotter: &Snapshotter) -> Seen {
        let all = snapshotter
            .snapshot()
            .into_vec()
            .into_iter()
            .map(|(key, unit, help, value)| {
                let (kind, key) = key.into_parts();
                let _ = kind;
                let name = key.name().to_owned();
                let labels = key.labels().cloned().collect();
                (name, (labels, unit, help.map(|h| h.to_string()), value))
            });
        Seen(all.collect())
    }

    fn counter(&self, name: &str) -> u64 {
        match &self.0[name].3 {
            DebugValue::Counter(n) => *n,
            other => panic!("{name}: {other:?}"),
        }
    }

    fn gauge(&self, name: &str) -> f64 {
        match &self.0[name].3 {
            DebugValue::Gauge(v) => v.into_inner(),
            other => panic!("{name}: {other:?}"),
        }
    }

    fn samples(&self, name: &str) -> usize {
        match &self.0[name].3 {
            DebugValue::Histogram(v) => v.len(),
            other => panic!("{name}: {other:?}"),
        }
    }
}

type OfStats = fn(&Stats) -> usize;
type OfTimings = fn(&Timings) -> u64;

const COUNTERS: [(&str, OfStats); 7] = [
    ("antpool_tasks_completed_total", |s| s.completed),
    ("antpool_tasks_panicked_total", |s| s.panicked),
    ("antpool_tasks_skipped_total", |s| s.skipped),
    ("antpool_tasks_rejected_total", |s| s.rejected),
    ("antpool_tasks_withdrawn_total", |s| s.withdrawn),
    ("antpool_workers_spawned_total", |s| s.spawned),
    ("antpool_workers_retired_total", |s| s.retired),
];

const HISTOGRAMS: [(&str, OfTimings); 4] = [
    ("antpool_submit_wait_seconds", |t| t.submit_wait.count),
    ("antpool_withdrawn_wait_seconds", |t| t.withdrawn_wait.count),
    ("antpool_queue_wait_seconds", |t| t.queue_wait.count),
    ("antpool_run_seconds", |t| t.run.count),
];

const GAUGES: [&str; 5] = [
    "antpool_workers",
    "antpool_workers_idle",
    "antpool_workers_busy",
    "antpool_tasks_queued",
    "antpool_submitters_waiting",
];

/// Some work: `n` tasks, one of them panicking, one refused submit and one
/// withdrawn.
fn work(pool: &Pool, n: usize) {
    let (gate, started) = (Gate::new(), Counter::new());
    for _ in 0..2 {
        let (g, s) = (gate.clone(), started.clone());
        pool.submit(move || {
            s.add();
            g.wait();
        })
        .unwrap();
    }
    assert!(started.reaches(2));
    assert!(matches!(
        pool.try_submit(|| ()),
        Err(SubmitError::Overload(_))
    ));
    // An async submit given up on before it was polled: withdrawn.
    drop(pool.submit_async(|| ()));
    gate.open();
    for _ in 0..n {
        pool.submit(|| ()).unwrap();
    }
    pool.submit(|| panic!("counted")).unwrap();
    pool.wait_idle();
}

#[test]
fn the_reporter_emits_what_changed_between_two_records_and_nothing_else() {
    std::panic::set_hook(Box::new(|_| {}));
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let pool = Pool::builder()
        .capacity(2)
        .disable_purge(true)
        .timings(Sampling::Every)
        .metrics_label("thumbnails")
        .panic_handler(|_| ())
        .build()
        .unwrap();
    // Handles are captured here, where the recorder is in force; `record`
    // runs outside it.
    let mut reporter = with_local_recorder(&recorder, || {
        let reporter = MetricsReporter::new(&pool);
        reporter.describe();
        reporter
    });

    work(&pool, 10);
    let (stats, timings) = (pool.stats(), pool.timings());
    reporter.record();
    let first = Seen::take(&snapshotter);
    assert_eq!(first.0.len(), 16, "{:?}", first.0.keys());
    for (name, (labels, unit, help, _)) in &first.0 {
        assert_eq!(labels, &[Label::new("pool", "thumbnails")], "{name}");
        let counter = COUNTERS.iter().any(|&(c, _)| c == name);
        assert_eq!(name.ends_with("_total"), counter, "{name}");
        let expected = match name.ends_with("_seconds") {
            true => Unit::Seconds,
            false => Unit::Count,
        };
        assert_eq!(unit.as_ref(), Some(&expected), "{name}");
        assert!(help.is_some(), "{name}");
    }
    // The first record: everything since the pool was made.
    for (name, field) in COUNTERS {
        assert_eq!(first.counter(name), field(&stats) as u64, "{name}");
    }
    for (name, count) in HISTOGRAMS {
        assert_eq!(first.samples(name) as u64, count(&timings), "{name}");
    }
    assert_eq!(first.gauge("antpool_workers"), stats.running as f64);
    assert_eq!(first.gauge("antpool_workers_idle"), stats.idle as f64);
    assert!(first.samples("antpool_run_seconds") >= 12);

    // Work, without a record: nothing reaches the recorder (no worker, no
    // submitter emits anything).
    work(&pool, 5);
    let between = Seen::take(&snapshotter);
    for (name, _) in COUNTERS {
        assert_eq!(between.counter(name), 0, "{name}");
    }
    for (name, _) in HISTOGRAMS {
        assert_eq!(between.samples(name), 0, "{name}");
    }
    for name in GAUGES {
        assert_eq!(between.gauge(name), 0.0, "{name}");
    }

    // The second record: the changes since the first.
    let (stats2, timings2) = (pool.stats(), pool.timings());
    reporter.record();
    let second = Seen::take(&snapshotter);
    for (name, field) in COUNTERS {
        let change = field(&stats2) - field(&stats);
        assert_eq!(second.counter(name), change as u64, "{name}");
    }
    for (name, count) in HISTOGRAMS {
        let change = count(&timings2) - count(&timings);
        assert_eq!(second.samples(name) as u64, change, "{name}");
    }
    assert_eq!(second.counter("antpool_tasks_completed_total"), 7);
    assert_eq!(second.counter("antpool_tasks_rejected_total"), 1);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_pool_without_a_label_reports_unlabelled_and_samples_inside_their_buckets() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let pool = Pool::builder()
        .capacity(1)
        .timings(Sampling::Every)
        .build()
        .unwrap();
    let mut reporter = with_local_recorder(&recorder, || MetricsReporter::new(&pool));
    pool.submit(|| std::thread::sleep(Duration::from_millis(3)))
        .unwrap();
    pool.wait_idle();
    reporter.record();
    let seen = Seen::take(&snapshotter);
    assert!(seen.0.values().all(|(labels, ..)| labels.is_empty()));
    let DebugValue::Histogram(runs) = &seen.0["antpool_run_seconds"].3 else {
        panic!("a histogram");
    };
    let (range, _) = pool.timings().run.buckets().next().unwrap();
    let reported = Duration::from_secs_f64(runs[0].into_inner());
    // A bucket is `(start, end]`.
    assert!(
        range.start < reported && reported <= range.end,
        "{reported:?} in {range:?}"
    );
    assert!(reported >= Duration::from_millis(2), "{reported:?}");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_pool_with_levels_reports_queue_wait_per_priority() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .priorities(true)
        .timings(Sampling::Every)
        .metrics_label("leveled")
        .build()
        .unwrap();
    let mut reporter = with_local_recorder(&recorder, || MetricsReporter::new(&pool));
    let gate = common::occupy(&pool, 1); // a `Normal` task
    for level in [Priority::High, Priority::High, Priority::Low] {
        pool.with_priority(level).submit(|| ()).unwrap();
    }
    gate.open();
    pool.wait_idle();
    reporter.record();
    // Every series of every name (`Seen` keeps one per name).
    let all = snapshotter.snapshot().into_vec();
    let mut queue_waits: Vec<(String, usize)> = Vec::new();
    for (key, _, _, value) in &all {
        let key = key.key();
        let labels: Vec<_> = key.labels().cloned().collect();
        assert_eq!(labels[0], Label::new("pool", "leveled"), "{key:?}");
        if key.name() != "antpool_queue_wait_seconds" {
            assert_eq!(labels.len(), 1, "{key:?}");
            continue;
        }
        assert_eq!(labels.len(), 2, "{key:?}");
        assert_eq!(labels[1].key(), "priority");
        let DebugValue::Histogram(samples) = value else {
            panic!("a histogram: {key:?}");
        };
        queue_waits.push((labels[1].value().to_owned(), samples.len()));
    }
    queue_waits.sort();
    let expected = [("high", 2), ("low", 1), ("normal", 1)].map(|(l, n)| (l.to_owned(), n));
    assert_eq!(queue_waits, expected, "no unlabelled total beside them");
    assert_eq!(pool.timings().queue_wait.count, 4);
    pool.release_timeout(PATIENCE).unwrap();
}
