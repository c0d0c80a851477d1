//! `MultiPool` / `MultiPoolWithFunc`: balancing, fallback, sums, lifecycle.

use crate::common;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use antpool::{BuildError, LoadBalancing, MultiPool, MultiPoolWithFunc, Pool, ReleaseError};
use common::{Counter, Gate, eventually};

/// Submits a task that holds its worker until `gate` opens, and waits until it runs.
fn hold(mp: &MultiPool, gate: &Gate) {
    let started = Counter::new();
    let (s, g) = (started.clone(), gate.clone());
    mp.submit(move || {
        s.add();
        g.wait();
    })
    .unwrap();
    assert!(started.reaches(1));
}

#[test]
fn round_robin_starts_at_pool_zero_and_goes_in_turn() {
    let mp = MultiPool::new(3, 2, LoadBalancing::RoundRobin).unwrap();
    let gate = Gate::new();
    let mut expected = [0; 3];
    for i in 0..6 {
        hold(&mp, &gate);
        expected[i % 3] += 1;
        let seen: Vec<_> = (0..3).map(|p| mp.running_by_index(p).unwrap()).collect();
        assert_eq!(seen, expected, "after task {i}");
    }
    gate.open();
}

#[test]
fn least_tasks_picks_the_pool_with_fewest_running_first_on_ties() {
    let mp = MultiPool::new(3, 4, LoadBalancing::LeastTasks).unwrap();
    let gate = Gate::new();
    hold(&mp, &gate); // all tie at 0: pool 0
    assert_eq!(mp.running_by_index(0), Some(1));
    hold(&mp, &gate); // pool 1
    hold(&mp, &gate); // pool 2
    hold(&mp, &gate); // tie at 1: pool 0
    let seen: Vec<_> = (0..3).map(|p| mp.running_by_index(p).unwrap()).collect();
    assert_eq!(seen, [2, 1, 1]);
    gate.open();
}

#[test]
fn round_robin_retries_an_overloaded_pick_on_the_least_loaded_pool() {
    let builder = Pool::builder().capacity(2).nonblocking(true);
    let mp = MultiPool::from_builder(2, LoadBalancing::RoundRobin, builder).unwrap();
    let gate = Gate::new();
    hold(&mp, &gate); // pool 0: 1 busy
    let quick = Counter::new();
    let q = quick.clone();
    mp.submit(move || q.add()).unwrap(); // pool 1: runs and goes idle
    assert!(quick.reaches(1));
    assert!(eventually(|| mp.running_by_index(1) == Some(1)));
    hold(&mp, &gate); // pool 0: 2 busy, saturated
    hold(&mp, &gate); // pool 1: reuses its idle worker
    // Round robin picks pool 0 (saturated, nonblocking: Overload), then retries
    // on pool 1, which has room for one more worker.
    hold(&mp, &gate);
    assert_eq!(mp.running_by_index(0), Some(2));
    assert_eq!(mp.running_by_index(1), Some(2));
    // Everything saturated now: the retry fails too, and the task comes back.
    assert!(mp.submit(|| ()).unwrap_err().is_overload());
    gate.open();
}

#[test]
fn counts_are_sums_and_by_index_checks_the_index() {
    let mp = MultiPool::new(2, 3, LoadBalancing::RoundRobin).unwrap();
    assert_eq!(mp.running_by_index(2), None, "two pools");
    assert_eq!(mp.cap(), Some(6));
    assert_eq!(mp.free(), Some(6));
    let gate = Gate::new();
    hold(&mp, &gate);
    hold(&mp, &gate);
    hold(&mp, &gate);
    assert_eq!(mp.running(), 3);
    assert_eq!(mp.free(), Some(3));
    assert_eq!(mp.waiting(), 0);
    assert_eq!(mp.running_by_index(0), Some(2));
    assert_eq!(mp.free_by_index(1), Some(2));
    assert_eq!(mp.waiting_by_index(1), Some(0));
    assert_eq!(mp.running_by_index(2), None);
    assert_eq!(mp.free_by_index(2), None);
    assert_eq!(mp.waiting_by_index(usize::MAX), None);
    mp.tune(5);
    assert_eq!(mp.cap(), Some(10));
    gate.open();
    mp.release_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(mp.running(), 0);
    let unbounded =
        MultiPool::from_builder(2, LoadBalancing::RoundRobin, Pool::builder().unbounded()).unwrap();
    assert_eq!(unbounded.cap(), None);
    assert_eq!(unbounded.free(), None);
}

#[test]
fn zero_pools_is_an_error() {
    assert_eq!(
        MultiPool::new(0, 4, LoadBalancing::LeastTasks).unwrap_err(),
        BuildError::InvalidMultiPoolSize
    );
    assert_eq!(
        MultiPool::new(2, 0, LoadBalancing::LeastTasks).unwrap_err(),
        BuildError::InvalidCapacity
    );
}

#[test]
fn release_timeout_releases_the_pools_concurrently() {
    let mp = MultiPool::new(4, 1, LoadBalancing::RoundRobin).unwrap();
    for _ in 0..4 {
        mp.submit(|| thread::sleep(Duration::from_millis(150)))
            .unwrap();
    }
    let start = Instant::now();
    mp.release_timeout(Duration::from_secs(10)).unwrap();
    let took = start.elapsed();
    assert!(
        took < Duration::from_millis(500),
        "took {took:?}: not one pool after another"
    );
    assert_eq!(mp.running(), 0);
    assert_eq!(
        mp.release_timeout(Duration::from_secs(1)),
        Err(ReleaseError::Closed)
    );
}

#[test]
fn release_timeout_reports_every_pool_that_did_not_finish() {
    let mp = MultiPool::new(3, 1, LoadBalancing::RoundRobin).unwrap();
    let gate = Gate::new();
    hold(&mp, &gate); // pool 0 stuck
    mp.submit(|| ()).unwrap(); // pool 1 quick
    hold(&mp, &gate); // pool 2 stuck
    let err = mp.release_timeout(Duration::from_millis(50)).unwrap_err();
    assert_eq!(
        err,
        ReleaseError::Pools(vec![(0, ReleaseError::Timeout), (2, ReleaseError::Timeout)])
    );
    assert!(err.to_string().contains("pool 0: ") && err.to_string().contains(" | pool 2: "));
    gate.open();
    assert!(eventually(|| mp.running() == 0));
}

/// `release_timeout`'s timeout bounds the whole call, not each pool's wait:
/// with every pool stuck, it returns after about one timeout.
#[test]
fn release_timeout_shares_one_timeout_among_the_pools() {
    let mp = MultiPool::new(4, 1, LoadBalancing::RoundRobin).unwrap();
    let gate = Gate::new();
    for _ in 0..4 {
        hold(&mp, &gate);
    }
    let timeout = Duration::from_millis(200);
    let start = Instant::now();
    let err = mp.release_timeout(timeout).unwrap_err();
    let took = start.elapsed();
    assert!(matches!(err, ReleaseError::Pools(ref pools) if pools.len() == 4));
    // One timeout, plus slack for a loaded machine; four would be 800 ms.
    assert!(
        took >= timeout && took < timeout * 3,
        "took {took:?} for a {timeout:?} timeout over 4 pools"
    );
    gate.open();
    assert!(eventually(|| mp.running() == 0));
}

#[test]
fn release_and_reboot_cover_every_pool() {
    let mp = MultiPool::new(2, 2, LoadBalancing::RoundRobin).unwrap();
    mp.submit(|| ()).unwrap();
    mp.release_timeout(Duration::from_secs(5)).unwrap();
    assert!(mp.is_closed());
    assert!(mp.submit(|| ()).unwrap_err().is_closed());
    assert_eq!(mp.running(), 0);
    mp.reboot();
    assert!(!mp.is_closed());
    // Round robin starts over at pool 0.
    let gate = Gate::new();
    hold(&mp, &gate);
    assert_eq!(mp.running_by_index(0), Some(1));
    gate.open();
}

#[test]
fn many_threads_submitting_lose_nothing() {
    let mp = Arc::new(MultiPool::new(4, 2, LoadBalancing::LeastTasks).unwrap());
    let done = Counter::new();
    let submitters: Vec<_> = (0..4)
        .map(|_| {
            let (mp, done) = (mp.clone(), done.clone());
            thread::spawn(move || {
                for _ in 0..2_500 {
                    let d = done.clone();
                    mp.submit(move || d.add()).unwrap();
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    mp.release_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(done.get(), 10_000);
}

#[test]
fn multi_pool_with_func_invokes_and_balances() {
    let total = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let t = total.clone();
    let mf = MultiPoolWithFunc::new(3, 2, LoadBalancing::RoundRobin, move |n: u64| {
        t.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        n * 10
    })
    .unwrap();
    for n in 1..=30 {
        mf.invoke(n).unwrap();
    }
    assert!(
        (0..3).all(|i| mf.running_by_index(i) >= Some(1)),
        "spread over the pools"
    );
    mf.release_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(total.load(std::sync::atomic::Ordering::Relaxed), 465);
    assert_eq!(mf.invoke(1).unwrap_err().into_inner(), 1);
}
