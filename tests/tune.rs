//! `tune`: growing serves blocked submitters at once; shrinking retires surplus
//! workers (idle ones at once, busy ones when they finish); some pools ignore it.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use antpool::Pool;
use common::{Counter, counted_pool, eventually, occupy};

#[test]
fn growing_starts_workers_for_blocked_submitters_at_once() {
    let (pool, _spawner) = counted_pool(1);
    let pool = Arc::new(pool);
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    let submitters: Vec<_> = (0..3)
        .map(|_| {
            let (pool, ran, gate) = (pool.clone(), ran.clone(), gate.clone());
            thread::spawn(move || {
                pool.submit(move || {
                    ran.add();
                    gate.wait();
                })
                .unwrap()
            })
        })
        .collect();
    assert!(eventually(|| pool.waiting() == 3));
    pool.tune(4);
    assert_eq!(pool.cap(), Some(4));
    // The first worker is still held: the three tasks run on three new workers.
    assert!(ran.reaches(3));
    assert_eq!(pool.waiting(), 0);
    assert_eq!(pool.running(), 4);
    for s in submitters {
        s.join().unwrap();
    }
    gate.open();
}

#[test]
fn growing_by_less_than_the_queue_serves_the_oldest_waiters() {
    let (pool, _spawner) = counted_pool(1);
    let pool = Arc::new(pool);
    let gate = occupy(&pool, 1);
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut submitters = Vec::new();
    for i in 0..3 {
        let (p, o, g) = (pool.clone(), order.clone(), gate.clone());
        submitters.push(thread::spawn(move || {
            p.submit(move || {
                o.lock().unwrap().push(i);
                g.wait();
            })
            .unwrap()
        }));
        assert!(eventually(|| pool.waiting() == i + 1));
    }
    pool.tune(2); // room for one more: the oldest waiter (0)
    assert!(eventually(|| order.lock().unwrap().len() == 1));
    assert_eq!(order.lock().unwrap()[0], 0);
    thread::sleep(Duration::from_millis(20));
    assert_eq!(
        order.lock().unwrap().len(),
        1,
        "only one more worker may run"
    );
    assert_eq!(pool.waiting(), 2);
    gate.open();
    for s in submitters {
        s.join().unwrap();
    }
}

#[test]
fn shrinking_retires_surplus_idle_workers_at_once() {
    let (pool, spawner) = counted_pool(4);
    occupy(&pool, 4).open();
    assert!(eventually(|| pool.idle() == 4));
    pool.tune(1);
    assert!(eventually(|| pool.running() == 1 && spawner.live() == 1));
    assert_eq!(pool.free(), Some(0));
}

#[test]
fn shrinking_retires_busy_workers_when_they_finish() {
    let (pool, spawner) = counted_pool(3);
    let gate = occupy(&pool, 3);
    pool.tune(1);
    assert_eq!(pool.running(), 3, "busy workers are not interrupted");
    assert_eq!(pool.free(), Some(0), "free never goes negative");
    gate.open();
    assert!(eventually(|| pool.running() == 1 && spawner.live() == 1));
    // And the cap holds from now on.
    let gate = occupy(&pool, 1);
    assert!(pool.try_submit(|| ()).unwrap_err().is_overload());
    gate.open();
}

#[test]
fn tune_is_ignored_for_zero_unbounded_and_prealloc_pools() {
    let pool = Pool::new(3).unwrap();
    pool.tune(0);
    assert_eq!(pool.cap(), Some(3));
    let unbounded = Pool::unbounded();
    unbounded.tune(5);
    assert_eq!(unbounded.cap(), None);
    let prealloc = Pool::builder().capacity(3).prealloc(true).build().unwrap();
    prealloc.tune(5);
    assert_eq!(prealloc.cap(), Some(3));
}

#[test]
fn tuning_up_and_down_under_load_loses_nothing() {
    let (pool, _spawner) = counted_pool(4);
    let pool = Arc::new(pool);
    let done = Counter::new();
    let tuner = {
        let pool = pool.clone();
        thread::spawn(move || {
            for i in 0..200 {
                pool.tune(1 + i % 6);
                thread::sleep(Duration::from_micros(200));
            }
        })
    };
    for _ in 0..20_000 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
    }
    tuner.join().unwrap();
    pool.release_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(done.get(), 20_000);
}
