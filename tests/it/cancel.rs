//! `CancelToken::current`: a running task sees a cancel from each of its
//! sources — its handle's `abort`, an `AbortHandle`, its `AbortOnDrop` guard
//! dropped, its group (`abort_all`, a failure under `cancel_on_error`, the
//! group dropped, the group's token), its own token cancelled by the caller —
//! and stops; a task that stopped early completed (its value is the result);
//! a task without a handle sees a token nobody cancels; and an aborted task's
//! error says it was aborted, apart from one its pool dropped.

use crate::common;

use std::sync::mpsc;

use antpool::{CancelToken, GroupError, Pool};
use common::poll::runtime;
use common::{Counter, PATIENCE, eventually, occupy, queue_pool};

/// A task that counts itself started, then waits for its token to be
/// cancelled: `true` if it saw it (`false` only after `PATIENCE`).
fn until_cancelled(started: &Counter) -> impl FnOnce() -> bool + Send + 'static {
    let started = started.clone();
    move || {
        let token = CancelToken::current();
        started.add();
        eventually(|| token.is_cancelled())
    }
}

#[test]
fn a_running_task_stops_on_its_handle_s_abort_and_completes_with_its_value() {
    let pool = Pool::new(1).unwrap();
    let started = Counter::new();
    let handle = pool.spawn(until_cancelled(&started)).unwrap();
    assert!(started.reaches(1));
    assert!(!handle.is_finished());
    assert!(
        !handle.abort(),
        "it began: asked to stop, not cancelled unrun"
    );
    assert!(eventually(|| handle.is_finished()), "it stopped");
    assert!(
        handle.join().unwrap(),
        "it saw the cancel, and its value is the result"
    );
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(
        pool.stats().completed,
        1,
        "a task that stopped early completed"
    );
}

#[test]
fn a_running_task_stops_on_an_abort_handle_from_another_thread() {
    let pool = Pool::new(1).unwrap();
    let started = Counter::new();
    let handle = pool.spawn(until_cancelled(&started)).unwrap();
    let abort = handle.abort_handle();
    assert!(started.reaches(1));
    assert!(!std::thread::spawn(move || abort.abort()).join().unwrap());
    assert!(handle.join().unwrap());
}

#[test]
fn a_running_task_stops_when_its_abort_on_drop_guard_is_dropped() {
    let pool = Pool::new(1).unwrap();
    let (started, (send, recv)) = (Counter::new(), mpsc::channel());
    let wait = until_cancelled(&started);
    let guard = pool
        .spawn(move || send.send(wait()).unwrap())
        .unwrap()
        .abort_on_drop();
    assert!(started.reaches(1));
    drop(guard);
    assert!(
        recv.recv().unwrap(),
        "the running task saw its guard dropped"
    );
}

#[test]
fn a_running_task_stops_when_the_caller_cancels_the_token_it_handed_out() {
    let pool = Pool::new(1).unwrap();
    let (send, recv) = mpsc::channel();
    let handle = pool
        .spawn(move || {
            let token = CancelToken::current();
            send.send(token.clone()).unwrap();
            eventually(|| token.is_cancelled())
        })
        .unwrap();
    let token = recv.recv().unwrap();
    assert!(!token.is_cancelled());
    token.cancel();
    assert!(token.is_cancelled());
    assert!(handle.join().unwrap());
}

#[test]
fn a_running_group_task_stops_on_abort_all() {
    let pool = Pool::new(2).unwrap();
    let started = Counter::new();
    let mut group = pool.group::<bool>();
    group.spawn(until_cancelled(&started)).unwrap();
    group.spawn(until_cancelled(&started)).unwrap();
    assert!(started.reaches(2));
    group.abort_all();
    for result in group.join_all() {
        assert!(
            result.unwrap(),
            "each saw the cancel, and joined with its value"
        );
    }
}

#[test]
fn a_running_group_task_stops_on_a_sibling_s_failure() {
    let pool = Pool::new(2).unwrap();
    let started = Counter::new();
    let (send, recv) = mpsc::channel();
    let mut group = pool.group::<Result<(), &str>>().cancel_on_error();
    let wait = until_cancelled(&started);
    group
        .spawn(move || {
            send.send(wait()).unwrap();
            Ok(())
        })
        .unwrap();
    assert!(started.reaches(1));
    group.spawn(|| Err("failed")).unwrap();
    match group.try_join_all() {
        Err(GroupError::Failed(e)) => assert_eq!(e, "failed"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(
        recv.recv().unwrap(),
        "the running task saw its sibling fail"
    );
}

#[test]
fn a_running_group_task_stops_when_its_group_is_dropped() {
    let pool = Pool::new(1).unwrap();
    let started = Counter::new();
    let (send, recv) = mpsc::channel();
    let mut group = pool.group::<()>();
    let wait = until_cancelled(&started);
    group.spawn(move || send.send(wait()).unwrap()).unwrap();
    assert!(started.reaches(1));
    drop(group);
    assert!(
        recv.recv().unwrap(),
        "the running task saw its group dropped"
    );
}

#[test]
fn a_running_group_task_stops_on_the_group_s_token() {
    let pool = Pool::new(1).unwrap();
    let started = Counter::new();
    let mut group = pool.group::<bool>();
    group.spawn(until_cancelled(&started)).unwrap();
    assert!(started.reaches(1));
    group.cancel_token().cancel();
    assert!(group.join_next().unwrap().unwrap());
}

#[test]
fn a_task_without_a_handle_reads_a_token_nobody_cancels() {
    // One worker: the submitted task runs on the thread where a spawned task
    // just saw its own token cancelled.
    let pool = Pool::new(1).unwrap();
    let started = Counter::new();
    let handle = pool.spawn(until_cancelled(&started)).unwrap();
    assert!(started.reaches(1));
    handle.abort();
    assert!(handle.join().unwrap());
    let (send, recv) = mpsc::channel();
    pool.submit(move || {
        let token = CancelToken::current();
        token.cancel(); // the token of no task: nothing to cancel
        send.send(token.is_cancelled()).unwrap();
    })
    .unwrap();
    assert!(
        !recv.recv().unwrap(),
        "a submitted task has no token of its own"
    );
    assert!(
        !CancelToken::current().is_cancelled(),
        "nor has a thread outside the pool"
    );
}

#[test]
fn requests_that_give_up_stop_their_running_tasks() {
    // A service's requests: each awaits its task under an `AbortOnDrop`
    // guard, and gives up (drops the guard) when the caller does. Four
    // workers, six requests per wave: four tasks run, two wait in the queue.
    // When the wave gives up, every task that runs — the four, and a queued
    // one a freed worker takes before its own request has dropped its guard —
    // stops: none runs on after its request gave up.
    let pool = queue_pool(4, 8);
    let rt = runtime();
    for _wave in 0..2 {
        let (started, stopped) = (Counter::new(), Counter::new());
        let (give_up, gave_up) = tokio::sync::watch::channel(false);
        let requests: Vec<_> = (0..6)
            .map(|_| {
                let (work, stopped) = (until_cancelled(&started), stopped.clone());
                let task = pool.spawn_async(move || {
                    if work() {
                        stopped.add();
                    }
                });
                let mut gave_up = gave_up.clone();
                rt.spawn(async move {
                    tokio::select! {
                        _ = task.abort_on_drop() => unreachable!("the tasks run until cancelled"),
                        _ = gave_up.wait_for(|g| *g) => {}
                    }
                })
            })
            .collect();
        assert!(started.reaches(4), "four tasks running");
        give_up.send(true).unwrap();
        for request in requests {
            rt.block_on(request).unwrap();
        }
        assert!(
            pool.wait_idle_timeout(PATIENCE),
            "the running tasks stopped"
        );
        assert!(started.get() >= 4);
        assert_eq!(
            stopped.get(),
            started.get(),
            "each task that ran saw its request give up"
        );
    }
}

#[test]
fn an_aborted_task_s_error_says_aborted_and_a_dropped_one_s_says_dropped() {
    let pool = queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let aborted = pool.spawn(|| ()).unwrap();
    let dropped = pool.spawn(|| ()).unwrap();
    assert!(aborted.abort());
    let mut group = pool.group::<()>();
    group.spawn(|| ()).unwrap();
    group.abort_all();
    assert_eq!(pool.clear_queue(), 3, "the three tasks, aborted or not");
    let aborted = aborted.join().unwrap_err().to_string();
    let dropped = dropped.join().unwrap_err().to_string();
    let grouped = group.join_next().unwrap().unwrap_err().to_string();
    assert!(aborted.contains("aborted"), "{aborted}");
    assert!(!aborted.contains("dropped"), "{aborted}");
    assert!(dropped.contains("dropped"), "{dropped}");
    assert!(grouped.contains("group was cancelled"), "{grouped}");
    gate.open();
}
