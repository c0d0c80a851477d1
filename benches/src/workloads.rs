//! The workloads, each measured in its own process (see `main.rs`). Every
//! function returns its metrics as JSON, among them `ctx_rusage`: the process's
//! context switches (`getrusage`) over the measured phase.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use serde_json::{Value, json};

use crate::measure::{Done, Phase, cpu_seconds, ctx_switches, peak_rss_kib, rss_kib, threads};
use crate::peers::{Kind, Peer};

/// What `run` measures, and with which sizes.
#[derive(Clone, Copy, Debug)]
pub enum Workload {
    /// `tasks` tasks that each sleep `sleep_ms`, on `cap` workers.
    Sleepy {
        /// Workers.
        cap: usize,
        /// Tasks.
        tasks: usize,
        /// Each task's sleep, ms.
        sleep_ms: u64,
    },
    /// The same sleeps on `cap` plain threads and no pool: the floor.
    SleepyFloor {
        /// Threads.
        cap: usize,
        /// Tasks (sleeps).
        tasks: usize,
        /// Each sleep, ms.
        sleep_ms: u64,
    },
    /// `tasks` tiny tasks from `submitters` threads, on `cap` workers.
    Tiny {
        /// Workers.
        cap: usize,
        /// Tasks, over all submitters.
        tasks: usize,
        /// Submitting threads.
        submitters: usize,
    },
    /// `n` submissions to a warmed, idle pool, `gap_us` apart.
    Latency {
        /// Workers.
        cap: usize,
        /// Submissions.
        n: usize,
        /// Pause after each submission, µs.
        gap_us: u64,
    },
    /// `workers` workers made idle: memory, CPU while idle, expiry.
    Idle {
        /// Workers (and capacity).
        workers: usize,
        /// How long CPU is measured while idle, ms.
        idle_ms: u64,
    },
    /// `tasks` tasks of `task_us` of CPU from `submitters` threads on `cap`.
    Backpressure {
        /// Workers.
        cap: usize,
        /// Tasks, over all submitters.
        tasks: usize,
        /// Submitting threads.
        submitters: usize,
        /// Each task's CPU, µs.
        task_us: u64,
    },
    /// `tasks` tiny tasks queued first, then run by `cap` workers: the
    /// workers' cost per task alone (see `drain.rs`).
    Drain {
        /// Workers.
        cap: usize,
        /// Tasks.
        tasks: usize,
    },
    /// `tasks` checksums of `rounds` rounds (~`task_ns` each) from one
    /// submitter, on `cap` workers (see `medium.rs`).
    Medium {
        /// Workers (the peer may use a multiple: `antpool (2× cap)`).
        cap: usize,
        /// Tasks.
        tasks: usize,
        /// The checksum's rounds: each task's fixed amount of work.
        rounds: u64,
        /// What those rounds took when calibrated, ns.
        task_ns: u64,
    },
    /// `tasks` tokio tasks offloading `offloads` checksums of `rounds`
    /// rounds (~`work_ns` each) in all, awaiting each (see `tokio_family.rs`).
    Tokio {
        /// tokio tasks (C).
        tasks: usize,
        /// Offloads over all the tasks (N).
        offloads: usize,
        /// The checksum's rounds: each offload's fixed amount of work.
        rounds: u64,
        /// What those rounds took when calibrated, ns (W).
        work_ns: u64,
    },
    /// The tokio workload with each timed offload cut at its task's last
    /// wake-up: the pool's stretch and the executor's (see `tokio_wait.rs`).
    TokioWait {
        /// tokio tasks (C).
        tasks: usize,
        /// Offloads over all the tasks (N).
        offloads: usize,
        /// The checksum's rounds: each offload's fixed amount of work.
        rounds: u64,
        /// What those rounds took when calibrated, ns (W).
        work_ns: u64,
    },
}

/// A short arithmetic chain the compiler cannot fold, plus the atomic add.
pub fn tiny_work(counter: &AtomicU64, seed: u64) {
    let mut x = black_box(seed);
    for _ in 0..8 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    counter.fetch_add(x & 1, Ordering::Relaxed);
}

/// Busy-waits `us` microseconds (a task that uses the CPU, not sleeps).
fn spin_for(us: u64) {
    let until = Instant::now() + Duration::from_micros(us);
    while Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// Runs `workload` on `kind` in this process and returns its metrics.
pub fn run(kind: Option<Kind>, workload: Workload) -> Value {
    match workload {
        Workload::Sleepy {
            cap,
            tasks,
            sleep_ms,
        } => sleepy(kind.expect("a peer"), cap, tasks, sleep_ms),
        Workload::SleepyFloor {
            cap,
            tasks,
            sleep_ms,
        } => sleepy_floor(cap, tasks, sleep_ms),
        Workload::Tiny {
            cap,
            tasks,
            submitters,
        } => tiny(kind.expect("a peer"), cap, tasks, submitters),
        Workload::Latency { cap, n, gap_us } => latency(kind.expect("a peer"), cap, n, gap_us),
        Workload::Idle { workers, idle_ms } => idle(kind.expect("a peer"), workers, idle_ms),
        Workload::Backpressure {
            cap,
            tasks,
            submitters,
            task_us,
        } => backpressure(kind.expect("a peer"), cap, tasks, submitters, task_us),
        Workload::Drain { cap, tasks } => crate::drain::run(kind.expect("a peer"), cap, tasks),
        Workload::Medium {
            cap,
            tasks,
            rounds,
            task_ns,
        } => crate::medium::run(kind.expect("a peer"), cap, tasks, rounds, task_ns),
        Workload::Tokio {
            tasks,
            offloads,
            rounds,
            work_ns,
        } => crate::tokio_family::run(kind.expect("a peer"), tasks, offloads, rounds, work_ns),
        Workload::TokioWait {
            tasks,
            offloads,
            rounds,
            work_ns,
        } => crate::tokio_wait::run(kind.expect("a peer"), tasks, offloads, rounds, work_ns),
    }
}

/// sleepy: wall time, threads, memory and CPU of `tasks` sleeps on `cap` workers.
fn sleepy(kind: Kind, cap: usize, tasks: usize, sleep_ms: u64) -> Value {
    let phase = Phase::start();
    let peer = Peer::new(kind, cap);
    let done = Done::default();
    for _ in 0..tasks {
        let done = done.clone();
        peer.submit(move || {
            thread::sleep(Duration::from_millis(sleep_ms));
            done.add();
        });
    }
    done.wait_for(tasks);
    let wall = phase.elapsed();
    phase.finish(json!({
        "wall_s": wall.as_secs_f64(),
        "ideal_s": (tasks as f64 / cap as f64).ceil() * sleep_ms as f64 / 1e3,
    }))
}

/// The sleepy floor: the same sleeps on `cap` plain threads.
fn sleepy_floor(cap: usize, tasks: usize, sleep_ms: u64) -> Value {
    let phase = Phase::start();
    let threads: Vec<_> = (0..cap)
        .map(|i| {
            let mine = tasks / cap + usize::from(i < tasks % cap);
            thread::spawn(move || {
                for _ in 0..mine {
                    thread::sleep(Duration::from_millis(sleep_ms));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("floor thread");
    }
    let wall = phase.elapsed();
    phase.finish(json!({
        "wall_s": wall.as_secs_f64(),
        "ideal_s": (tasks as f64 / cap as f64).ceil() * sleep_ms as f64 / 1e3,
    }))
}

/// tiny: ns per task of `tasks` tiny tasks from `submitters` threads.
fn tiny(kind: Kind, cap: usize, tasks: usize, submitters: usize) -> Value {
    let peer = Arc::new(Peer::new(kind, cap));
    // Padded as `Done` is (see there): each task clones and drops this handle too.
    let counter = Arc::new(CachePadded::new(AtomicU64::new(0)));
    let done = Done::default();
    let per = tasks / submitters;
    let total = per * submitters;
    let phase = Phase::start();
    let threads: Vec<_> = (0..submitters)
        .map(|s| {
            let (peer, counter, done) = (peer.clone(), counter.clone(), done.clone());
            thread::spawn(move || {
                for i in 0..per {
                    let (counter, done) = (counter.clone(), done.clone());
                    let seed = (s * per + i) as u64;
                    peer.submit(move || {
                        tiny_work(&counter, seed);
                        done.add();
                    });
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("submitter");
    }
    done.wait_for(total);
    let wall = phase.elapsed();
    phase.finish(json!({
        "tasks": total,
        "ns_per_task": wall.as_nanos() as f64 / total as f64,
    }))
}

/// latency: submit → task start on a warmed, idle pool.
fn latency(kind: Kind, cap: usize, n: usize, gap_us: u64) -> Value {
    let peer = Peer::new(kind, cap);
    // Warm up: every worker started once, then idle.
    let warm = Done::default();
    for _ in 0..cap {
        let warm = warm.clone();
        peer.submit(move || warm.add());
    }
    warm.wait_for(cap);
    thread::sleep(Duration::from_millis(20));
    let ctx0 = ctx_switches();
    let origin = Instant::now();
    let started: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
    let mut submitted = Vec::with_capacity(n);
    let done = Done::default();
    for i in 0..n {
        let (started, done) = (started.clone(), done.clone());
        submitted.push(origin.elapsed().as_nanos() as u64);
        peer.submit(move || {
            started[i].store(origin.elapsed().as_nanos() as u64, Ordering::Relaxed);
            done.add();
        });
        thread::sleep(Duration::from_micros(gap_us));
    }
    done.wait_for(n);
    let ctx = ctx_switches() - ctx0;
    let mut lat: Vec<f64> = (0..n)
        .map(|i| {
            started[i]
                .load(Ordering::Relaxed)
                .saturating_sub(submitted[i]) as f64
                / 1e3
        })
        .collect();
    lat.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    json!({
        "p50_us": pct(0.50),
        "p99_us": pct(0.99),
        "p999_us": pct(0.999),
        "mean_us": lat.iter().sum::<f64>() / lat.len() as f64,
        "ctx_rusage": ctx,
    })
}

/// idle: memory and CPU of idle workers, and how many expire.
fn idle(kind: Kind, workers: usize, idle_ms: u64) -> Value {
    let threads0 = threads();
    let rss0 = rss_kib();
    let peer = Peer::new(kind, workers);
    // Make `workers` distinct workers: every task waits until all have started.
    let started = Arc::new(AtomicUsize::new(0));
    let done = Done::default();
    for _ in 0..workers {
        let (started, done) = (started.clone(), done.clone());
        peer.submit(move || {
            started.fetch_add(1, Ordering::SeqCst);
            while started.load(Ordering::SeqCst) < workers {
                thread::sleep(Duration::from_micros(200));
            }
            done.add();
        });
    }
    done.wait_for(workers);
    thread::sleep(Duration::from_millis(50));
    let idle_threads = threads().saturating_sub(threads0);
    let rss_idle = rss_kib().saturating_sub(rss0);
    let cpu0 = cpu_seconds();
    let ctx0 = ctx_switches();
    thread::sleep(Duration::from_millis(idle_ms));
    let idle_cpu = cpu_seconds() - cpu0;
    // While idle: the sleeping main thread's own switch, plus any the pool makes.
    let idle_ctx = ctx_switches() - ctx0;
    // Expiry: antpool, tokio and rusty_pool retire idle workers after 1 s here;
    // threadpool and rayon never. Measured 2.5 s after the tasks ended.
    thread::sleep(Duration::from_millis(2_450u64.saturating_sub(idle_ms)));
    json!({
        "idle_threads": idle_threads,
        "rss_per_idle_worker_kib": rss_idle as f64 / workers as f64,
        "idle_cpu_percent": idle_cpu / (idle_ms as f64 / 1e3) * 100.0,
        "threads_after_expiry": threads().saturating_sub(threads0),
        "ctx_rusage": idle_ctx,
    })
}

/// backpressure: throughput with blocking submits, and the cost of a rejection.
fn backpressure(kind: Kind, cap: usize, tasks: usize, submitters: usize, task_us: u64) -> Value {
    let peer = Arc::new(Peer::new(kind, cap));
    let done = Done::default();
    let per = tasks / submitters;
    let total = per * submitters;
    let ctx0 = ctx_switches();
    let start = Instant::now();
    let threads: Vec<_> = (0..submitters)
        .map(|_| {
            let (peer, done) = (peer.clone(), done.clone());
            thread::spawn(move || {
                for _ in 0..per {
                    let done = done.clone();
                    peer.submit(move || {
                        spin_for(task_us);
                        done.add();
                    });
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("submitter");
    }
    done.wait_for(total);
    let wall = start.elapsed().as_secs_f64();
    let ctx = ctx_switches() - ctx0;
    // The rejection path: saturate the pool, then time failed non-blocking submits.
    let rejection_ns = {
        let hold = Arc::new(AtomicUsize::new(0));
        for _ in 0..cap {
            let hold = hold.clone();
            peer.submit(move || {
                while hold.load(Ordering::Acquire) == 0 {
                    thread::sleep(Duration::from_micros(100));
                }
            });
        }
        thread::sleep(Duration::from_millis(20));
        // A peer with a queue takes tasks until the queue is full: fill it first
        // (untimed), so that only rejections are timed.
        let mut supported = false;
        for _ in 0..100_000 {
            match peer.try_submit(Box::new(|| ())) {
                Some(Ok(())) => {}
                Some(Err(_)) => {
                    supported = true;
                    break;
                }
                None => break,
            }
        }
        let tries = 100_000;
        let t0 = Instant::now();
        let mut rejected = 0usize;
        if supported {
            for _ in 0..tries {
                if let Some(Err(task)) = peer.try_submit(Box::new(|| ())) {
                    rejected += 1;
                    drop(task);
                }
            }
        }
        let ns = t0.elapsed().as_nanos() as f64 / tries as f64;
        hold.store(1, Ordering::Release);
        (rejected == tries).then_some(ns)
    };
    json!({
        "tasks_per_s": total as f64 / wall,
        "peak_rss_kib": peak_rss_kib(),
        "rejection_ns": rejection_ns,
        "ctx_rusage": ctx,
    })
}
