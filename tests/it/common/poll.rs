//! Helpers for the async tests: futures polled by hand, and a runtime.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll, Wake, Waker};

use super::eventually;

/// A waker that counts its wake-ups.
pub struct Count(pub AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// A waker and the count of its wake-ups.
pub fn counting_waker() -> (Waker, Arc<Count>) {
    let count = Arc::new(Count(AtomicUsize::new(0)));
    (Waker::from(count.clone()), count)
}

/// Polls `fut` once with `waker`.
pub fn poll_once<F: Future + Unpin>(fut: &mut F, waker: &Waker) -> Poll<F::Output> {
    Pin::new(fut).poll(&mut Context::from_waker(waker))
}

/// Polls a saturated spawn until it waits in the pool's line.
pub fn join_line<F: Future + Unpin>(fut: &mut F, waker: &Waker, pool: &antpool::Pool) {
    let before = pool.waiting();
    assert!(
        eventually(|| {
            assert!(
                poll_once(fut, waker).is_pending(),
                "resolved instead of waiting"
            );
            pool.waiting() > before
        }),
        "the future never joined the line"
    );
}

/// A multi-thread tokio runtime of two workers, with time.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}
