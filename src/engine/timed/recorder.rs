//! [`Recorder`]: a pool's four histograms of durations (feature `timings`),
//! as relaxed atomic counters that workers and submitters add to and
//! `timings()` reads without a lock — and, for a pool with a queue per level,
//! `queue_wait` per level.
//!
//! No ordering is needed: a sample is a count in one bucket and an addition to
//! one sum, each a relaxed `fetch_add`, and a snapshot is a set of loads that
//! may be a few samples apart from each other (as [`Stats`](crate::Stats)'s
//! fields are). Each histogram is on lines of its own, so the workers that
//! record run times do not take the line the submitters' waits go to; within
//! one, the sum comes first, beside the buckets of the shortest durations,
//! which tiny tasks hit.
//!
//! **Per level.** A heap pool with `priorities(true)` (a lane per level)
//! gets two more `queue_wait` histograms at build
//! ([`add_levels`](Recorder::add_levels), as its lanes get theirs), laid out
//! as the lanes are: its `Normal` waits go where every pool's go, its `High`
//! and `Low` ones beside them. A wait is recorded once, in its level's
//! histogram; the snapshot sums the three into the total. A pool without
//! levels (a static one included) has no more RAM and no more work than
//! before: its recorder's `levels` stays `None` (without a heap, always).

use crate::boxed::Boxed;
use crate::engine::padded::Padded;
use crate::priority::Priority;
use crate::timings::{BUCKETS, Histogram, Timings, bucket_of};

use crate::engine::timed::Which;

// (`wide.rs` is this file's module: `recorder.rs` is reached by a path.)
#[path = "wide.rs"]
mod wide;

use wide::Wide;

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

/// The `High` and `Low` queue waits of a pool with a queue per level (its
/// `Normal` ones are the recorder's `queue_wait`).
struct Levels {
    high: Padded<Buckets>,
    low: Padded<Buckets>,
}

/// A pool's four histograms (and, with levels, `queue_wait` per level).
pub(crate) struct Recorder {
    submit_wait: Padded<Buckets>,
    withdrawn_wait: Padded<Buckets>,
    /// Every queue wait; with levels, the `Normal` ones.
    queue_wait: Padded<Buckets>,
    run: Padded<Buckets>,
    /// Added at build by [`add_levels`](Self::add_levels) (a heap pool's).
    levels: Option<Boxed<Levels>>,
}

impl Recorder {
    pub(crate) const fn new() -> Self {
        Recorder {
            submit_wait: Padded::new(Buckets::new()),
            withdrawn_wait: Padded::new(Buckets::new()),
            queue_wait: Padded::new(Buckets::new()),
            run: Padded::new(Buckets::new()),
            levels: None,
        }
    }

    /// Keeps `queue_wait` per level from now: for a pool with a lane per
    /// level, at build (see the module docs).
    #[cfg(feature = "alloc")]
    pub(crate) fn add_levels(&mut self) {
        self.levels = crate::boxed::boxed(Levels {
            high: Padded::new(Buckets::new()),
            low: Padded::new(Buckets::new()),
        });
    }

    /// Whether `queue_wait` is kept per level
    /// ([`record_queue_wait_at`](Self::record_queue_wait_at)).
    #[inline]
    pub(crate) fn has_levels(&self) -> bool {
        self.levels.is_some()
    }

    /// Adds one duration of `nanos` to `which` (a queue wait of a pool
    /// without levels).
    #[inline]
    pub(crate) fn record(&self, which: Which, nanos: u64) {
        match which {
            Which::SubmitWait => self.submit_wait.record(nanos),
            Which::WithdrawnWait => self.withdrawn_wait.record(nanos),
            Which::QueueWait => self.queue_wait.record(nanos),
            Which::Run => self.run.record(nanos),
        }
    }

    /// Adds a queue wait of `nanos` of a task that waited at `level` (to the
    /// one histogram there is, without levels).
    #[inline]
    pub(crate) fn record_queue_wait_at(&self, level: Priority, nanos: u64) {
        if let Some(levels) = &self.levels {
            match level {
                Priority::High => return levels.high.record(nanos),
                Priority::Low => return levels.low.record(nanos),
                Priority::Normal => {}
            }
        }
        self.queue_wait.record(nanos)
    }

    /// A snapshot of the four (with levels: `queue_wait` the sum of the
    /// levels', read once each).
    pub(crate) fn snapshot(&self) -> Timings {
        let timings = Timings {
            submit_wait: self.submit_wait.snapshot(),
            withdrawn_wait: self.withdrawn_wait.snapshot(),
            queue_wait: self.queue_wait.snapshot(),
            run: self.run.snapshot(),
            levels: None,
        };
        if let Some(levels) = &self.levels {
            // With levels, `queue_wait` holds the `Normal` ones.
            let normal = timings.queue_wait.clone();
            return timings.with_levels([levels.high.snapshot(), normal, levels.low.snapshot()]);
        }
        timings
    }
}

#[cfg(test)]
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
    fn queue_waits_per_level_sum_to_the_total() {
        let recorder = Recorder::new();
        recorder.record_queue_wait_at(Priority::High, 1_000);
        assert_eq!(recorder.snapshot().queue_wait_at(Priority::High), None);
        assert_eq!(
            recorder.snapshot().queue_wait.count,
            1,
            "no levels: the total"
        );
        let mut recorder = Recorder::new();
        recorder.add_levels();
        recorder.record_queue_wait_at(Priority::High, 1_000);
        recorder.record_queue_wait_at(Priority::Low, 2_000);
        recorder.record_queue_wait_at(Priority::Low, 3_000);
        recorder.record_queue_wait_at(Priority::Normal, 4_000);
        let t = recorder.snapshot();
        let sum = |level| t.queue_wait_at(level).map(|h| h.sum.as_nanos());
        let count = |level| t.queue_wait_at(level).map(|h| h.count);
        assert_eq!(count(Priority::High), Some(1));
        assert_eq!(count(Priority::Normal), Some(1));
        assert_eq!(count(Priority::Low), Some(2));
        assert_eq!(sum(Priority::Low), Some(5_000));
        assert_eq!(
            (t.queue_wait.count, t.queue_wait.sum.as_nanos()),
            (4, 10_000)
        );
        assert_eq!(t.run.count, 0);
    }
}
