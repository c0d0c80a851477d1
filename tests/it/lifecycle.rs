//! Lifecycle: release, release_timeout, reboot, and dropping a pool.

use crate::common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use antpool::{Pool, PoolWithFunc, Priority, ReleaseError, SubmitError};
use common::{Counter, Gate, bounded_modes, counted_pool, eventually, occupy, submit_counted};

#[test]
fn release_retires_idle_workers_and_closes_the_pool() {
    let (pool, spawner) = counted_pool(2);
    assert!(submit_counted(&pool, 1).reaches(1));
    assert!(eventually(|| pool.idle() == 1));
    pool.release();
    assert!(pool.is_closed());
    assert!(eventually(|| pool.running() == 0 && spawner.live() == 0));
    assert_eq!(pool.cap(), Some(2), "release leaves the capacity alone");
    let ran = Counter::new();
    let r = ran.clone();
    let err = pool.submit(move || r.add()).unwrap_err();
    assert!(matches!(err, SubmitError::Closed(_)));
    err.into_inner().run();
    assert_eq!(ran.get(), 1, "the rejected task came back intact");
}

#[test]
fn release_lets_busy_workers_finish_their_task() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let (g, done) = (gate.clone(), Counter::new());
    let d = done.clone();
    pool.submit(move || {
        g.wait();
        d.add();
    })
    .unwrap();
    pool.release();
    assert_eq!(pool.running(), 1);
    gate.open();
    assert!(done.reaches(1));
    assert!(eventually(|| pool.running() == 0));
}

#[test]
fn release_turns_blocked_submitters_away_with_their_tasks() {
    let pool = Arc::new(Pool::new(1).unwrap());
    let gate = Gate::new();
    let g = gate.clone();
    pool.submit(move || g.wait()).unwrap();
    let blocked: Vec<_> = (0..3)
        .map(|i| {
            let p = pool.clone();
            thread::spawn(move || match p.submit(move || assert!(i < 3)) {
                Err(SubmitError::Closed(task)) => {
                    task.run();
                    true
                }
                _ => false,
            })
        })
        .collect();
    assert!(eventually(|| pool.waiting() == 3));
    pool.release();
    for b in blocked {
        assert!(
            b.join().unwrap(),
            "a blocked submitter got Closed with its task"
        );
    }
    assert_eq!(pool.waiting(), 0);
    gate.open();
}

#[test]
fn release_timeout_waits_for_every_worker_to_exit() {
    let (pool, spawner) = counted_pool(4);
    let done = Counter::new();
    for _ in 0..4 {
        let d = done.clone();
        pool.submit(move || {
            thread::sleep(Duration::from_millis(30));
            d.add();
        })
        .unwrap();
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(
        done.get(),
        4,
        "release_timeout returned before the tasks finished"
    );
    assert_eq!(pool.running(), 0);
    assert!(eventually(|| spawner.live() == 0));
}

#[test]
fn release_timeout_times_out_on_a_stuck_task_and_the_worker_exits_later() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let g = gate.clone();
    pool.submit(move || g.wait()).unwrap();
    let err = pool.release_timeout(Duration::from_millis(50));
    assert_eq!(err, Err(ReleaseError::Timeout));
    assert!(pool.is_closed());
    assert_eq!(pool.running(), 1);
    gate.open();
    assert!(eventually(|| pool.running() == 0));
}

#[test]
fn release_timeout_on_a_closed_pool_is_an_error() {
    let pool = Pool::new(1).unwrap();
    pool.release_timeout(Duration::from_secs(1)).unwrap();
    assert_eq!(
        pool.release_timeout(Duration::from_secs(1)),
        Err(ReleaseError::Closed)
    );
    let pool = Pool::new(1).unwrap();
    pool.release();
    assert_eq!(
        pool.release_timeout(Duration::from_secs(1)),
        Err(ReleaseError::Closed)
    );
}

#[test]
fn reboot_reopens_a_released_pool() {
    let pool = Pool::new(2).unwrap();
    pool.release_timeout(Duration::from_secs(1)).unwrap();
    assert!(pool.submit(|| ()).is_err());
    pool.reboot();
    assert!(!pool.is_closed());
    assert!(submit_counted(&pool, 10).reaches(10));
    // And it can be released again.
    pool.release_timeout(Duration::from_secs(10)).unwrap();
}

#[test]
fn reboot_reopens_the_queue_of_every_queue_mode() {
    // The queued tasks wait behind a held worker, at each level: the release
    // closed every lane, and the reboot must reopen each.
    // (Past the hand-off pool, which has no queue to close.)
    for (name, builder) in bounded_modes(1, 4).into_iter().skip(1) {
        for levels in [false, true] {
            let pool = builder.clone().priorities(levels).build().unwrap();
            pool.release_timeout(Duration::from_secs(10)).unwrap();
            pool.reboot();
            let gate = occupy(&pool, 1);
            let done = Counter::new();
            for level in [Priority::High, Priority::Normal, Priority::Low] {
                let d = done.clone();
                let queued = pool.with_priority(level).submit(move || d.add());
                assert!(queued.is_ok(), "{name}, levels {levels}: {level:?} refused");
            }
            gate.open();
            assert!(
                done.reaches(3),
                "{name}, levels {levels}: queued tasks lost"
            );
            pool.release_timeout(Duration::from_secs(10)).unwrap();
        }
    }
}

#[test]
fn reboot_cycles_with_a_preallocated_ring() {
    // ants #358: reboot after release on a prealloc pool must not break the ring.
    let pool = Pool::builder().capacity(3).prealloc(true).build().unwrap();
    for _ in 0..20 {
        assert!(submit_counted(&pool, 6).reaches(6));
        pool.release_timeout(Duration::from_secs(10)).unwrap();
        pool.reboot();
    }
}

#[test]
fn dropping_a_pool_releases_it() {
    let (pool, spawner) = counted_pool(3);
    let gate = Gate::new();
    let done = Counter::new();
    for _ in 0..3 {
        let (g, d) = (gate.clone(), done.clone());
        pool.submit(move || {
            g.wait();
            d.add();
        })
        .unwrap();
    }
    drop(pool);
    gate.open();
    assert!(done.reaches(3), "tasks accepted before the drop still run");
    assert!(
        eventually(|| spawner.live() == 0),
        "no worker outlives the pool"
    );
}

#[test]
fn pool_with_func_has_the_same_lifecycle() {
    let pool = PoolWithFunc::new(2, |n: u32| assert!(n > 0)).unwrap();
    pool.invoke(1).unwrap();
    pool.release_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(pool.invoke(2), Err(SubmitError::Closed(2)));
    pool.reboot();
    pool.invoke(3).unwrap();
    pool.tune(3);
    assert_eq!(pool.cap(), Some(3));
}

#[test]
fn clones_share_one_pool_and_the_last_one_dropped_releases_it() {
    let spawner = common::TestSpawner::new();
    let pool = Pool::builder()
        .capacity(2)
        .disable_purge(true) // workers leave only when the pool is released
        .spawner(spawner.clone())
        .build()
        .unwrap();
    let clone = pool.clone();
    clone.submit(|| ()).unwrap();
    assert!(pool.wait_idle_timeout(Duration::from_secs(5)));
    assert_eq!(pool.stats().completed, 1, "one pool behind both handles");
    assert_eq!(spawner.live(), 1);

    drop(clone);
    assert!(!pool.is_closed(), "dropping a clone leaves the pool open");
    pool.submit(|| ()).unwrap();
    assert!(pool.wait_idle_timeout(Duration::from_secs(5)));
    assert_eq!(spawner.live(), 1, "the worker stayed");

    let last = pool.clone();
    drop(pool);
    assert!(!last.is_closed());
    drop(last);
    assert!(
        common::eventually(|| spawner.live() == 0),
        "the last handle's drop released the pool"
    );
}

/// A pool with an unbounded queue is never full: a `try_submit` that meets a
/// release is refused as `Closed`, never as `Overload`, however the two
/// interleave.
#[test]
fn try_submit_racing_release_on_an_unbounded_queue_is_closed_never_overload() {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    for _ in 0..100 {
        let pool = Pool::builder()
            .capacity(1)
            .unbounded_queue()
            .build()
            .unwrap();
        let submitting = AtomicBool::new(false);
        thread::scope(|s| {
            let submitter = s.spawn(|| {
                loop {
                    match pool.try_submit(|| ()) {
                        Ok(()) => submitting.store(true, Relaxed),
                        Err(e) => break e,
                    }
                }
            });
            // The release comes while the submitter is under way.
            assert!(eventually(|| submitting.load(Relaxed)));
            pool.release();
            let refused = submitter.join().unwrap();
            assert!(refused.is_closed(), "refused as {refused:?}");
        });
        assert!(pool.wait_released_timeout(common::PATIENCE));
    }
}
