//! [`Recorder`]: a pool's three histograms of durations (feature `timings`),
//! as relaxed atomic counters that workers and submitters add to and
//! `timings()` reads without a lock.
//!
//! No ordering is needed: a sample is a count in one bucket and an addition to
//! one sum, each a relaxed `fetch_add`, and a snapshot is a set of loads that
//! may be a few samples apart from each other (as [`Stats`](crate::Stats)'s
//! fields are). Each histogram is on lines of its own, so the workers that
//! record run times do not take the line the submitters' waits go to; within
//! one, the sum comes first, beside the buckets of the shortest durations,
//! which tiny tasks hit.

use crate::timings::{BUCKETS, Histogram, Timings, bucket_of};

use super::padded::Padded;

/// A 64-bit counter that only grows: one atomic where the target has 64-bit
/// atomics. Elsewhere two 32-bit halves, the high one raised by whoever carries
/// out of the low one — not a global lock (`portable-atomic`'s fallback), on
/// which a preempted low-priority recorder would stall a higher-priority one
/// on a single-core RTOS. A read in the instant between the low half's wrap and
/// the carry misses 2³² (documented on [`Histogram`]).
#[cfg(any(antpool_loom, target_has_atomic = "64"))]
struct Wide(Atomic64);

#[cfg(antpool_loom)]
type Atomic64 = std::sync::atomic::AtomicU64;
#[cfg(all(not(antpool_loom), target_has_atomic = "64"))]
type Atomic64 = portable_atomic::AtomicU64;

#[cfg(any(antpool_loom, target_has_atomic = "64"))]
impl Wide {
    const fn new() -> Self {
        Wide(Atomic64::new(0))
    }

    #[inline]
    fn add(&self, n: u64) {
        self.0.fetch_add(n, core::sync::atomic::Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(core::sync::atomic::Ordering::Relaxed)
    }
}

/// (See the 64-bit `Wide`.)
#[cfg(all(not(antpool_loom), not(target_has_atomic = "64")))]
struct Wide {
    low: portable_atomic::AtomicU32,
    high: portable_atomic::AtomicU32,
}

#[cfg(all(not(antpool_loom), not(target_has_atomic = "64")))]
impl Wide {
    const fn new() -> Self {
        Wide {
            low: portable_atomic::AtomicU32::new(0),
            high: portable_atomic::AtomicU32::new(0),
        }
    }

    #[inline]
    fn add(&self, n: u64) {
        use portable_atomic::Ordering::Relaxed;
        let low = n as u32;
        let mut carry = (n >> 32) as u32;
        if self.low.fetch_add(low, Relaxed).checked_add(low).is_none() {
            carry = carry.wrapping_add(1);
        }
        if carry != 0 {
            self.high.fetch_add(carry, Relaxed);
        }
    }

    fn get(&self) -> u64 {
        use portable_atomic::Ordering::Relaxed;
        loop {
            let high = self.high.load(Relaxed);
            let low = self.low.load(Relaxed);
            if self.high.load(Relaxed) == high {
                return (u64::from(high) << 32) | u64::from(low);
            }
        }
    }
}

/// One histogram: the sum of its samples (nanoseconds) and a count per bucket.
struct Buckets {
    sum: Wide,
    counts: [Wide; BUCKETS],
}

impl Buckets {
    const fn new() -> Self {
        Buckets {
            sum: Wide::new(),
            counts: [const { Wide::new() }; BUCKETS],
        }
    }

    #[inline]
    fn record(&self, nanos: u64) {
        self.counts[bucket_of(nanos)].add(1);
        self.sum.add(nanos);
    }

    fn snapshot(&self) -> Histogram {
        let counts = core::array::from_fn(|i| self.counts[i].get());
        Histogram::from_parts(counts, self.sum.get())
    }
}

/// Which histogram a duration goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    /// A blocked submit, from saturation to admission.
    SubmitWait,
    /// A task, from admission to its start.
    QueueWait,
    /// A task, from its start to its end.
    Run,
}

/// A pool's three histograms.
pub(crate) struct Recorder {
    submit_wait: Padded<Buckets>,
    queue_wait: Padded<Buckets>,
    run: Padded<Buckets>,
}

impl Recorder {
    pub(crate) const fn new() -> Self {
        Recorder {
            submit_wait: Padded::new(Buckets::new()),
            queue_wait: Padded::new(Buckets::new()),
            run: Padded::new(Buckets::new()),
        }
    }

    /// Adds one duration of `nanos` to `which`.
    #[inline]
    pub(crate) fn record(&self, which: Which, nanos: u64) {
        match which {
            Which::SubmitWait => self.submit_wait.record(nanos),
            Which::QueueWait => self.queue_wait.record(nanos),
            Which::Run => self.run.record(nanos),
        }
    }

    /// A snapshot of the three.
    pub(crate) fn snapshot(&self) -> Timings {
        Timings {
            submit_wait: self.submit_wait.snapshot(),
            queue_wait: self.queue_wait.snapshot(),
            run: self.run.snapshot(),
        }
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_duration_lands_in_its_bucket_and_the_sum() {
        let recorder = Recorder::new();
        recorder.record(Which::Run, 5_000_000);
        recorder.record(Which::Run, 7);
        recorder.record(Which::QueueWait, 1_500);
        let t = recorder.snapshot();
        assert_eq!((t.run.count, t.run.sum.as_nanos()), (2, 5_000_007));
        assert_eq!(t.queue_wait.count, 1);
        assert_eq!(t.submit_wait.count, 0);
        let buckets: Vec<_> = t.run.buckets().map(|(_, n)| n).collect();
        assert_eq!(buckets, [1, 1]);
    }

    #[test]
    fn a_wide_counter_carries() {
        let wide = Wide::new();
        wide.add(u64::from(u32::MAX));
        wide.add(2);
        wide.add(3 << 32);
        assert_eq!(wide.get(), u64::from(u32::MAX) + 2 + (3 << 32));
    }
}
