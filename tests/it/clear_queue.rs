//! `clear_queue`: the tasks waiting in the queue are dropped, never run, and
//! counted; running tasks go on, the pool stays open, blocked submitters get
//! the room.

use crate::common;

use std::sync::atomic::Ordering::SeqCst;
use std::task::Poll;
use std::thread;

use antpool::{Pool, PoolWithFunc};
use common::{
    Counter, PATIENCE, TestSpawner, counting_waker, eventually, occupy, poll_once, queue_pool,
};

#[test]
fn queued_tasks_are_dropped_unrun_and_their_handles_cancelled() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(10)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    for _ in 0..4 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap();
    }
    let handle = pool.spawn(|| 7).unwrap();
    assert_eq!(pool.queued(), 5);
    assert_eq!(pool.clear_queue(), 5);
    assert_eq!(pool.queued(), 0);
    assert!(handle.join().unwrap_err().is_cancelled());
    assert_eq!(pool.clear_queue(), 0, "nothing left");
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 0, "a cleared task never runs");
    // Still open: the next task runs.
    assert_eq!(pool.spawn(|| 8).unwrap().join().unwrap(), 8);
    assert!(
        eventually(|| pool.stats().completed == 2),
        "the held task and this one"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_blocked_submitter_gets_the_room_it_made() {
    let pool = queue_pool(1, 2);
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    for _ in 0..2 {
        pool.submit(|| unreachable!("cleared")).unwrap();
    }
    let (p, r) = (pool.clone(), ran.clone());
    let blocked = thread::spawn(move || p.submit(move || r.add()));
    assert!(eventually(|| pool.waiting() == 1));
    assert_eq!(pool.clear_queue(), 2);
    blocked.join().unwrap().unwrap();
    assert_eq!(pool.waiting(), 0);
    gate.open();
    assert!(ran.reaches(1), "the let-in task runs");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn clearing_while_workers_take_tasks_loses_and_doubles_none() {
    let ran = Counter::new();
    let r = ran.clone();
    let pool = PoolWithFunc::builder(move |_: u32| r.add())
        .capacity(2)
        .unbounded_queue()
        .build()
        .unwrap();
    let (rounds, per_round) = if cfg!(miri) { (2, 20) } else { (50, 200) };
    let mut cleared = 0;
    for _ in 0..rounds {
        for n in 0..per_round {
            pool.invoke(n).unwrap();
        }
        cleared += pool.clear_queue();
    }
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get() + cleared, rounds * per_round as usize);
    assert_eq!(pool.stats().completed, ran.get());
    pool.release_timeout(PATIENCE).unwrap();
}

/// A release that waits for queued tasks no worker can run (every thread
/// start fails) ends as soon as `clear_queue` or `release_drain` takes them
/// out: the releaser already waiting is woken then, rather than left waiting
/// for a worker that will never come.
#[test]
fn a_waiting_release_ends_once_the_queue_it_waited_for_is_taken_out() {
    for take in ["clear_queue", "release_drain"] {
        let pool = Pool::builder()
            .capacity(1)
            .max_queued_tasks(4)
            .spawner(TestSpawner::failing(|_| true))
            .build()
            .unwrap();
        // Paused, the task is queued rather than handed to a new worker.
        pool.pause();
        pool.submit(|| unreachable!("taken out before any worker"))
            .unwrap();
        assert_eq!(pool.queued(), 1, "{take}");
        assert_eq!(pool.running(), 0, "{take}: no worker could start");
        let (waker, woken) = counting_waker();
        let mut release = Box::pin(pool.release_async());
        assert!(
            poll_once(release.as_mut(), &waker).is_pending(),
            "{take}: a task is still queued"
        );
        let taken = match take {
            "clear_queue" => pool.clear_queue(),
            _ => pool.release_drain().len(),
        };
        assert_eq!(taken, 1, "{take}");
        assert_eq!(woken.0.load(SeqCst), 1, "{take}: the releaser is woken");
        assert_eq!(
            poll_once(release.as_mut(), &waker),
            Poll::Ready(Ok(())),
            "{take}"
        );
    }
}
