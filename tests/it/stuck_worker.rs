//! A worker stuck on a long task holds up nothing else. The pool may leave a
//! tiny task in the queue for a busy worker to take next, rather than wake a
//! parked one (cheaper while tasks are tiny); a parked worker then keeps
//! watch, and takes the task itself if no task finishes for a moment.

use crate::common;

use std::sync::{Arc, mpsc};
use std::time::Duration;

use antpool::port::{ManualClock, Spawner};
use antpool::{IdleQueue, Pool};
use common::{Counter, PATIENCE, TestSpawner, eventually, occupy, on_manual_clock};

/// Starts the pool's second worker on a quick task that moves the manual
/// `clock` by a microsecond (its first timed task: tiny), and returns once it
/// ran; the worker then parks beside the stuck one.
fn teach_tiny<S: Spawner>(pool: &Pool<IdleQueue, Arc<ManualClock>, S>, clock: &Arc<ManualClock>) {
    let (tx, rx) = mpsc::channel();
    let c = clock.clone();
    pool.submit(move || {
        c.advance(Duration::from_micros(1));
        tx.send(()).unwrap();
    })
    .unwrap();
    rx.recv_timeout(PATIENCE).unwrap();
}

/// Submits a task and whether it ran within 15 s: only a task left behind
/// the stuck worker runs this bound out.
fn runs_beside_the_stuck_one<S: Spawner>(pool: &Pool<IdleQueue, Arc<ManualClock>, S>) -> bool {
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit(move || r.add()).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while ran.get() == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    ran.get() == 1
}

/// Submits `tasks` tasks one after another; each must run beside the stuck
/// worker, and its worker park again after it (`parked` workers then).
fn each_runs_beside_the_stuck_one<S: Spawner>(
    pool: &Pool<IdleQueue, Arc<ManualClock>, S>,
    tasks: usize,
    parked: usize,
) {
    for n in 1..=tasks {
        assert!(
            runs_beside_the_stuck_one(pool),
            "task {n} ran beside the stuck worker"
        );
        assert!(eventually(|| pool.idle() == parked), "its worker parks");
    }
}

/// While one worker is stuck, tasks submitted one after another each run on
/// the other worker, every time and not only the first: whoever leaves a
/// task to the busy workers can count on a watch that is still kept.
///
/// Tasks are tiny here by the pool's clock, a manual one that only the
/// first quick task moves (by a microsecond), so the pool learns that and
/// leaves tasks to the stuck worker (on two CPUs or more; with one it wakes
/// the other worker at once, and the test holds trivially).
#[test]
fn every_task_submitted_beside_a_stuck_worker_runs() {
    // (The std spawner: it tells the pool how many CPUs there are.)
    let clock = Arc::new(ManualClock::new());
    let pool = Pool::builder()
        .capacity(2)
        .clock(clock.clone())
        .build()
        .unwrap();
    let stuck = occupy(&pool, 1);
    teach_tiny(&pool, &clock);
    for n in 1..=4 {
        assert!(eventually(|| pool.idle() == 1), "the other worker parks");
        assert!(
            runs_beside_the_stuck_one(&pool),
            "task {n} ran beside the stuck worker"
        );
    }
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A pool of two on a manual clock with an expiry of 10 s (reaped by its
/// workers, or with `purge` off by `Pool::purge` only): one worker stuck (the
/// gate lets it go), the other taught that tasks are tiny and parked, on
/// watch, and the clock moved past its expiry.
fn watcher_past_its_expiry(purge: bool) -> (Pool<IdleQueue, Arc<ManualClock>>, common::Gate) {
    let clock = Arc::new(ManualClock::new());
    let pool = Pool::builder()
        .capacity(2)
        .clock(clock.clone())
        .expiry(Duration::from_secs(10))
        .disable_purge(!purge)
        .build()
        .unwrap();
    let stuck = occupy(&pool, 1);
    teach_tiny(&pool, &clock);
    assert!(eventually(|| pool.idle() == 1), "the other worker parks");
    clock.advance(Duration::from_secs(10));
    (pool, stuck)
}

/// A worker keeping watch beside a stuck one that is retired for idling past
/// its expiry takes the watch with it: a task submitted afterwards still runs
/// while the stuck worker holds on, rather than waiting behind it for a watch
/// nobody keeps any more.
///
/// The clock is a manual one (only the first quick task moves it, so tasks
/// are tiny and the parked worker takes up the watch), and `purge` is the
/// only reaper, so the watcher is the one worker it retires.
#[test]
fn a_task_beside_a_stuck_worker_runs_after_the_watcher_expired() {
    let (pool, stuck) = watcher_past_its_expiry(false);
    assert_eq!(pool.purge(), 1, "the parked worker expired");
    each_runs_beside_the_stuck_one(&pool, 2, 1);
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A task left beside a stuck worker while another keeps watch runs even
/// when `purge` retires the watcher before its next look: the purge ends the
/// watch, and the task gets a taker of its own — a parked worker woken
/// (capacity 3, one kept by `min_idle`), or a new one started when the
/// watcher was the only one parked (capacity 2).
///
/// (The test spawner's waits never time out, so the watcher looks only when
/// notified and the purge always comes first; the manual clock makes tasks
/// tiny, so the submit leaves the task to the stuck worker.)
#[test]
fn a_task_left_beside_a_stuck_worker_runs_when_purge_retires_the_watcher() {
    for capacity in [2, 3] {
        let clock = Arc::new(ManualClock::new());
        let spawner = TestSpawner::new().on_cpus(2).timeless();
        let pool = Pool::builder()
            .capacity(capacity)
            .min_idle(capacity - 2)
            .expiry(Duration::from_secs(10))
            .clock(clock.clone())
            .spawner(spawner.clone())
            .build()
            .unwrap();
        let stuck = occupy(&pool, 1);
        let other = occupy(&pool, capacity - 2);
        teach_tiny(&pool, &clock);
        // Waiting on its signal: past the lock under which it took the watch.
        assert!(eventually(|| spawner.parked() == 1), "the watcher parks");
        other.open();
        let parked = capacity - 1;
        assert!(eventually(|| spawner.parked() == parked), "the others park");
        clock.advance(Duration::from_secs(10));
        let ran = Counter::new();
        let r = ran.clone();
        pool.submit(move || r.add()).unwrap();
        assert_eq!(pool.idle(), parked, "the task is left to the stuck worker");
        assert_eq!(pool.purge(), 1, "capacity {capacity}: the watcher expired");
        assert!(
            ran.reaches(1),
            "capacity {capacity}: the task ran beside the stuck worker"
        );
        stuck.open();
        pool.release_timeout(PATIENCE).unwrap();
    }
}

/// A worker keeping watch beside a stuck one retires at its expiry as any
/// idle worker does: with nothing queued, its looks at the queue wake
/// nobody (itself included), so its idle time runs on.
///
/// (The clock is a manual one, as above; the watcher reaps itself when it
/// finds its expiry passed on its next look.)
#[test]
fn a_watcher_beside_a_stuck_worker_retires_at_its_expiry() {
    let (pool, stuck) = watcher_past_its_expiry(true);
    assert!(
        eventually(|| pool.running() == 1),
        "the watcher expired beside the stuck worker"
    );
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A worker keeping watch beside a stuck one that `tune` retires (the pool
/// shrunk below it) takes the watch with it: once the pool grows again, a
/// task submitted still runs while the stuck worker holds on, rather than
/// waiting behind it for a watch nobody keeps any more.
///
/// (A manual clock, as above; the test spawner tells when the other worker
/// has parked, so that `tune` finds it in the idle queue.)
#[test]
fn a_task_beside_a_stuck_worker_runs_after_tune_retired_the_watcher() {
    let (pool, clock, spawner) = on_manual_clock(Pool::builder().capacity(2));
    let stuck = occupy(&pool, 1);
    teach_tiny(&pool, &clock);
    assert!(
        eventually(|| spawner.parked() == 1),
        "the other worker parks"
    );
    pool.tune(1);
    assert!(
        eventually(|| pool.running() == 1),
        "tune retired the parked worker"
    );
    pool.tune(2);
    assert!(
        runs_beside_the_stuck_one(&pool),
        "a task ran beside the stuck worker"
    );
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A watcher that resigns (its looks found nothing queued and nobody busy)
/// ends the watch: a worker stuck later still holds up nothing, as no
/// submitter leaves a task to it on a watch nobody keeps.
///
/// (A manual clock, as above. The pause lets the watcher's quiet looks run
/// out; without it the test still passes, only less sharply.)
#[test]
fn a_task_beside_a_stuck_worker_runs_after_the_watcher_resigned() {
    let (pool, clock, _) = on_manual_clock(Pool::builder().capacity(2));
    let first = occupy(&pool, 1);
    teach_tiny(&pool, &clock);
    assert!(eventually(|| pool.idle() == 1), "the other worker parks");
    // Nobody busy from here: the watcher's looks are quiet, and it resigns.
    first.open();
    assert!(eventually(|| pool.idle() == 2), "both workers park");
    std::thread::sleep(Duration::from_millis(50));
    let stuck = occupy(&pool, 1);
    assert!(
        runs_beside_the_stuck_one(&pool),
        "a task ran beside the stuck worker"
    );
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A watcher whose rescue woke another parked worker keeps its watch: task
/// after task left beside the stuck worker runs, not only the first.
///
/// (Capacity 3: besides the stuck worker and the watcher, a third worker
/// parks above the watcher in the idle queue, so the rescue wakes that one.)
#[test]
fn a_watcher_keeps_watch_after_its_rescue_woke_another_worker() {
    let (pool, clock, _) = on_manual_clock(Pool::builder().capacity(3));
    let stuck = occupy(&pool, 1);
    let other = occupy(&pool, 1);
    teach_tiny(&pool, &clock);
    assert!(eventually(|| pool.idle() == 1), "the watcher parks");
    other.open();
    assert!(eventually(|| pool.idle() == 2), "the third worker parks");
    each_runs_beside_the_stuck_one(&pool, 4, 2);
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}
