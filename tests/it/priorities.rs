//! Priorities: three levels, a queue and a line of blocked submitters per
//! level, `High` first and FIFO within a level, never preemptive; the
//! reserve for `High` in a hand-off pool, and what every level shares
//! (`max_blocking_tasks`, release, drain). The starvation bound is in
//! `starvation.rs`.

use crate::common;

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use antpool::{Pool, PoolWithFunc, Priority};
use common::{PATIENCE, eventually, occupy};

use Priority::{High, Low, Normal};

/// Where tasks write their names as they start.
pub(crate) type Log = Arc<Mutex<Vec<String>>>;

pub(crate) fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

/// A task that writes `name` to `log` as it starts.
pub(crate) fn named(log: &Log, name: impl Into<String>) -> impl FnOnce() + Send + 'static {
    let (log, name) = (log.clone(), name.into());
    move || log.lock().unwrap().push(name)
}

pub(crate) fn started(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

/// A pool of one worker with a queue of `queue` per level.
fn one_worker(queue: usize, priorities: bool) -> Pool {
    Pool::builder()
        .capacity(1)
        .max_queued_tasks(queue)
        .priorities(priorities)
        .build()
        .unwrap()
}

#[test]
fn one_worker_takes_the_highest_level_first_and_fifo_within() {
    let pool = one_worker(8, true);
    let gate = occupy(&pool, 1);
    let log = log();
    for (level, name) in [
        (Low, "L1"),
        (Normal, "N1"),
        (High, "H1"),
        (Low, "L2"),
        (High, "H2"),
        (Normal, "N2"),
    ] {
        pool.with_priority(level).submit(named(&log, name)).unwrap();
    }
    assert_eq!(pool.queued_at(High), 2);
    assert_eq!(pool.queued_at(Normal), 2);
    assert_eq!(pool.queued_at(Low), 2);
    assert_eq!(pool.queued(), 6);
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(started(&log), ["H1", "H2", "N1", "N2", "L1", "L2"]);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn without_priorities_every_level_goes_in_submission_order() {
    let pool = one_worker(8, false);
    assert!(!pool.has_priorities());
    let gate = occupy(&pool, 1);
    let log = log();
    for (level, name) in [(Low, "L1"), (Normal, "N1"), (High, "H1"), (Low, "L2")] {
        pool.with_priority(level).submit(named(&log, name)).unwrap();
    }
    assert_eq!(
        pool.queued_at(High),
        4,
        "one queue: every level sees it all"
    );
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(started(&log), ["L1", "N1", "H1", "L2"]);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn each_level_has_its_own_room_in_a_queue_pool() {
    let pool = one_worker(2, true);
    let gate = occupy(&pool, 1);
    for _ in 0..2 {
        pool.with_priority(Low).try_submit(|| ()).unwrap();
    }
    let err = pool.with_priority(Low).try_submit(|| ()).unwrap_err();
    assert!(err.is_overload(), "Low's queue is full");
    pool.with_priority(High).try_submit(|| ()).unwrap();
    pool.with_priority(Normal).try_submit(|| ()).unwrap();
    assert_eq!([High, Normal, Low].map(|l| pool.queued_at(l)), [1, 1, 2]);
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn blocked_submitters_of_a_hand_off_pool_are_served_by_level() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .priorities(true)
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    let log = log();
    let mut threads = Vec::new();
    // Arrivals: A at Low, B and C at High, D (async) at Normal, one at a time.
    for (level, name) in [(Low, "A"), (High, "B"), (High, "C")] {
        let (p, task) = (pool.clone(), named(&log, name));
        let before = pool.waiting();
        threads.push(thread::spawn(move || {
            p.with_priority(level).submit(task).unwrap()
        }));
        assert!(eventually(|| pool.waiting() == before + 1));
    }
    let (p, task) = (pool.clone(), named(&log, "D"));
    threads.push(thread::spawn(move || {
        futures_executor::block_on(p.with_priority(Normal).submit_async(task)).unwrap()
    }));
    assert!(eventually(|| pool.waiting() == 4));
    gate.open();
    for t in threads {
        t.join().unwrap();
    }
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(started(&log), ["B", "C", "D", "A"]);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_newcomer_never_passes_a_waiter_of_its_own_level_in_a_queue_pool() {
    let pool = Arc::new(one_worker(1, true));
    let gate = occupy(&pool, 1);
    pool.with_priority(Normal).submit(|| ()).unwrap(); // Normal's queue is full
    let p = pool.clone();
    let waiter = thread::spawn(move || p.with_priority(Normal).submit(|| ()).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    assert!(
        pool.with_priority(Normal)
            .try_submit(|| ())
            .unwrap_err()
            .is_overload()
    );
    // Other levels' queues have room: they take nothing from the waiter.
    pool.with_priority(High).try_submit(|| ()).unwrap();
    pool.with_priority(Low).try_submit(|| ()).unwrap();
    gate.open();
    waiter.join().unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(pool.stats().completed, 5);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn max_blocking_tasks_counts_every_level() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .priorities(true)
            .max_blocking_tasks(2)
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    let mut threads = Vec::new();
    for level in [Low, High] {
        let p = pool.clone();
        let before = pool.waiting();
        threads.push(thread::spawn(move || {
            p.with_priority(level).submit(|| ()).unwrap()
        }));
        assert!(eventually(|| pool.waiting() == before + 1));
    }
    for level in [Low, Normal, High] {
        let err = pool.with_priority(level).submit(|| ()).unwrap_err();
        assert!(err.is_overload(), "{level:?}");
    }
    gate.open();
    for t in threads {
        t.join().unwrap();
    }
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_hand_off_pool_keeps_its_reserve_for_high() {
    let pool = Pool::builder()
        .capacity(4)
        .priorities(true)
        .reserve_for_high(1)
        .build()
        .unwrap();
    let gate = common::Gate::new();
    let running = common::Counter::new();
    for _ in 0..3 {
        let (g, r) = (gate.clone(), running.clone());
        pool.with_priority(Low)
            .try_submit(move || {
                r.add();
                g.wait();
            })
            .unwrap();
    }
    assert!(running.reaches(3));
    assert!(
        pool.with_priority(Low)
            .try_submit(|| ())
            .unwrap_err()
            .is_overload(),
        "the fourth place is High's"
    );
    assert!(
        pool.with_priority(Normal)
            .try_submit(|| ())
            .unwrap_err()
            .is_overload()
    );
    let (tx, rx) = std::sync::mpsc::channel();
    pool.with_priority(High)
        .try_submit(move || tx.send(()).unwrap())
        .unwrap();
    rx.recv_timeout(PATIENCE).expect("High starts at once");
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    // Tuned down to one, the reserve leaves that one to every level.
    pool.tune(1);
    pool.with_priority(Low).try_submit(|| ()).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    pool.release_timeout(PATIENCE).unwrap();
}

/// A submitter that waits behind the reserve for `High` is served by the
/// worker whose task made room for it: that worker runs the waiter's task
/// next, so the pool needs no new thread for it (here none could start,
/// though the capacity leaves room for one).
#[test]
fn a_waiter_behind_the_reserve_is_served_by_the_worker_that_made_room() {
    let spawner = common::TestSpawner::failing(|n| n >= 1);
    let pool = Arc::new(
        Pool::builder()
            .capacity(2)
            .priorities(true)
            .reserve_for_high(1)
            .spawner(spawner.clone())
            .build()
            .unwrap(),
    );
    // One `Normal` task takes the one place the reserve leaves `Normal`.
    let gate = occupy(&*pool, 1);
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || pool.submit(move || tx.send(()).unwrap()).is_ok())
    };
    assert!(eventually(|| pool.waiting() == 1));
    gate.open();
    assert!(waiter.join().unwrap(), "the waiter is served");
    rx.recv_timeout(PATIENCE).expect("its task runs");
    assert_eq!(
        spawner.attempts.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "on the worker the pool had"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn release_drain_hands_back_high_normal_low_each_task_once() {
    let pool = one_worker(8, true);
    let gate = occupy(&pool, 1);
    let log = log();
    for (level, name) in [
        (Normal, "N1"),
        (Low, "L1"),
        (High, "H1"),
        (Normal, "N2"),
        (High, "H2"),
    ] {
        pool.with_priority(level).submit(named(&log, name)).unwrap();
    }
    for task in pool.release_drain() {
        task.run();
    }
    assert_eq!(started(&log), ["H1", "H2", "N1", "N2", "L1"]);
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));

    // A function pool with levels drains its arguments the same way.
    let gate = common::Gate::new();
    let g = gate.clone();
    let calls = PoolWithFunc::builder(move |n: u32| {
        if n == 0 {
            g.wait();
        }
    })
    .capacity(1)
    .max_queued_tasks(8)
    .priorities(true)
    .build()
    .unwrap();
    calls.invoke(0).unwrap();
    assert!(eventually(|| calls.queued() == 0 && calls.running() == 1));
    for (level, n) in [(Low, 1), (High, 2), (Normal, 3), (High, 4)] {
        calls.with_priority(level).invoke(n).unwrap();
    }
    assert_eq!(calls.release_drain(), [2, 4, 3, 1]);
    gate.open();
}

#[test]
fn a_low_timeout_behind_high_waiters_leaves_no_trace() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .priorities(true)
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    let p = pool.clone();
    let high = thread::spawn(move || p.with_priority(High).submit(|| ()).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    let err = pool
        .with_priority(Low)
        .submit_timeout(|| unreachable!("timed out"), Duration::from_millis(20))
        .unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(pool.waiting(), 1, "only the High waiter is left");
    gate.open();
    high.join().unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(pool.waiting(), 0);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_dropped_high_async_submit_passes_its_turn_to_the_next_high() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .priorities(true)
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    let log = log();
    // A Low waiter, then a High async one that will be dropped, then a High thread.
    let (p, low) = (pool.clone(), named(&log, "low"));
    let low = thread::spawn(move || p.with_priority(Low).submit(low).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    let mut dropped = Box::pin(
        pool.with_priority(High)
            .submit_async(named(&log, "dropped")),
    );
    let (waker, _) = common::poll::counting_waker();
    assert!(eventually(|| {
        let _ = dropped
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker));
        pool.waiting() == 2
    }));
    let (p, high) = (pool.clone(), named(&log, "high"));
    let high = thread::spawn(move || p.with_priority(High).submit(high).unwrap());
    assert!(eventually(|| pool.waiting() == 3));
    drop(dropped);
    assert_eq!(pool.waiting(), 2);
    gate.open();
    low.join().unwrap();
    high.join().unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(started(&log), ["high", "low"]);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_task_handed_to_an_idle_worker_starts_at_once_whatever_its_level() {
    let pool = Pool::builder()
        .capacity(2)
        .max_queued_tasks(4)
        .priorities(true)
        .build()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    pool.with_priority(Low)
        .submit(move || tx.send(()).unwrap())
        .unwrap();
    rx.recv_timeout(PATIENCE).expect("Low runs on an idle pool");
    pool.release_timeout(PATIENCE).unwrap();
}

/// `queued` is the number of tasks waiting, summed over the levels: each
/// level's tasks counted once.
#[test]
fn queued_counts_the_tasks_of_every_level() {
    let pool = one_worker(8, true);
    assert!(pool.has_priorities());
    let gate = occupy(&pool, 1);
    for level in [High, Normal, Low] {
        pool.with_priority(level).submit(|| ()).unwrap();
    }
    assert_eq!(pool.queued(), 3);
    pool.with_priority(Normal).submit(|| ()).unwrap();
    assert_eq!(pool.queued(), 4);
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(pool.queued(), 0);
    pool.release_timeout(PATIENCE).unwrap();
}

/// A paused pool with a task queued at any level is not idle: `wait_idle`
/// waits for that task, whatever its level.
#[test]
fn a_task_queued_at_any_level_keeps_a_paused_pool_from_being_idle() {
    for level in [High, Normal, Low] {
        let pool = one_worker(4, true);
        pool.pause();
        let ran = common::Counter::new();
        let r = ran.clone();
        pool.with_priority(level).submit(move || r.add()).unwrap();
        assert!(
            !pool.wait_idle_timeout(Duration::from_millis(50)),
            "{level:?}: a queued task is not idle"
        );
        pool.resume();
        assert!(pool.wait_idle_timeout(PATIENCE), "{level:?}");
        assert_eq!(ran.get(), 1, "{level:?}");
        pool.release_timeout(PATIENCE).unwrap();
    }
}
