//! The drain workload: what the workers spend on a task, apart from the
//! submitters. `tasks` tiny tasks (the `tiny` family's) are queued first, with
//! no worker taking any (antpool's unbounded queue paused; a crossbeam channel
//! before its threads start), then `cap` workers run them all; the time is from
//! the first worker's start (antpool: `resume`) to the last task's end. What a
//! worker does per task — take it from the queue, run it through the pool's
//! wrappers, free it — is all that is timed. (`measure` only: not in `all`.)
//!
//! ```sh
//! antpool-bench measure "antpool (unbounded queue)" drain 1 1000000
//! antpool-bench measure cb-unbounded drain 1 1000000
//! ```

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::thread;
use std::time::Instant;

use crossbeam_utils::CachePadded;
use serde_json::{Value, json};

use crate::measure::{Done, ctx_switches, peak_rss_kib};
use crate::peers::{Kind, Peer, Task};
use crate::workloads::tiny_work;

/// Runs the drain of `tasks` tasks on `cap` workers of `kind` (antpool's
/// unbounded queue or `cb-unbounded`: the pools that can hold every task
/// before a worker takes one).
pub fn run(kind: Kind, cap: usize, tasks: usize) -> Value {
    // Padded as `Done` is (see there): each task clones and drops this handle too.
    let counter = Arc::new(CachePadded::new(AtomicU64::new(0)));
    let done = Done::default();
    // The closure each pool is handed as its users hand it: antpool takes it
    // as is, the channel takes it boxed.
    let make = |i: usize| {
        let (counter, done) = (counter.clone(), done.clone());
        move || {
            tiny_work(&counter, i as u64);
            done.add();
        }
    };
    let (elapsed, ctx) = match kind {
        Kind::AntpoolUnbounded => {
            let Peer::Antpool(pool) = Peer::new(kind, cap) else {
                unreachable!("antpool's unbounded queue is an antpool pool");
            };
            // Every worker started once, then paused with the queue filling.
            for i in 0..cap {
                pool.submit(make(i)).expect("open pool");
            }
            pool.wait_idle();
            pool.pause();
            for i in 0..tasks {
                pool.submit(make(i)).expect("open pool");
            }
            let ctx0 = ctx_switches();
            let start = Instant::now();
            pool.resume();
            pool.wait_idle();
            (start.elapsed(), ctx_switches() - ctx0)
        }
        Kind::CbUnbounded => {
            let (tx, rx) = crossbeam_channel::unbounded::<Task>();
            for i in 0..tasks {
                tx.send(Box::new(make(i))).expect("receiver alive");
            }
            drop(tx);
            let ctx0 = ctx_switches();
            let start = Instant::now();
            let threads: Vec<_> = (0..cap)
                .map(|_| {
                    let rx = rx.clone();
                    thread::spawn(move || {
                        while let Ok(task) = rx.recv() {
                            task();
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().expect("worker");
            }
            (start.elapsed(), ctx_switches() - ctx0)
        }
        other => panic!(
            "drain: {} cannot hold the tasks before a worker takes one",
            other.name()
        ),
    };
    let ran = done.get();
    let warm = if kind == Kind::AntpoolUnbounded {
        cap
    } else {
        0
    };
    assert_eq!(ran, tasks + warm, "every task ran");
    json!({
        "tasks": tasks,
        "ns_per_task": elapsed.as_nanos() as f64 / tasks as f64,
        "peak_rss_kib": peak_rss_kib(),
        "ctx_rusage": ctx,
    })
}
