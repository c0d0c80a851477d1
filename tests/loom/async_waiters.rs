//! Models of async submitters (`invoke_async`: `wait_async.rs`, "Async
//! waiters" in `engine/README.md`): a future that waits for room is offered it
//! and places its task; dropped while it is served, or after it was offered
//! room, it gives the room on to the next submitter. Also `poll_to_end`, the
//! blocking poll loop of these models, which `oneshot.rs` uses too.

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
fn an_async_waiter_is_offered_room_and_places_its_task() {
    // Hand-off and a queue of one: the async submitter waits behind a task,
    // is offered room (an admission; reserved room in the queue), and its
    // task runs — woken, never lost.
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
fn an_async_waiter_dropped_while_served_gives_its_room_on() {
    // The future waits, then is dropped while a worker may be offering it
    // room; a blocking submitter waits behind it. Its task runs only if its
    // poll returned Ready(Ok); the blocking one always runs; no hang.
    // The queue of one (room reserved, not an admission) at bound 0, as above.
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
    assert_eq!(ran & always, always, "sum {ran}");
    assert_eq!(ran & 2 != 0, placed, "sum {ran}");
}

#[test]
fn an_async_waiter_offered_room_and_dropped_gives_it_back() {
    // Woken with room (an admission; in a queue pool reserved room), the
    // future is dropped without another poll: the room must come back for
    // the next submitter (else loom reports it blocked for good; with the
    // queue's reservation left unfreed, it does). The drop racing the offer
    // is `async waiter dropped`. The queue at bound 0: at bound 1 it explored
    // 4.5 million interleavings.
    for (queue, bound) in [(0, 1), (1, 0)] {
        check_bounded("async room given back", bound, move || {
            let sum = Arc::new(AtomicUsize::new(0));
            let (pool, _clock) = pool_with_queue(1, false, queue, sum.clone());
            pool.invoke(1).unwrap();
            if queue == 1 {
                pool.invoke(8).unwrap();
            }
            let flag = WakeFlag::new();
            let waker = std::task::Waker::from(flag.clone());
            let mut fut = Box::pin(pool.invoke_async(2));
            let placed = match fut
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&waker))
            {
                std::task::Poll::Ready(result) => result.is_ok(),
                std::task::Poll::Pending => {
                    flag.wait(); // offered room
                    false
                }
            };
            drop(fut);
            // The next submit needs the room back. (No second thread: the
            // model stays small, and a room never given back still hangs it.)
            pool.invoke(4).unwrap();
            pool.release_timeout(Duration::MAX).unwrap();
            let ran = sum.load(Ordering::Relaxed);
            let always = if queue == 1 { 13 } else { 5 };
            assert_eq!(ran & always, always, "sum {ran}");
            assert_eq!(ran & 2 != 0, placed, "sum {ran}");
        });
    }
}
