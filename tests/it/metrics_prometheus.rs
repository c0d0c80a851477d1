//! `MetricsReporter` into a real exporter (feature `metrics`):
//! `metrics-exporter-prometheus` rendering its text in memory, with
//! antpool's [`BUCKET_EDGES`] as the histograms' buckets. Tasks run exact
//! durations on a manual clock — on, just over and just under edges — and
//! every exported bucket counts them on the side Prometheus's `le` says,
//! with the exported sum the recorded one. Names follow Prometheus's
//! conventions, so the exporter's own naming leaves them as they are.

use crate::common;

use std::collections::BTreeSet;
use std::time::Duration;

use antpool::metrics::{BUCKET_EDGES, MetricsReporter};
use antpool::{Pool, Sampling};
use common::{ManualPool, PATIENCE, on_manual_clock};
use metrics::with_local_recorder;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusRecorder};

const MS: Duration = Duration::from_millis(1);
const NS: Duration = Duration::from_nanos(1);

/// antpool's edges from 1 ms to 10 ms: what a dashboard around 5 ms picks.
fn edges() -> Vec<f64> {
    let edges: Vec<f64> = BUCKET_EDGES
        .iter()
        .copied()
        .filter(|e| (0.001..=0.01).contains(e))
        .collect();
    for edge in [0.004096, 0.00512, 0.006144] {
        assert!(edges.contains(&edge), "{edge} is one of antpool's edges");
    }
    edges
}

/// A Prometheus recorder whose `antpool_` histograms have `edges()` buckets.
fn exporter(recommended_naming: bool) -> PrometheusRecorder {
    PrometheusBuilder::new()
        .with_recommended_naming(recommended_naming)
        .set_buckets_for_metric(Matcher::Prefix("antpool_".into()), &edges())
        .unwrap()
        .build_recorder()
}

/// The value of one series (`name{labels}`) in the rendered text.
fn value(text: &str, series: &str) -> f64 {
    let line = text
        .lines()
        .find(|line| {
            line.strip_prefix(series)
                .is_some_and(|v| v.starts_with(' '))
        })
        .unwrap_or_else(|| panic!("no {series} in\n{text}"));
    line[series.len()..].trim().parse().unwrap()
}

/// Runs tasks of exactly these durations, one after another, on a pool with
/// a manual clock that only they move.
fn run_for(durations: &[Duration]) -> ManualPool {
    let (pool, clock, _) = on_manual_clock(Pool::builder().capacity(1).timings(Sampling::Every));
    for &d in durations {
        let clock = clock.clone();
        pool.submit(move || clock.advance(d)).unwrap();
        pool.wait_idle();
    }
    pool
}

#[test]
fn a_run_just_over_an_edge_is_counted_over_it_and_one_on_or_under_it_under_it() {
    let durations = [
        Duration::from_micros(4096), // on 0.004096: under it
        Duration::from_micros(4096) + NS,
        Duration::from_micros(5060), // 5.06 ms: under 0.00512
        Duration::from_micros(5120) - NS,
        Duration::from_micros(5120),      // on 0.00512: under it
        Duration::from_micros(5120) + NS, // just over 0.00512
    ];
    let pool = run_for(&durations);
    let recorder = exporter(false);
    let handle = recorder.handle();
    let mut reporter = with_local_recorder(&recorder, || MetricsReporter::new(&pool));
    reporter.record();
    let text = handle.render();
    assert!(
        text.contains("# TYPE antpool_run_seconds histogram"),
        "{text}"
    );

    // Every edge handed to the exporter counts what a Prometheus client fed
    // the exact durations would: those at or under it.
    for edge in edges() {
        let under = durations
            .iter()
            .filter(|d| d.as_nanos() as f64 / 1e9 <= edge)
            .count();
        let series = format!("antpool_run_seconds_bucket{{le=\"{edge}\"}}");
        assert_eq!(value(&text, &series), under as f64, "{series}");
    }
    assert_eq!(around_5ms(&text), [1.0, 5.0, 6.0]);
    assert_eq!(value(&text, "antpool_run_seconds_count"), 6.0);
    // The sum is the recorded one, not a bucket's edge or middle times six.
    let sum: Duration = durations.iter().sum();
    let exported = value(&text, "antpool_run_seconds_sum");
    assert!(
        (exported - sum.as_secs_f64()).abs() < 1e-12,
        "{exported} != {sum:?}"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_second_record_exports_only_the_new_runs_exactly() {
    let (pool, clock, _) = on_manual_clock(Pool::builder().capacity(1).timings(Sampling::Every));
    let run = |d: Duration| {
        let clock = clock.clone();
        pool.submit(move || clock.advance(d)).unwrap();
        pool.wait_idle();
    };
    let recorder = exporter(false);
    let handle = recorder.handle();
    let mut reporter = with_local_recorder(&recorder, || MetricsReporter::new(&pool));
    run(Duration::from_micros(5120));
    reporter.record();
    run(Duration::from_micros(5120) + NS);
    run(5 * MS);
    reporter.record();
    let text = handle.render();
    assert_eq!(around_5ms(&text), [0.0, 2.0, 3.0]);
    let exported = value(&text, "antpool_run_seconds_sum");
    assert!((exported - 0.015240001).abs() < 1e-12, "{exported}");
    pool.release_timeout(PATIENCE).unwrap();
}

/// The run histogram's counts at the edges around 5 ms: 4.096, 5.12 and
/// 6.144 ms.
fn around_5ms(text: &str) -> [f64; 3] {
    ["0.004096", "0.00512", "0.006144"]
        .map(|le| value(text, &format!("antpool_run_seconds_bucket{{le=\"{le}\"}}")))
}

/// The metric names in a rendering (from its `# TYPE` lines).
fn names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .map(|rest| rest.split(' ').next().unwrap().to_owned())
        .collect()
}

#[test]
fn names_follow_prometheus_conventions_so_recommended_naming_keeps_them() {
    let pool = run_for(&[MS]);
    let mut rendered = Vec::new();
    for recommended in [false, true] {
        let recorder = exporter(recommended);
        let handle = recorder.handle();
        let mut reporter = with_local_recorder(&recorder, || {
            let reporter = MetricsReporter::new(&pool);
            reporter.describe();
            reporter
        });
        reporter.record();
        rendered.push(handle.render());
    }
    let (plain, recommended) = (&rendered[0], &rendered[1]);
    assert_eq!(names(plain), names(recommended), "{plain}\n{recommended}");
    for line in plain.lines().filter_map(|l| l.strip_prefix("# TYPE ")) {
        let (name, kind) = line.split_once(' ').unwrap();
        match kind {
            "counter" => assert!(name.ends_with("_total"), "{name}"),
            "histogram" => assert!(name.ends_with("_seconds"), "{name}"),
            "gauge" => assert!(!name.ends_with("_total"), "{name}"),
            other => panic!("{name}: {other}"),
        }
    }
    assert_eq!(value(plain, "antpool_tasks_completed_total"), 1.0);
    assert_eq!(names(plain).len(), 16, "{plain}");
    pool.release_timeout(PATIENCE).unwrap();
}
