//! The medium workload: one submitter, tasks of a fixed amount of CPU work
//! (~1, ~10 or ~100 µs), on pools sized to the CPUs, above them, and with
//! queues. It answers a user's question: when does the hand-off at the core
//! count cost throughput, and which configuration gets it back.
//!
//! A task is a checksum: `rounds` steps of a mixing chain, each depending on
//! the last, so the compiler can neither fold nor vectorise it. The parent
//! calibrates the rounds once (`calibrate`), so every child and every pool does
//! the same work; a sleep or a spin on the clock would measure the clock.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::{Value, json};

use crate::measure::{Done, Phase};
use crate::peers::{Kind, Peer};

/// The pools of the medium family, in table order: antpool's hand-off at the
/// core count and above it, its queue modes, and the peers a user would pick.
pub const POOLS: [Kind; 11] = [
    Kind::Antpool,
    Kind::AntpoolX2,
    Kind::AntpoolX4,
    Kind::AntpoolQueue,
    Kind::AntpoolQueue1024,
    Kind::AntpoolUnbounded,
    Kind::Rayon,
    Kind::Threadpool,
    Kind::CbBounded,
    Kind::CbBounded64,
    Kind::CbUnbounded,
];

/// `rounds` steps of a splitmix64-like mixing chain from `seed`: the task's
/// fixed amount of CPU work. Each step needs the previous one's result.
pub fn checksum(seed: u64, rounds: u64) -> u64 {
    let mut x = black_box(seed);
    for _ in 0..black_box(rounds) {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    }
    x
}

/// Nanoseconds one round of `checksum` takes on this thread: the fastest of a
/// few timed batches (the least disturbed by the rest of the machine).
pub fn calibrate() -> f64 {
    const ROUNDS: u64 = 1 << 20;
    black_box(checksum(1, ROUNDS)); // warm up
    (0..9)
        .map(|i| {
            let t0 = Instant::now();
            black_box(checksum(i, ROUNDS));
            t0.elapsed().as_nanos() as f64 / ROUNDS as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// medium: `tasks` checksums of `rounds` rounds (~`task_ns` each, as
/// calibrated by the parent) submitted by this one thread to `kind` built for
/// `cap` workers. ns per task over the whole batch, and `ideal_ns_per_task`,
/// the calibrated cost spread over `cap` CPUs with no overhead at all.
pub fn run(kind: Kind, cap: usize, tasks: usize, rounds: u64, task_ns: u64) -> Value {
    let peer = Peer::new(kind, cap);
    let sink = Arc::new(AtomicU64::new(0));
    let done = Done::default();
    let phase = Phase::start();
    for i in 0..tasks {
        let (sink, done) = (sink.clone(), done.clone());
        peer.submit(move || {
            sink.fetch_add(checksum(i as u64, rounds) & 1, Ordering::Relaxed);
            done.add();
        });
    }
    done.wait_for(tasks);
    let ns = phase.elapsed().as_nanos() as f64 / tasks as f64;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    phase.finish(json!({
        "tasks": tasks,
        "ns_per_task": ns,
        "tasks_per_s": 1e9 / ns,
        "task_ns": task_ns,
        "ideal_ns_per_task": task_ns as f64 / cpus.min(cap) as f64,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_grows_with_the_rounds_and_is_not_folded() {
        assert_ne!(checksum(1, 10), checksum(1, 11));
        assert_ne!(checksum(1, 10), checksum(2, 10));
        let per_round = calibrate();
        assert!(
            per_round > 0.05 && per_round < 100.0,
            "{per_round} ns a round"
        );
    }
}
