//! `JoinHandle::abort`: a task that has not started never runs and its handle
//! reports cancelled; one that has begun runs on to its end (only its token is
//! cancelled: `cancel.rs`); the race between the two has exactly one winner.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use antpool::{Pool, PoolWithFunc};
use common::{Counter, PATIENCE, eventually, occupy, queue_pool};

/// Counts how many of its kind were dropped.
struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn an_aborted_queued_task_never_runs_and_its_closure_is_dropped() {
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let (ran, dropped) = (Counter::new(), Arc::new(AtomicUsize::new(0)));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let (ran, guard) = (ran.clone(), Dropped(Arc::clone(&dropped)));
            pool.spawn(move || {
                let _guard = guard;
                ran.add();
                i
            })
            .unwrap()
        })
        .collect();
    assert!(handles[1].abort());
    assert!(handles[3].abort());
    assert!(!handles[3].abort(), "a second abort changes nothing");
    assert!(handles[1].is_finished(), "cancelled at once");
    let mut handles = handles.into_iter();
    let (h0, h1, h2, h3) = (
        handles.next().unwrap(),
        handles.next().unwrap(),
        handles.next().unwrap(),
        handles.next().unwrap(),
    );
    assert!(
        h1.join().unwrap_err().is_cancelled(),
        "join returns before the worker is free"
    );
    gate.open();
    assert_eq!(h0.join().unwrap(), 0);
    assert_eq!(h2.join().unwrap(), 2);
    assert!(h3.join().unwrap_err().is_cancelled());
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 2, "the aborted two never ran");
    assert!(
        eventually(|| dropped.load(Ordering::SeqCst) == 4),
        "every closure dropped, run or not"
    );
    let stats = pool.stats();
    assert_eq!(
        (stats.completed, stats.panicked),
        (3, 0),
        "skipped tasks are not counted"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

/// An `AbortHandle` reads its task unfinished while it waits in the queue
/// and finished once cancelled; an `AbortOnDrop` guard's `abort` cancels a
/// waiting task (`true`) and leaves a finished one be (`false`).
#[test]
fn abort_handles_and_guards_tell_a_waiting_task_from_a_finished_one() {
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let waiting = pool.spawn(|| 1).unwrap();
    let handle = waiting.abort_handle();
    assert!(!handle.is_finished(), "queued: not finished");
    let guard = waiting.abort_on_drop();
    assert!(guard.abort(), "a queued task is cancelled");
    assert!(handle.is_finished(), "cancelled: finished");
    assert!(!guard.abort(), "a second abort changes nothing");
    assert!(guard.join().unwrap_err().is_cancelled());
    gate.open();
    let done = pool.spawn(|| 2).unwrap().abort_on_drop();
    let handle = done.abort_handle();
    assert!(eventually(|| handle.is_finished()), "it ran");
    assert!(!done.abort(), "a finished task is not cancelled");
    assert_eq!(done.join().unwrap(), 2);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn abort_after_the_start_lets_the_task_run_to_its_end() {
    let pool = Pool::new(1).unwrap();
    let gate = common::Gate::new();
    let (g, started) = (gate.clone(), Counter::new());
    let s = started.clone();
    let running = pool
        .spawn(move || {
            s.add();
            g.wait();
            5
        })
        .unwrap();
    assert!(started.reaches(1));
    assert!(!running.abort(), "running: it runs on");
    gate.open();
    assert_eq!(running.join().unwrap(), 5);
    let done = pool.spawn(|| 6).unwrap();
    pool.wait_idle();
    assert!(!done.abort(), "finished: no effect");
    assert_eq!(done.join().unwrap(), 6);
}

/// Records that it was woken.
struct Woken(std::sync::atomic::AtomicBool);

impl std::task::Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn abort_wakes_a_task_awaiting_the_handle() {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};
    let pool = queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let mut h = pool.spawn(|| 1).unwrap();
    let woken = Arc::new(Woken(std::sync::atomic::AtomicBool::new(false)));
    let waker = Waker::from(Arc::clone(&woken));
    let mut cx = Context::from_waker(&waker);
    assert!(Pin::new(&mut h).poll(&mut cx).is_pending());
    assert!(h.abort());
    assert!(woken.0.load(Ordering::SeqCst), "the awaiting task is woken");
    match Pin::new(&mut h).poll(&mut cx) {
        Poll::Ready(Err(e)) => assert!(e.is_cancelled()),
        other => panic!("expected cancelled, got {:?}", other.map(|r| r.is_ok())),
    }
    gate.open();
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_drained_task_aborted_later_does_not_run_when_its_holder_runs_it() {
    let pool = queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    let r = ran.clone();
    let h = pool.spawn(move || r.add()).unwrap();
    let drained = pool.release_drain();
    assert_eq!(drained.len(), 1);
    assert!(h.abort());
    for task in drained {
        task.run();
    }
    assert_eq!(ran.get(), 0);
    assert!(h.join().unwrap_err().is_cancelled());
    gate.open();
}

/// Abort races the workers taking the tasks (a burst of four, aborted newest
/// first): exactly one of "ran" and "aborted" is true for each, every time.
#[test]
fn abort_racing_the_start_has_one_winner() {
    let pool = Pool::builder()
        .capacity(2)
        .unbounded_queue()
        .build()
        .unwrap();
    let rounds = if cfg!(miri) { 10 } else { 1_000 };
    let ran = Arc::new(AtomicUsize::new(0));
    let (mut aborted, mut joined) = (0, 0);
    for _ in 0..rounds {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let r = Arc::clone(&ran);
                pool.spawn(move || {
                    r.fetch_add(1, Ordering::SeqCst);
                })
                .unwrap()
            })
            .collect();
        for h in handles.into_iter().rev() {
            if h.abort() {
                aborted += 1;
                assert!(h.join().unwrap_err().is_cancelled());
            } else {
                joined += 1;
                h.join().unwrap();
            }
        }
    }
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(
        ran.load(Ordering::SeqCst),
        joined,
        "every task not aborted ran once"
    );
    assert_eq!(aborted + joined, 4 * rounds);
    // (Miri's few rounds on its own scheduler may all lose the race.)
    assert!(
        cfg!(miri) || aborted > 0,
        "the newest of a burst is still queued at times"
    );
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn the_function_pool_s_call_aborts_too() {
    let pool = PoolWithFunc::builder(|n: u32| n * 2)
        .capacity(1)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    pool.pause();
    let a = pool.call(1).unwrap();
    let b = pool.call(2).unwrap();
    assert!(a.abort());
    pool.resume();
    assert!(a.join().unwrap_err().is_cancelled());
    assert_eq!(b.join().unwrap(), 4);
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(pool.stats().completed, 1);
}
