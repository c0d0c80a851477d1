//! Backpressure, three ways, on a pool of 2 workers and tasks of 20 ms:
//!
//! 1. **blocking** (the default): a saturated pool holds the submitter until a
//!    worker is free, so a fast producer is slowed to the pool's pace.
//! 2. **nonblocking**: a saturated pool rejects at once with `Overload`, handing
//!    the task back — here the producer runs the rejected task itself.
//! 3. **max_blocking_tasks**: up to N submitters may wait; one more is rejected.
//!
//! ```text
//! cargo run --release --example backpressure
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use antpool::{Pool, SubmitError};

const TASK: Duration = Duration::from_millis(20);

fn blocking() {
    let pool = Pool::new(2).expect("capacity 2");
    let start = Instant::now();
    for i in 0..6 {
        pool.submit(move || thread::sleep(TASK)).expect("open pool");
        println!(
            "  submitted task {i} after {:>3} ms (waiting submitters: {})",
            start.elapsed().as_millis(),
            pool.waiting()
        );
    }
    pool.release_timeout(Duration::from_secs(5))
        .expect("workers exit");
    println!(
        "  6 tasks on 2 workers: {} ms (3 rounds of 20 ms); the producer was paced",
        start.elapsed().as_millis()
    );
}

fn nonblocking() {
    let pool = Pool::builder()
        .capacity(2)
        .nonblocking(true)
        .build()
        .expect("valid options");
    let in_pool = Arc::new(AtomicUsize::new(0));
    let mut by_caller = 0;
    for _ in 0..6 {
        let counter = in_pool.clone();
        let task = move || {
            thread::sleep(TASK);
            counter.fetch_add(1, Ordering::Relaxed);
        };
        match pool.submit(task) {
            Ok(()) => {}
            Err(SubmitError::Overload(task)) => {
                // Nothing is lost: the task comes back, and the caller decides.
                by_caller += 1;
                task.run();
            }
            Err(other) => panic!("unexpected: {other}"),
        }
    }
    pool.release_timeout(Duration::from_secs(5))
        .expect("workers exit");
    let ran = in_pool.load(Ordering::Relaxed);
    assert_eq!(ran, 6, "every task ran once, in the pool or on the caller");
    println!(
        "  all {ran} tasks ran: {} on workers, {by_caller} rejected with Overload and run by the caller",
        ran - by_caller
    );
}

fn max_blocking_tasks() {
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .max_blocking_tasks(2)
            .build()
            .expect("valid options"),
    );
    pool.submit(|| thread::sleep(TASK * 5)).expect("open pool");
    let producers: Vec<_> = (0..4)
        .map(|i| {
            let pool = pool.clone();
            thread::spawn(move || {
                // Stagger the producers so the first two are the ones that wait.
                thread::sleep(Duration::from_millis(5 * i));
                match pool.submit(|| thread::sleep(TASK)) {
                    Ok(()) => format!("producer {i}: waited, then accepted"),
                    Err(e) => format!("producer {i}: rejected at once ({})", e),
                }
            })
        })
        .collect();
    for p in producers {
        println!("  {}", p.join().expect("producer"));
    }
    pool.release_timeout(Duration::from_secs(5))
        .expect("workers exit");
}

fn main() {
    println!("blocking submit (capacity 2):");
    blocking();
    println!("nonblocking (capacity 2):");
    nonblocking();
    println!("max_blocking_tasks(2) (capacity 1, 4 producers):");
    max_blocking_tasks();
}
