//! Models of async submitters (`invoke_async`, `spawn_async`: `wait_async.rs`,
//! "Async waiters" in `engine/README.md`): a future that waits for room waits
//! with its task in its node, and the worker that frees room takes the task
//! from there; dropped while it is served, the task runs once or not at all,
//! and the line moves on either way; a spawn's future is not woken by the
//! serve, but by its result. Also `poll_to_end`, the blocking poll loop of
//! these models, which `oneshot.rs` uses too.

use std::time::Duration;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;

use super::{check_bounded, pool_with_queue};

/// A waker for the async models: a flag under a loom `Mutex`, waited for on
/// a loom `Condvar` (blocking, not spinning: a lost wake-up is a deadlock,
/// which loom reports, and a spin would run the model past its branch limit
/// while the waker's thread makes its way).
struct WakeFlag(Mutex<bool>, Condvar);

impl std::task::Wake for WakeFlag {
    fn wake(self: std::sync::Arc<Self>) {
        *self.0.lock().unwrap() = true;
        self.1.notify_one();
    }
}

impl WakeFlag {
    fn new() -> std::sync::Arc<Self> {
        std::sync::Arc::new(WakeFlag(Mutex::new(false), Condvar::new()))
    }

    /// Blocks until woken, and consumes the wake-up.
    fn wait(&self) {
        let mut woken = self.0.lock().unwrap();
        while !*woken {
            woken = self.1.wait(woken).unwrap();
        }
        *woken = false;
    }
}

/// Polls `fut` to the end on this thread, blocking between a `Pending` and
/// its wake-up.
pub(super) fn poll_to_end<T>(
    mut fut: std::pin::Pin<&mut impl std::future::Future<Output = T>>,
) -> T {
    let flag = WakeFlag::new();
    let waker = std::task::Waker::from(flag.clone());
    loop {
        match fut
            .as_mut()
            .poll(&mut std::task::Context::from_waker(&waker))
        {
            std::task::Poll::Ready(value) => return value,
            std::task::Poll::Pending => flag.wait(),
        }
    }
}

#[test]
fn an_async_waiter_is_served_from_the_line() {
    // Hand-off and a queue of one: the async submitter waits behind a task,
    // a worker takes its task from the line (runs it; pushes it into the
    // queue), and the future is woken to resolve — never lost.
    // The queue of one at preemption bound 0: at bound 1 it explored 6.3
    // million interleavings (~7 minutes); the hand-off, 26 000.
    for (queue, bound) in [(0, 1), (1, 0)] {
        check_bounded("async waiter served", bound, move || {
            let sum = Arc::new(AtomicUsize::new(0));
            let (pool, _clock) = pool_with_queue(1, false, queue, sum.clone());
            pool.invoke(1).unwrap();
            if queue == 1 {
                pool.invoke(4).unwrap();
            }
            let fut = pool.invoke_async(2);
            poll_to_end(std::pin::pin!(fut)).unwrap();
            pool.release_timeout(Duration::MAX).unwrap();
            let expected = if queue == 1 { 7 } else { 3 };
            assert_eq!(sum.load(Ordering::Relaxed), expected);
        });
    }
}

#[test]
fn an_async_waiter_dropped_while_served_runs_once_or_never() {
    // The future waits, then is dropped while a worker may be taking its task
    // from the line; a blocking submitter waits behind it. Its task runs once
    // if the worker was first (always, if its poll returned Ready(Ok)), never
    // if the drop was; the blocking one always runs; no hang.
    // The queue of one at bound 0, as above.
    for (queue, bound) in [(0, 1), (1, 0)] {
        check_bounded("async waiter dropped", bound, move || {
            dropped_while_served(queue)
        });
    }
}

fn dropped_while_served(queue: usize) {
    let sum = Arc::new(AtomicUsize::new(0));
    let (pool, _clock) = pool_with_queue(1, false, queue, sum.clone());
    pool.invoke(1).unwrap();
    if queue == 1 {
        pool.invoke(8).unwrap();
    }
    let p = pool.clone();
    let blocking = thread::spawn(move || p.invoke(4).unwrap());
    let waker = std::task::Waker::from(WakeFlag::new());
    let mut fut = Box::pin(pool.invoke_async(2));
    let placed = matches!(
        fut.as_mut()
            .poll(&mut std::task::Context::from_waker(&waker)),
        std::task::Poll::Ready(Ok(()))
    );
    drop(fut);
    blocking.join().unwrap();
    pool.release_timeout(Duration::MAX).unwrap();
    let ran = sum.load(Ordering::Relaxed);
    let always = if queue == 1 { 13 } else { 5 };
    // Once or never (twice would read always + 4).
    assert!(ran == always || ran == always + 2, "sum {ran}");
    assert!(!placed || ran == always + 2, "sum {ran}");
    // And the books say which: never run is withdrawn, once only.
    let withdrawn = pool.stats().withdrawn;
    assert_eq!(withdrawn, usize::from(ran == always), "sum {ran}");
}

#[test]
fn an_async_waiter_served_and_dropped_unpolled_leaves_the_line_moving() {
    // Woken because a worker took its task from the line, the future is
    // dropped without another poll: the task is the pool's and runs, and the
    // next submitter gets in (a drop that undid the serve, or waited for a
    // state nobody sets, would hang it). The drop racing the serve is `async
    // waiter dropped`. The queue at bound 0: at bound 1 it explored millions
    // of interleavings.
    for (queue, bound) in [(0, 1), (1, 0)] {
        check_bounded("async waiter served, dropped", bound, move || {
            let sum = Arc::new(AtomicUsize::new(0));
            let (pool, _clock) = pool_with_queue(1, false, queue, sum.clone());
            pool.invoke(1).unwrap();
            if queue == 1 {
                pool.invoke(8).unwrap();
            }
            let flag = WakeFlag::new();
            let waker = std::task::Waker::from(flag.clone());
            let mut fut = Box::pin(pool.invoke_async(2));
            match fut
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&waker))
            {
                std::task::Poll::Ready(result) => assert!(result.is_ok()),
                std::task::Poll::Pending => flag.wait(), // served
            }
            drop(fut);
            // The next submit must get in. (No second thread: the model stays
            // small, and a line that stopped moving still hangs it.)
            pool.invoke(4).unwrap();
            pool.release_timeout(Duration::MAX).unwrap();
            let ran = sum.load(Ordering::Relaxed);
            let always = if queue == 1 { 13 } else { 5 };
            assert_eq!(ran, always + 2, "sum {ran}: each task once");
            assert_eq!(pool.stats().withdrawn, 0, "served, so not withdrawn");
        });
    }
}

#[test]
fn an_async_spawn_served_from_the_line_is_woken_by_its_result() {
    // `spawn_async` waits in the line without asking to be woken by the serve:
    // the worker that takes its task runs it, and the result's delivery must
    // wake it (a lost wake-up hangs `poll_to_end`, which loom reports). Also
    // with the serve racing the future's first poll.
    for queue in [0, 1] {
        check_bounded("async spawn woken by its result", 1, move || {
            let pool = super::std_pool(1, queue);
            let gate = super::Gate::new();
            let open = gate.clone();
            pool.submit(move || gate.wait()).unwrap();
            let fut = pool.spawn_async(|| 7);
            let opener = thread::spawn(move || open.open());
            assert_eq!(poll_to_end(std::pin::pin!(fut)).unwrap(), 7);
            opener.join().unwrap();
            pool.release_timeout(Duration::MAX).unwrap();
        });
    }
}
