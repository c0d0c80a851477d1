//! How a histogram reaches the facade, which takes samples, not buckets:
//! [`BUCKET_EDGES`], antpool's bucket edges for the exporter, and the values
//! a bucket's new samples are replayed at.
//!
//! The rule that makes the export exact: a bucket holds `(lower, upper]`, as
//! a Prometheus bucket (`le`) does, and each of its samples is replayed at
//! one value in that same interval. A replayed value is then on the same side
//! of every edge in [`BUCKET_EDGES`] as the sample it stands for — over
//! `lower` and every edge below, at most `upper` and every edge above — so an
//! exporter given any of those edges counts each bucket exactly. An edge
//! between two of antpool's can only misplace samples of the one bucket it
//! cuts.
//!
//! Which value in the interval: the one that makes the replayed sum the
//! recorded sum. The reporter knows how many samples each bucket gained and
//! what they add up to, so it places every bucket's samples the same share
//! `t` of the way from its lower edge to its upper one, with `t` chosen so
//! the values add up to the recorded sum (`t` is clamped to `0..=1`, and a
//! value is kept strictly over its lower edge). `_sum / _count` is then the
//! true mean, where a midpoint or an edge would be off by up to a bucket's
//! width. The last bucket, with no upper edge, is replayed just over its
//! lower one.

use crate::timings::{BUCKETS, Histogram, upper_edges_us};

/// antpool's histogram bucket edges in seconds, lowest first (1 µs, 2 µs,
/// 3 µs, 4 µs, then four per power of two of microseconds up to 2³² µs —
/// about 71 minutes: … 0.004096, 0.00512, 0.006144, 0.007168, 0.008192, …):
/// the bucket boundaries to give the exporter for antpool's histograms.
///
/// With edges from this list — all of them or any subset, e.g. a few around
/// each latency an alert or a dashboard reads — every exported bucket count
/// is exact: a sample of `d` seconds is counted under `le="e"` exactly when
/// `d <= e`, as if the exporter had seen it. With other edges, a sample may
/// move by at most one of antpool's buckets: an edge of `0.005` counts the
/// samples of `(0.004096, 0.00512]` all on one side of it.
///
/// Give the exporter buckets: without them an exporter such as
/// `metrics-exporter-prometheus` renders a summary, whose quantiles it
/// computes from the replayed values — one value standing for each bucket's
/// samples — so they are off, and cannot be added up across pools or
/// instances; with buckets, `histogram_quantile` reads exact counts. With
/// `metrics-exporter-prometheus`:
///
/// ```
/// use antpool::metrics::{BUCKET_EDGES, MetricsReporter};
/// use antpool::{Pool, Sampling};
/// use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
///
/// // The powers of two from about 1 ms to about 1 s, and antpool's edges
/// // nearest the 5 ms and the 100 ms alerts read.
/// let power_of_two = |e: f64| ((e * 1e6).round() as u64).is_power_of_two();
/// let edges: Vec<f64> = BUCKET_EDGES
///     .iter()
///     .copied()
///     .filter(|&e| (0.001..=1.1).contains(&e) && power_of_two(e) || [0.00512, 0.098304].contains(&e))
///     .collect();
/// assert!(edges.contains(&0.004096) && edges.contains(&0.00512) && edges.contains(&1.048576));
/// let recorder = PrometheusBuilder::new()
///     .set_buckets_for_metric(Matcher::Prefix("antpool_".into()), &edges)
///     .unwrap()
///     .build_recorder(); // or `install()` with its HTTP listener
/// let handle = recorder.handle();
///
/// let pool = Pool::builder().capacity(2).timings(Sampling::Every).build().unwrap();
/// let mut reporter = metrics::with_local_recorder(&recorder, || MetricsReporter::new(&pool));
/// pool.submit(|| ()).unwrap();
/// pool.wait_idle();
/// reporter.record();
/// let text = handle.render();
/// assert!(text.contains("# TYPE antpool_run_seconds histogram"));
/// assert!(text.contains("antpool_run_seconds_bucket{le=\"0.00512\"}"));
/// assert!(text.contains("antpool_run_seconds_count 1"));
/// ```
pub const BUCKET_EDGES: &[f64] = &EDGES;

/// The upper edge of every bucket but the last, in seconds.
const EDGES: [f64; BUCKETS - 1] = {
    let us = upper_edges_us();
    let mut edges = [0.0; BUCKETS - 1];
    let mut index = 0;
    while index < edges.len() {
        // One correctly rounded division: the `f64` nearest the decimal edge,
        // the same a user gets writing `0.00512` by hand.
        edges[index] = us[index] as f64 / 1e6;
        index += 1;
    }
    edges
};

/// The value the last bucket's samples are replayed at: the least `f64`
/// over its lower edge, the last of [`EDGES`].
fn over_the_top() -> f64 {
    EDGES[EDGES.len() - 1].next_up()
}

/// Bucket `index`'s `(lower, upper]` in seconds (the first holds zero; the
/// last, without an upper edge, is given the one value it is replayed at).
fn interval(index: usize) -> (f64, f64) {
    let lower = match index {
        0 => 0.0,
        _ => EDGES[index - 1],
    };
    (
        lower,
        EDGES.get(index).copied().unwrap_or_else(over_the_top),
    )
}

/// Calls `emit(value, count)` once for every bucket that gained samples from
/// `old` to `new` (`old`: `None` before the first record): its new samples'
/// count and the value they are replayed at (see the module docs).
pub(super) fn replay(new: &Histogram, old: Option<&Histogram>, mut emit: impl FnMut(f64, usize)) {
    const NONE: [u64; BUCKETS] = [0; BUCKETS];
    let old_counts = old.map_or(&NONE, Histogram::counts);
    let mut gained = [0u64; BUCKETS];
    for ((gained, n), o) in gained.iter_mut().zip(new.counts()).zip(old_counts) {
        *gained = n.wrapping_sub(*o);
    }
    // The share `t` of each bucket's width that makes the sum come out:
    // `sum = Σ n·lower + t · Σ n·(upper - lower)`.
    let (mut floor, mut span) = (0.0, 0.0);
    for (index, &n) in gained.iter().enumerate() {
        let (lower, upper) = interval(index);
        floor += n as f64 * lower;
        span += n as f64 * (upper - lower);
    }
    let sum = match old {
        Some(old) => new.sum.checked_sub(old.sum),
        None => Some(new.sum),
    };
    let share = match sum {
        Some(sum) if span > 0.0 => ((sum.as_secs_f64() - floor) / span).clamp(0.0, 1.0),
        // Nothing gained, or a sum that went backwards (it wrapped).
        _ => 1.0,
    };
    for (index, &n) in gained.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let (lower, upper) = interval(index);
        let mut value = (lower + share * (upper - lower)).min(upper);
        if index > 0 && value <= lower {
            value = lower.next_up();
        }
        emit(value, usize::try_from(n).unwrap_or(usize::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timings::bucket_of;

    /// A histogram of these samples, in nanoseconds.
    fn of(samples: &[u64]) -> Histogram {
        let mut counts = [0; BUCKETS];
        for &nanos in samples {
            counts[bucket_of(nanos)] += 1;
        }
        Histogram::from_parts(counts, samples.iter().sum())
    }

    /// What `replay` emits, as (value, count).
    fn replayed(new: &Histogram, old: Option<&Histogram>) -> Vec<(f64, usize)> {
        let mut out = Vec::new();
        replay(new, old, |value, n| out.push((value, n)));
        out
    }

    #[test]
    fn edges_are_the_decimal_edges_and_rise() {
        assert_eq!(BUCKET_EDGES.len(), BUCKETS - 1);
        assert_eq!(BUCKET_EDGES[..4], [0.000001, 0.000002, 0.000003, 0.000004]);
        assert!(BUCKET_EDGES.contains(&0.004096) && BUCKET_EDGES.contains(&0.00512));
        assert_eq!(BUCKET_EDGES[BUCKET_EDGES.len() - 1], 4294.967296);
        assert!(BUCKET_EDGES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn every_replayed_value_is_on_its_samples_side_of_every_edge() {
        // Samples on, just over and just under edges, zero, and past the top.
        let mut samples = vec![0, 1, 999, 1_000, 1_001, 5_060_000, u64::MAX];
        for &edge in &upper_edges_us()[..40] {
            samples.extend([edge * 1_000 - 1, edge * 1_000, edge * 1_000 + 1]);
        }
        for &sample in &samples {
            let one = of(&[sample]);
            for (value, n) in replayed(&one, None) {
                assert_eq!(n, 1);
                let seconds = sample as f64 / 1e9;
                for &edge in BUCKET_EDGES {
                    assert_eq!(value <= edge, seconds <= edge, "{sample} ns as {value}");
                }
            }
        }
    }

    #[test]
    fn the_replayed_sum_is_the_recorded_sum() {
        let old = of(&[5_060_000]);
        let new = of(&[5_060_000, 5_060_000, 5_120_000, 5_120_001, 700, 3_000_000]);
        let gained = replayed(&new, Some(&old));
        assert_eq!(gained.iter().map(|&(_, n)| n).sum::<usize>(), 5);
        let sum: f64 = gained.iter().map(|&(v, n)| v * n as f64).sum();
        let expected = (new.sum - old.sum).as_secs_f64();
        assert!((sum - expected).abs() < 1e-15, "{sum} != {expected}");
        // Nothing gained: nothing emitted.
        assert!(replayed(&new, Some(&new)).is_empty());
    }

    #[test]
    fn the_last_bucket_is_replayed_just_over_the_last_edge() {
        let top = *BUCKET_EDGES.last().unwrap();
        assert_eq!(replayed(&of(&[u64::MAX]), None), [(top.next_up(), 1)]);
    }
}
