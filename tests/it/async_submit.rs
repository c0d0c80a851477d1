//! Async back-pressure: `submit_async`, `spawn_async`, `invoke_async` and
//! `wait_idle_async` wait without holding a thread and share the waiters' FIFO
//! with blocking submitters; dropped before the pool took their task, they
//! run nothing and leave nothing behind, and a task the pool took runs exactly
//! once. On two executors that know nothing of antpool (futures' `block_on`,
//! tokio's current-thread runtime) and on a hand-polled future. Runs under
//! Miri in CI (but the tokio tests).

use crate::common;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

use antpool::{Pool, PoolWithFunc};
use common::poll::{Count, counting_waker};
use common::{Counter, Gate, PATIENCE, eventually, occupy};

fn poll_once<F: Future + ?Sized>(fut: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(waker))
}

/// Polls a saturated submit until it has joined the waiters' line (a first
/// poll may only yield: for a few microseconds a saturated future asks to be
/// polled again instead of joining, as a blocked thread spins first).
fn join_line<F: Future + ?Sized>(mut fut: Pin<&mut F>, waker: &Waker, waiting: impl Fn() -> usize) {
    let before = waiting();
    for _ in 0..1_000_000 {
        assert!(
            poll_once(fut.as_mut(), waker).is_pending(),
            "resolved instead of waiting"
        );
        if waiting() > before {
            return;
        }
        thread::yield_now();
    }
    panic!("the future never joined the line");
}

/// The hand-off and a queue of `queue`, each with one worker held busy until
/// the gate opens and the queue full: saturated.
fn saturated(queue: usize) -> [(&'static str, Arc<Pool>, Gate); 2] {
    ["hand-off", "queue"].map(|name| {
        let builder = Pool::builder().capacity(1);
        let builder = match name {
            "queue" => builder.max_queued_tasks(queue),
            _ => builder,
        };
        let pool = Arc::new(builder.build().unwrap());
        let gate = occupy(&pool, 1);
        if name == "queue" {
            for _ in 0..queue {
                pool.submit(|| ()).unwrap();
            }
        }
        (name, pool, gate)
    })
}

/// A submit of a counted task on the saturated `pool`, polled until it
/// waits in the line; its waker's count starts from 0 there.
#[allow(clippy::type_complexity)]
fn in_line(
    pool: &Pool,
) -> (
    Counter,
    Pin<Box<dyn Future<Output = Result<(), antpool::SubmitError<antpool::Task>>> + Send + '_>>,
    Waker,
    Arc<Count>,
) {
    let ran = Counter::new();
    let r = ran.clone();
    let mut fut: Pin<Box<dyn Future<Output = _> + Send + '_>> =
        Box::pin(pool.submit_async(move || r.add()));
    let (waker, woken) = counting_waker();
    join_line(fut.as_mut(), &waker, || pool.waiting());
    woken.0.store(0, SeqCst); // the yields before it joined woke it too
    (ran, fut, waker, woken)
}

fn one_worker() -> Pool {
    Pool::new(1).unwrap()
}

#[test]
fn a_saturated_pool_returns_pending_then_wakes_and_takes_the_task() {
    let pool = one_worker();
    let gate = occupy(&pool, 1);
    let (ran, mut fut, waker, woken) = in_line(&pool);
    assert_eq!(pool.waiting(), 1, "it waits in the waiters' list");
    assert_eq!(woken.0.load(SeqCst), 0);
    gate.open();
    assert!(eventually(|| woken.0.load(SeqCst) > 0), "room wakes it");
    assert!(matches!(
        poll_once(fut.as_mut(), &waker),
        Poll::Ready(Ok(()))
    ));
    assert!(ran.reaches(1));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn async_and_blocking_submitters_are_served_in_arrival_order() {
    for (name, pool, gate) in saturated(1) {
        let order = Arc::new(Mutex::new(Vec::new()));
        let o = order.clone();
        let mut fut = Box::pin(pool.submit_async(move || o.lock().unwrap().push("async")));
        let (waker, woken) = counting_waker();
        join_line(fut.as_mut(), &waker, || pool.waiting());
        woken.0.store(0, SeqCst); // the yields before it joined woke it too
        let (p, o) = (pool.clone(), order.clone());
        let blocking = thread::spawn(move || p.submit(move || o.lock().unwrap().push("blocking")));
        assert!(eventually(|| pool.waiting() == 2), "{name}");
        gate.open();
        assert!(eventually(|| woken.0.load(SeqCst) > 0), "{name}");
        assert!(matches!(
            poll_once(fut.as_mut(), &waker),
            Poll::Ready(Ok(()))
        ));
        blocking.join().unwrap().unwrap();
        assert!(pool.wait_idle_timeout(PATIENCE));
        assert_eq!(*order.lock().unwrap(), ["async", "blocking"], "{name}");
    }
}

#[test]
fn dropped_while_waiting_it_runs_nothing_and_leaves_no_waiter() {
    let pool = one_worker();
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    let r = ran.clone();
    let mut fut = Box::pin(pool.submit_async(move || r.add()));
    let (waker, _) = counting_waker();
    join_line(fut.as_mut(), &waker, || pool.waiting());
    assert_eq!(pool.waiting(), 1);
    drop(fut);
    assert_eq!(pool.waiting(), 0);
    // Never polled: nothing at all.
    let r = ran.clone();
    drop(pool.submit_async(move || r.add()));
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 0);
    // Nothing stuck: the pool takes the next task at once.
    pool.submit(|| ()).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn dropped_after_the_pool_took_its_task_the_task_runs_and_the_line_moves_on() {
    for (name, pool, gate) in saturated(2) {
        let (ran, fut, _, woken) = in_line(&pool);
        let (p, r) = (pool.clone(), ran.clone());
        let next = thread::spawn(move || p.submit(move || r.add()));
        assert!(eventually(|| pool.waiting() == 2), "{name}");
        gate.open();
        // Woken: a worker took its task from the line (the wake-up says so).
        assert!(eventually(|| woken.0.load(SeqCst) > 0), "{name}");
        drop(fut); // not polled again: the task is the pool's, and runs
        next.join().unwrap().unwrap();
        assert!(pool.wait_idle_timeout(PATIENCE), "{name}");
        assert_eq!(ran.get(), 2, "{name}: both tasks ran, once each");
        assert_eq!(pool.waiting(), 0, "{name}");
        // The room given back is whole: the pool runs at its capacity again.
        let full = occupy(&pool, 1);
        full.open();
        assert!(pool.wait_idle_timeout(PATIENCE));
        pool.release_timeout(PATIENCE).unwrap();
    }
}

#[test]
fn max_blocking_tasks_counts_async_and_blocking_waiters() {
    let pool = Pool::builder()
        .capacity(1)
        .max_blocking_tasks(1)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let mut fut = Box::pin(pool.submit_async(|| ()));
    let (waker, _) = counting_waker();
    join_line(fut.as_mut(), &waker, || pool.waiting());
    assert!(pool.submit(|| ()).unwrap_err().is_overload());
    // (It may yield a few polls before it would join the line.)
    let second = futures_executor::block_on(pool.submit_async(|| ()));
    assert!(second.unwrap_err().is_overload());
    gate.open();
    assert!(futures_executor::block_on(fut).is_ok());
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn release_turns_a_waiting_future_away_with_its_task() {
    let pool = one_worker();
    let gate = occupy(&pool, 1);
    let (ran, mut fut, waker, woken) = in_line(&pool);
    pool.release();
    assert!(woken.0.load(SeqCst) > 0);
    let task = match poll_once(fut.as_mut(), &waker) {
        Poll::Ready(Err(e)) => {
            assert!(e.is_closed());
            e.into_inner()
        }
        other => panic!("expected Closed, got {:?}", other.map(|r| r.is_ok())),
    };
    gate.open();
    task.run(); // the caller's to run
    assert_eq!(ran.get(), 1);
    assert!(pool.wait_idle_timeout(PATIENCE));
}

#[test]
fn spawn_invoke_and_wait_idle_on_futures_block_on() {
    let pool = Pool::new(2).unwrap();
    let squares = futures_executor::block_on(async {
        let mut sum = 0;
        for n in 0..20u64 {
            sum += pool.spawn_async(move || n * n).await.unwrap();
        }
        sum
    });
    assert_eq!(squares, (0..20u64).map(|n| n * n).sum());
    let total = Arc::new(AtomicUsize::new(0));
    let t = total.clone();
    let func = PoolWithFunc::builder(move |n: usize| {
        thread::sleep(Duration::from_millis(1));
        t.fetch_add(n, SeqCst);
    })
    .capacity(2)
    .max_queued_tasks(4)
    .build()
    .unwrap();
    futures_executor::block_on(async {
        for n in 1..=30 {
            func.invoke_async(n).await.unwrap();
        }
        func.wait_idle_async().await;
    });
    assert_eq!(
        total.load(SeqCst),
        465,
        "wait_idle_async saw every task done"
    );
    func.release_timeout(PATIENCE).unwrap();
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn wait_idle_async_waits_and_a_dropped_one_leaves_nothing_behind() {
    let pool = one_worker();
    let gate = occupy(&pool, 1);
    let mut idle = Box::pin(pool.wait_idle_async());
    let (waker, woken) = counting_waker();
    assert!(poll_once(idle.as_mut(), &waker).is_pending());
    let mut dropped = Box::pin(pool.wait_idle_async());
    assert!(poll_once(dropped.as_mut(), &waker).is_pending());
    drop(dropped);
    gate.open();
    assert!(eventually(|| woken.0.load(SeqCst) > 0));
    assert!(poll_once(idle.as_mut(), &waker).is_ready());
    // Already quiet: ready at once.
    assert!(poll_once(Box::pin(pool.wait_idle_async()).as_mut(), &waker).is_ready());
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn many_async_submitters_lose_nothing_and_run_nothing_twice() {
    let rounds = if cfg!(miri) { 20 } else { 300 };
    for (name, builder) in common::bounded_modes(2, 4) {
        let pool = Arc::new(builder.build().unwrap());
        let ran = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let (pool, ran) = (pool.clone(), ran.clone());
                thread::spawn(move || {
                    futures_executor::block_on(async {
                        for _ in 0..rounds {
                            let ran = ran.clone();
                            pool.submit_async(move || {
                                ran.fetch_add(1, SeqCst);
                            })
                            .await
                            .unwrap();
                        }
                    })
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(pool.wait_idle_timeout(PATIENCE), "{name}");
        assert_eq!(ran.load(SeqCst), 3 * rounds, "{name}");
        assert_eq!(pool.waiting(), 0, "{name}");
        pool.release_timeout(PATIENCE).unwrap();
    }
}

#[test]
fn a_future_dropped_while_it_is_served_loses_and_doubles_nothing() {
    // The drop races the worker that takes the future's task from the line:
    // either it left the line first (its task never runs), or the worker took
    // the task (it runs, once); the blocking submitter behind it gets in
    // either way.
    let rounds = if cfg!(miri) { 10 } else { 200 };
    for (name, builder) in [
        ("hand-off", Pool::builder().capacity(1)),
        ("queue", Pool::builder().capacity(1).max_queued_tasks(1)),
    ] {
        let pool = Arc::new(builder.build().unwrap());
        let (waker, _) = counting_waker();
        for round in 0..rounds {
            let gate = occupy(&pool, 1);
            if name == "queue" {
                pool.submit(|| ()).unwrap();
            }
            let dropped_ran = Counter::new();
            let r = dropped_ran.clone();
            let mut fut = Box::pin(pool.submit_async(move || r.add()));
            join_line(fut.as_mut(), &waker, || pool.waiting());
            let (p, next_ran) = (pool.clone(), Counter::new());
            let n = next_ran.clone();
            let next = thread::spawn(move || p.submit(move || n.add()));
            assert!(eventually(|| pool.waiting() == 2));
            let opener = thread::spawn(move || gate.open());
            drop(fut);
            opener.join().unwrap();
            next.join().unwrap().unwrap();
            assert!(pool.wait_idle_timeout(PATIENCE), "{name} round {round}");
            assert!(dropped_ran.get() <= 1, "{name} round {round}");
            assert_eq!(next_ran.get(), 1, "{name} round {round}");
        }
        pool.release_timeout(PATIENCE).unwrap();
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime is slow under Miri; futures' block_on covers it"
)]
fn on_a_tokio_current_thread_runtime_waiting_never_blocks_the_runtime() {
    // One runtime thread. The pool's only worker blocks until a tokio task on
    // that same thread lets it go, after forty tasks submitted behind it: had
    // any submit blocked the runtime's thread, the release would never run.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let pool = Arc::new(Pool::new(1).unwrap());
    let ran = Arc::new(AtomicUsize::new(0));
    let (open, wait) = mpsc::channel::<()>();
    rt.block_on(async {
        let r = ran.clone();
        pool.submit_async(move || {
            wait.recv().unwrap();
            r.fetch_add(1, SeqCst);
        })
        .await
        .unwrap();
        let mut tasks = Vec::new();
        for _ in 0..40 {
            let (pool, ran) = (pool.clone(), ran.clone());
            tasks.push(tokio::spawn(async move {
                pool.submit_async(move || {
                    ran.fetch_add(1, SeqCst);
                })
                .await
                .unwrap();
            }));
        }
        tasks.push(tokio::spawn(async move {
            tokio::task::yield_now().await;
            open.send(()).unwrap();
        }));
        let all = async {
            for t in tasks {
                t.await.unwrap();
            }
        };
        tokio::time::timeout(PATIENCE, all)
            .await
            .expect("a submit blocked the runtime");
        let idle = pool.wait_idle_async();
        tokio::time::timeout(PATIENCE, idle).await.unwrap();
    });
    assert_eq!(ran.load(SeqCst), 41);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_spawn_async_rejected_hands_the_closure_back() {
    let pool = Pool::builder()
        .capacity(1)
        .nonblocking(true)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let err = futures_executor::block_on(pool.spawn_async(|| 7)).unwrap_err();
    assert!(err.is_rejected());
    assert!(err.as_submit().unwrap().is_overload());
    assert_eq!(err.into_closure().unwrap()(), 7);
    gate.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// An async submitter that joined the line behind a blocked thread is let
/// in after it, with nothing more submitted: once the thread is served, the
/// line still counts as waited on for the future behind it.
#[test]
fn an_async_submitter_behind_a_blocked_thread_is_let_in_after_it() {
    for (name, pool, gate) in saturated(1) {
        let order = Arc::new(Mutex::new(Vec::new()));
        let (p, o) = (pool.clone(), order.clone());
        let blocking = thread::spawn(move || p.submit(move || o.lock().unwrap().push("blocking")));
        assert!(eventually(|| pool.waiting() == 1), "{name}");
        let o = order.clone();
        let mut fut = Box::pin(pool.submit_async(move || o.lock().unwrap().push("async")));
        let (waker, _) = counting_waker();
        join_line(fut.as_mut(), &waker, || pool.waiting());
        gate.open();
        blocking.join().unwrap().unwrap();
        assert!(pool.wait_idle_timeout(PATIENCE), "{name}");
        assert_eq!(
            *order.lock().unwrap(),
            ["blocking", "async"],
            "{name}: the future behind the thread was let in"
        );
        assert!(matches!(
            poll_once(fut.as_mut(), &waker),
            Poll::Ready(Ok(()))
        ));
        pool.release_timeout(PATIENCE).unwrap();
    }
}

/// A spawner that says the machine has several CPUs, whatever it has: where
/// a saturated async submit may yield to its executor before it waits.
#[derive(Clone)]
struct ManyCpus(antpool::port::StdSpawner);

impl antpool::port::Spawner for ManyCpus {
    type Signal = <antpool::port::StdSpawner as antpool::port::Spawner>::Signal;
    type Lock = <antpool::port::StdSpawner as antpool::port::Spawner>::Lock;
    fn spawn(&self, job: antpool::port::Job) -> Result<(), antpool::port::Job> {
        self.0.spawn(job)
    }
    fn signal(&self) -> Self::Signal {
        self.0.signal()
    }
    fn parallelism(&self) -> usize {
        4
    }
}

/// On a clock that stands still (a manual clock, a coarse tick), a saturated
/// async submit still joins the waiters' line after a bounded number of
/// polls: the polls it spends yielding to its executor first are capped by
/// count, not only by time, so it never spins instead of waiting.
#[test]
fn a_saturated_async_submit_joins_the_line_on_a_clock_that_stands_still() {
    let pool = Pool::builder()
        .capacity(1)
        .clock(Arc::new(antpool::port::ManualClock::new()))
        .spawner(ManyCpus(antpool::port::StdSpawner::new()))
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let (waker, _) = counting_waker();
    let mut fut = Box::pin(pool.submit_async(|| ()));
    let mut polls = 0;
    while pool.waiting() == 0 {
        assert!(
            poll_once(fut.as_mut(), &waker).is_pending(),
            "resolved on a saturated pool"
        );
        polls += 1;
        assert!(polls <= 1_000, "still not waiting after {polls} polls");
    }
    gate.open();
    futures_executor::block_on(fut).unwrap();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A saturated async submit that yields to its executor instead of joining
/// the line stops yielding once room frees: the first poll after the pool
/// has room again admits its task — a hand-off pool below its capacity, a
/// queue drained past half. Its yields are for a pool still full, not polls
/// to spend whatever the room (on a clock that stands still, their time
/// never runs out).
#[test]
fn a_yielding_async_submit_takes_the_room_at_its_next_poll() {
    for (mode, queue) in [("hand-off", 0), ("queue", 2)] {
        let pool = Pool::builder()
            .capacity(1)
            .max_queued_tasks(queue)
            .clock(Arc::new(antpool::port::ManualClock::new()))
            .spawner(ManyCpus(antpool::port::StdSpawner::new()))
            .build()
            .unwrap();
        let gate = occupy(&pool, 1);
        for _ in 0..queue {
            pool.try_submit(|| ()).unwrap();
        }
        let (waker, _) = counting_waker();
        let ran = Counter::new();
        let task = {
            let ran = ran.clone();
            move || ran.add()
        };
        let mut fut = Box::pin(pool.submit_async(task));
        assert!(
            poll_once(fut.as_mut(), &waker).is_pending(),
            "{mode}: resolved on a saturated pool"
        );
        assert_eq!(pool.waiting(), 0, "{mode}: it yields before it waits");
        gate.open();
        assert!(pool.wait_idle_timeout(PATIENCE), "{mode}");
        match poll_once(fut.as_mut(), &waker) {
            Poll::Ready(result) => result.unwrap(),
            Poll::Pending => panic!("{mode}: still yielding with room in the pool"),
        }
        assert!(ran.reaches(1), "{mode}");
        pool.release_timeout(PATIENCE).unwrap();
    }
}

/// A submit that finds others waiting in a bounded line joins it behind
/// them, also while the queue has a free slot that the hysteresis keeps for
/// them until it drains: it never goes ahead of the line. They are served
/// in order.
#[test]
fn an_async_submit_joins_a_bounded_line_behind_the_waiters_before_it() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(2)
        .max_blocking_tasks(4)
        .build()
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let logged = |name: &'static str| {
        let log = log.clone();
        move || log.lock().unwrap().push(name)
    };
    let first = occupy(&pool, 1);
    // The worker's next task, from the queue, holds it too.
    let (second, held) = (Gate::new(), Counter::new());
    let (g, h) = (second.clone(), held.clone());
    pool.submit(move || {
        h.add();
        g.wait();
    })
    .unwrap();
    pool.submit(logged("queued")).unwrap();
    let (waker, _) = counting_waker();
    let mut a = Box::pin(pool.submit_async(logged("a")));
    join_line(a.as_mut(), &waker, || pool.waiting());
    first.open();
    assert!(held.reaches(1));
    assert_eq!((pool.queued(), pool.waiting()), (1, 1), "a slot is free");
    let mut b = Box::pin(pool.submit_async(logged("b")));
    join_line(b.as_mut(), &waker, || pool.waiting());
    assert_eq!(pool.waiting(), 2, "b waits behind a");
    second.open();
    assert!(futures_executor::block_on(a).is_ok());
    assert!(futures_executor::block_on(b).is_ok());
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(*log.lock().unwrap(), ["queued", "a", "b"]);
    pool.release_timeout(PATIENCE).unwrap();
}
