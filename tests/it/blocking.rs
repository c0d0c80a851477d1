//! Blocking and backpressure: a saturated pool blocks submitters in FIFO order and
//! serves them directly from finishing workers; `nonblocking`, `try_submit` and
//! `max_blocking_tasks` reject instead, handing the task back.

use crate::common;

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use antpool::{Pool, PoolWithFunc, SubmitError};
use common::{Counter, Gate, eventually, held_pool};

#[test]
fn a_saturated_pool_blocks_the_submitter_until_a_worker_finishes() {
    let (pool, gate) = held_pool(Pool::builder());
    let ran = Counter::new();
    let (p, r) = (pool.clone(), ran.clone());
    let submitter = thread::spawn(move || p.submit(move || r.add()).is_ok());
    assert!(eventually(|| pool.waiting() == 1));
    thread::sleep(Duration::from_millis(20));
    assert!(
        !submitter.is_finished(),
        "submit returned while the pool was full"
    );
    assert_eq!(ran.get(), 0);
    gate.open();
    assert!(submitter.join().unwrap());
    assert!(ran.reaches(1));
    assert_eq!(pool.waiting(), 0);
    assert_eq!(
        pool.running(),
        1,
        "the finishing worker served the waiter itself"
    );
}

#[test]
fn blocked_submitters_are_served_in_fifo_order() {
    let (pool, gate) = held_pool(Pool::builder());
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut submitters = Vec::new();
    for i in 0..5 {
        let (p, o) = (pool.clone(), order.clone());
        submitters.push(thread::spawn(move || {
            p.submit(move || o.lock().unwrap().push(i)).unwrap()
        }));
        // Queue them one at a time so their order is known.
        assert!(eventually(|| pool.waiting() == i + 1));
    }
    gate.open();
    for s in submitters {
        s.join().unwrap();
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
}

#[test]
fn nonblocking_rejects_with_overload_and_hands_the_task_back() {
    let (pool, gate) = held_pool(Pool::builder().nonblocking(true));
    let ran = Counter::new();
    let r = ran.clone();
    let err = pool.submit(move || r.add()).unwrap_err();
    assert!(err.is_overload());
    assert_eq!(pool.waiting(), 0);
    assert_eq!(ran.get(), 0);
    err.into_inner().run(); // the very task we submitted
    assert_eq!(ran.get(), 1);
    gate.open();
}

#[test]
fn try_submit_never_blocks_even_on_a_blocking_pool() {
    let (pool, gate) = held_pool(Pool::builder());
    let err = pool.try_submit(|| ()).unwrap_err();
    assert!(matches!(err, SubmitError::Overload(_)));
    gate.open();
}

#[test]
fn max_blocking_tasks_limits_the_number_of_blocked_submitters() {
    let (pool, gate) = held_pool(Pool::builder().max_blocking_tasks(2));
    let mut blocked = Vec::new();
    for i in 0..2 {
        let p = pool.clone();
        blocked.push(thread::spawn(move || p.submit(|| ()).unwrap()));
        assert!(eventually(|| pool.waiting() == i + 1));
    }
    let err = pool.submit(|| ()).unwrap_err();
    assert!(
        err.is_overload(),
        "a third blocked submitter is one too many"
    );
    gate.open();
    for b in blocked {
        b.join().unwrap();
    }
    // Room again: blocking works once the waiters are gone.
    pool.submit(|| ()).unwrap();
}

#[test]
fn nonblocking_wins_over_max_blocking_tasks() {
    let (pool, gate) = held_pool(Pool::builder().nonblocking(true).max_blocking_tasks(5));
    assert!(pool.submit(|| ()).unwrap_err().is_overload());
    gate.open();
}

#[test]
fn pool_with_func_blocks_and_rejects_the_same_way() {
    let gate = Gate::new();
    let g = gate.clone();
    let pool = Arc::new(
        PoolWithFunc::builder(move |hold: bool| {
            if hold {
                g.wait()
            }
        })
        .capacity(1)
        .max_blocking_tasks(1)
        .build()
        .unwrap(),
    );
    pool.invoke(true).unwrap();
    assert!(eventually(|| pool.running() == 1));
    let p = pool.clone();
    let blocked = thread::spawn(move || p.invoke(false).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    assert_eq!(pool.invoke(false), Err(SubmitError::Overload(false)));
    assert_eq!(pool.try_invoke(true), Err(SubmitError::Overload(true)));
    gate.open();
    blocked.join().unwrap();
}

#[test]
fn many_submitters_on_a_tiny_pool_lose_nothing() {
    let pool = Arc::new(Pool::new(2).unwrap());
    let done = Counter::new();
    let submitters: Vec<_> = (0..8)
        .map(|_| {
            let (pool, done) = (pool.clone(), done.clone());
            thread::spawn(move || {
                for _ in 0..2_000 {
                    let done = done.clone();
                    pool.submit(move || done.add()).unwrap();
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    pool.release_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(done.get(), 16_000);
}

/// The admission count is wide enough for any capacity: a hand-off pool of
/// over a thousand workers admits exactly its capacity of held tasks, refuses
/// the next, and runs them all once they are let go.
#[test]
fn a_hand_off_pool_of_over_a_thousand_admits_exactly_its_capacity() {
    const CAP: usize = 1_100;
    let pool = Pool::builder().capacity(CAP).build().unwrap();
    let (gate, ran) = (Gate::new(), Counter::new());
    for i in 0..CAP {
        let (g, r) = (gate.clone(), ran.clone());
        if let Err(e) = pool.try_submit(move || {
            g.wait();
            r.add();
        }) {
            gate.open();
            panic!("task {i} of {CAP} refused: {e:?}");
        }
    }
    let refused = pool.try_submit(|| ());
    gate.open();
    assert!(
        matches!(refused, Err(SubmitError::Overload(_))),
        "a task past the capacity was admitted"
    );
    pool.release_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(ran.get(), CAP);
}
