//! The `tokio` family: offloading CPU work from async code, as a tokio user
//! writes it. A multi-thread runtime with two worker threads runs C tasks
//! (`tokio::spawn`); each loops: offload a closure that does W ns of CPU work
//! (the medium family's checksum, calibrated by the parent; W = 0 is a closure
//! that does next to nothing) and await its result, until N offloads are done
//! over all the tasks. Capacity 4 wherever a pool has one.
//!
//! The pools, each one of [`POOLS`]: antpool's hand-off and queue of 64,
//! through `spawn_async` (awaiting the `JoinHandle`) and through
//! `submit_async` with a tokio `oneshot` for the result; a tokio `Semaphore`
//! of 4 whose owned permit travels into `spawn_blocking` (exactly 4 in flight,
//! the hand-off's job, on the runtime's default blocking pool); plain
//! `spawn_blocking` (no back-pressure); and a rayon pool of 4 threads with a
//! `oneshot`. Every antpool call is in `tokio_antpool.rs`. Two more rows,
//! which `measure` runs by name and `all` does not ([`BY_NAME`]): antpool's
//! `spawn_async` rows with workers started as `SCHED_BATCH`.
//!
//! Per run: ns per offload (wall ÷ N), the p50 and p99 of one offload's
//! latency (from the call to the awaited result, every k-th offload timed),
//! CPU time, peak threads, and context switches (`ctx_rusage` here, perf's
//! from the parent).
//!
//! ```sh
//! antpool-bench measure "antpool hand-off spawn_async" tokio 256 200000 0 0
//! ```

use std::future::Future;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use serde_json::{Value, json};
use tokio::sync::{Semaphore, oneshot};

use crate::measure::Phase;
use crate::medium::checksum;
use crate::peers::Kind;
use crate::tokio_antpool as antpool;

/// The capacity of every pool that has one (and the semaphore's permits).
pub const CAP: usize = 4;
/// The runtime's worker threads.
pub const WORKER_THREADS: usize = 2;
/// The queue of antpool's queue mode.
pub const QUEUED: usize = 64;
/// At most about this many offloads of a run are timed one by one.
const SAMPLES: usize = 20_000;

/// The pools of the family, in table order: antpool's four rows, then the
/// peers ([`PEERS`]).
pub const POOLS: [Kind; 7] = [
    Kind::TokioHandOffSpawn,
    Kind::TokioQueueSpawn,
    Kind::TokioHandOffSubmit,
    Kind::TokioQueueSubmit,
    Kind::TokioSemaphore,
    Kind::TokioSpawnBlocking,
    Kind::TokioRayon,
];

/// Pools of the family that `measure` runs by name and `all` does not:
/// antpool's `spawn_async` rows with the workers started as `SCHED_BATCH`
/// (README, "Choosing a configuration"; BENCHMARKS.md, "Where antpool
/// loses").
pub const BY_NAME: [Kind; 2] = [Kind::TokioHandOffSpawnBatch, Kind::TokioQueueSpawnBatch];

/// The peers among which the fastest is antpool's reference.
pub const PEERS: [Kind; 3] = [
    Kind::TokioRayon,
    Kind::TokioSpawnBlocking,
    Kind::TokioSemaphore,
];

/// Whether `kind` is one of antpool's hand-off rows, whose same job is
/// `Semaphore+spawn_blocking` (exactly `CAP` in flight).
pub fn is_hand_off(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::TokioHandOffSpawn | Kind::TokioHandOffSubmit | Kind::TokioHandOffSpawnBatch
    )
}

/// The label of a task's work in variants and chart names: "tiny", "10 µs",
/// "1 ms".
pub fn work_label(us: u64) -> String {
    match us {
        0 => "tiny".into(),
        us if us >= 1000 && us % 1000 == 0 => format!("{} ms", us / 1000),
        us => format!("{us} µs"),
    }
}

/// A workload's variant: its work and its number of tasks ("10 µs, C=16").
pub fn variant(us: u64, tasks: usize) -> String {
    format!("{}, C={tasks}", work_label(us))
}

/// A variant's work and tasks: ("10 µs", "C=16") of "10 µs, C=16" (the
/// family's charts draw one work size each).
pub fn split_variant(variant: &str) -> (&str, &str) {
    variant.split_once(", ").unwrap_or((variant, ""))
}

/// How a tokio task offloads a closure: one way per pool of the family.
#[derive(Clone)]
pub enum Offload {
    /// antpool through `spawn_async`.
    Spawn(antpool::Pool),
    /// antpool through `submit_async` and a `oneshot`.
    Submit(antpool::Pool),
    /// A permit of the semaphore moved into `spawn_blocking`.
    Semaphore(Arc<Semaphore>),
    /// `spawn_blocking` alone.
    SpawnBlocking,
    /// `rayon::ThreadPool::spawn` and a `oneshot`.
    Rayon(Arc<rayon::ThreadPool>),
}

impl Offload {
    /// The pool of `kind` (one of [`POOLS`]), `cap` wide.
    fn new(kind: Kind, cap: usize) -> Offload {
        match kind {
            Kind::TokioHandOffSpawn => Offload::Spawn(antpool::hand_off(cap, false)),
            Kind::TokioQueueSpawn => Offload::Spawn(antpool::queue(cap, QUEUED, false)),
            Kind::TokioHandOffSubmit => Offload::Submit(antpool::hand_off(cap, false)),
            Kind::TokioQueueSubmit => Offload::Submit(antpool::queue(cap, QUEUED, false)),
            Kind::TokioHandOffSpawnBatch => Offload::Spawn(antpool::hand_off(cap, true)),
            Kind::TokioQueueSpawnBatch => Offload::Spawn(antpool::queue(cap, QUEUED, true)),
            Kind::TokioSemaphore => Offload::Semaphore(Arc::new(Semaphore::new(cap))),
            Kind::TokioSpawnBlocking => Offload::SpawnBlocking,
            Kind::TokioRayon => Offload::Rayon(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(cap)
                    .build()
                    .expect("rayon pool"),
            )),
            other => panic!("{} is not a pool of the tokio family", other.name()),
        }
    }

    /// Runs `f` off the runtime's workers and awaits its result.
    pub async fn run<F, R>(&self, f: F) -> R
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        match self {
            Offload::Spawn(pool) => antpool::spawn_async(pool, f).await,
            Offload::Submit(pool) => antpool::submit_async_oneshot(pool, f).await,
            Offload::Semaphore(sem) => {
                let permit = sem.clone().acquire_owned().await.expect("open semaphore");
                let task = tokio::task::spawn_blocking(move || {
                    let result = f();
                    drop(permit);
                    result
                });
                task.await.expect("the task ran")
            }
            Offload::SpawnBlocking => tokio::task::spawn_blocking(f).await.expect("the task ran"),
            Offload::Rayon(pool) => {
                let (tx, rx) = oneshot::channel();
                pool.spawn(move || {
                    let _ = tx.send(f());
                });
                rx.await.expect("the task ran")
            }
        }
    }
}

/// A finished run of the workload: its phase (CPU, threads, context switches),
/// its wall time, and what its tokio tasks timed, in no order.
pub struct Driven<T> {
    /// For the metrics `Phase::finish` adds.
    pub phase: Phase,
    /// Wall time of all the offloads.
    pub wall: std::time::Duration,
    /// What the tasks timed (every `every`-th offload).
    pub timed: Vec<T>,
}

/// The workload's frame: a runtime of [`WORKER_THREADS`], the pool of `kind`,
/// and `tasks` tokio tasks, each the future `task(offload, next, every)`
/// makes: it takes offload numbers from `next` until `offloads` and times
/// each `every`-th. (The loop is the caller's, so that what the tokio family
/// measures is not what another family's timing costs.)
pub fn drive<T, F, Fut>(kind: Kind, tasks: usize, offloads: usize, task: F) -> Driven<T>
where
    T: Send + 'static,
    F: Fn(Offload, Arc<AtomicUsize>, usize) -> Fut,
    Fut: Future<Output = Vec<T>> + Send + 'static,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKER_THREADS)
        .build()
        .expect("tokio runtime");
    let offload = Offload::new(kind, CAP);
    let every = (offloads / SAMPLES).max(1);
    let next = Arc::new(AtomicUsize::new(0));
    let phase = Phase::start();
    let timed = runtime.block_on(async {
        let handles: Vec<_> = (0..tasks)
            .map(|_| tokio::spawn(task(offload.clone(), next.clone(), every)))
            .collect();
        let mut all = Vec::with_capacity(offloads / every + 1);
        for handle in handles {
            all.extend(handle.await.expect("a tokio task"));
        }
        all
    });
    let wall = phase.elapsed();
    Driven { phase, wall, timed }
}

/// The `p`-quantile (0..=1) of sorted `values`.
pub fn quantile(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// `tasks` tokio tasks offloading `offloads` checksums of `rounds` rounds
/// (~`work_ns` each, as calibrated by the parent) to `kind`; its metrics.
pub fn run(kind: Kind, tasks: usize, offloads: usize, rounds: u64, work_ns: u64) -> Value {
    let Driven {
        phase,
        wall,
        timed: mut latencies,
    } = drive(kind, tasks, offloads, |offload, next, every| async move {
        let mut timed = Vec::new();
        let mut sink = 0;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= offloads {
                break;
            }
            let t0 = (i % every == 0).then(Instant::now);
            sink ^= offload.run(move || checksum(i as u64, rounds)).await;
            if let Some(t0) = t0 {
                timed.push(t0.elapsed().as_nanos() as u64);
            }
        }
        black_box(sink);
        timed
    });
    latencies.sort_unstable();
    let pct = |p: f64| quantile(&latencies, p) as f64 / 1e3;
    phase.finish(json!({
        "tasks": tasks,
        "offloads": offloads,
        "work_ns": work_ns,
        "ns_per_offload": wall.as_nanos() as f64 / offloads as f64,
        "p50_us": pct(0.50),
        "p99_us": pct(0.99),
        "timed_offloads": latencies.len(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_their_work() {
        assert_eq!(variant(0, 1), "tiny, C=1");
        assert_eq!(variant(10, 16), "10 µs, C=16");
        assert_eq!(variant(1000, 256), "1 ms, C=256");
        assert_eq!(split_variant("1 ms, C=256"), ("1 ms", "C=256"));
    }

    /// Every pool of the family finishes every offload, sampled ones timed,
    /// those run by name too.
    #[test]
    fn every_pool_does_every_offload() {
        for kind in POOLS.into_iter().chain(BY_NAME) {
            let metrics = run(kind, 8, 200, 10, 0);
            assert_eq!(metrics["offloads"], 200, "{}", kind.name());
            assert_eq!(metrics["timed_offloads"], 200, "{}", kind.name());
            assert!(metrics["p99_us"].as_f64() >= metrics["p50_us"].as_f64());
        }
    }

    /// The rows run by name are found by name, and their workers are batch
    /// threads: the offloaded closure reads its own thread's policy.
    #[test]
    fn batch_rows_have_batch_workers() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("tokio runtime");
        for kind in BY_NAME {
            assert_eq!(Kind::parse(kind.name()), Some(kind));
            let offload = Offload::new(kind, 2);
            // SAFETY: `sched_getscheduler` only reads the calling thread's
            // policy (pid 0).
            let policy = runtime.block_on(offload.run(|| unsafe { libc::sched_getscheduler(0) }));
            assert_eq!(policy, libc::SCHED_BATCH, "{}", kind.name());
        }
        // SAFETY: as above, for the test's own thread.
        let own = unsafe { libc::sched_getscheduler(0) };
        assert_ne!(own, libc::SCHED_BATCH, "only the pool's workers change");
    }
}
