//! What a pool buys: 100 000 tasks that each sleep 1 ms, run three ways.
//!
//! 1. **antpool**: a pool of N = 1 000 workers.
//! 2. **floor**: N plain threads and no pool at all, each sleeping tasks / N
//!    times — the least any pool could cost, since every sleep of an OS thread
//!    costs the kernel ~9–18 µs of CPU here.
//! 3. **thread per task**: one new thread per task (a stated share of the batch,
//!    scaled up; `--full` runs all of it).
//!
//! For each it prints tasks done, wall time, the peak number of OS threads and the
//! peak RSS (sampled every millisecond by one extra thread), next to the ideal
//! time tasks × 1 ms / N.
//!
//! ```text
//! cargo run --release --example quickstart [-- --workers 1000 --tasks 100000 --full]
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use antpool::Pool;

const SLEEP: Duration = Duration::from_millis(1);

struct Args {
    workers: usize,
    tasks: usize,
    full: bool,
    only: Option<String>,
}

fn parse_args() -> Args {
    let mut args = Args {
        workers: 1_000,
        tasks: 100_000,
        full: false,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut number = |name: &str| -> usize {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match arg.as_str() {
            "--workers" => args.workers = number("--workers").max(1),
            "--tasks" => args.tasks = number("--tasks"),
            "--full" => args.full = true,
            "--only" => args.only = it.next(),
            other => panic!("unknown argument {other:?} (try --workers N --tasks N --full)"),
        }
    }
    args
}

/// Peak OS threads and resident memory of this process while a phase runs.
struct Peak {
    threads: usize,
    rss_kib: usize,
}

/// Reads `Threads:` and `VmRSS:` from /proc/self/status (Linux); `None` elsewhere.
fn sample() -> Option<(usize, usize)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<usize> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((field("Threads:")?, field("VmRSS:")?))
}

/// Runs `phase` while one extra thread samples threads and RSS every millisecond.
fn measured<R>(phase: impl FnOnce() -> R) -> (R, Duration, Option<Peak>) {
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut peak: Option<Peak> = None;
            loop {
                let done = stop.load(Ordering::Acquire);
                if let Some((threads, rss_kib)) = sample() {
                    let p = peak.get_or_insert(Peak {
                        threads: 0,
                        rss_kib: 0,
                    });
                    p.threads = p.threads.max(threads);
                    p.rss_kib = p.rss_kib.max(rss_kib);
                }
                if done {
                    return peak;
                }
                thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let start = Instant::now();
    let result = phase();
    let wall = start.elapsed();
    stop.store(true, Ordering::Release);
    let peak = sampler.join().expect("sampler thread");
    (result, wall, peak)
}

fn run_pool(workers: usize, tasks: usize) -> usize {
    let pool = Pool::new(workers).expect("a valid capacity");
    let done = Arc::new(AtomicUsize::new(0));
    for _ in 0..tasks {
        let done = done.clone();
        pool.submit(move || {
            thread::sleep(SLEEP);
            done.fetch_add(1, Ordering::Relaxed);
        })
        .expect("an open, blocking pool takes every task");
    }
    pool.release_timeout(Duration::from_secs(600))
        .expect("every worker exits");
    done.load(Ordering::Relaxed)
}

fn run_floor(workers: usize, tasks: usize) -> usize {
    let done = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..workers)
        .map(|i| {
            // Spread the remainder so exactly `tasks` sleeps happen.
            let mine = tasks / workers + usize::from(i < tasks % workers);
            let done = done.clone();
            thread::spawn(move || {
                for _ in 0..mine {
                    thread::sleep(SLEEP);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("floor thread");
    }
    done.load(Ordering::Relaxed)
}

fn run_thread_per_task(tasks: usize) -> usize {
    let done = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..tasks)
        .map(|_| {
            let done = done.clone();
            thread::spawn(move || {
                thread::sleep(SLEEP);
                done.fetch_add(1, Ordering::Relaxed);
            })
        })
        .collect();
    for t in threads {
        t.join().expect("task thread");
    }
    done.load(Ordering::Relaxed)
}

fn row(name: &str, done: usize, of: usize, wall: Duration, peak: &Option<Peak>) {
    let (threads, rss) = match peak {
        Some(p) => (
            p.threads.to_string(),
            format!("{:.1} MiB", p.rss_kib as f64 / 1024.0),
        ),
        None => ("n/a".into(), "n/a".into()),
    };
    println!(
        "{name:<18} {:>15} {:>11.3} s {:>13} {:>12}",
        format!("{done}/{of}"),
        wall.as_secs_f64(),
        threads,
        rss
    );
}

fn main() {
    let args = parse_args();
    let (n, tasks) = (args.workers, args.tasks);
    let ideal = SLEEP * u32::try_from(tasks / n).unwrap_or(u32::MAX);
    println!("{tasks} tasks that each sleep {SLEEP:?}; pool and floor use N = {n} workers");
    println!("ideal (tasks x 1 ms / N): {:.3} s\n", ideal.as_secs_f64());
    println!(
        "{:<18} {:>15} {:>13} {:>13} {:>12}",
        "", "tasks done", "wall time", "peak threads", "peak RSS"
    );

    let wanted = |phase: &str| {
        args.only
            .as_deref()
            .is_none_or(|only| only.split(',').any(|p| p == phase))
    };
    let mut pool = None;
    if wanted("pool") {
        let (done, wall, peak) = measured(|| run_pool(n, tasks));
        row("antpool", done, tasks, wall, &peak);
        assert_eq!(done, tasks, "the pool lost tasks");
        pool = Some((wall, peak));
    }
    let mut floor = None;
    if wanted("floor") {
        let (done, wall, peak) = measured(|| run_floor(n, tasks));
        row("floor (no pool)", done, tasks, wall, &peak);
        floor = Some(wall);
    }
    let mut per_task = None;
    if wanted("thread-per-task") {
        let share = if args.full {
            tasks
        } else {
            (tasks / 10).max(1)
        };
        let (done, wall, peak) = measured(|| run_thread_per_task(share));
        row("thread per task", done, share, wall, &peak);
        let scaled = wall.mul_f64(tasks as f64 / share as f64);
        if share < tasks {
            println!(
                "  (ran {share} of {tasks} tasks; the whole batch at that rate: {:.3} s; --full runs it all)",
                scaled.as_secs_f64()
            );
        }
        per_task = Some(scaled);
    }

    let Some((pool_wall, pool_peak)) = pool else {
        return;
    };
    println!();
    if let Some(floor_wall) = floor {
        let ratio = pool_wall.as_secs_f64() / floor_wall.as_secs_f64();
        println!("antpool / floor:           {ratio:.2}x  (target: at most 1.5x)");
    }
    if let Some(per_task_wall) = per_task {
        let ratio = per_task_wall.as_secs_f64() / pool_wall.as_secs_f64();
        println!("thread per task / antpool: {ratio:.1}x  (target: at least 10x)");
    }
    if let Some(p) = &pool_peak {
        // The sampler is one thread of its own; main is another.
        let extra = p.threads as isize - n as isize;
        let sign = if extra < 0 { '-' } else { '+' };
        println!(
            "antpool peak threads:      {} = N {sign} {}  (target: at most N + 2: main and the sampler)",
            p.threads,
            extra.unsigned_abs()
        );
    }
}
