//! `Timings` (feature `timings`): what each histogram counts, on a manual
//! clock where durations are exact; sampling by queue position; what is never
//! timed. `tests/it/clock_budget.rs` counts the clock reads, `tests/it/metrics.rs`
//! the facade export.

use crate::common;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use antpool::Priority::{High, Low, Normal};
use antpool::port::StdClock;
use antpool::{
    Histogram, Options, Pool, Priority, Sampling, StaticPoolWithFunc, SubmitError, Timings,
};
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

/// A submit that found the pool saturated and then got in on a later attempt
/// of its own, not served from the line, counts its wait too: here an async
/// submit that yields before it joins the line (on two CPUs or more) and finds
/// room when polled again, three ticks later.
#[test]
fn submit_wait_counts_a_submit_that_got_in_on_its_own_attempt() {
    let clock = std::sync::Arc::new(antpool::port::ManualClock::new());
    let pool = Pool::builder()
        .capacity(1)
        .timings(Sampling::Every)
        .clock(clock.clone())
        .spawner(TestSpawner::new().on_cpus(2))
        .build()
        .unwrap();
    let gate = common::occupy(&pool, 1);
    let (waker, _) = common::counting_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    let mut submit = std::pin::pin!(pool.submit_async(|| ()));
    assert!(submit.as_mut().poll(&mut cx).is_pending(), "saturated");
    assert_eq!(pool.waiting(), 0, "not in the line yet");
    clock.advance(3 * TICK);
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert!(matches!(
        submit.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Ok(()))
    ));
    assert!(pool.wait_idle_timeout(PATIENCE));
    let t = pool.timings();
    assert_eq!(t.submit_wait.count, 1);
    assert_eq!(at(&t.submit_wait, 3 * TICK), 1);
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

/// Runs a task that starts the pool's one worker, carrying it (timed, and
/// never in the queue), then `queued` more, one at a time: each goes through
/// the queue (the pool is at capacity) and none waits for room. Returns the
/// places in the queue (0-based) of the queued tasks that were timed.
fn carried_then_queued(pool: &Pool, queued: usize) -> Vec<usize> {
    let timed = || pool.timings().queue_wait.count;
    pool.submit(|| ()).unwrap();
    pool.wait_idle();
    assert_eq!(timed(), 1, "the carried task is timed");
    let mut places = Vec::new();
    for place in 0..queued {
        let before = timed();
        pool.submit(|| ()).unwrap();
        pool.wait_idle();
        if timed() > before {
            places.push(place);
        }
    }
    assert_eq!(pool.stats().spawned, 1, "one worker took every task");
    places
}

/// Sampling goes by a task's place in the queue, also in a bounded queue
/// whose slots are used lap after lap: of the tasks that went through it, the
/// first and then one in `n` are timed (the 1st, 5th, 9th, 13th for one in
/// 4), not each one nor others, nor one per lap.
#[test]
fn one_in_n_times_the_first_task_through_a_bounded_queue_and_every_nth() {
    let pool = Pool::builder()
        .capacity(1)
        // Three slots: the positions wrap around the ring out of step with
        // the sampling (five laps for the fourteen tasks).
        .max_queued_tasks(3)
        .disable_purge(true)
        .timings(Sampling::OneIn(4))
        .build()
        .unwrap();
    assert_eq!(carried_then_queued(&pool, 14), [0, 4, 8, 12]);
    pool.release_timeout(PATIENCE).unwrap();
}

/// The same in an unbounded queue, whose positions run on across its blocks
/// (of 31 tasks): for one in 64, positions 0 and 64 of 65 tasks, which span
/// three blocks.
#[test]
fn one_in_n_times_the_first_task_through_an_unbounded_queue_and_every_nth() {
    let pool = Pool::builder()
        .capacity(1)
        .unbounded_queue()
        .disable_purge(true)
        .timings(Sampling::OneIn(64))
        .build()
        .unwrap();
    assert_eq!(carried_then_queued(&pool, 65), [0, 64]);
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

/// `queue_wait` at `level`: its count and its samples' sum.
fn level(t: &Timings, level: Priority) -> (u64, Duration) {
    let h = t.queue_wait_at(level).expect("queue waits per level");
    (h.count, h.sum)
}

/// The levels' histograms add up to the total, sample for sample.
fn assert_levels_add_up(t: &Timings) {
    let (count, sum) = [High, Normal, Low]
        .map(|l| level(t, l))
        .into_iter()
        .fold((0, Duration::ZERO), |(c, s), (n, d)| (c + n, s + d));
    assert_eq!((count, sum), (t.queue_wait.count, t.queue_wait.sum));
    for (range, n) in t.queue_wait.buckets() {
        let per_level: u64 = [High, Normal, Low]
            .map(|l| at(t.queue_wait_at(l).unwrap(), range.start))
            .iter()
            .sum();
        assert_eq!(per_level, n, "{range:?}");
    }
}

#[test]
fn queued_tasks_record_their_wait_at_their_level() {
    let (pool, clock, _) = on_manual_clock(
        Pool::builder()
            .capacity(1)
            .max_queued_tasks(4)
            .priorities(true)
            .timings(Sampling::Every),
    );
    // A `Low` task carried by the new worker holds it (waited 0).
    let (gate, started) = (Gate::new(), Counter::new());
    let (g, s) = (gate.clone(), started.clone());
    pool.with_priority(Low)
        .submit(move || {
            s.add();
            g.wait();
        })
        .unwrap();
    assert!(started.reaches(1));
    // Queued behind it: two `High` at 0, a `Normal` at 1, a `Low` at 2 ticks;
    // the worker takes them all at 5.
    let high = pool.with_priority(High);
    high.submit(|| ()).unwrap();
    high.submit(|| ()).unwrap();
    clock.advance(TICK);
    pool.submit(|| ()).unwrap();
    clock.advance(TICK);
    pool.with_priority(Low).submit(|| ()).unwrap();
    clock.advance(3 * TICK);
    gate.open();
    pool.wait_idle();
    let t = pool.timings();
    assert_eq!(level(&t, High), (2, 10 * TICK));
    assert_eq!(level(&t, Normal), (1, 4 * TICK));
    assert_eq!(level(&t, Low), (2, 3 * TICK));
    let low = t.queue_wait_at(Low).unwrap();
    assert_eq!((at(low, 3 * TICK), at(low, Duration::ZERO)), (1, 1));
    assert_eq!((t.queue_wait.count, t.queue_wait.sum), (5, 17 * TICK));
    assert_levels_add_up(&t);
    assert_eq!(t.run.count, 5, "runs are not per level");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn waiters_let_in_record_their_wait_at_their_level() {
    let (pool, clock, _) = on_manual_clock(
        Pool::builder()
            .capacity(1)
            .priorities(true)
            .timings(Sampling::Every),
    );
    let pool = std::sync::Arc::new(pool);
    let hold = |pool: &common::ManualPool| {
        let (gate, started) = (Gate::new(), Counter::new());
        let (g, s) = (gate.clone(), started.clone());
        pool.submit(move || {
            s.add();
            g.wait();
        })
        .unwrap();
        assert!(started.reaches(1));
        gate
    };
    let blocked = |level: Priority| {
        let p = pool.clone();
        let waiter = thread::spawn(move || p.with_priority(level).submit(|| ()).unwrap());
        assert!(eventually(|| pool.waiting() == 1));
        waiter
    };
    // Served by the finishing worker: a `Low` waiter.
    let gate = hold(&pool);
    let waiter = blocked(Low);
    clock.advance(2 * TICK);
    gate.open();
    waiter.join().unwrap();
    pool.wait_idle();
    // Granted a new worker when the capacity grows: a `High` waiter.
    let gate = hold(&pool);
    let waiter = blocked(High);
    pool.tune(2);
    waiter.join().unwrap();
    gate.open();
    pool.wait_idle();
    let t = pool.timings();
    let counts = [High, Normal, Low].map(|l| level(&t, l).0);
    assert_eq!(counts, [1, 2, 1], "High granted, Low served, two holders");
    assert_levels_add_up(&t);
    assert_eq!(t.submit_wait.count, 2, "submit waits stay one histogram");
    assert_eq!(at(&t.submit_wait, 2 * TICK), 1);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn without_a_queue_per_level_only_the_total_is_kept() {
    let (plain, clock, _) = on_manual_clock(
        Pool::builder()
            .capacity(1)
            .max_queued_tasks(4)
            .timings(Sampling::Every),
    );
    let gate = common::occupy(&plain, 1);
    plain.with_priority(High).submit(|| ()).unwrap();
    clock.advance(TICK);
    gate.open();
    plain.wait_idle();
    let t = plain.timings();
    for l in [High, Normal, Low] {
        assert_eq!(t.queue_wait_at(l), None, "{l:?}");
    }
    assert_eq!((t.queue_wait.count, t.queue_wait.sum), (2, TICK));
    plain.release_timeout(PATIENCE).unwrap();
}

type Leveled = StaticPoolWithFunc<usize, 1, StdClock, TestSpawner>;

#[test]
fn a_static_pool_with_priorities_keeps_only_the_total() {
    static POOL: OnceLock<Leveled> = OnceLock::new();
    let pool: &'static Leveled = POOL.get_or_init(|| {
        let options = Options::new()
            .capacity(1)
            .priorities(true)
            .timings(Sampling::Every);
        StaticPoolWithFunc::new(options, drop, StdClock::new(), TestSpawner::new())
    });
    // Carried by a new worker: its wait is its thread's start. No level rode
    // in its stamp's top bits, to be read as a time 146 years on (and the
    // wait as 0).
    pool.with_priority(High).invoke(1).unwrap();
    pool.wait_idle();
    let t = pool.timings();
    assert_eq!(t.queue_wait_at(High), None);
    assert_eq!(t.queue_wait.count, 1);
    assert!(t.queue_wait.sum > Duration::ZERO);
    assert!(t.queue_wait.sum < PATIENCE, "{:?}", t.queue_wait.sum);
    // Then through the one ring.
    pool.with_priority(Low).invoke(2).unwrap();
    pool.wait_idle();
    let t = pool.timings();
    assert_eq!(t.queue_wait_at(Low), None);
    assert_eq!(t.queue_wait.count, 2);
    pool.release_timeout(PATIENCE).unwrap();
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
