//! [`Histogram`]: a snapshot of one log-linear histogram of durations, and
//! the bucket layout its atomic twin (`record.rs`) shares.
//!
//! The layout is fixed, so there are no edges to choose (a fixed edge set too
//! low clamps every long wait into its last bucket): below 4 µs one bucket
//! per microsecond, then four buckets per power of two of microseconds up to
//! 2³² µs (about 71 minutes), then one bucket for the rest. A bucket is at
//! most a quarter of its lower edge wide, so a value read back from it is
//! within 25 % of the truth.
//!
//! A bucket holds its upper edge and not its lower one — `(start, end]`, the
//! first `[0, 1 µs]` — as a Prometheus bucket (`le`, "less or equal") and an
//! OpenTelemetry explicit bucket do, so that an export to them can count
//! every sample on the right side of every edge they share
//! (`metrics/replay.rs`).

use core::ops::Range;
use core::time::Duration;

/// Buckets below 4 µs: one per microsecond.
const LINEAR: usize = 4;
/// The first power of two of microseconds that no finite bucket reaches.
const TOP_POWER: u32 = 32;
/// The number of buckets: 4 linear ones, 4 per power of two from 2² to 2³¹
/// µs, and the last one (2³² µs and over).
pub(crate) const BUCKETS: usize = LINEAR + 4 * (TOP_POWER as usize - 2) + 1;
/// The last bucket: everything from 2³² µs (about 71 minutes) on.
const OVER: usize = BUCKETS - 1;

/// The bucket a duration of `nanos` falls in: the one whose `(start, end]`
/// holds it (zero: the first).
#[inline]
pub(crate) fn bucket_of(nanos: u64) -> usize {
    // Whole microseconds, an edge counted in the bucket below it: a bucket
    // `(s, e]` in nanoseconds is `[s, e)` in `(nanos - 1) / 1000`.
    let us = nanos.saturating_sub(1) / 1_000;
    if us < LINEAR as u64 {
        return us as usize;
    }
    // `us >= 4`: its top bit is at least bit 2.
    let power = 63 - us.leading_zeros();
    if power >= TOP_POWER {
        return OVER;
    }
    let sub = (us >> (power - 2)) & 3;
    4 * (power as usize - 1) + sub as usize
}

/// The microseconds bucket `index` covers, `(start, end]` (the first holds
/// zero too; `end` is `u64::MAX` for the last).
const fn bounds_us(index: usize) -> Range<u64> {
    if index < LINEAR {
        return index as u64..index as u64 + 1;
    }
    if index >= OVER {
        return 1 << TOP_POWER..u64::MAX;
    }
    let power = (index / 4 + 1) as u32;
    let sub = (index % 4) as u64;
    (4 + sub) << (power - 2)..(5 + sub) << (power - 2)
}

/// The durations bucket `index` covers, `(start, end]` (`end` is
/// [`Duration::MAX`] for the last).
pub(crate) fn bounds(index: usize) -> Range<Duration> {
    let us = bounds_us(index);
    let end = match us.end {
        u64::MAX => Duration::MAX,
        end => Duration::from_micros(end),
    };
    Duration::from_micros(us.start)..end
}

/// The upper edge of every bucket but the last, in microseconds, lowest
/// first: the edges an export shares with its exporter.
#[cfg(feature = "metrics")]
pub(crate) const fn upper_edges_us() -> [u64; OVER] {
    let mut edges = [0; OVER];
    let mut index = 0;
    while index < OVER {
        edges[index] = bounds_us(index).end;
        index += 1;
    }
    edges
}

/// A snapshot of one histogram of durations: how many were recorded, their
/// sum, and how they spread over log-linear buckets (1 µs wide below 4 µs,
/// then four per power of two up to about 71 minutes, and one above: at most
/// 25 % off). A bucket holds its upper edge, not its lower one, as a
/// Prometheus bucket does. Part of [`Timings`](crate::Timings).
///
/// Counts run from the pool's creation (a difference of two snapshots is what
/// happened between them); on targets without 64-bit atomics they wrap at
/// 2³², and a snapshot taken in the instant a 32-bit half carries may miss
/// that carry.
///
/// ```
/// use antpool::{Pool, Sampling};
/// use std::time::Duration;
///
/// let pool = Pool::builder().capacity(1).timings(Sampling::Every).build().unwrap();
/// for _ in 0..3 {
///     pool.submit(|| std::thread::sleep(Duration::from_millis(2))).unwrap();
/// }
/// pool.wait_idle();
/// let run = pool.timings().run;
/// assert_eq!(run.count, 3);
/// assert!(run.sum >= Duration::from_millis(6));
/// assert!(run.quantile(0.5) >= Duration::from_millis(1)); // within a bucket of 2 ms
/// let (range, n) = run.buckets().last().unwrap();
/// assert!(range.end >= Duration::from_millis(2) && n >= 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Histogram {
    /// How many durations were recorded.
    pub count: u64,
    /// Their sum.
    pub sum: Duration,
    /// How many fell in each bucket (see [`buckets`](Self::buckets)).
    counts: [u64; BUCKETS],
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            count: 0,
            sum: Duration::ZERO,
            counts: [0; BUCKETS],
        }
    }
}

impl Histogram {
    /// A histogram of these bucket counts and this sum of nanoseconds.
    pub(crate) fn from_parts(counts: [u64; BUCKETS], sum_nanos: u64) -> Self {
        Histogram {
            count: counts.iter().fold(0u64, |a, &n| a.wrapping_add(n)),
            sum: Duration::from_nanos(sum_nanos),
            counts,
        }
    }

    /// Adds `other`'s samples to these (a pool's levels, a multi-pool's
    /// pools).
    pub(crate) fn add(&mut self, other: &Histogram) {
        self.count = self.count.wrapping_add(other.count);
        self.sum = self.sum.saturating_add(other.sum);
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.wrapping_add(*b);
        }
    }

    /// The count of each bucket, by index (for the facade export).
    #[cfg(feature = "metrics")]
    pub(crate) fn counts(&self) -> &[u64; BUCKETS] {
        &self.counts
    }

    /// The duration below which a share `q` (0.0 to 1.0) of the samples fall,
    /// estimated from the buckets: the bucket holding the sample of that rank,
    /// interpolated linearly inside it (the last bucket, which has no upper
    /// edge, gives its lower one). `q` is clamped to 0.0..=1.0 (NaN reads as
    /// 0.0); an empty histogram gives zero.
    ///
    /// ```
    /// use antpool::{Pool, Sampling};
    /// let pool = Pool::builder().capacity(1).timings(Sampling::Every).build().unwrap();
    /// assert_eq!(pool.timings().run.quantile(0.99), std::time::Duration::ZERO); // nothing yet
    /// ```
    #[must_use]
    pub fn quantile(&self, q: f64) -> Duration {
        let total: u64 = self.counts.iter().sum();
        if total == 0 {
            return Duration::ZERO;
        }
        let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
        // The rank of the sample asked for, 1-based: at least the first.
        let exact = q * total as f64;
        // (`f64::ceil` is not in `core`.)
        let floor = exact as u64;
        let ceil = floor + u64::from((floor as f64) < exact);
        let rank = ceil.clamp(1, total);
        let mut below = 0;
        for (index, &n) in self.counts.iter().enumerate() {
            if n == 0 || below + n < rank {
                below += n;
                continue;
            }
            let range = bounds(index);
            if index == OVER {
                return range.start;
            }
            let share = (rank - below) as f64 / n as f64;
            let width = (range.end - range.start).as_nanos() as f64;
            return range.start + Duration::from_nanos((width * share) as u64);
        }
        bounds(OVER).start
    }

    /// Every bucket that holds a sample, lowest first: the durations it covers
    /// and how many samples fell in it. A bucket holds the durations over its
    /// `start` up to and including its `end` — `(start, end]`, not the
    /// `Range`'s own `[start, end)`; the first holds zero too — and the last
    /// one's ends at [`Duration::MAX`].
    ///
    /// ```
    /// use antpool::{Pool, Sampling};
    /// let pool = Pool::builder().capacity(1).timings(Sampling::Every).build().unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// let buckets: Vec<_> = pool.timings().run.buckets().collect();
    /// assert_eq!(buckets.iter().map(|(_, n)| n).sum::<u64>(), 1);
    /// ```
    pub fn buckets(&self) -> impl Iterator<Item = (Range<Duration>, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(index, &n)| (bounds(index), n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_holds_its_own_bounds() {
        for index in 0..BUCKETS {
            let us = bounds_us(index);
            // Over its lower edge: in it; on the lower edge: in the one below.
            assert_eq!(bucket_of(us.start * 1_000 + 1), index, "{index}: {us:?}");
            if index > 0 {
                assert_eq!(bucket_of(us.start * 1_000), index - 1, "{index}: {us:?}");
            }
            if index < OVER {
                // On its upper edge: in it.
                assert_eq!(bucket_of(us.end * 1_000), index, "{index}: {us:?}");
                assert_eq!(bounds_us(index + 1).start, us.end, "contiguous at {index}");
                // At most a quarter of the lower edge wide (past the linear part).
                if index >= LINEAR {
                    assert!((us.end - us.start) * 4 <= us.start, "{index}: {us:?}");
                }
            }
        }
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(1_000), 0);
        assert_eq!(bucket_of(1_001), 1);
        assert_eq!(bucket_of(u64::MAX), OVER);
        // 5.12 ms is the top of (4.096, 5.12] ms.
        assert_eq!(
            bounds(bucket_of(5_120_000)).end,
            Duration::from_micros(5_120)
        );
        assert_eq!(
            bounds(bucket_of(5_120_001)).start,
            Duration::from_micros(5_120)
        );
        // About an hour is still a finite bucket; 72 minutes is the last one.
        assert!(bucket_of(3_600 * 1_000_000_000) < OVER);
        assert_eq!(bucket_of(72 * 60 * 1_000_000_000), OVER);
    }

    #[test]
    fn quantiles_interpolate_within_a_bucket() {
        let mut counts = [0; BUCKETS];
        counts[bucket_of(5_000_000)] = 10; // 5 ms: the bucket (4.096, 5.12] ms
        let h = Histogram::from_parts(counts, 50_000_000);
        assert_eq!(h.count, 10);
        let range = bounds(bucket_of(5_000_000));
        assert_eq!(
            h.quantile(0.0),
            range.start + (range.end - range.start) / 10
        );
        assert_eq!(h.quantile(1.0), range.end);
        assert_eq!(h.quantile(f64::NAN), h.quantile(0.0));
        assert_eq!(Histogram::default().quantile(0.5), Duration::ZERO);
        let mut over = [0; BUCKETS];
        over[OVER] = 1;
        assert_eq!(
            Histogram::from_parts(over, 0).quantile(0.5),
            Duration::from_micros(1 << 32)
        );
    }

    #[cfg(feature = "metrics")]
    #[test]
    fn the_upper_edges_are_the_finite_buckets_ends() {
        let edges = upper_edges_us();
        for (index, &edge) in edges.iter().enumerate() {
            assert_eq!(edge, bounds_us(index).end, "{index}");
        }
        assert_eq!(edges[..5], [1, 2, 3, 4, 5]);
        assert_eq!(edges[OVER - 1], 1 << TOP_POWER);
    }
}
