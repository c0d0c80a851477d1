//! A tokio service that offloads CPU work to antpool, as a production service
//! would: many concurrent requests, back-pressure instead of an unbounded
//! backlog, a deadline per request with `select!`, an abort guard so a request
//! that gave up leaves no work behind, and a clean shutdown.
//!
//! ```text
//! cargo run --release --example tokio_service
//! ```
//!
//! * **The pool**: `capacity(cpus)` workers and a queue of 64 — CPU work wants
//!   no more threads than CPUs, and a short queue keeps them fed between
//!   requests (README, "Choosing a configuration"). When both are full,
//!   `spawn_async` waits for room without blocking a runtime thread: requests
//!   wait in the pool's line, in arrival order, not in an unbounded heap.
//! * **A deadline per request**: `select!` between the work and a timer. The
//!   work's future is `abort_on_drop()`: when the timer wins, the task is
//!   aborted if it is still queued (it never runs: no CPU spent for nobody) or,
//!   if it was still waiting for room, withdrawn from the line. A task that
//!   had begun runs to its end; its result is dropped.
//! * **Workers that give way** (Linux): each worker makes itself
//!   `SCHED_BATCH` as it starts (`on_worker_start`). Woken, a batch thread
//!   does not preempt the thread running on its CPU — here a runtime thread
//!   with requests in its queue — so the runtime keeps polling; with many
//!   concurrent requests that cuts the slowest percent's wait (README,
//!   "Choosing a configuration").
//! * **Shutdown**: a signal (here a timer in the middle of the load, where a
//!   service would await `tokio::signal::ctrl_c()`) stops new requests; the
//!   requests in flight finish (`JoinSet`), the pool drains
//!   (`wait_idle_async`), and `release_async` closes it and waits, without
//!   holding a runtime thread, for every worker thread to end (drop that
//!   future — a second signal, a timer — and only the wait is abandoned).
//!
//! It checks its own books at the end: every request answered or timed out,
//! and every task either ran once or never did — aborted in the queue
//! (`Stats::skipped`) or withdrawn from the line (`Stats::withdrawn`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use antpool::Pool;
use tokio::sync::watch;
use tokio::task::JoinSet;

/// Clients sending requests at once.
const CLIENTS: usize = 200;
/// Requests each client sends.
const REQUESTS: usize = 20;
/// How long a request may take, end to end.
const DEADLINE: Duration = Duration::from_millis(25);

/// When the shutdown signal comes.
const SHUTDOWN_AFTER: Duration = Duration::from_millis(40);

/// The service's books.
#[derive(Default)]
struct Books {
    sent: AtomicUsize,
    answered: AtomicUsize,
    timed_out: AtomicUsize,
    /// Tasks that began on a worker (answered, or finished after their
    /// request gave up).
    began: AtomicUsize,
}

/// The CPU work of one request: a checksum over `rounds` rounds (a stand-in
/// for parsing, compression, hashing). Most requests are light; every 50th is
/// heavy and will miss its deadline when the pool is busy.
fn work(request: u64, rounds: u64) -> u64 {
    let mut x = request ^ 0x9e37_79b9_7f4a_7c15;
    for _ in 0..rounds {
        x = x.rotate_left(7).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x6a09_e667;
    }
    x
}

/// One request: offload the work, with a deadline.
async fn handle(pool: &Pool, books: &Arc<Books>, request: u64) {
    let rounds = if request % 50 == 0 { 2_000_000 } else { 2_000 };
    let b = books.clone();
    // Dropped by the `select!` below when the deadline wins: a task that has
    // not begun is then aborted (or withdrawn from the line) and never runs.
    let task = pool
        .spawn_async(move || {
            b.began.fetch_add(1, Relaxed);
            work(request, rounds)
        })
        .abort_on_drop();
    books.sent.fetch_add(1, Relaxed);
    tokio::select! {
        result = task => match result {
            Ok(_checksum) => {
                books.answered.fetch_add(1, Relaxed);
            }
            // The pool is released only after every request has finished.
            Err(e) => panic!("request {request}: {e}"),
        },
        _ = tokio::time::sleep(DEADLINE) => {
            books.timed_out.fetch_add(1, Relaxed);
        }
    }
}

/// A worker's start hook: on Linux the worker becomes `SCHED_BATCH`, so that
/// when woken it waits for a free CPU or the scheduler's tick rather than
/// preempt a runtime thread. A refusal leaves the worker as it was, and says
/// so.
fn give_way() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` is a valid `sched_param` that outlives the call;
        // pid 0 is the calling thread (this worker).
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) } != 0 {
            eprintln!(
                "a worker stays SCHED_OTHER: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let pool = Pool::builder()
        .capacity(cpus)
        .max_queued_tasks(64)
        .on_worker_start(give_way)
        .build()?;
    let books = Arc::new(Books::default());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()?;
    let start = Instant::now();
    runtime.block_on(async {
        let (shutdown, stop) = watch::channel(false);
        let mut clients = JoinSet::new();
        for client in 0..CLIENTS {
            let (pool, books, mut stop) = (pool.clone(), books.clone(), stop.clone());
            clients.spawn(async move {
                for i in 0..REQUESTS {
                    if *stop.borrow_and_update() {
                        break; // shutting down: no new requests
                    }
                    handle(&pool, &books, (client * REQUESTS + i) as u64).await;
                }
            });
        }
        // The shutdown signal; a service would await `tokio::signal::ctrl_c()`.
        tokio::time::sleep(SHUTDOWN_AFTER).await;
        shutdown.send_replace(true);
        // Requests in flight finish; then the pool drains.
        while let Some(done) = clients.join_next().await {
            done.expect("a client task panicked");
        }
        pool.wait_idle_async().await;
        // Close the pool and wait for every worker thread to end, on the
        // runtime: a service bounds this wait with its own timer.
        tokio::time::timeout(Duration::from_secs(10), pool.release_async()).await
    })??;
    drop(runtime);
    assert_eq!(pool.running(), 0, "no worker thread left");

    let stats = pool.stats();
    let (answered, timed_out) = (books.answered.load(Relaxed), books.timed_out.load(Relaxed));
    let (sent, began) = (books.sent.load(Relaxed), books.began.load(Relaxed));
    let never_ran = sent - began;
    println!(
        "{sent} requests (of {} before the shutdown at {SHUTDOWN_AFTER:?}) from {CLIENTS} clients, \
         {:.2?} in all, on {cpus} workers with a queue of 64",
        CLIENTS * REQUESTS,
        start.elapsed()
    );
    println!("  answered within {DEADLINE:?}: {answered}");
    println!("  timed out:               {timed_out}");
    println!("    of which never ran (aborted in the queue or withdrawn): {never_ran}");
    println!(
        "    of which ran late (begun before the deadline, result dropped): {}",
        timed_out - never_ran
    );
    println!(
        "  pool: {} completed, {} skipped (aborted in the queue), {} withdrawn (from the line), \
         {} rejected, {} panicked",
        stats.completed, stats.skipped, stats.withdrawn, stats.rejected, stats.panicked
    );
    // The books balance: every request sent was answered or timed out; every
    // task ran once (answered, or late) or never (aborted before it began).
    assert_eq!(answered + timed_out, sent);
    assert!(
        never_ran <= timed_out,
        "only a request that gave up loses its task"
    );
    assert_eq!(stats.completed, began, "each task that began ran once");
    assert_eq!(
        stats.skipped + stats.withdrawn,
        never_ran,
        "a task that never ran was aborted in the queue or withdrawn from the line"
    );
    Ok(())
}
