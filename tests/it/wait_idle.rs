//! `wait_idle`: block until nothing is running, queued or waiting; the pool
//! stays open.

use crate::common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use antpool::{Pool, PoolWithFunc};
use common::{Counter, eventually, occupy};

#[test]
fn wait_idle_returns_once_every_task_has_finished() {
    let pool = Pool::new(4).unwrap();
    let done = Counter::new();
    for _ in 0..200 {
        let d = done.clone();
        pool.submit(move || {
            thread::sleep(Duration::from_micros(100));
            d.add();
        })
        .unwrap();
    }
    pool.wait_idle();
    assert_eq!(done.get(), 200);
    assert!(!pool.is_closed());
    assert_eq!(pool.idle(), pool.running());
    // The pool is still usable.
    let d = done.clone();
    pool.submit(move || d.add()).unwrap();
    pool.wait_idle();
    assert_eq!(done.get(), 201);
}

#[test]
fn wait_idle_on_an_idle_or_unused_pool_returns_at_once() {
    let pool = Pool::new(2).unwrap();
    pool.wait_idle();
    assert!(pool.wait_idle_timeout(Duration::ZERO));
}

#[test]
fn wait_idle_timeout_reports_a_pool_that_stays_busy() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    assert!(!pool.wait_idle_timeout(Duration::from_millis(30)));
    gate.open();
    assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
}

#[test]
fn wait_idle_counts_blocked_submitters_and_queued_tasks() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .max_queued_tasks(1)
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    pool.submit(|| ()).unwrap(); // queued
    let p = pool.clone();
    let blocked = thread::spawn(move || p.submit(|| ()).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    let waiter = {
        let pool = pool.clone();
        thread::spawn(move || pool.wait_idle())
    };
    thread::sleep(Duration::from_millis(20));
    assert!(
        !waiter.is_finished(),
        "a queued task and a waiter are pending"
    );
    gate.open();
    waiter.join().unwrap();
    blocked.join().unwrap();
    assert_eq!(pool.queued(), 0);
    assert_eq!(pool.waiting(), 0);
    assert_eq!(pool.stats().completed, 3);
}

#[test]
fn many_threads_can_wait_for_idle_at_once() {
    let pool =
        Arc::new(PoolWithFunc::new(2, |ms: u64| thread::sleep(Duration::from_millis(ms))).unwrap());
    pool.invoke(30).unwrap();
    pool.invoke(30).unwrap();
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let pool = pool.clone();
            thread::spawn(move || pool.wait_idle_timeout(Duration::from_secs(10)))
        })
        .collect();
    for w in waiters {
        assert!(w.join().unwrap());
    }
}

#[test]
fn wait_idle_returns_when_a_release_leaves_nothing_to_do() {
    let pool = Arc::new(Pool::new(1).unwrap());
    let gate = occupy(&pool, 1);
    let waiter = {
        let pool = pool.clone();
        thread::spawn(move || pool.wait_idle_timeout(Duration::from_secs(10)))
    };
    thread::sleep(Duration::from_millis(10));
    pool.release();
    gate.open();
    assert!(waiter.join().unwrap());
}
