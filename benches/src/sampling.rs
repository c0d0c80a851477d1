//! How the antpool rows' pools are built beyond their mode: plain (the
//! default build); timing their tasks — features `timings-one-in-16` and
//! `timings-every`, which turn on antpool's `timings` — one task in 16, or
//! every task; or with `priorities(true)` (feature `priorities`: a lane and a
//! line per level, every task submitted at `Normal`). Measured against a
//! `--baseline-exe` built without the feature, the `@base` rows' ratios are
//! the cost of the timings, or of the levels:
//!
//! ```text
//! cargo build --release -p antpool-bench --target-dir /tmp/off          # the baseline
//! cargo run --release -p antpool-bench --features timings-one-in-16 -- all \
//!     --only tiny --runs 5 --pools antpool --baseline-exe /tmp/off/release/antpool-bench
//! ```

/// The builder every antpool row's pool starts from.
pub fn builder() -> antpool::PoolBuilder {
    let builder = antpool::Pool::builder();
    #[cfg(feature = "timings-every")]
    let builder = builder.timings(antpool::Sampling::Every);
    #[cfg(all(feature = "timings-one-in-16", not(feature = "timings-every")))]
    let builder = builder.timings(antpool::Sampling::OneIn(16));
    #[cfg(feature = "priorities")]
    let builder = builder.priorities(true);
    builder
}

/// An antpool pool of `cap` workers, with the default options otherwise.
pub fn pool(cap: usize) -> antpool::Pool {
    builder().capacity(cap).build().expect("valid capacity")
}
