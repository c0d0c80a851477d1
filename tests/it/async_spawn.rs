//! `spawn_async` as a tokio user writes it: a `'static + Send` future (spawned
//! on a runtime, outliving the pool handle it came from), the result in one
//! await, errors that `?` into `anyhow::Error` whatever the closure captures,
//! cancellation a caller can hold (an `AbortHandle`, `abort_on_drop`), and the
//! one contract of a dropped future, checked under `select!` and a timeout:
//! before the pool took the task, it never runs; after, it runs once.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::mpsc;
use std::task::Poll;
use std::thread;
use std::time::Duration;

use antpool::{AbortHandle, Pool, SpawnAsync, SpawnError};
use common::poll::{counting_waker, join_line, poll_once, runtime};
use common::{Counter, PATIENCE, eventually, occupy, queue_pool};

/// The future's type is what the docs promise.
fn is_static_send<T: Send + 'static>(_: &T) {}

#[test]
fn one_await_gives_the_result_and_the_future_is_static_and_send() {
    let pool = Pool::new(2).unwrap();
    let fut: SpawnAsync<_, u64> = pool.spawn_async(|| 6 * 7);
    is_static_send(&fut);
    assert_eq!(futures_executor::block_on(fut).unwrap(), 42);
    is_static_send(&pool.submit_async(|| ()));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
#[cfg_attr(miri, ignore = "tokio's multi-thread runtime is slow under Miri")]
fn tokio_spawn_takes_the_future_and_back_pressure_holds() {
    let pool = Pool::new(3).unwrap();
    let running = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let rt = runtime();
    let total: u64 = rt.block_on(async {
        let tasks: Vec<_> = (1..=60u64)
            .map(|n| {
                let (running, most) = (running.clone(), most.clone());
                tokio::spawn(pool.spawn_async(move || {
                    let now = running.fetch_add(1, SeqCst) + 1;
                    most.fetch_max(now, SeqCst);
                    thread::sleep(Duration::from_micros(200));
                    running.fetch_sub(1, SeqCst);
                    n
                }))
            })
            .collect();
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap().unwrap();
        }
        total
    });
    assert_eq!(total, 60 * 61 / 2);
    assert!(
        most.load(SeqCst) <= 3,
        "never more than the capacity at once"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn errors_pass_up_with_question_mark_whatever_the_closure_captures() {
    // A Receiver is Send but not Sync: the closure is too.
    fn with_anyhow(pool: &Pool) -> anyhow::Result<u32> {
        let (tx, rx) = mpsc::channel::<u32>();
        tx.send(20)?;
        let blocking = pool.spawn(move || rx.recv().unwrap())?.join()?;
        let (tx, rx) = mpsc::channel::<u32>();
        tx.send(22)?;
        let awaited = futures_executor::block_on(pool.spawn_async(move || rx.recv().unwrap()))?;
        Ok(blocking + awaited)
    }
    fn with_box(pool: &Pool) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
        let (tx, rx) = mpsc::channel::<u32>();
        tx.send(1)?;
        let got = futures_executor::block_on(pool.spawn_async(move || rx.recv().unwrap()))?;
        Ok(got)
    }
    let pool = Pool::new(2).unwrap();
    assert_eq!(with_anyhow(&pool).unwrap(), 42);
    assert_eq!(with_box(&pool).unwrap(), 1);
    pool.release();
    let err = with_anyhow(&pool).unwrap_err();
    assert_eq!(err.to_string(), "the pool has been released");
    assert!(with_box(&pool).is_err());
}

#[test]
fn a_refused_closure_comes_back_from_the_one_await() {
    let pool = Pool::builder()
        .capacity(1)
        .nonblocking(true)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let (tx, rx) = mpsc::channel::<&str>();
    tx.send("kept").unwrap();
    let err: SpawnError<_> =
        futures_executor::block_on(pool.spawn_async(move || rx.recv().unwrap())).unwrap_err();
    assert!(err.is_rejected() && !err.is_panic() && !err.is_cancelled());
    assert!(err.as_submit().unwrap().is_overload());
    assert_eq!(err.into_closure().unwrap()(), "kept");
    gate.open();
    pool.release_timeout(PATIENCE).unwrap();
}

/// A `spawn_async` future reads unfinished until its task has run (not
/// even submitted before its first poll), and finished once it has, before
/// the poll that takes the result.
#[test]
fn a_spawn_async_future_tells_when_its_task_is_finished() {
    let pool = Pool::new(1).unwrap();
    let gate = common::Gate::new();
    let g = gate.clone();
    let mut task = Box::pin(pool.spawn_async(move || {
        g.wait();
        5
    }));
    assert!(!task.is_finished(), "lazy: not submitted yet");
    let (waker, _) = common::counting_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(task.as_mut().poll(&mut cx).is_pending());
    assert!(!task.is_finished(), "submitted, held by the gate");
    gate.open();
    assert!(eventually(|| task.is_finished()), "it ran");
    assert!(matches!(
        task.as_mut().poll(&mut cx),
        std::task::Poll::Ready(Ok(5))
    ));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_panic_comes_back_from_the_one_await() {
    let pool = Pool::new(1).unwrap();
    let err =
        futures_executor::block_on(pool.spawn_async(|| -> u8 { panic!("boom") })).unwrap_err();
    assert!(err.is_panic() && !err.is_rejected() && !err.is_cancelled());
    assert!(err.to_string().contains("boom"), "{err}");
    assert_eq!(err.into_join_error().unwrap().panic_message(), Some("boom"));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn polled_after_the_last_handle_is_gone_it_resolves_closed() {
    let pool = Pool::new(1).unwrap();
    let spawned = pool.spawn_async(|| unreachable!("the pool was released"));
    let submitted = pool.submit_async(|| unreachable!("the pool was released"));
    drop(pool); // releases it: the futures hold the engine, not the pool
    let err = futures_executor::block_on(spawned).unwrap_err();
    assert!(err.as_submit().unwrap().is_closed());
    assert!(
        futures_executor::block_on(submitted)
            .unwrap_err()
            .is_closed()
    );
}

#[test]
fn a_served_spawn_is_woken_once_by_its_result_not_by_the_serve() {
    for (name, pool) in [
        ("hand-off", Arc::new(Pool::new(1).unwrap())),
        ("queue", queue_pool(1, 1)),
    ] {
        let gate = occupy(&pool, 1);
        if name == "queue" {
            pool.submit(|| ()).unwrap(); // the queue is full
        }
        let release = Arc::new(Gate2::default());
        let r = release.clone();
        let mut fut = pool.spawn_async(move || {
            r.wait();
            9
        });
        let (waker, woken) = counting_waker();
        join_line(&mut fut, &waker, &pool);
        woken.0.store(0, SeqCst); // the polls before it joined yielded
        gate.open();
        // A worker takes the task from the line and runs it (it blocks on
        // `release`): no wake-up yet, the result has not come.
        assert!(eventually(|| pool.waiting() == 0), "{name}");
        assert!(eventually(|| release.entered()), "{name}: the task runs");
        assert_eq!(woken.0.load(SeqCst), 0, "{name}: the serve did not wake it");
        release.open();
        assert!(eventually(|| woken.0.load(SeqCst) == 1), "{name}");
        assert!(matches!(poll_once(&mut fut, &waker), Poll::Ready(Ok(9))));
        assert_eq!(woken.0.load(SeqCst), 1, "{name}: one wake-up in all");
        pool.release_timeout(PATIENCE).unwrap();
    }
}

/// A gate that also says whether a task reached it.
#[derive(Default)]
struct Gate2 {
    entered: AtomicUsize,
    gate: common::Gate,
}

impl Gate2 {
    fn wait(&self) {
        self.entered.store(1, SeqCst);
        self.gate.wait();
    }
    fn entered(&self) -> bool {
        self.entered.load(SeqCst) == 1
    }
    fn open(&self) {
        self.gate.open();
    }
}

#[test]
fn an_abort_handle_withdraws_a_spawn_waiting_for_room() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    let r = ran.clone();
    let mut fut = pool.spawn_async(move || r.add());
    let (waker, woken) = counting_waker();
    join_line(&mut fut, &waker, &pool);
    let abort: AbortHandle = fut.abort_handle();
    let clone = abort.clone();
    woken.0.store(0, SeqCst);
    // From another thread: Send + Sync.
    assert!(thread::spawn(move || clone.abort()).join().unwrap());
    assert!(
        woken.0.load(SeqCst) > 0,
        "the abort wakes the waiting future"
    );
    assert!(abort.is_finished());
    match poll_once(&mut fut, &waker) {
        Poll::Ready(Err(e)) => assert!(e.is_cancelled()),
        other => panic!("expected cancelled, got {other:?}"),
    }
    assert_eq!(pool.waiting(), 0, "it left the line");
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 0);
    assert!(!abort.abort(), "a second abort changes nothing");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
#[cfg_attr(miri, ignore = "tokio's timer is slow under Miri")]
fn dropped_by_select_before_the_pool_took_it_the_task_never_runs() {
    let rt = runtime();
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    rt.block_on(async {
        // Waiting for room when the timer fires: withdrawn.
        let r = ran.clone();
        let slow = pool.spawn_async(move || r.add());
        tokio::select! {
            _ = slow => panic!("the pool is saturated"),
            _ = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        let r = ran.clone();
        let slow = pool.submit_async(move || r.add());
        assert!(
            tokio::time::timeout(Duration::from_millis(20), slow)
                .await
                .is_err()
        );
        // Never polled at all: nothing.
        let r = ran.clone();
        drop(pool.spawn_async(move || r.add()));
    });
    assert_eq!(pool.waiting(), 0, "nothing of them is left in the line");
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 0);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
#[cfg_attr(miri, ignore = "tokio's timer is slow under Miri")]
fn dropped_after_the_pool_took_it_the_task_runs_unless_aborted_on_drop() {
    let rt = runtime();
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let (detached, guarded) = (Counter::new(), Counter::new());
    rt.block_on(async {
        // Queued (the pool took it) when the timer fires: it still runs.
        let d = detached.clone();
        let plain = pool.spawn_async(move || d.add());
        assert!(
            tokio::time::timeout(Duration::from_millis(20), plain)
                .await
                .is_err()
        );
        // The same under `abort_on_drop`: aborted in the queue, never runs.
        let g = guarded.clone();
        let aborting = pool.spawn_async(move || g.add()).abort_on_drop();
        assert!(
            tokio::time::timeout(Duration::from_millis(20), aborting)
                .await
                .is_err()
        );
    });
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(detached.get(), 1, "the detached task ran once");
    assert_eq!(
        guarded.get(),
        0,
        "the guarded task was aborted in the queue"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_join_handle_guard_aborts_a_queued_task_and_detach_keeps_it() {
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let (aborted, kept) = (Counter::new(), Counter::new());
    let a = aborted.clone();
    drop(pool.spawn(move || a.add()).unwrap().abort_on_drop());
    let k = kept.clone();
    let handle = pool
        .spawn(move || k.add())
        .unwrap()
        .abort_on_drop()
        .detach();
    gate.open();
    handle.join().unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!((aborted.get(), kept.get()), (0, 1));
    pool.release_timeout(PATIENCE).unwrap();
}
