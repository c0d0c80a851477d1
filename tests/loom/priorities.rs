//! Models of the per-level lanes and lines (`lanes.rs`, whose module docs hold
//! the rules, and `waiters.rs`): every read a handshake makes covers every
//! lane, and room goes to the highest level waiting.

use std::time::Duration;

use antpool::{Priority, SubmitError};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;

use super::{check, pool_with_levels};

#[test]
fn a_high_push_racing_a_worker_that_parks_is_run() {
    // A queue pool of one worker with a lane per level: the worker that ran
    // the first task looks at the lanes and parks while a `High` task is
    // pushed. The park's read of the lanes must see it in `High`'s lane (or
    // the submitter must see the worker parked and wake it): else the task
    // waits for good, and `wait_idle` with it (loom reports the deadlock).
    check("push vs park, two lanes", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let pool = pool_with_levels(1, 2, sum.clone());
        pool.invoke(1).unwrap();
        pool.with_priority(Priority::High).invoke(2).unwrap();
        pool.wait_idle();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
        pool.release_timeout(Duration::MAX).unwrap();
    });
}

#[test]
fn a_finishing_worker_racing_a_high_waiter_behind_a_low_one_serves_both_once() {
    // A hand-off pool of one: a `Low` submitter and a `High` one arrive while
    // the worker finishes its task; each may get in at once, wait in its
    // level's line, or be served by the finishing worker, which takes the
    // highest line's oldest. Both run once, nobody waits for good.
    check("high waiter served first", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let pool = Arc::new(pool_with_levels(1, 0, sum.clone()));
        pool.invoke(1).unwrap();
        let p = pool.clone();
        let low = thread::spawn(move || p.with_priority(Priority::Low).invoke(4).unwrap());
        pool.with_priority(Priority::High).invoke(2).unwrap();
        low.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 7);
    });
}

#[test]
fn release_racing_a_high_push_runs_or_returns_it_and_leaves_no_thread() {
    // A bounded queue per level: the release closes every lane, `Normal`
    // first; a `High` push lands before its lane's mark — and the last worker
    // stays for it — or fails `Closed`.
    check("release vs per-level push", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let pool = Arc::new(pool_with_levels(1, 1, sum.clone()));
        pool.invoke(1).unwrap();
        let p = pool.clone();
        let other = thread::spawn(move || match p.with_priority(Priority::High).invoke(2) {
            Ok(()) => 2,
            Err(SubmitError::Closed(2)) => 0,
            Err(e) => panic!("unexpected {e:?}"),
        });
        pool.release_timeout(Duration::MAX).unwrap();
        let accepted = other.join().unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 1 + accepted);
        assert_eq!(pool.running(), 0);
    });
}
