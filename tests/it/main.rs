//! The integration tests through the public API, one module per area, in one
//! binary so the crate is linked once. Tests that change something
//! process-wide (the default pool, a global allocator, counts of the
//! process's threads) are in `tests/process/`; the loom models in
//! `tests/loom.rs`, the long stress runs in `tests/stress.rs`.

mod common;
mod model;

mod abort;
mod api;
mod async_spawn;
mod async_submit;
mod blocking;
mod books;
mod cancel;
mod chain;
mod clear_queue;
mod clock_budget;
mod deadline;
mod errors;
mod errors_downcast;
mod expiry;
mod group;
mod group_async;
mod group_keys;
mod hooks;
mod isr;
mod lifecycle;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "metrics")]
mod metrics_prometheus;
mod min_idle;
mod multipool;
mod oneshot;
mod panics;
mod pause;
mod priorities;
mod queue_mode;
mod queue_model;
mod release_async;
mod release_faces;
#[cfg(feature = "timings")]
mod release_mid_submit;
mod release_parked;
mod results;
mod scope;
mod scope_group;
mod starvation;
mod static_pool;
mod stats;
mod stuck_worker;
mod submit;
#[cfg(feature = "timings")]
mod timings;
mod tune;
mod wait_idle;
