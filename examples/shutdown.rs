//! Shutting a pool down: what each way does with the tasks still queued or
//! running, and the recipe for "give them until the deadline, then take back
//! what never ran".
//!
//! ```text
//! cargo run --example shutdown
//! ```
//!
//! - `release()` (and dropping the pool) closes it and returns at once. Tasks
//!   already queued or running still run, on detached workers: if `main`
//!   returns first, the process ends and they die with it. Wait for them with
//!   `wait_idle_timeout`, which works on a closed pool.
//! - `release_timeout(d)` closes and waits up to `d` for every worker to exit.
//!   `Err(Timeout)` leaves the pool closed with its tasks running on; a second
//!   `release_timeout` returns `Err(Closed)` at once (the pool was already
//!   released), so keep waiting with `wait_idle_timeout`.
//! - `release_drain()` closes and hands back every queued task that has not
//!   started, oldest first; after `release_timeout` timed out it takes back
//!   whatever is still queued. Nothing is dropped behind your back.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use antpool::{Pool, ReleaseError};

/// How long each task works.
const TASK: Duration = Duration::from_millis(20);

fn main() {
    release_then_wait();
    timeout_then_keep_waiting();
    deadline_then_take_back();
}

/// A pool of 2 workers with room for `queued` more tasks, and a counter of
/// tasks done.
fn pool_with(queued: usize) -> (Pool, Arc<AtomicUsize>) {
    let pool = Pool::builder()
        .capacity(2)
        .max_queued_tasks(queued)
        .build()
        .expect("valid options");
    (pool, Arc::new(AtomicUsize::new(0)))
}

/// Submits `n` tasks of `TASK` each that count themselves when done.
fn submit_work(pool: &Pool, done: &Arc<AtomicUsize>, n: usize) {
    for _ in 0..n {
        let done = done.clone();
        pool.submit(move || {
            thread::sleep(TASK);
            done.fetch_add(1, Ordering::Relaxed);
        })
        .expect("the pool is open and has room");
    }
}

/// `release` returns at once; the queued tasks run on, and `main` waits for
/// them with `wait_idle_timeout`.
fn release_then_wait() {
    println!("release(), then wait_idle_timeout():");
    let (pool, done) = pool_with(8);
    submit_work(&pool, &done, 10);
    pool.release();
    assert!(pool.is_closed());
    assert!(
        pool.submit(|| ()).unwrap_err().is_closed(),
        "a closed pool takes no new task"
    );
    println!(
        "  closed with {} of 10 done; the rest run on",
        done.load(Ordering::Relaxed)
    );
    assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
    assert_eq!(done.load(Ordering::Relaxed), 10, "every queued task ran");
    println!("  wait_idle_timeout: all 10 done");
}

/// `release_timeout` times out while tasks still run; a second call says
/// `Closed` at once; `wait_idle_timeout` is how to keep waiting.
fn timeout_then_keep_waiting() {
    println!("release_timeout() that times out, then keep waiting:");
    let (pool, done) = pool_with(8);
    submit_work(&pool, &done, 10);
    assert_eq!(
        pool.release_timeout(Duration::from_millis(1)),
        Err(ReleaseError::Timeout)
    );
    assert_eq!(
        pool.release_timeout(Duration::from_secs(10)),
        Err(ReleaseError::Closed),
        "already released: the second call does not wait"
    );
    println!(
        "  Timeout, then Closed at once, with {} of 10 done",
        done.load(Ordering::Relaxed)
    );
    assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
    assert_eq!(done.load(Ordering::Relaxed), 10);
    println!("  wait_idle_timeout: all 10 done");
}

/// The recipe: give the work a deadline, then take back what never started
/// (to run it elsewhere, store it, or drop it on purpose).
fn deadline_then_take_back() {
    println!("a deadline, then release_drain() takes back what never ran:");
    let (pool, done) = pool_with(64);
    submit_work(&pool, &done, 40);
    let deadline = TASK * 3;
    let finished_in_time = pool.release_timeout(deadline).is_ok();
    let not_started = pool.release_drain();
    // The tasks that were running at the deadline finish on their own.
    assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
    let ran = done.load(Ordering::Relaxed);
    println!(
        "  in time: {finished_in_time}; ran in the pool: {ran}; handed back unrun: {}",
        not_started.len()
    );
    assert_eq!(ran + not_started.len(), 40, "every task ran or came back");
    // The caller decides: here, run them on this thread.
    for task in not_started {
        task.run();
    }
    assert_eq!(done.load(Ordering::Relaxed), 40);
    println!("  ran the rest here: all 40 done");
}
