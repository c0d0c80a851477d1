//! Deadlines: `submit_timeout`, `spawn_timeout` and `invoke_timeout` wait at
//! most the given time for room, then hand the task back as `Timeout`, leaving
//! no waiter behind; room that comes in time lets the task in as `submit` does.

use crate::common;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use antpool::{Pool, PoolWithFunc, SubmitError};
use common::{Counter, eventually, held_pool, occupy};

/// How long a test waits for a pool's workers to exit (none may outlive the
/// test: Miri checks).
const EXIT: Duration = Duration::from_secs(30);

#[test]
fn a_saturated_pool_hands_the_task_back_once_the_time_is_up() {
    for (name, builder) in [
        ("hand-off", Pool::builder()),
        ("queue of 1", Pool::builder().max_queued_tasks(1)),
    ] {
        let (pool, gate) = held_pool(builder);
        if name != "hand-off" {
            pool.submit(|| ()).unwrap(); // fills the queue
        }
        let ran = Counter::new();
        let r = ran.clone();
        let start = Instant::now();
        let err = pool
            .submit_timeout(move || r.add(), Duration::from_millis(30))
            .unwrap_err();
        assert!(start.elapsed() >= Duration::from_millis(30), "{name}");
        assert!(err.is_timeout(), "{name}: {err:?}");
        assert_eq!(pool.waiting(), 0, "{name}: it left no waiter behind");
        assert_eq!(pool.stats().rejected, 1, "{name}");
        gate.open();
        assert!(pool.wait_idle_timeout(Duration::from_secs(10)), "{name}");
        assert_eq!(ran.get(), 0, "{name}: a task that timed out never runs");
        err.into_inner().run(); // the task came back whole
        assert_eq!(ran.get(), 1, "{name}");
        pool.release_timeout(EXIT).unwrap();
    }
}

#[test]
fn room_that_comes_in_time_lets_the_task_in() {
    let (pool, gate) = held_pool(Pool::builder());
    let ran = Counter::new();
    let r = ran.clone();
    let opener = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        gate.open();
    });
    pool.submit_timeout(move || r.add(), Duration::from_secs(30))
        .unwrap();
    assert!(ran.reaches(1));
    opener.join().unwrap();
    pool.release_timeout(EXIT).unwrap();
}

#[test]
fn a_pool_with_room_takes_the_task_even_with_no_time_at_all() {
    let pool = Pool::new(1).unwrap();
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit_timeout(move || r.add(), Duration::ZERO)
        .unwrap();
    assert!(ran.reaches(1));
    // Saturated, no time: handed back at once.
    let gate = occupy(&pool, 1);
    assert!(
        pool.submit_timeout(|| (), Duration::ZERO)
            .unwrap_err()
            .is_timeout()
    );
    gate.open();
    pool.release_timeout(EXIT).unwrap();
}

#[test]
fn a_timed_out_waiter_does_not_hold_up_the_ones_behind_it() {
    let (pool, gate) = held_pool(Pool::builder());
    let (p, order) = (pool.clone(), Arc::new(Mutex::new(Vec::new())));
    let o = order.clone();
    let first = thread::spawn(move || {
        p.submit_timeout(move || o.lock().unwrap().push(1), Duration::from_millis(40))
    });
    assert!(eventually(|| pool.waiting() == 1));
    let (p, o) = (pool.clone(), order.clone());
    let second = thread::spawn(move || p.submit(move || o.lock().unwrap().push(2)));
    assert!(eventually(|| pool.waiting() == 2));
    assert!(first.join().unwrap().unwrap_err().is_timeout());
    assert_eq!(pool.waiting(), 1);
    gate.open();
    second.join().unwrap().unwrap();
    assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
    assert_eq!(*order.lock().unwrap(), vec![2]);
    pool.release_timeout(EXIT).unwrap();
}

#[test]
fn a_release_while_it_waits_returns_the_task_closed() {
    let (pool, gate) = held_pool(Pool::builder());
    let p = pool.clone();
    let waiter = thread::spawn(move || p.submit_timeout(|| (), Duration::from_secs(30)));
    assert!(eventually(|| pool.waiting() == 1));
    // The release turns the waiter away at once, then waits for the busy worker.
    let p = pool.clone();
    let releaser = thread::spawn(move || p.release_timeout(EXIT));
    assert!(waiter.join().unwrap().unwrap_err().is_closed());
    gate.open();
    releaser.join().unwrap().unwrap();
}

#[test]
fn nonblocking_and_max_blocking_pools_refuse_at_once_as_for_submit() {
    let (pool, gate) = held_pool(Pool::builder().nonblocking(true));
    let start = Instant::now();
    let err = pool
        .submit_timeout(|| (), Duration::from_secs(30))
        .unwrap_err();
    assert!(err.is_overload(), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(10));
    gate.open();
    pool.release_timeout(EXIT).unwrap();

    // A timed waiter counts against `max_blocking_tasks` like any other.
    let (pool, gate) = held_pool(Pool::builder().max_blocking_tasks(1));
    let p = pool.clone();
    let waiter = thread::spawn(move || p.submit_timeout(|| (), Duration::from_secs(30)));
    assert!(eventually(|| pool.waiting() == 1));
    assert!(pool.submit(|| ()).unwrap_err().is_overload());
    gate.open();
    waiter.join().unwrap().unwrap();
    pool.release_timeout(EXIT).unwrap();
}

#[test]
fn spawn_and_invoke_hand_back_what_they_were_given() {
    let (pool, gate) = held_pool(Pool::builder());
    let err = pool
        .spawn_timeout(|| 6 * 7, Duration::from_millis(5))
        .unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(err.into_closure()(), 42);
    gate.open();
    assert_eq!(
        pool.spawn_timeout(|| 6 * 7, Duration::from_secs(30))
            .unwrap()
            .join()
            .unwrap(),
        42
    );

    pool.release_timeout(EXIT).unwrap();

    let (hold, wait) = mpsc::channel::<()>();
    let wait = Mutex::new(wait);
    let fp = PoolWithFunc::new(1, move |n: u32| {
        if n == 0 {
            let _ = wait.lock().unwrap().recv();
        }
    })
    .unwrap();
    fp.invoke(0).unwrap(); // the only worker waits
    let err = fp.invoke_timeout(7, Duration::from_millis(5)).unwrap_err();
    assert_eq!(err, SubmitError::Timeout(7));
    drop(hold);
    fp.invoke_timeout(8, Duration::from_secs(30)).unwrap();
    fp.release_timeout(EXIT).unwrap();
}

#[test]
fn a_timeout_racing_the_finishing_worker_runs_the_task_once_or_hands_it_back() {
    // The worker finishes just as the time runs out, round after round: the
    // task either got in (and runs exactly once) or came back (and never ran).
    let pool = Pool::new(1).unwrap();
    let (mut ins, mut outs) = (0, 0);
    for round in 0..300u64 {
        let ran = Counter::new();
        pool.submit(move || thread::sleep(Duration::from_micros(200 + round % 7 * 50)))
            .unwrap();
        let r = ran.clone();
        match pool.submit_timeout(move || r.add(), Duration::from_micros(250)) {
            Ok(()) => {
                ins += 1;
                assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
                assert_eq!(ran.get(), 1, "round {round}");
            }
            Err(e) => {
                outs += 1;
                assert!(e.is_timeout(), "round {round}: {e:?}");
                assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
                assert_eq!(ran.get(), 0, "round {round}");
            }
        }
        assert_eq!(pool.waiting(), 0, "round {round}");
    }
    assert_eq!(ins + outs, 300);
    pool.release_timeout(EXIT).unwrap();
}
