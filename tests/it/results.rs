//! Results: `spawn` / `call` return a `JoinHandle` that joins, polls, and awaits
//! (with a minimal executor: no async runtime).

use crate::common;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Duration;

use antpool::{JoinHandle, Pool, PoolWithFunc};
use common::{Counter, Gate, PATIENCE, occupy};

/// The smallest executor that can run a future to completion: poll, and park
/// until woken.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unparker(Thread);
    impl Wake for Unparker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unparker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}

#[test]
fn join_returns_the_value() {
    let pool = Pool::new(2).unwrap();
    let handles: Vec<JoinHandle<u64>> = (0..100)
        .map(|n| pool.spawn(move || n * 2).unwrap())
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, 9_900);
}

#[test]
fn a_panic_goes_to_the_handle_not_the_panic_handler() {
    std::panic::set_hook(Box::new(|_| {}));
    let handled = Counter::new();
    let h = handled.clone();
    let pool = Pool::builder()
        .capacity(1)
        .panic_handler(move |_| h.add())
        .build()
        .unwrap();
    let err = pool
        .spawn(|| -> u8 { panic!("for the handle") })
        .unwrap()
        .join()
        .unwrap_err();
    assert!(err.is_panic());
    assert!(!err.is_cancelled(), "a panic is not a cancel");
    assert!(err.to_string().contains("for the handle"));
    assert_eq!(
        *err.into_panic().downcast::<&str>().unwrap(),
        "for the handle"
    );
    pool.wait_idle();
    assert_eq!(handled.get(), 0);
    assert_eq!(pool.stats().panicked, 1, "still counted as a panic");
    // And the worker survived.
    assert_eq!(pool.spawn(|| 5).unwrap().join().unwrap(), 5);
}

#[test]
fn try_join_and_is_finished_do_not_block() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let g = gate.clone();
    let handle = pool
        .spawn(move || {
            g.wait();
            "finished"
        })
        .unwrap();
    assert!(!handle.is_finished());
    let handle = handle.try_join().unwrap_err(); // not yet: the handle comes back
    gate.open();
    pool.wait_idle();
    assert!(handle.is_finished());
    assert_eq!(handle.try_join().ok().unwrap().unwrap(), "finished");
}

#[test]
fn a_handle_can_be_awaited() {
    let pool = Pool::new(2).unwrap();
    let gate = Gate::new();
    let g = gate.clone();
    let handle = pool
        .spawn(move || {
            g.wait();
            7
        })
        .unwrap();
    // Open the gate only after the future has been polled once and is pending.
    let opener = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        gate.open();
    });
    assert_eq!(block_on(handle).unwrap(), 7);
    opener.join().unwrap();
    let both = async {
        let a = pool.spawn(|| 1).unwrap().await.unwrap();
        let b = pool.spawn(|| 2).unwrap().await.unwrap();
        a + b
    };
    assert_eq!(block_on(both), 3);
}

/// A handle polled again with another waker before its task ends wakes that
/// one, and only it: an executor that moved the awaiting task hands over the
/// waker it means. The result then comes once.
#[test]
fn a_handle_polled_with_a_new_waker_wakes_that_one() {
    let pool = common::queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let mut handle = pool.spawn(|| 7).unwrap();
    let (first, first_woken) = common::counting_waker();
    let (second, second_woken) = common::counting_waker();
    let mut poll =
        |waker: &Waker| std::pin::Pin::new(&mut handle).poll(&mut Context::from_waker(waker));
    assert!(poll(&first).is_pending());
    assert!(poll(&first).is_pending(), "the same waker again");
    assert!(poll(&second).is_pending(), "a new waker");
    gate.open();
    let woken = |count: &common::WakeCount| count.0.load(std::sync::atomic::Ordering::SeqCst);
    assert!(common::eventually(|| woken(&second_woken) == 1));
    assert_eq!(woken(&first_woken), 0, "the first waker is not woken");
    assert!(matches!(poll(&second), Poll::Ready(Ok(7))));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_task_handed_back_unrun_cancels_its_handle() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let queued = pool.spawn(|| 1).unwrap();
    let back = pool.release_drain();
    assert_eq!(back.len(), 1);
    drop(back);
    let err = queued.join().unwrap_err();
    assert!(err.is_cancelled());
    assert!(err.try_into_panic().is_err());
    gate.open();
}

#[test]
fn a_rejected_spawn_hands_back_the_callers_closure_with_its_captures() {
    let pool = Pool::builder()
        .capacity(1)
        .nonblocking(true)
        .build()
        .unwrap();
    let gate = occupy(&pool, 1);
    let owned = String::from("still mine");
    let err = pool.spawn(move || owned.len() * 2).unwrap_err();
    assert!(err.is_overload());
    // The very closure: the caller runs it and gets its result.
    let f = err.into_closure();
    assert_eq!(f(), 20);
    gate.open();
    pool.release();
    let err = pool.spawn(|| "late").unwrap_err();
    assert!(err.is_closed());
    assert_eq!(err.into_closure()(), "late");
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(
        pool.stats().completed,
        1,
        "only the gate's task ran in the pool"
    );
}

#[test]
fn pool_with_func_call_returns_what_the_function_returns() {
    let pool = PoolWithFunc::new(3, |s: String| s.len()).unwrap();
    let handles: Vec<_> = ["a", "bb", "ccc"]
        .iter()
        .map(|s| pool.call(s.to_string()).unwrap())
        .collect();
    let lens: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(lens, [1, 2, 3]);
    pool.invoke("discarded".into()).unwrap();
    pool.wait_idle();
    assert_eq!(pool.stats().completed, 4);
}

#[test]
fn pool_with_func_call_reports_panics_and_cancellation() {
    std::panic::set_hook(Box::new(|_| {}));
    let gate = Gate::new();
    let g = gate.clone();
    let pool = PoolWithFunc::builder(move |n: u32| {
        if n == 0 {
            g.wait();
        }
        assert!(n != 13, "unlucky");
        n
    })
    .capacity(1)
    .max_queued_tasks(4)
    .build()
    .unwrap();
    pool.invoke(0).unwrap();
    let unlucky = pool.call(13).unwrap();
    let dropped = pool.call(14).unwrap();
    assert_eq!(pool.queued(), 2);
    gate.open();
    assert!(unlucky.join().unwrap_err().is_panic());
    assert_eq!(dropped.join().unwrap(), 14);
    // Cancellation: queue one behind a held worker, then drain it.
    let gate2 = Gate::new();
    let g2 = gate2.clone();
    let pool2 = PoolWithFunc::builder(move |n: u32| {
        if n == 0 {
            g2.wait()
        }
    })
    .capacity(1)
    .max_queued_tasks(4)
    .build()
    .unwrap();
    pool2.invoke(0).unwrap();
    let cancelled = pool2.call(5).unwrap();
    assert!(common::eventually(|| pool2.queued() == 1));
    assert_eq!(pool2.release_drain(), [5]);
    assert!(cancelled.join().unwrap_err().is_cancelled());
    gate2.open();
}
