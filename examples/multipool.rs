//! A `MultiPool` spreads tasks over several pools, as ants' `MultiPool` does:
//! it is there for code ported from ants. This example submits the same work
//! from 4 threads to one pool of 8 workers and to multi-pools of 4 × 2, with
//! both balancing strategies, and shows how the work was spread.
//!
//! Measure before you shard: each small pool saturates sooner than one big one
//! (and a saturated pool blocks its submitter), and one pool's hot path takes
//! no lock, so a single pool is usually as fast or faster.
//!
//! ```text
//! cargo run --release --example multipool
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use antpool::{LoadBalancing, MultiPool, Pool};

const SUBMITTERS: usize = 4;
const TASKS_EACH: usize = 50_000;

/// A small task: a few hundred nanoseconds of arithmetic.
fn work(sum: &AtomicU64, seed: u64) {
    let mut x = seed;
    for _ in 0..64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    std::hint::black_box(x);
    sum.fetch_add(1, Ordering::Relaxed);
}

/// Submits `TASKS_EACH` tasks from each of `SUBMITTERS` threads through
/// `submit`; each task, once done, counts itself in `done`.
fn drive(
    submit: impl Fn(Box<dyn FnOnce() + Send>) + Send + Sync + 'static,
    done: &Arc<AtomicU64>,
) -> Duration {
    let submit = Arc::new(submit);
    let sum = done.clone();
    let start = Instant::now();
    let threads: Vec<_> = (0..SUBMITTERS)
        .map(|t| {
            let (submit, sum) = (submit.clone(), sum.clone());
            thread::spawn(move || {
                for i in 0..TASKS_EACH {
                    let sum = sum.clone();
                    submit(Box::new(move || work(&sum, (t * TASKS_EACH + i) as u64)));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("submitter");
    }
    start.elapsed()
}

fn main() {
    let total = SUBMITTERS * TASKS_EACH;
    println!("{SUBMITTERS} threads submit {total} small tasks; 8 workers in all\n");

    let single = Arc::new(Pool::new(8).expect("capacity 8"));
    let p = single.clone();
    let done = Arc::new(AtomicU64::new(0));
    let took = drive(move |task| p.submit(task).expect("open pool"), &done);
    single.wait_idle();
    assert_eq!(done.load(Ordering::Relaxed), total as u64);
    println!(
        "one Pool of 8:                 {:>7.1} ms",
        took.as_secs_f64() * 1e3
    );

    for balancing in [LoadBalancing::RoundRobin, LoadBalancing::LeastTasks] {
        let mp = Arc::new(MultiPool::new(4, 2, balancing).expect("4 pools of 2"));
        let m = mp.clone();
        let done = Arc::new(AtomicU64::new(0));
        let took = drive(move |task| m.submit(task).expect("open pool"), &done);
        let spread: Vec<String> = (0..4)
            .map(|i| format!("{}", mp.running_by_index(i).unwrap_or(0)))
            .collect();
        mp.release_timeout(Duration::from_secs(5))
            .expect("workers exit");
        println!(
            "MultiPool 4 x 2, {balancing:?}: {:>7.1} ms  (workers per pool: {}; {} tasks done)",
            took.as_secs_f64() * 1e3,
            spread.join(", "),
            done.load(Ordering::Relaxed)
        );
        assert_eq!(done.load(Ordering::Relaxed), total as u64);
    }
    single
        .release_timeout(Duration::from_secs(5))
        .expect("workers exit");
    println!("\n(fewer cores than submitters: one pool usually wins; see the file's docs)");
}
