//! Submitting and hand-off: every task runs once, workers are started up to the
//! capacity (counted before `submit` returns) and reused afterwards.

use crate::common;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

use antpool::{IdleQueue, Pool, PoolWithFunc, WorkerRing};
use common::{Counter, Gate, TestSpawner, counted_pool, eventually, occupy, submit_counted};

#[test]
fn every_task_runs_exactly_once() {
    let pool = Pool::new(8).unwrap();
    let seen = Arc::new(Mutex::new(vec![0u8; 10_000]));
    for i in 0..10_000 {
        let seen = seen.clone();
        pool.submit(move || seen.lock().unwrap()[i] += 1).unwrap();
    }
    pool.release_timeout(Duration::from_secs(30)).unwrap();
    assert!(seen.lock().unwrap().iter().all(|&n| n == 1));
}

#[test]
fn running_counts_a_new_worker_before_submit_returns() {
    let pool = Pool::new(4).unwrap();
    let gate = Gate::new();
    for i in 1..=4 {
        let gate = gate.clone();
        pool.submit(move || gate.wait()).unwrap();
        assert_eq!(pool.running(), i, "after submit #{i}");
        assert_eq!(pool.free(), Some(4 - i));
    }
    gate.open();
}

#[test]
fn idle_workers_are_reused_instead_of_starting_threads() {
    let (pool, spawner) = counted_pool(4);
    let threads = Arc::new(Mutex::new(HashSet::<ThreadId>::new()));
    // Strictly sequential: each task finishes before the next is submitted, so one
    // worker serves them all.
    for _ in 0..50 {
        let (threads, done) = (threads.clone(), Counter::new());
        let d = done.clone();
        pool.submit(move || {
            threads.lock().unwrap().insert(thread::current().id());
            d.add();
        })
        .unwrap();
        assert!(done.reaches(1));
        assert!(eventually(|| pool.idle() == 1));
    }
    assert_eq!(threads.lock().unwrap().len(), 1);
    assert_eq!(spawner.started.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(pool.running(), 1);
}

#[test]
fn never_more_workers_than_the_capacity() {
    let spawner = TestSpawner::new();
    let pool = Arc::new(
        Pool::builder()
            .capacity(3)
            .spawner(spawner.clone())
            .build()
            .unwrap(),
    );
    let peak = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let submitters: Vec<_> = (0..4)
        .map(|_| {
            let (pool, peak) = (pool.clone(), peak.clone());
            thread::spawn(move || {
                for _ in 0..500 {
                    let p = pool.clone();
                    let peak = peak.clone();
                    pool.submit(move || {
                        peak.fetch_max(p.running(), std::sync::atomic::Ordering::SeqCst);
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    pool.release_timeout(Duration::from_secs(30)).unwrap();
    assert!(peak.load(std::sync::atomic::Ordering::SeqCst) <= 3);
    assert!(spawner.started.load(std::sync::atomic::Ordering::SeqCst) <= 3);
}

#[test]
fn an_unbounded_pool_starts_a_worker_whenever_none_is_idle() {
    let pool = Pool::unbounded();
    let gate = Gate::new();
    let started = Counter::new();
    for _ in 0..64 {
        let (gate, started) = (gate.clone(), started.clone());
        pool.submit(move || {
            started.add();
            gate.wait();
        })
        .unwrap();
    }
    assert!(started.reaches(64), "64 tasks run at once");
    assert_eq!(pool.running(), 64);
    assert_eq!(pool.cap(), None);
    assert_eq!(pool.free(), None);
    gate.open();
    pool.release_timeout(Duration::from_secs(10)).unwrap();
}

#[test]
fn try_submit_hands_off_like_submit_when_a_worker_is_free() {
    let pool = Pool::new(2).unwrap();
    let done = Counter::new();
    let d = done.clone();
    pool.try_submit(move || d.add()).unwrap();
    assert!(done.reaches(1));
}

#[test]
fn pool_with_func_passes_each_argument_once() {
    let sum = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let s = sum.clone();
    let pool = PoolWithFunc::new(4, move |n: u64| {
        s.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    for n in 1..=1000 {
        pool.invoke(n).unwrap();
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(sum.load(std::sync::atomic::Ordering::Relaxed), 500_500);
}

fn run_on<Q: antpool::port::WorkerQueue>(pool: &Pool<Q>, tasks: usize) -> usize {
    let done = submit_counted(pool, tasks);
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    done.get()
}

#[test]
fn pools_with_fixed_queue_types_work() {
    let stack: Pool<IdleQueue> = Pool::builder()
        .capacity(2)
        .queue::<IdleQueue>()
        .build()
        .unwrap();
    assert_eq!(run_on(&stack, 500), 500);
    let ring: Pool<WorkerRing<2>> = Pool::builder()
        .capacity(2)
        .queue::<WorkerRing<2>>()
        .build()
        .unwrap();
    assert_eq!(run_on(&ring, 500), 500);
    let prealloc = Pool::builder().capacity(2).prealloc(true).build().unwrap();
    assert_eq!(run_on(&prealloc, 500), 500);
}

#[test]
fn a_full_ring_retires_the_surplus_worker_instead_of_parking_it() {
    let spawner = TestSpawner::new();
    // Capacity 3, but only one idle slot: of three workers, two must retire.
    let pool: Pool<WorkerRing<1>, _, _> = Pool::builder()
        .capacity(3)
        .queue::<WorkerRing<1>>()
        .spawner(spawner.clone())
        .build()
        .unwrap();
    let gate = occupy(&pool, 3);
    assert_eq!(pool.running(), 3);
    gate.open();
    assert!(eventually(|| pool.running() == 1 && spawner.live() == 1));
    assert_eq!(pool.idle(), 1);
}

/// A pool that has learned its tasks are tiny leaves some of them to a busy
/// worker's next turn (speculation, see `engine/README.md`). That busy worker
/// may block: a task must still start promptly on another worker.
#[test]
fn a_task_never_waits_long_behind_a_blocked_worker() {
    let pool = antpool::Pool::new(4).unwrap();
    for round in 0..50 {
        // A stream of tiny tasks: the pool learns they are tiny.
        let done = Counter::new();
        for _ in 0..2_000 {
            let d = done.clone();
            pool.submit(move || d.add()).unwrap();
        }
        // Then one that blocks, and right after it a tiny one.
        let gate = Gate::new();
        let g = gate.clone();
        pool.submit(move || g.wait()).unwrap();
        let quick = Counter::new();
        let q = quick.clone();
        let submitted = std::time::Instant::now();
        pool.submit(move || q.add()).unwrap();
        assert!(
            quick.reaches(1),
            "round {round}: the tiny task waited behind the blocked one"
        );
        let waited = submitted.elapsed();
        gate.open();
        assert!(done.reaches(2_000));
        assert!(
            waited < Duration::from_millis(250),
            "round {round}: the tiny task waited {waited:?}"
        );
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
}
