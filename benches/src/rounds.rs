//! The interleaved schedule: `rounds` rounds, each running every case once.
//! A round visits the workloads (a family and variant: "tiny, 4 submitters")
//! in an order shuffled per round, and runs all the pools of one workload back
//! to back, in an order shuffled too. So a slow minute of a shared machine
//! spreads over all the pools instead of landing on one pool's runs, and the
//! runs that a ratio compares (antpool and its reference, in one round) are
//! seconds apart. That matters here: this machine drifts between states that
//! last minutes — a crossbeam `bounded(cap)` pool went from ~320 to ~770 ns a
//! task and stayed there, and antpool with it, within one series of runs —
//! and a ratio of two medians whose runs fell in different states said more
//! about the machine than about the pools (see `ratios.rs`).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::cases::Case;
use crate::child::Runner;
use crate::progress::Progress;

/// A small xorshift64 generator: the same seed gives the same orders.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        // One splitmix64 step spreads nearby seeds; xorshift needs a non-zero state.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)).max(1))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// A seed from the clock, for when `--seed` is not given.
pub fn clock_seed() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    // Small enough to type back in.
    (now.as_nanos() as u64 ^ u64::from(std::process::id())) % 1_000_000_000
}

/// What one case gave over all rounds.
#[derive(Default)]
pub struct Outcome {
    /// Each successful run's metrics (with `round` and `slot`: its place in the
    /// schedule).
    pub runs: Vec<Value>,
    /// Why it failed; a case that fails is not run again in later rounds.
    pub error: Option<String>,
}

/// Runs `rounds` rounds of every case, shuffled per round from `seed`; progress
/// on stderr (`progress.rs`). One outcome per case, in the order of `cases`.
pub fn run(cases: &[Case], rounds: usize, seed: u64, runner: &Runner) -> Vec<Outcome> {
    let mut rng = Rng::new(seed);
    let mut outcomes: Vec<Outcome> = cases.iter().map(|_| Outcome::default()).collect();
    let started = Instant::now();
    let workloads = by_workload(cases);
    let mut progress = Progress::new((rounds * cases.len()) as u64);
    for round in 0..rounds {
        let mut order = workloads.clone();
        rng.shuffle(&mut order);
        for pools in &mut order {
            rng.shuffle(pools);
        }
        let order: Vec<usize> = order.into_iter().flatten().collect();
        for (slot, &i) in order.iter().enumerate() {
            let case = &cases[i];
            let pool = case.pool_name();
            progress.start(
                format!(
                    "round {}/{rounds} case {:>3}/{} {:<12} {:<22} {:<30}",
                    round + 1,
                    slot + 1,
                    cases.len(),
                    case.family,
                    case.variant,
                    pool,
                ),
                format!("{}, {}: {pool}", case.family, case.variant),
            );
            let outcome = &mut outcomes[i];
            if outcome.error.is_some() {
                progress.finish("skipped (failed before)");
                continue;
            }
            let t0 = Instant::now();
            let result = runner.run(case);
            let took = t0.elapsed();
            match result {
                Ok(mut metrics) => {
                    if let Some(obj) = metrics.as_object_mut() {
                        obj.insert("round".into(), json!(round + 1));
                        obj.insert("slot".into(), json!(slot + 1));
                    }
                    outcome.runs.push(metrics);
                    progress.finish(&format!(
                        "ok {} ({} in all)",
                        secs(took),
                        secs(started.elapsed())
                    ));
                }
                Err(e) => {
                    progress.finish(&format!(
                        "FAILED {} ({} in all): {e}",
                        secs(took),
                        secs(started.elapsed())
                    ));
                    outcome.error = Some(e);
                }
            }
        }
    }
    progress.done();
    outcomes
}

/// The indices of `cases`, grouped by workload (family and variant), in the
/// order the workloads first appear.
fn by_workload(cases: &[Case]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let same = |g: &Vec<usize>| {
            let first = &cases[g[0]];
            first.family == case.family && first.variant == case.variant
        };
        match groups.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

/// "1.23 s".
fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_repeatably_and_completely() {
        let shuffled = |seed| {
            let mut v: Vec<u32> = (0..50).collect();
            Rng::new(seed).shuffle(&mut v);
            v
        };
        assert_eq!(shuffled(7), shuffled(7));
        assert_ne!(shuffled(7), shuffled(8));
        let mut v = shuffled(0);
        v.sort();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn a_workload_keeps_all_its_pools_together() {
        let cases = crate::cases::cases(&crate::cases::Sizes::smoke(), &[], true);
        let groups = by_workload(&cases);
        let mut all: Vec<usize> = groups.iter().flatten().copied().collect();
        all.sort();
        assert_eq!(all, (0..cases.len()).collect::<Vec<_>>(), "each case once");
        for g in &groups {
            let first = &cases[g[0]];
            assert!(g.len() > 1, "{} {} has peers", first.family, first.variant);
            for &i in g {
                assert_eq!(
                    (cases[i].family, &cases[i].variant),
                    (first.family, &first.variant)
                );
            }
        }
        let tiny = groups
            .iter()
            .filter(|g| cases[g[0]].family == "tiny")
            .count();
        assert_eq!(tiny, 4, "tiny: 1 and 4 submitters, idle and busy");
    }
}
