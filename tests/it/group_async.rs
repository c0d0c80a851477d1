//! Task groups in async code: `join_next_async` is cancel-safe (under
//! `tokio::select!` with a timer, a dropped join takes nothing and the next
//! one gets the completion), and `spawn_async` keeps the pool's cancel
//! contract — dropped before the pool took the task, it withdraws it (it never
//! runs, the group does not count it); once taken, the task runs and joins.

use crate::common;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::Poll;
use std::time::Duration;

use antpool::{Pool, TaskGroup};
use common::poll::{counting_waker, join_line, poll_once, runtime};
use common::{Counter, Gate, PATIENCE, eventually, held_pool, occupy};

/// A closure that counts its runs and its drops.
fn tracked(ran: &Counter, dropped: &Counter, value: u32) -> impl FnOnce() -> u32 + Send + 'static {
    struct OnDrop(Counter);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            self.0.add();
        }
    }
    let (ran, on_drop) = (ran.clone(), OnDrop(dropped.clone()));
    move || {
        let _on_drop = on_drop;
        ran.add();
        value
    }
}

/// The futures are `Send` (an async block that holds one across an await
/// can go to `tokio::spawn`).
fn is_send<T: Send>(_: &T) {}

#[test]
fn spawn_async_resolves_to_the_id_and_the_result_joins() {
    let pool = Pool::new(2).unwrap();
    let mut group = pool.group::<u32>();
    is_send(&group.spawn_async(|| 0));
    is_send(&group.join_next_async());
    let ids = futures_executor::block_on(async {
        let a = group.spawn_async(|| 1).await.unwrap();
        let b = group.spawn_async(|| 2).await.unwrap();
        (a, b)
    });
    assert!(ids.0 < ids.1);
    let mut got: Vec<_> = (0..2).map(|_| group.join_next_with_id().unwrap()).collect();
    got.sort_by_key(|(id, _)| *id);
    assert_eq!(got[0].0, ids.0);
    assert_eq!(*got[1].1.as_ref().unwrap(), 2);
    pool.release();
    let err = futures_executor::block_on(group.spawn_async(|| 3)).unwrap_err();
    assert!(err.is_closed());
    assert_eq!(err.into_closure()(), 3, "the closure back");
    assert!(group.is_empty());
}

#[test]
fn a_spawn_dropped_before_the_pool_took_it_never_runs_and_is_not_counted() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let (ran, dropped) = (Counter::new(), Counter::new());
    let mut group = pool.group::<u32>();
    // Never polled.
    drop(group.spawn_async(tracked(&ran, &dropped, 1)));
    // Waiting in the line.
    let (waker, _) = counting_waker();
    let mut spawn = group.spawn_async(tracked(&ran, &dropped, 2));
    join_line(&mut spawn, &waker, &pool);
    drop(spawn);
    assert_eq!(pool.waiting(), 0, "no waiter left behind");
    assert_eq!((group.len(), dropped.get()), (0, 2));
    gate.open();
    pool.wait_idle();
    assert_eq!(ran.get(), 0);
    assert!(group.join_next().is_none());
}

#[test]
fn a_spawn_dropped_after_the_pool_took_it_runs_and_joins() {
    for finished in [true, false] {
        let pool = Pool::new(1).unwrap();
        let gate = occupy(&pool, 1);
        let (started, hold) = (Counter::new(), Gate::new());
        let mut group = pool.group::<u32>();
        let (s, h) = (started.clone(), hold.clone());
        let (waker, _) = counting_waker();
        let mut spawn = group.spawn_async(move || {
            s.add();
            h.wait();
            7
        });
        join_line(&mut spawn, &waker, &pool);
        gate.open(); // the worker that frees takes the task from the line
        assert!(started.reaches(1));
        if finished {
            hold.open();
            pool.wait_idle();
        }
        drop(spawn); // not polled again: it never said `Ok`, yet the task is the group's
        assert_eq!(group.len(), 1, "finished {finished}");
        hold.open();
        assert_eq!(group.join_next().unwrap().unwrap(), 7);
        assert!(group.join_next().is_none());
    }
}

#[test]
fn a_spawn_taken_then_cleared_before_its_drop_is_not_counted() {
    // Taken from the line into the queue, cleared unrun, then the future
    // dropped: it never ran, and the group does not count it. Polled again
    // instead, it resolves `Ok` (the pool took it) and joins as cancelled.
    for resolve in [false, true] {
        let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(1));
        pool.submit(|| ()).unwrap(); // the queue is full
        let (ran, dropped) = (Counter::new(), Counter::new());
        let mut group = pool.group::<u32>();
        let (waker, _) = counting_waker();
        let mut spawn = group.spawn_async(tracked(&ran, &dropped, 1));
        join_line(&mut spawn, &waker, &pool);
        assert_eq!(pool.clear_queue(), 1); // the room it makes takes our task
        assert!(eventually(|| pool.waiting() == 0 && pool.queued() == 1));
        assert_eq!(pool.clear_queue(), 1); // ours, unrun
        assert_eq!(dropped.get(), 1);
        if resolve {
            assert!(poll_once(&mut spawn, &waker).is_ready());
            drop(spawn);
            assert_eq!(group.len(), 1);
            assert!(group.join_next().unwrap().unwrap_err().is_cancelled());
        } else {
            drop(spawn);
            assert_eq!(group.len(), 0);
        }
        assert!(group.join_next().is_none());
        gate.open();
        pool.wait_idle();
        assert_eq!(ran.get(), 0);
    }
}

#[test]
fn a_dropped_join_next_async_takes_nothing() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let mut group = pool.group::<u32>();
    let g = gate.clone();
    group
        .spawn(move || {
            g.wait();
            3
        })
        .unwrap();
    let (waker, woken) = counting_waker();
    let mut join = group.join_next_async();
    assert!(poll_once(&mut join, &waker).is_pending());
    gate.open();
    assert!(
        eventually(|| woken.0.load(SeqCst) > 0),
        "the completion wakes the joiner"
    );
    drop(join); // woken, never polled again: the completion stays in the group
    assert_eq!(group.len(), 1);
    let mut join = group.join_next_async();
    match poll_once(&mut join, &waker) {
        Poll::Ready(Some(Ok(value))) => assert_eq!(value, 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_join_next_async_dropped_while_pending_is_not_woken() {
    let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(4));
    let mut group = pool.group::<u8>();
    group.spawn(|| 1).unwrap();
    let (waker, woken) = counting_waker();
    let mut join = group.join_next_async();
    assert!(poll_once(&mut join, &waker).is_pending());
    drop(join);
    gate.open();
    assert_eq!(
        group.join_next_timeout(PATIENCE).unwrap().unwrap().unwrap(),
        1
    );
    // (The joiner may return before the completion's wake-up: wait for it.)
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(woken.0.load(SeqCst), 0, "the dropped join was woken");
}

#[test]
#[cfg_attr(miri, ignore = "tokio's runtime is slow under Miri")]
fn join_next_async_under_select_loses_and_doubles_nothing() {
    // Joins raced against a 1 ms timer: the held task makes the timer win
    // (a join dropped while pending) before anything completes; then the
    // rest complete at a pace that lets either side win.
    let pool = Pool::new(3).unwrap();
    let count = 60u64;
    let gate = Gate::new();
    let mut group = pool.group::<u64>();
    let g = gate.clone();
    group
        .spawn(move || {
            g.wait();
            count
        })
        .unwrap();
    for i in 0..count {
        group
            .spawn(move || {
                std::thread::sleep(Duration::from_micros(700 * (i % 4)));
                i
            })
            .unwrap();
    }
    let rt = runtime();
    let (seen, timeouts) = rt.block_on(async {
        let mut seen = HashSet::new();
        let mut timeouts = 0;
        loop {
            tokio::select! {
                next = group.join_next_async() => match next {
                    Some(result) => assert!(seen.insert(result.unwrap()), "joined twice"),
                    None => break,
                },
                _ = tokio::time::sleep(Duration::from_millis(1)) => {
                    timeouts += 1;
                    if seen.len() as u64 == count {
                        gate.open(); // the held one, last, after joins were dropped
                    }
                }
            }
        }
        (seen, timeouts)
    });
    assert_eq!(seen.len() as u64, count + 1, "a completion was lost");
    assert!(timeouts > 0);
}

#[test]
#[cfg_attr(miri, ignore = "tokio's runtime is slow under Miri")]
fn a_dropped_join_then_the_next_returns_the_result() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let mut group = pool.group::<&'static str>();
    let g = gate.clone();
    group
        .spawn(move || {
            g.wait();
            "done"
        })
        .unwrap();
    let rt = runtime();
    rt.block_on(async {
        tokio::select! {
            _ = group.join_next_async() => panic!("the task is held"),
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
        gate.open();
        let next = tokio::time::timeout(PATIENCE, group.join_next_async()).await;
        assert_eq!(next.unwrap().unwrap().unwrap(), "done");
        assert!(group.join_next_async().await.is_none());
    });
}

#[test]
#[cfg_attr(miri, ignore = "tokio's runtime is slow under Miri")]
fn spawn_async_under_select_either_withdraws_or_joins() {
    // Spawns raced against a timer on a pool of one worker: while the worker
    // is held every spawn is withdrawn; then tasks as long as the timer make
    // either side win, the pool taking a task just as the timer fires among
    // them. Each task runs once if the group counts it, never if not.
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let ran = Arc::new(AtomicUsize::new(0));
    let rt = runtime();
    let mut group: TaskGroup<()> = pool.group();
    let race = |i: u64, group: &mut TaskGroup<()>| {
        let ran = ran.clone();
        let task = move || {
            std::thread::sleep(Duration::from_micros(500 + 300 * (i % 4)));
            ran.fetch_add(1, SeqCst);
        };
        rt.block_on(async {
            tokio::select! {
                _ = group.spawn_async(task) => {}
                _ = tokio::time::sleep(Duration::from_millis(1)) => {}
            }
        });
    };
    for i in 0..3 {
        race(i, &mut group);
    }
    assert!(group.is_empty(), "withdrawn while the worker was held");
    gate.open();
    pool.wait_idle();
    for i in 0..100 {
        race(i, &mut group);
    }
    let counted = group.len();
    let joined = group.join_all().len();
    pool.wait_idle();
    assert_eq!(joined, counted);
    assert_eq!(
        ran.load(SeqCst),
        counted,
        "ran exactly the ones the group counted"
    );
    assert!(counted > 0);
}

#[test]
#[cfg_attr(miri, ignore = "tokio's runtime is slow under Miri")]
fn a_token_cancel_wakes_an_async_joiner() {
    let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(4));
    let mut group = pool.group::<u8>();
    group.spawn(|| 1).unwrap();
    let token = group.cancel_token();
    let rt = runtime();
    rt.block_on(async {
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            token.cancel();
        });
        let next = tokio::time::timeout(PATIENCE, group.join_next_async()).await;
        assert!(next.unwrap().unwrap().unwrap_err().is_cancelled());
    });
    gate.open();
}

/// A pending `join_next_async` polled again by another task (another waker)
/// wakes that one when a task completes, not the one that polled it first:
/// a future moved between tasks is not lost.
#[test]
fn a_join_polled_again_with_another_waker_wakes_that_one() {
    let pool = Pool::new(1).unwrap();
    let mut group = pool.group::<u32>();
    let gate = Gate::new();
    let g = gate.clone();
    group
        .spawn(move || {
            g.wait();
            5
        })
        .unwrap();
    let (first, first_wakes) = counting_waker();
    let (second, second_wakes) = counting_waker();
    let mut join = Box::pin(group.join_next_async());
    assert!(poll_once(&mut join, &first).is_pending());
    assert!(poll_once(&mut join, &second).is_pending());
    gate.open();
    assert!(eventually(|| second_wakes.0.load(SeqCst) == 1));
    assert_eq!(first_wakes.0.load(SeqCst), 0, "the first waker is stale");
    match poll_once(&mut join, &second) {
        Poll::Ready(Some(Ok(5))) => {}
        other => panic!("the completion, not {other:?}"),
    }
}
