//! A model of `JoinHandle::abort` racing the start of its task (`join.rs`: one
//! compare-and-swap on the slot's phase decides): the task runs or is
//! cancelled, never both, never neither, and `join` reports which.

use std::time::Duration;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;

use super::{check, pool_with_queue};

#[test]
fn abort_racing_the_start_has_one_winner() {
    check("abort vs start", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 2, sum.clone());
        // The first call starts a worker carrying the task; the abort races it.
        let handle = pool.call(2).unwrap();
        let aborter = thread::spawn(move || (handle.abort(), handle));
        pool.release_timeout(Duration::MAX).unwrap();
        let (aborted, handle) = aborter.join().unwrap();
        let ran = sum.load(Ordering::Relaxed);
        match handle.join() {
            Ok(()) => assert!(!aborted && ran == 2, "ran {ran}, aborted {aborted}"),
            Err(e) => assert!(e.is_cancelled() && aborted && ran == 0, "ran {ran}"),
        }
    });
}
