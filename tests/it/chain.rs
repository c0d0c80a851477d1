//! The chain of wake-ups: a burst of tasks left to one awake looker (busy
//! workers crowding the CPUs, tasks not tiny) still gets a worker for each
//! task, passed on from worker to worker, while the busy workers stay stuck.

use crate::common;

use std::sync::atomic::Ordering::SeqCst;

use antpool::Pool;
use common::{Counter, Gate, PATIENCE, TestSpawner, occupy};

/// Three workers stuck on one CPU (twice the CPUs over: wake-ups chain) and
/// one looker counted awake: a burst submitted then is left to that looker
/// alone, with no wake-up per task. Once it runs, every task of the burst
/// gets a worker — the looker that takes one while more wait brings the
/// next — up to the capacity, without waiting for the stuck workers.
#[test]
fn a_burst_left_to_one_looker_gets_a_worker_for_each_task() {
    // One CPU; the fourth thread (the looker that `tune` starts below) held.
    let start = Gate::new();
    let spawner = TestSpawner::new().on_cpus(1).holding(3, &start);
    let pool = Pool::builder()
        .capacity(3)
        .unbounded_queue()
        .spawner(spawner.clone())
        .build()
        .unwrap();
    let stuck = occupy(&pool, 3);
    let (ran, burst) = (Counter::new(), Gate::new());
    let submit = || {
        let (ran, burst) = (ran.clone(), burst.clone());
        pool.submit(move || {
            ran.add();
            burst.wait();
        })
        .unwrap();
    };
    // At the capacity: the first task waits in the queue. Room for three
    // more: `tune` starts a looker for it, held before it runs.
    submit();
    pool.tune(6);
    assert_eq!(spawner.attempts.load(SeqCst), 4);
    // Two more, with a looker awake and the busy workers crowding the one
    // CPU: left to the looker (no thread started for them).
    submit();
    submit();
    assert_eq!(spawner.attempts.load(SeqCst), 4, "left to the looker");
    start.open();
    assert!(
        ran.reaches(3),
        "{} of the burst's 3 tasks ran beside the stuck workers",
        ran.get()
    );
    burst.open();
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}
