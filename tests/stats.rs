//! `Stats`: every counter, read without a lock.

mod common;

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
    assert_eq!(
        (s.completed, s.panicked, s.spawned, s.retired),
        (0, 0, 2, 0)
    );

    gate.open();
    blocked.join().unwrap();
    pool.wait_idle();
    let s = pool.stats();
    assert_eq!((s.running, s.idle, s.waiting, s.queued), (2, 2, 0, 0));
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
