//! `Stats`: every counter, read without a lock.

use crate::common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use antpool::port::ManualClock;
use antpool::{Pool, Stats};
use common::{TestSpawner, eventually, occupy};

#[test]
fn a_fresh_pool_counts_nothing() {
    let pool = Pool::new(2).unwrap();
    assert_eq!(pool.stats(), Stats::default());
}

#[test]
fn stats_follow_a_pool_through_its_life() {
    std::panic::set_hook(Box::new(|_| {}));
    let clock = Arc::new(ManualClock::new());
    let spawner = TestSpawner::new();
    let pool = Arc::new(
        Pool::builder()
            .capacity(2)
            .max_queued_tasks(3)
            .clock(clock.clone())
            .spawner(spawner.clone())
            .panic_handler(|_| ())
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 2);
    for _ in 0..3 {
        pool.submit(|| ()).unwrap(); // queued
    }
    let p = pool.clone();
    let blocked = thread::spawn(move || p.submit(|| panic!("counted")).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    let s = pool.stats();
    assert_eq!((s.running, s.idle, s.waiting, s.queued), (2, 0, 1, 3));
    assert_eq!(s.busy, 2, "both workers hold a task");
    assert_eq!(
        (s.completed, s.panicked, s.spawned, s.retired),
        (0, 0, 2, 0)
    );

    gate.open();
    blocked.join().unwrap();
    pool.wait_idle();
    let s = pool.stats();
    assert_eq!((s.running, s.idle, s.waiting, s.queued), (2, 2, 0, 0));
    assert_eq!((s.busy, s.skipped), (0, 0));
    assert_eq!(
        (s.completed, s.panicked, s.spawned, s.retired),
        (5, 1, 2, 0)
    );

    clock.advance(Duration::from_secs(1));
    // Both have expired: `purge` reaps them, unless a worker's own expiry
    // timer (real time, then the pool's clock decides) got there first, which
    // Miri's slow clock makes likely (seed 12). Either way none is left.
    assert!(pool.purge() <= 2);
    assert_eq!(pool.stats().running, 0);
    assert!(eventually(|| pool.stats().retired == 2));
    assert!(eventually(|| spawner.live() == 0));
}

#[test]
fn every_submission_handed_back_is_counted_as_rejected_and_no_other() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .max_blocking_tasks(1)
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    // Overload: the only worker is busy and `try_submit` may not wait.
    assert!(pool.try_submit(|| ()).unwrap_err().is_overload());
    // A blocked submit that later gets room is not a rejection...
    let p = pool.clone();
    let blocked = thread::spawn(move || p.submit(|| ()).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    // ... and with `max_blocking_tasks` reached, one more is Overload.
    assert!(pool.submit(|| ()).unwrap_err().is_overload());
    assert_eq!(pool.stats().rejected, 2);
    gate.open();
    blocked.join().unwrap();
    assert!(pool.wait_idle_timeout(Duration::from_secs(5)));
    assert_eq!(pool.stats().rejected, 2);
    // Closed.
    pool.release_timeout(Duration::from_secs(5)).unwrap();
    assert!(pool.submit(|| ()).unwrap_err().is_closed());
    assert!(pool.spawn(|| 1).unwrap_err().is_closed());
    assert_eq!(pool.stats().rejected, 4);
    // SpawnFailed.
    let failing = Pool::builder()
        .capacity(2)
        .spawner(TestSpawner::failing(|_| true))
        .build()
        .unwrap();
    assert!(failing.submit(|| ()).unwrap_err().is_spawn_failed());
    assert_eq!(failing.stats().rejected, 1);
    // Timeout.
    let timed = Pool::new(1).unwrap();
    let gate = occupy(&timed, 1);
    let err = timed
        .submit_timeout(|| (), Duration::from_millis(5))
        .unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(timed.stats().rejected, 1, "a timeout is a rejection too");
    gate.open();
}

#[test]
fn the_books_balance_aborted_tasks_are_skipped_and_cleared_ones_returned() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(8)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let ran: Vec<_> = (0..3).map(|_| pool.spawn(|| ()).unwrap()).collect();
    let aborted: Vec<_> = (0..2).map(|_| pool.spawn(|| ()).unwrap()).collect();
    for h in &aborted {
        assert!(h.abort());
    }
    // Aborted, they still hold their places in the queue until skipped.
    assert_eq!(pool.stats().queued, 5);
    gate.open();
    for h in ran {
        h.join().unwrap();
    }
    assert!(pool.wait_idle_timeout(Duration::from_secs(5)));
    let s = pool.stats();
    assert_eq!(
        (s.completed, s.skipped, s.queued),
        (4, 2, 0),
        "gate + 3 ran, 2 skipped"
    );
    // clear_queue's drops are its return value, not `skipped`.
    let gate = occupy(&pool, 1);
    pool.submit(|| ()).unwrap();
    assert_eq!(pool.clear_queue(), 1);
    gate.open();
    assert!(pool.wait_idle_timeout(Duration::from_secs(5)));
    assert_eq!(pool.stats().skipped, 2);
}

/// A pool's `Debug` names its type and shows what it holds now: capacity,
/// workers running and idle, submitters waiting, tasks queued, and whether
/// it is closed.
#[test]
fn a_pools_debug_shows_its_counts() {
    let pool = Pool::builder()
        .capacity(2)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    assert_eq!(
        format!("{pool:?}"),
        "Pool { cap: Some(2), running: 0, idle: 0, waiting: 0, queued: 0, closed: false }"
    );
    let gate = occupy(&pool, 2);
    pool.submit(|| {}).unwrap();
    assert_eq!(
        format!("{pool:?}"),
        "Pool { cap: Some(2), running: 2, idle: 0, waiting: 0, queued: 1, closed: false }"
    );
    gate.open();
    assert!(pool.wait_idle_timeout(common::PATIENCE));
    pool.release_timeout(common::PATIENCE).unwrap();
    assert_eq!(
        format!("{pool:?}"),
        "Pool { cap: Some(2), running: 0, idle: 0, waiting: 0, queued: 0, closed: true }"
    );
    let func = antpool::PoolWithFunc::new(1, |_: u8| ()).unwrap();
    assert!(format!("{func:?}").starts_with("PoolWithFunc { cap: Some(1), running: 0,"));
}
