//! Models of a task's result slot (`src/join/slot.rs`: one atomic byte, the
//! result and the joiner's waker, no lock): the fill racing a blocking join, a
//! joiner that changes its waker while the fill races it, and an abort racing
//! both — the joiner is woken (a lost wake-up deadlocks, which loom reports)
//! and loom's cells report any two threads touching the waker or the result
//! at once.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};
use std::time::Duration;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;

use super::async_waiters::poll_to_end;
use super::{check, pool_with_queue};

#[test]
fn a_blocking_join_racing_the_fill_is_woken() {
    check("join racing the fill", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 0, sum.clone());
        let handle = pool.call(3).unwrap();
        // Joined on a thread of its own (it parks and is unparked by the
        // worker that fills the slot).
        let joiner = thread::spawn(move || handle.join());
        assert!(joiner.join().unwrap().is_ok());
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
    });
}

#[test]
fn a_changed_waker_racing_the_fill_is_the_one_woken() {
    // Polled once with a waker nobody waits on, then awaited with another:
    // the fill must wake the second (or the poll that changes it must see the
    // result), or `poll_to_end` waits for good.
    check("a changed waker racing the fill", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 0, sum.clone());
        let mut handle = pin!(pool.call(5).unwrap());
        let first = handle
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()));
        if first.is_pending() {
            assert!(poll_to_end(handle).is_ok());
        }
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 5);
    });
}

#[test]
fn an_abort_racing_the_start_and_an_awaiting_joiner_has_one_winner() {
    // The abort races the worker starting the task while the joiner awaits:
    // the joiner is woken with the value or with `Cancelled`, matching what
    // ran.
    check("abort vs start vs await", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 2, sum.clone());
        let handle = pool.call(2).unwrap();
        let abort = handle.abort_handle();
        let aborter = thread::spawn(move || abort.abort());
        let result = poll_to_end(pin!(handle));
        let aborted = aborter.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        let ran = sum.load(Ordering::Relaxed);
        match result {
            Ok(()) => assert!(!aborted && ran == 2, "ran {ran}, aborted {aborted}"),
            Err(e) => assert!(e.is_cancelled() && aborted && ran == 0, "ran {ran}"),
        }
    });
}

#[test]
fn a_handle_dropped_racing_the_fill_leaves_the_result_to_one_side() {
    // The handle drops (clearing its interest) while the worker fills the
    // slot: whichever comes first, the result is taken back by the filler or
    // left in the slot, never touched by both (loom's cells check it), and the
    // task runs once.
    check("handle dropped racing the fill", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 0, sum.clone());
        let handle = pool.call(4).unwrap();
        let dropper = thread::spawn(move || drop(handle));
        pool.release_timeout(Duration::MAX).unwrap();
        dropper.join().unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 4);
    });
}
