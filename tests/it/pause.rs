//! Pause and resume (gammazero/workerpool's `Pause`): `pause` returns once no
//! task runs; while paused no task starts anywhere and submissions behave as at
//! capacity; `resume` starts what waited; `release` ends a pause.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use antpool::{Pool, PoolWithFunc, SubmitError};
use common::{Counter, PATIENCE, bounded_modes, eventually, occupy, queue_pool};

/// A moment for something that must *not* happen to get its chance.
const A_MOMENT: Duration = Duration::from_millis(50);

#[test]
fn pause_waits_for_the_running_tasks() {
    for (mode, builder) in bounded_modes(2, 8) {
        let pool = Arc::new(builder.build().unwrap());
        let gate = occupy(&pool, 2);
        assert!(
            !pool.pause_timeout(A_MOMENT),
            "{mode}: two tasks still run, so the pause cannot have taken effect"
        );
        assert!(pool.is_paused(), "{mode}: a timed-out pause stays");
        let pauser = {
            let pool = Arc::clone(&pool);
            thread::spawn(move || pool.pause())
        };
        thread::sleep(A_MOMENT);
        assert!(
            !pauser.is_finished(),
            "{mode}: pause returned while tasks run"
        );
        gate.open();
        pauser.join().unwrap();
        assert_eq!(
            pool.stats().completed,
            2,
            "{mode}: both finished before pause returned"
        );
        pool.resume();
        pool.release_timeout(PATIENCE).unwrap();
    }
}

#[test]
fn a_paused_hand_off_pool_admits_nothing_even_with_idle_workers() {
    let pool = Arc::new(Pool::new(2).unwrap());
    pool.submit(|| ()).unwrap();
    pool.wait_idle();
    assert!(eventually(|| pool.idle() == 1), "a worker is parked");
    pool.pause();
    let ran = Counter::new();
    let r = ran.clone();
    let err = pool.try_submit(move || r.add()).unwrap_err();
    assert!(err.is_overload(), "as at capacity: {err:?}");
    assert_eq!(pool.stats().rejected, 1);
    // A blocking submit waits for the resume.
    let blocked = {
        let (pool, ran) = (Arc::clone(&pool), ran.clone());
        thread::spawn(move || pool.submit(move || ran.add()))
    };
    assert!(eventually(|| pool.waiting() == 1), "the submitter blocks");
    thread::sleep(A_MOMENT);
    assert_eq!(ran.get(), 0);
    assert!(
        pool.submit_timeout(|| (), A_MOMENT)
            .unwrap_err()
            .is_timeout(),
        "a deadline runs out while paused"
    );
    pool.resume();
    blocked.join().unwrap().unwrap();
    assert!(ran.reaches(1), "the blocked task runs after the resume");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_paused_queue_pool_queues_until_full_and_starts_nothing() {
    let pool = Pool::builder()
        .capacity(2)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    pool.pause();
    let ran = Counter::new();
    for _ in 0..4 {
        let ran = ran.clone();
        pool.try_submit(move || ran.add()).unwrap();
    }
    assert_eq!(pool.queued(), 4);
    assert!(
        pool.try_submit(|| ()).unwrap_err().is_overload(),
        "a full queue is full, paused or not"
    );
    thread::sleep(A_MOMENT);
    assert_eq!(ran.get(), 0, "nothing starts while paused");
    assert!(
        eventually(|| pool.running() == 1 && pool.idle() == 1),
        "one worker is kept for the queued tasks, parked"
    );
    assert!(
        !pool.wait_idle_timeout(A_MOMENT),
        "queued tasks are not idle"
    );
    pool.resume();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 4);
    pool.release_timeout(PATIENCE).unwrap();
}

/// A paused pool without a worker cap queues every task, past what the
/// first part of its queue (a ring of 1024 slots) holds, and no submit waits
/// for a worker to take one; the resume runs them all.
#[test]
fn a_paused_pool_without_a_worker_cap_queues_more_than_its_ring_holds() {
    const TASKS: usize = 1_500;
    let pool = Arc::new(Pool::builder().unbounded().build().unwrap());
    pool.pause();
    let ran = Counter::new();
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let (pool, ran) = (Arc::clone(&pool), ran.clone());
        thread::spawn(move || {
            for _ in 0..TASKS {
                let ran = ran.clone();
                pool.try_submit(move || ran.add()).unwrap();
            }
            tx.send(()).unwrap();
        });
    }
    // (Only a submit that waits for a worker, which never comes while
    // paused, runs this bound out.)
    rx.recv_timeout(PATIENCE / 4)
        .expect("every submit returns while the pool is paused");
    assert_eq!(pool.queued(), TASKS);
    assert_eq!(ran.get(), 0, "nothing starts while paused");
    pool.resume();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), TASKS);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_worker_finishing_during_pause_does_not_start_the_next_task() {
    let pool = queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit(move || r.add()).unwrap();
    let pauser = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || pool.pause())
    };
    assert!(eventually(|| pool.is_paused()));
    gate.open();
    pauser.join().unwrap();
    thread::sleep(A_MOMENT);
    assert_eq!(ran.get(), 0, "the queued task waited");
    assert_eq!(pool.queued(), 1);
    pool.resume();
    assert!(ran.reaches(1));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn release_ends_a_pause_turns_waiters_away_and_runs_what_is_queued() {
    let pool = queue_pool(1, 2);
    pool.pause();
    let ran = Counter::new();
    for _ in 0..2 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap();
    }
    let blocked = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || pool.submit(|| ()))
    };
    assert!(eventually(|| pool.waiting() == 1));
    let pauser = {
        let pool = Arc::clone(&pool);
        // Nothing runs: it returns at once, paused.
        thread::spawn(move || pool.pause_timeout(PATIENCE))
    };
    assert!(pauser.join().unwrap());
    pool.release_timeout(PATIENCE).unwrap();
    assert!(!pool.is_paused(), "release ends the pause");
    assert!(matches!(
        blocked.join().unwrap(),
        Err(SubmitError::Closed(_))
    ));
    assert_eq!(ran.get(), 2, "the queued tasks ran before the workers left");
    assert!(
        !pool.pause_timeout(Duration::ZERO),
        "a released pool does not pause"
    );
    assert!(!pool.is_paused());
    pool.reboot();
    pool.submit(|| ()).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
}

#[test]
fn release_drain_while_paused_returns_every_queued_task() {
    for (mode, builder) in bounded_modes(2, 8) {
        let pool = builder.build().unwrap();
        pool.submit(|| ()).unwrap(); // a worker, parked after
        assert!(pool.wait_idle_timeout(PATIENCE));
        pool.pause();
        let ran = Counter::new();
        let queued = match mode.as_str() {
            "hand-off" => 0, // admits nothing while paused
            _ => 5,
        };
        for _ in 0..queued {
            let ran = ran.clone();
            pool.submit(move || ran.add()).unwrap();
        }
        let drained = pool.release_drain();
        assert_eq!(drained.len(), queued, "{mode}");
        assert_eq!(ran.get(), 0, "{mode}: none started");
        assert!(!pool.is_paused(), "{mode}");
        assert!(pool.wait_idle_timeout(PATIENCE), "{mode}");
        drop(drained);
        assert_eq!(ran.get(), 0, "{mode}: dropped, never run");
    }
}

#[test]
fn pause_from_a_task_times_out_and_resume_wakes_a_waiting_pause() {
    let pool = Arc::new(Pool::new(2).unwrap());
    let inner = Arc::clone(&pool);
    let h = pool
        .spawn(move || inner.pause_timeout(Duration::from_millis(20)))
        .unwrap();
    assert!(!h.join().unwrap(), "its own task is running");
    assert!(pool.is_paused());
    let gate = {
        pool.resume();
        occupy(&pool, 1)
    };
    let pauser = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || pool.pause_timeout(PATIENCE))
    };
    assert!(eventually(|| pool.is_paused()));
    pool.resume();
    assert!(
        !pauser.join().unwrap(),
        "the pause ended before the task did"
    );
    gate.open();
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn tune_up_while_paused_starts_nothing() {
    let pool = Pool::builder()
        .capacity(1)
        .unbounded_queue()
        .build()
        .unwrap();
    pool.pause();
    let ran = Counter::new();
    for _ in 0..6 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap();
    }
    pool.tune(4);
    thread::sleep(A_MOMENT);
    assert_eq!(ran.get(), 0);
    assert!(pool.running() <= 1, "only the worker kept for the queue");
    pool.resume();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 6);
    assert!(pool.running() <= 4);
}

/// Submitters race `pause`: once it returns, no task starts until `resume`,
/// and every accepted task runs exactly once in the end.
#[test]
fn pause_racing_submitters_loses_nothing_and_starts_nothing() {
    for (mode, builder) in bounded_modes(3, 16) {
        let pool = Arc::new(builder.nonblocking(false).build().unwrap());
        let started = Arc::new(AtomicUsize::new(0));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let submitters: Vec<_> = (0..3)
            .map(|_| {
                let (pool, started, accepted, stop) = (
                    Arc::clone(&pool),
                    Arc::clone(&started),
                    Arc::clone(&accepted),
                    Arc::clone(&stop),
                );
                thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let started = Arc::clone(&started);
                        let task = move || {
                            started.fetch_add(1, Ordering::SeqCst);
                        };
                        if pool.submit_timeout(task, Duration::from_millis(5)).is_ok() {
                            accepted.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                })
            })
            .collect();
        let rounds = if cfg!(miri) { 2 } else { 20 };
        for round in 0..rounds {
            thread::sleep(Duration::from_millis(2));
            pool.pause();
            let at_pause = started.load(Ordering::SeqCst);
            thread::sleep(Duration::from_millis(3));
            assert_eq!(
                started.load(Ordering::SeqCst),
                at_pause,
                "{mode}, round {round}: a task started while paused"
            );
            pool.resume();
        }
        stop.store(true, Ordering::Relaxed);
        for s in submitters {
            s.join().unwrap();
        }
        assert!(pool.wait_idle_timeout(PATIENCE), "{mode}");
        assert_eq!(
            started.load(Ordering::SeqCst),
            accepted.load(Ordering::SeqCst),
            "{mode}: every accepted task ran once"
        );
        pool.release_timeout(PATIENCE).unwrap();
    }
}

#[test]
fn the_function_pool_pauses_too() {
    let seen = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&seen);
    let pool = PoolWithFunc::builder(move |n: usize| {
        s.fetch_add(n, Ordering::SeqCst);
    })
    .capacity(2)
    .max_queued_tasks(4)
    .build()
    .unwrap();
    pool.pause();
    pool.invoke(5).unwrap();
    thread::sleep(A_MOMENT);
    assert_eq!(seen.load(Ordering::SeqCst), 0);
    pool.resume();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(seen.load(Ordering::SeqCst), 5);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn an_async_submit_waits_out_the_pause() {
    let pool = Arc::new(Pool::new(1).unwrap());
    pool.pause();
    let ran = Counter::new();
    let waiter = {
        let (pool, ran) = (Arc::clone(&pool), ran.clone());
        thread::spawn(move || {
            futures_executor::block_on(pool.submit_async(move || ran.add())).unwrap()
        })
    };
    assert!(
        eventually(|| pool.waiting() == 1),
        "the future waits in the line"
    );
    thread::sleep(A_MOMENT);
    assert_eq!(ran.get(), 0);
    pool.resume();
    waiter.join().unwrap();
    assert!(ran.reaches(1));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_long_pause_sheds_idle_workers_but_one_for_the_queue_and_resume_restarts() {
    let (pool, clock, spawner) = common::on_manual_clock(
        Pool::builder()
            .capacity(3)
            .max_queued_tasks(8)
            .expiry(Duration::from_secs(1)),
    );
    // Three workers, then idle.
    let gate = occupy(&pool, 3);
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert!(eventually(|| pool.idle() == 3));
    pool.pause();
    let ran = Counter::new();
    for _ in 0..5 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap(); // queued: paused
    }
    // A long pause: idle workers expire, but one stays for the queued tasks.
    clock.advance(Duration::from_secs(2));
    pool.purge();
    assert!(
        eventually(|| pool.running() == 1),
        "running {}",
        pool.running()
    );
    assert_eq!(ran.get(), 0, "nothing ran while paused");
    assert!(
        eventually(|| spawner.live() == 1),
        "the expired threads ended"
    );
    pool.resume();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 5);
    pool.release_timeout(PATIENCE).unwrap();
    // The spawner counts a thread ended just after the pool does.
    assert!(eventually(|| spawner.live() == 0), "no thread left behind");
}

/// A `pause` caller waiting for the running tasks still returns when they
/// finish, after a `wait_idle_timeout` caller gave up beside it: the one who
/// leaves does not take the other's wake-up with it.
#[test]
fn a_waiting_pause_returns_after_a_wait_idle_beside_it_timed_out() {
    let pool = queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let pauser = {
        let pool = Arc::clone(&pool);
        // Bounded, so a pause never woken fails the test rather than hangs.
        thread::spawn(move || pool.pause_timeout(Duration::from_secs(10)))
    };
    assert!(eventually(|| pool.is_paused()));
    // Long enough for the pauser, already past its flag, to wait too.
    assert!(
        !pool.wait_idle_timeout(A_MOMENT),
        "a task still runs: not idle"
    );
    gate.open();
    assert!(
        pauser.join().unwrap(),
        "the pause returns once the task is done"
    );
    pool.resume();
    pool.release_timeout(PATIENCE).unwrap();
}
