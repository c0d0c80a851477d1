//! Models of `pause` and `resume` (`quiet.rs`, its module docs, "Pause"):
//! once `pause` returns no task starts until `resume`; nothing is lost; and
//! `release` ends a pause and still runs or hands back every task.

use std::time::Duration;

use antpool::PoolWithFunc;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use loom::thread;

use super::{LoomClock, ONE_CPU, check, check_bounded};

/// What the models' tasks see: the sum of what ran, and whether `pause` has
/// returned and `resume` not yet been called — when no task may start.
#[derive(Clone, Default)]
struct Seen {
    sum: Arc<AtomicUsize>,
    paused: Arc<AtomicBool>,
}

/// A pool of one worker (a queue of `queue`; 0: hand-off) whose tasks add their
/// argument to `seen.sum`, and fail the model if they start while `seen`
/// says paused.
fn paused_pool(
    queue: usize,
    seen: &Seen,
) -> PoolWithFunc<
    u32,
    impl Fn(u32) + Send + Sync + 'static,
    antpool::IdleQueue,
    LoomClock,
    super::LoomSpawner,
> {
    let seen = seen.clone();
    let builder = PoolWithFunc::builder_with(
        move |n: u32| {
            assert!(
                !seen.paused.load(Ordering::SeqCst),
                "task {n} started after pause returned"
            );
            seen.sum.fetch_add(n as usize, Ordering::Relaxed);
        },
        LoomClock(Arc::new(AtomicU64::new(0))),
        ONE_CPU,
    )
    .capacity(1)
    .disable_purge(true);
    match queue {
        0 => builder.build().unwrap(),
        n => builder.max_queued_tasks(n).build().unwrap(),
    }
}

/// A submit races `pause`: whatever the order, no task starts between the
/// return of `pause` and `resume`, and both tasks run in the end.
fn pause_racing_a_submit(queue: usize) {
    let seen = Seen::default();
    let pool = Arc::new(paused_pool(queue, &seen));
    pool.invoke(1).unwrap(); // starts the worker, carrying the task
    let p = pool.clone();
    let other = thread::spawn(move || p.invoke(2).unwrap());
    pool.pause();
    seen.paused.store(true, Ordering::SeqCst);
    seen.paused.store(false, Ordering::SeqCst);
    pool.resume();
    other.join().unwrap();
    pool.release_timeout(Duration::MAX).unwrap();
    assert_eq!(seen.sum.load(Ordering::Relaxed), 3);
}

#[test]
fn no_task_starts_between_pause_and_resume_hand_off() {
    check("pause vs submit (hand-off)", || pause_racing_a_submit(0));
}

#[test]
fn no_task_starts_between_pause_and_resume_queue() {
    check_bounded("pause vs submit (queue)", 0, || pause_racing_a_submit(2));
}

/// A pause races the first submit to a queue pool (which starts its worker
/// with the task, or — paused — queues it and starts the worker kept for the
/// queue), then `release` ends the pause: `pause` returns, the task runs, and
/// `release_timeout` sees every worker gone.
#[test]
fn release_ends_a_pause_and_runs_the_queued_task() {
    check("release ends pause", || {
        let seen = Seen::default();
        let pool = Arc::new(paused_pool(2, &seen));
        let p = pool.clone();
        let pauser = thread::spawn(move || p.pause());
        pool.invoke(2).unwrap();
        pauser.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert!(!pool.is_paused());
        assert_eq!(seen.sum.load(Ordering::Relaxed), 2);
    });
}
