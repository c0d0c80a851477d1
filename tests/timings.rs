//! `Timings` (feature `timings`): what each histogram counts, on a manual
//! clock where durations are exact; sampling by queue position; what is never
//! timed. `tests/clock_budget.rs` counts the clock reads, `tests/metrics.rs`
//! the facade export.

mod common;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use antpool::port::StdClock;
use antpool::{Histogram, Options, Pool, Sampling, StaticPoolWithFunc, SubmitError};
use common::{Counter, Gate, PATIENCE, TestSpawner, eventually, on_manual_clock};

const TICK: Duration = Duration::from_millis(1);

/// The count of the bucket that holds `d` (0 if none does).
fn at(h: &Histogram, d: Duration) -> u64 {
    h.buckets()
        .find(|(range, _)| range.contains(&d))
        .map_or(0, |(_, n)| n)
}

#[test]
fn durations_land_in_their_buckets_on_a_manual_clock() {
    std::panic::set_hook(Box::new(|_| {}));
    let (pool, clock, _) = on_manual_clock(
        Pool::builder()
            .capacity(1)
            .max_queued_tasks(4)
            .timings(Sampling::Every)
            .panic_handler(|_| ()),
    );
    let (gate, started) = (Gate::new(), Counter::new());
    let (g, s, c) = (gate.clone(), started.clone(), clock.clone());
    // The first task (carried by a new worker) "runs" five ticks.
    pool.submit(move || {
        s.add();
        g.wait();
        c.advance(5 * TICK);
    })
    .unwrap();
    assert!(started.reaches(1));
    // Two more wait in the queue behind it (one of them panics).
    pool.submit(|| ()).unwrap();
    pool.submit(|| panic!("timed all the same")).unwrap();
    gate.open();
    pool.wait_idle();
    let (t, stats) = (pool.timings(), pool.stats());
    assert_eq!(t.run.count, (stats.completed + stats.panicked) as u64);
    assert_eq!((at(&t.run, 5 * TICK), at(&t.run, Duration::ZERO)), (1, 2));
    assert_eq!(t.run.sum, 5 * TICK);
    // The queued ones waited the five ticks; the carried one none.
    assert_eq!(t.queue_wait.count, 3);
    assert_eq!(
        (
            at(&t.queue_wait, 5 * TICK),
            at(&t.queue_wait, Duration::ZERO)
        ),
        (2, 1)
    );
    assert_eq!(t.submit_wait.count, 0, "nobody waited for room");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn submit_wait_counts_the_blocked_submits_that_got_in_and_nothing_else() {
    let (pool, clock, _) = on_manual_clock(
        Pool::builder()
            .capacity(1)
            .max_blocking_tasks(2)
            .timings(Sampling::Every),
    );
    let pool = std::sync::Arc::new(pool);
    let (gate, started) = (Gate::new(), Counter::new());
    let (g, s) = (gate.clone(), started.clone());
    pool.submit(move || {
        s.add();
        g.wait();
    })
    .unwrap();
    assert!(started.reaches(1));
    // Refused at once, or after waiting: not admitted, not counted here.
    assert!(matches!(
        pool.try_submit(|| ()),
        Err(SubmitError::Overload(_))
    ));
    let timed_out = pool.submit_timeout(|| (), Duration::from_millis(20));
    assert!(matches!(timed_out, Err(SubmitError::Timeout(_))));
    assert_eq!(pool.timings().submit_wait.count, 0);
    // A blocked thread and a blocked future, admitted three ticks later.
    let p = pool.clone();
    let thread_waiter = thread::spawn(move || p.submit(|| ()).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    let p = pool.clone();
    let async_waiter =
        thread::spawn(move || futures_executor::block_on(p.submit_async(|| ())).unwrap());
    assert!(eventually(|| pool.waiting() == 2));
    clock.advance(3 * TICK);
    gate.open();
    thread_waiter.join().unwrap();
    async_waiter.join().unwrap();
    pool.wait_idle();
    let t = pool.timings();
    assert_eq!(t.submit_wait.count, 2);
    assert_eq!(at(&t.submit_wait, 3 * TICK), 2);
    assert_eq!(pool.stats().rejected, 2);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn one_in_16_times_a_sixteenth_of_the_queue_and_every_carried_task() {
    const TASKS: usize = 1_600;
    let pool = Pool::builder()
        .capacity(2)
        .unbounded_queue()
        .timings(Sampling::OneIn(16))
        .build()
        .unwrap();
    for _ in 0..TASKS {
        pool.submit(|| ()).unwrap();
    }
    pool.wait_idle();
    let (t, stats) = (pool.timings(), pool.stats());
    assert_eq!(stats.completed, TASKS);
    // A task a new worker carried never took a queue position; the others
    // took positions 0, 1, …, of which every 16th is timed.
    let fits =
        |carried: usize| t.queue_wait.count as usize == carried + (TASKS - carried).div_ceil(16);
    assert!(
        (0..=stats.spawned).any(fits),
        "{} timed of {TASKS}, {} workers started",
        t.queue_wait.count,
        stats.spawned
    );
    assert_eq!(t.run.count, t.queue_wait.count);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn an_aborted_task_is_skipped_not_timed() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .timings(Sampling::Every)
        .build()
        .unwrap();
    let (gate, started) = (Gate::new(), Counter::new());
    let (g, s) = (gate.clone(), started.clone());
    pool.submit(move || {
        s.add();
        g.wait();
    })
    .unwrap();
    assert!(started.reaches(1));
    let handles: Vec<_> = (0..3).map(|i| pool.spawn(move || i).unwrap()).collect();
    handles[1].abort();
    gate.open();
    pool.wait_idle();
    let (t, stats) = (pool.timings(), pool.stats());
    assert_eq!((stats.completed, stats.skipped), (3, 1));
    assert_eq!(t.run.count, 3);
    assert_eq!(t.queue_wait.count, 3);
    pool.release_timeout(PATIENCE).unwrap();
}

type Static = StaticPoolWithFunc<usize, 2, StdClock, TestSpawner>;

static RAN: AtomicUsize = AtomicUsize::new(0);

fn count_run(_: usize) {
    RAN.fetch_add(1, SeqCst);
}

#[test]
fn a_static_pool_times_its_tasks_but_never_an_interrupts() {
    static POOL: OnceLock<Static> = OnceLock::new();
    let pool: &'static Static = POOL.get_or_init(|| {
        StaticPoolWithFunc::new(
            Options::new()
                .capacity(2)
                .min_idle(1)
                .timings(Sampling::Every),
            count_run,
            StdClock::new(),
            TestSpawner::new(),
        )
    });
    pool.start_min_idle().unwrap();
    assert!(eventually(|| pool.idle() == 1));
    pool.try_invoke_from_isr(1).unwrap();
    pool.wait_idle();
    let t = pool.timings();
    assert_eq!(RAN.load(SeqCst), 1);
    assert_eq!(
        (t.run.count, t.queue_wait.count),
        (0, 0),
        "no clock on that path"
    );
    for n in 0..5 {
        pool.invoke(n).unwrap();
    }
    pool.wait_idle();
    let t = pool.timings();
    assert_eq!(RAN.load(SeqCst), 6);
    assert_eq!((t.run.count, t.queue_wait.count), (5, 5));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_multi_pool_sums_its_pools() {
    let builder = Pool::builder().capacity(1).timings(Sampling::Every);
    let mp =
        antpool::MultiPool::from_builder(2, antpool::LoadBalancing::RoundRobin, builder).unwrap();
    for _ in 0..6 {
        mp.submit(|| ()).unwrap();
    }
    mp.wait_idle();
    assert_eq!(mp.timings().run.count, 6);
    mp.release_timeout(PATIENCE).unwrap();
}

#[test]
fn sampling_takes_a_power_of_two() {
    for n in [0, 3, 12, 100] {
        let built = Pool::builder()
            .capacity(1)
            .timings(Sampling::OneIn(n))
            .build();
        assert_eq!(
            built.unwrap_err(),
            antpool::BuildError::InvalidSampling,
            "{n}"
        );
    }
    let pool = Pool::builder()
        .capacity(1)
        .timings(Sampling::OneIn(1))
        .build()
        .unwrap();
    pool.submit(|| ()).unwrap();
    pool.wait_idle();
    assert_eq!(pool.timings().run.count, 1, "OneIn(1) is Every");
}
