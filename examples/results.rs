//! Getting values back from tasks: `spawn` returns a `JoinHandle` that can be
//! joined, polled, or awaited; `PoolWithFunc::call` does the same for a pool of
//! one function. A panicking task hands its panic to its handle.
//!
//! ```text
//! cargo run --release --example results
//! ```

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::Duration;

use antpool::{Pool, PoolWithFunc};

/// A ten-line executor, to show that a `JoinHandle` is a plain `Future`: no
/// async runtime is needed.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}

fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

fn main() {
    let pool = Pool::new(4).expect("capacity 4");

    // join: block for the value.
    let handles: Vec<_> = (0..8u64)
        .map(|chunk| {
            pool.spawn(move || {
                (chunk * 10_000..(chunk + 1) * 10_000)
                    .filter(|&n| is_prime(n))
                    .count()
            })
            .expect("open pool")
        })
        .collect();
    let primes: usize = handles
        .into_iter()
        .map(|h| h.join().expect("no panic"))
        .sum();
    println!("primes below 80 000: {primes}");

    // A panic goes to the handle, and the worker lives on.
    std::panic::set_hook(Box::new(|_| {}));
    let err = pool
        .spawn(|| -> u32 { panic!("division by zero, on purpose") })
        .expect("open pool")
        .join()
        .unwrap_err();
    println!("the handle reports: {err}");

    // await: the same handle is a Future.
    let answer = block_on(async {
        let a = pool
            .spawn(|| 20)
            .expect("open pool")
            .await
            .expect("no panic");
        let b = pool
            .spawn(|| 22)
            .expect("open pool")
            .await
            .expect("no panic");
        a + b
    });
    println!("awaited: {answer}");

    // PoolWithFunc::call: one function, typed arguments, typed results.
    let squares = PoolWithFunc::new(2, |n: u64| n * n).expect("capacity 2");
    let handles: Vec<_> = (1..=5)
        .map(|n| squares.call(n).expect("open pool"))
        .collect();
    let values: Vec<u64> = handles
        .into_iter()
        .map(|h| h.join().expect("no panic"))
        .collect();
    println!("squares: {values:?}");

    let stats = pool.stats();
    println!(
        "pool stats: {} completed, {} panicked, {} threads started",
        stats.completed, stats.panicked, stats.spawned
    );
    pool.release_timeout(Duration::from_secs(5))
        .expect("workers exit");
    squares
        .release_timeout(Duration::from_secs(5))
        .expect("workers exit");
}
