//! The `tokio-wait` family: where a tokio offload's time goes. The tokio
//! family's workload (`tokio_family.rs`), with each timed offload cut in two
//! at the last wake-up of its awaiting task before the poll that returned the
//! result:
//!
//! - **in the pool**: from the call until the pool (or its `oneshot`) woke the
//!   task with the result — its queue, its line of waiters, the run and the
//!   hand-back (a wake the future causes itself — a yield, tokio's budget —
//!   counts too if no later one follows: rare here);
//! - **after the wake**: from there until the runtime polled the task — the
//!   executor's ready queue, which no pool reaches.
//!
//! Per run, besides the tokio family's metrics: the median of each stretch
//! over the slowest percent of the timed offloads (those at or above the p99)
//! and over the rest, and the pool's share of the slowest percent's time.
//! A p99 above a peer's whose slowest offloads spend a few µs in the pool is
//! the executor's queue, not the pool's: see BENCHMARKS.md, "Where the
//! slowest percent waits".
//!
//! The watch wraps the task's waker in one that notes the time (an `Arc` and
//! a boxed future per timed offload): its offloads run ~10 % slower and its
//! p99s read ~10 % higher than the tokio family's, for every pool alike.
//!
//! ```sh
//! antpool-bench measure "antpool queue-64 spawn_async" tokio-wait 256 200000 0 0
//! ```

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Instant;

use serde_json::{Value, json};

use crate::medium::checksum;
use crate::peers::Kind;
use crate::tokio_family::{Driven, drive, quantile};

/// One timed offload: from the call to the awaited result, and when its task
/// was last woken before that result.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// ns from the call to the awaited result.
    pub latency_ns: u64,
    /// ns from the call to the last wake-up of the awaiting task before the
    /// poll that returned the result (`None`: it was never woken).
    pub woken_ns: Option<u64>,
}

/// A future whose task's wake-ups are timed: resolves to its output and the
/// [`Sample`] of the call.
pub struct Watched<F: Future> {
    /// The watched future (boxed: `Watched` is `Unpin`, no pin projection by
    /// hand).
    inner: Pin<Box<F>>,
    /// When the call was made (the first poll: an async call does nothing
    /// before it).
    called: Instant,
    /// ns from `called` to the last wake-up, 0 if none yet.
    woken: Arc<AtomicU64>,
    /// The executor's waker this one forwards to, and ours that wraps it.
    wakers: Option<(Waker, Waker)>,
}

impl<F: Future> Watched<F> {
    /// Watches `inner` from now on.
    pub fn new(inner: F) -> Self {
        Watched {
            inner: Box::pin(inner),
            called: Instant::now(),
            woken: Arc::new(AtomicU64::new(0)),
            wakers: None,
        }
    }
}

/// A waker that notes when it is woken, then wakes the executor's.
struct Noting {
    called: Instant,
    woken: Arc<AtomicU64>,
    outer: Waker,
}

impl Wake for Noting {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // At least 1 ns: 0 means "not woken".
        let at = (self.called.elapsed().as_nanos() as u64).max(1);
        self.woken.store(at, Ordering::Release);
        self.outer.wake_by_ref();
    }
}

impl<F: Future> Future for Watched<F> {
    type Output = (F::Output, Sample);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let stale = match &this.wakers {
            Some((outer, _)) => !outer.will_wake(cx.waker()),
            None => true,
        };
        if stale {
            let outer = cx.waker().clone();
            let noting = Waker::from(Arc::new(Noting {
                called: this.called,
                woken: this.woken.clone(),
                outer: outer.clone(),
            }));
            this.wakers = Some((outer, noting));
        }
        let noting = &this.wakers.as_ref().expect("set above").1;
        let output = std::task::ready!(this.inner.as_mut().poll(&mut Context::from_waker(noting)));
        let latency_ns = this.called.elapsed().as_nanos() as u64;
        let woken_ns = match this.woken.load(Ordering::Acquire) {
            0 => None,
            at => Some(at.min(latency_ns)),
        };
        Poll::Ready((
            output,
            Sample {
                latency_ns,
                woken_ns,
            },
        ))
    }
}

/// The two stretches of a set of samples: medians (µs) and the pool's share
/// (nulls for no samples: a run whose timed offloads all tie at the p99).
fn stretches(samples: &[&Sample]) -> Value {
    if samples.is_empty() {
        return json!({ "pool_us": null, "after_wake_us": null, "pool_share": null });
    }
    let in_pool = |s: &Sample| s.woken_ns.unwrap_or(s.latency_ns);
    let mut pool: Vec<u64> = samples.iter().map(|s| in_pool(s)).collect();
    let mut after: Vec<u64> = samples.iter().map(|s| s.latency_ns - in_pool(s)).collect();
    pool.sort_unstable();
    after.sort_unstable();
    let total: u64 = samples.iter().map(|s| s.latency_ns).sum();
    let pooled: u64 = pool.iter().sum();
    // All of nothing is the pool's (a run too fast for the clock).
    let share = match total {
        0 => 1.0,
        total => pooled as f64 / total as f64,
    };
    json!({
        "pool_us": quantile(&pool, 0.5) as f64 / 1e3,
        "after_wake_us": quantile(&after, 0.5) as f64 / 1e3,
        "pool_share": share,
    })
}

/// The tokio family's run with its offloads watched: its metrics, and the
/// stretches of the slowest percent (`slowest_*`) and of the rest (`rest_*`).
pub fn run(kind: Kind, tasks: usize, offloads: usize, rounds: u64, work_ns: u64) -> Value {
    let Driven {
        phase,
        wall,
        timed: samples,
    } = drive(kind, tasks, offloads, |offload, next, every| async move {
        let mut timed = Vec::new();
        let mut sink = 0;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= offloads {
                break;
            }
            let result = offload.run(move || checksum(i as u64, rounds));
            if i % every == 0 {
                let (value, sample) = Watched::new(result).await;
                sink ^= value;
                timed.push(sample);
            } else {
                sink ^= result.await;
            }
        }
        black_box(sink);
        timed
    });
    let mut latencies: Vec<u64> = samples.iter().map(|s| s.latency_ns).collect();
    latencies.sort_unstable();
    let p99 = quantile(&latencies, 0.99);
    let (slowest, rest): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| s.latency_ns >= p99);
    let (slowest, rest) = (stretches(&slowest), stretches(&rest));
    phase.finish(json!({
        "tasks": tasks,
        "offloads": offloads,
        "work_ns": work_ns,
        "ns_per_offload": wall.as_nanos() as f64 / offloads as f64,
        "p50_us": quantile(&latencies, 0.5) as f64 / 1e3,
        "p99_us": p99 as f64 / 1e3,
        "timed_offloads": latencies.len(),
        "slowest_pool_us": slowest["pool_us"],
        "slowest_after_wake_us": slowest["after_wake_us"],
        "slowest_pool_share": slowest["pool_share"],
        "rest_pool_us": rest["pool_us"],
        "rest_after_wake_us": rest["after_wake_us"],
        "rest_pool_share": rest["pool_share"],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tokio_family::POOLS;

    /// Every pool's offloads are watched: each stretch is there, and the
    /// pool's share is a share.
    #[test]
    fn every_pool_is_watched() {
        for kind in POOLS {
            let metrics = run(kind, 8, 200, 10, 0);
            assert_eq!(metrics["timed_offloads"], 200, "{}", kind.name());
            for key in ["slowest_pool_share", "rest_pool_share"] {
                let share = metrics[key].as_f64().expect(key);
                assert!(
                    (0.0..=1.0).contains(&share),
                    "{}: {key} {share}",
                    kind.name()
                );
            }
            assert!(metrics["slowest_pool_us"].as_f64().is_some());
            assert!(metrics["rest_after_wake_us"].as_f64().is_some());
            // Eight tasks on capacity 4: most offloads wait for a wake-up, so
            // a watch that noted none would give the pool everything.
            let rest = metrics["rest_pool_share"].as_f64().expect("a share");
            assert!(rest < 1.0, "{}: no wake-up noted", kind.name());
        }
    }

    /// A future that a thread wakes after 5 ms, ready then: its wake-up is
    /// noted, and the stretch after it is what the executor took.
    #[test]
    fn a_wake_up_is_noted() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let (tx, rx) = tokio::sync::oneshot::channel();
        // Watched from before the sender starts its 5 ms.
        let watched = Watched::new(async move { rx.await.expect("sent") });
        let sender = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            tx.send(7).expect("the receiver waits");
        });
        let (value, sample) = runtime.block_on(watched);
        sender.join().expect("the sender");
        assert_eq!(value, 7);
        let woken = sample.woken_ns.expect("the send woke the task");
        assert!(woken >= 5_000_000, "woken after {woken} ns");
        assert!(woken <= sample.latency_ns);
    }

    /// No samples, no stretches (and no panic).
    #[test]
    fn an_empty_set_has_no_stretches() {
        let value = stretches(&[]);
        assert!(value["pool_us"].is_null());
        assert!(value["pool_share"].is_null());
    }

    /// A future ready at once was never woken: all its time is the pool's.
    #[test]
    fn no_wake_up_no_executor_stretch() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let (_, sample) = runtime.block_on(Watched::new(async { 1 }));
        assert_eq!(sample.woken_ns, None);
        let value = stretches(&[&sample]);
        assert_eq!(value["after_wake_us"], 0.0);
        assert_eq!(value["pool_share"], 1.0);
    }
}
