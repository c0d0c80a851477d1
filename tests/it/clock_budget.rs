//! How often the pool reads its clock, counted: with the timings off (or the
//! `timings` feature not built) a worker reads it only for the watch, twice
//! every 16th task; `Sampling::OneIn(16)` adds one read per 16 tasks (the
//! submitter's), and moves the watch onto the sampled tasks' reads;
//! `Sampling::Every` reads once per task on each side. Built and run both
//! with and without the feature (`.ci/run`): the "off" numbers must be the
//! same in both builds.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use antpool::port::{Clock, Instant};

/// A clock that stands still and counts its reads.
#[derive(Default)]
struct CountingClock {
    reads: AtomicUsize,
}

impl Clock for CountingClock {
    fn now(&self) -> Instant {
        self.reads.fetch_add(1, SeqCst);
        Instant::ZERO
    }
}

/// (Fewer under Miri, which runs each a thousand times slower.)
const TASKS: usize = if cfg!(miri) { 1_600 } else { 10_000 };

/// Reads of the clock: while `TASKS` tasks were submitted to a paused pool of
/// one worker (whose only other read is its park), and between the first
/// task's run and the last's (the worker going straight from one task to the
/// next, nothing else reading).
#[derive(Debug, PartialEq, Eq)]
struct Reads {
    submitting: usize,
    running: usize,
}

fn count(builder: antpool::PoolBuilder) -> Reads {
    let clock = Arc::new(CountingClock::default());
    let pool = builder
        .capacity(1)
        .unbounded_queue()
        .disable_purge(true)
        .clock(clock.clone())
        .build()
        .unwrap();
    pool.pause();
    let (first, last) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let before = clock.reads.load(SeqCst);
    for i in 0..TASKS {
        let (clock, first, last) = (clock.clone(), first.clone(), last.clone());
        pool.submit(move || match i {
            0 => first.store(clock.reads.load(SeqCst), SeqCst),
            i if i == TASKS - 1 => last.store(clock.reads.load(SeqCst), SeqCst),
            _ => {}
        })
        .unwrap();
    }
    // The looker started for the paused pool's first task parks (one read).
    while pool.idle() < 1 {
        thread::sleep(Duration::from_millis(1));
    }
    let submitting = clock.reads.load(SeqCst) - before - 1;
    pool.resume();
    pool.wait_idle();
    pool.release_timeout(Duration::from_secs(5)).unwrap();
    Reads {
        submitting,
        running: last.load(SeqCst) - first.load(SeqCst),
    }
}

/// The watch's reads: two on every 16th task (rounds 0, 16, …), of which the
/// window from task 0's run to task `TASKS - 1`'s holds task 0's end and both
/// reads of the others.
const WATCH_READS: usize = 1 + 2 * ((TASKS - 1) / 16);

#[test]
fn with_the_timings_off_a_worker_reads_the_clock_only_for_the_watch() {
    let off = count(antpool::Pool::builder());
    assert_eq!(
        off,
        Reads {
            submitting: 0,
            running: WATCH_READS
        }
    );
}

#[cfg(feature = "timings")]
#[test]
fn sampling_off_reads_what_a_build_without_timings_reads() {
    let off = count(antpool::Pool::builder().timings(antpool::Sampling::Off));
    assert_eq!(
        off,
        Reads {
            submitting: 0,
            running: WATCH_READS
        }
    );
}

#[cfg(feature = "timings")]
#[test]
fn one_in_16_adds_a_submitter_read_per_16_tasks_and_the_watch_reads_the_samples() {
    let sampled = count(antpool::Pool::builder().timings(antpool::Sampling::OneIn(16)));
    // Positions 0, 16, … of the queue: the submitter stamps those, and the
    // worker times them — the reads the watch made on its own before.
    assert_eq!(
        sampled,
        Reads {
            submitting: TASKS.div_ceil(16),
            running: WATCH_READS
        }
    );
}

#[cfg(feature = "timings")]
#[test]
fn every_reads_once_per_task_on_each_side() {
    let every = count(antpool::Pool::builder().timings(antpool::Sampling::Every));
    // The worker reuses each task's end as the next one's start: in the
    // window, task 0's end and the ends of tasks 1 to TASKS - 2.
    assert_eq!(
        every,
        Reads {
            submitting: TASKS,
            running: TASKS - 1
        }
    );
}
