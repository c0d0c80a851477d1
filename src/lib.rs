//! # antpool
//!
//! A worker pool in the spirit of Go's [`ants`](https://github.com/panjf2000/ants):
//! it bounds how many tasks run at once, hands each task straight to an idle
//! worker thread and reuses it, retires workers that stay idle, resizes at run
//! time, and pushes back — blocking, or rejecting with the task handed back —
//! when saturated. Its core is `no_std`: a platform plugs in how threads start,
//! park and exclude each other, and a pool can live in a `static` with no heap.
//!
//! ```
//! use antpool::Pool;
//! use std::time::Duration;
//!
//! let pool = Pool::new(4)?;                        // at most 4 worker threads
//! for i in 0..8 {
//!     pool.submit(move || println!("task {i}"))?;  // blocks while all 4 are busy
//! }
//! let answer = pool.spawn(|| 6 * 7)?;              // a handle to the result
//! assert_eq!(answer.join()?, 42);
//! pool.release_timeout(Duration::from_secs(5))?;   // close, and wait for the workers
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```
//!
//! ## Which pool do I want?
//!
//! | you have | take | it gives |
//! |---|---|---|
//! | closures of any kind | [`Pool`] | `submit`, `spawn` → [`JoinHandle`], `try_submit`; boxed only when a closure is larger than three words |
//! | one function over many arguments | [`PoolWithFunc`] | `invoke(arg)`, `call(arg)` → [`JoinHandle`]; no allocation per task |
//! | no heap, or a pool in a `static` | [`StaticPoolWithFunc`] | the same, with its `N` worker slots inline; on any platform through [`port`] |
//! | code ported from ants' `MultiPool` | [`MultiPool`], [`MultiPoolWithFunc`] | `n` pools behind one handle, by [`LoadBalancing`] (ants' API, no more) |
//! | tasks that borrow from your stack | [`Pool::scope`], [`scope`] | a [`Scope`] whose tasks may borrow; it returns when they have all finished; [`Scope::group`] joins them as a group |
//! | tasks to join as they complete, or cancel together | [`Pool::group`], [`group`] | a [`TaskGroup`]: `join_next` (async: cancel-safe), `join_all`, `abort_all`, `cancel_on_error` |
//! | an occasional task, no setup | [`submit`], [`spawn`] | the default pool: unbounded, created on first use (or [`configure`]d once before) |
//!
//! Every pool blocks a submitter while saturated by default; in async code
//! `submit_async` (`spawn_async`, `invoke_async`) waits for room without
//! holding a thread, on any executor. `nonblocking` rejects instead
//! ([`SubmitError::Overload`], with the task), `submit_timeout`
//! (and `spawn_timeout`, `invoke_timeout`) waits at most a given time
//! ([`SubmitError::Timeout`], with the task), and `max_queued_tasks` /
//! `unbounded_queue` queue tasks instead of blocking. The [`Builder`] has every
//! option.
//!
//! ## Map
//!
//! | items | what |
//! |---|---|
//! | [`Pool`], [`PoolWithFunc`], [`StaticPoolWithFunc`] | the pools: boxed closures; one function over typed arguments; the same in a `static`. Each is a [`PoolOf`] of a [`kind`]: a method every pool has is written once, on `PoolOf` |
//! | [`MultiPool`], [`MultiPoolWithFunc`], [`LoadBalancing`] | several pools behind one handle ([`MultiPoolOf`]) |
//! | [`submit`], [`spawn`], [`running`], [`release_timeout`], [`release_async`], … | the default pool, created on first use |
//! | [`JoinHandle`], [`JoinError`], [`WorkFn`], [`panic_message`] | results of `spawn` and `call`: join, poll or `.await`; panics |
//! | [`Scope`], [`ScopedJoinHandle`], [`ScopedTaskGroup`], [`scope`] | tasks that borrow from the caller's stack, one by one or as a group (`std`) |
//! | [`TaskGroup`], [`TaskId`], [`CancelToken`], [`GroupError`], [`group`] | task groups: joined as they complete, cancelled together (`std`) |
//! | [`Stats`] | a lock-free snapshot of a pool's counters |
//! | `Timings`, `Histogram`, `Sampling`, `metrics` | how long tasks wait and run (features `timings`, `metrics`) |
//! | [`Options`], [`Builder`] | every option, validated into [`BuildError`]; a builder is `Options` around its [`Pieces`] (platform, hooks, what it runs) |
//! | [`SubmitError`], [`Task`], [`ReleaseError`] | rejected tasks come back inside the error |
//! | [`Release`] | the future of `release_async` and `wait_released_async`: waiting for the workers to exit |
//! | [`IdleQueue`], [`WorkerRing`] | the idle-worker policy (LIFO, or FIFO with `prealloc`, chosen at build; FIFO inline) |
//! | [`port`] | for port authors: the platform traits (`Spawner`, `Signal`, `Clock`, `WorkerQueue`), and the std platform |
//!
//! How a task travels, and the rules that keep the hand-off sound, are in
//! `src/engine/README.md`.
//!
//! ## Errors
//!
//! Nothing is dropped behind the caller's back: a task the pool does not take
//! comes back inside [`SubmitError`] (`into_inner()`), a task that panics in
//! `spawn` gives its payload to its [`JoinHandle`], and `release_drain` hands
//! back queued tasks that never started. Every error type is
//! `Send + Sync + 'static` where its payload is (a [`Task`] is), so `?` turns
//! it into `anyhow::Error` or `Box<dyn Error + Send + Sync>`.
//!
//! ## Shutting down
//!
//! - `release()` (and dropping the pool) closes it and returns at once. Tasks
//!   already queued or running still run, on detached workers; if `main`
//!   returns first they die with the process. Wait for them with
//!   `wait_idle_timeout`, which works on a closed pool.
//! - `release_timeout(d)` closes and waits up to `d` for every worker to exit.
//!   After [`ReleaseError::Timeout`] the pool stays closed and its tasks run on;
//!   a second call returns [`ReleaseError::Closed`] at once, so keep waiting
//!   with `wait_idle_timeout`.
//! - A deadline, then take back what never ran: `release_timeout(deadline)`,
//!   then `release_drain()` returns every queued task that has not started.
//! - In async code, `release_async()` closes the pool at once and returns a
//!   future that waits for the workers without holding a thread. It never
//!   times out: drop it (a `select!` against a signal or a timer) to stop
//!   waiting, and the pool stays closed; `wait_released_async()` waits again.
//!   A `reboot` during the wait ends it with [`ReleaseError::Reopened`].
//!
//! ```
//! use antpool::Pool;
//! use std::time::Duration;
//!
//! let pool = Pool::builder().capacity(2).max_queued_tasks(100).build()?;
//! for _ in 0..10 {
//!     pool.submit(|| std::thread::sleep(Duration::from_millis(1)))?;
//! }
//! let rt = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
//! rt.block_on(async {
//!     tokio::select! {
//!         released = pool.release_async() => released,
//!         _ = tokio::time::sleep(Duration::from_secs(5)) => {
//!             drop(pool.release_drain()); // give up: what never started, back
//!             pool.wait_released_async().await
//!         }
//!     }
//! })?;
//! assert_eq!(pool.running(), 0);
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```
//!
//! ```
//! use antpool::Pool;
//! use std::time::Duration;
//!
//! let pool = Pool::builder().capacity(2).max_queued_tasks(100).build()?;
//! for _ in 0..50 {
//!     pool.submit(|| std::thread::sleep(Duration::from_millis(5)))?;
//! }
//! let in_time = pool.release_timeout(Duration::from_millis(20)).is_ok();
//! let never_ran: Vec<antpool::Task> = pool.release_drain(); // yours to run, store or drop
//! assert!(in_time || !never_ran.is_empty());
//! pool.wait_idle_timeout(Duration::from_secs(5));           // the ones still running finish
//! # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
//! ```
//!
//! `examples/shutdown.rs` runs each of these.
//!
//! ## Features
//!
//! | feature | default | gives |
//! |---|---|---|
//! | `std` | yes | `alloc` + the std platform, panic catching (`panic_handler`), `log` |
//! | `alloc` | via `std` | [`Pool`], [`PoolWithFunc`], [`MultiPool`], [`IdleQueue`] |
//! | (none) | | [`StaticPoolWithFunc`] + [`WorkerRing`] + a platform from [`port`]: no heap |
//! | `tracing` | no | a `worker` span per worker and events (start, stop, expiry, rejections, panics) through `tracing`, target `antpool`; also without `std` |
//! | `timings` | no | `Sampling`, and `timings()` on every pool: `Timings` of submit waits, queue waits (per level too, with `priorities(true)`) and run times, on the pool's own clock; also without `std` |
//! | `metrics` | no | `timings` + `std` + `metrics::MetricsReporter`: the timings and [`Stats`] pulled into the `metrics` facade |
//! | `critical-section` | no | atomics through `critical-section` on targets without CAS (thumbv6m) |
//!
//! Without `std` (a [`StaticPoolWithFunc`] on a port): `invoke`,
//! `invoke_timeout`, `invoke_async`, `wait_idle_async` and `release_async`
//! (built on `core::task`), `min_idle`, `clear_queue`, `pause` and `resume`, worker
//! hooks as plain functions (`on_worker_start`, `on_worker_stop`). With `std`
//! only: hooks that are closures (the builders'), `JoinHandle` results
//! (`spawn`, `call`, `spawn_async`) and `abort`, scoped tasks, task groups,
//! panic catching.
//!
//! Single-core targets without CAS may instead build with
//! `RUSTFLAGS="--cfg portable_atomic_unsafe_assume_single_core"`.
//!
//! ## Ports
//!
//! The std platform is built in ([`port::StdSpawner`] and friends). FreeRTOS
//! is the crate `antpool-freertos` (`platform/freertos` in the repository:
//! tasks, task notifications, the tick clock, critical sections), ThreadX the
//! crate `antpool-threadx` (`platform/threadx`: threads on static slots,
//! counting semaphores, the tick clock, interrupt lockout); both pass the
//! same port kit (`antpool-portkit`) on their host simulators and on
//! Cortex-M boards under QEMU. `antpool-threadx`'s README says how to port
//! antpool to another RTOS.

#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;

#[macro_use]
mod sync;
mod boxed;
#[cfg(feature = "alloc")]
mod builder;
mod calls;
mod clock;
#[cfg(feature = "alloc")]
mod closures;
mod deadline;
mod engine;
mod error;
mod error_kind;
mod exec;
#[cfg(feature = "std")]
mod global;
#[cfg(feature = "std")]
mod group;
#[cfg(feature = "std")]
mod guard;
#[cfg(feature = "std")]
mod hooks;
#[cfg(feature = "std")]
mod join;
pub mod kind;
#[cfg(feature = "alloc")]
mod multi;
mod oneshot;
mod options;
#[cfg(feature = "std")]
mod os;
#[cfg(feature = "alloc")]
mod owner;
mod pause;
mod pool;
pub mod port;
mod priority;
mod priority_view;
mod queue;
mod release;
#[cfg(feature = "std")]
mod scope;
#[cfg(feature = "std")]
mod scope_group;
#[cfg(feature = "std")]
mod spawn;
mod spawner;
mod static_pool;
mod stats;
#[cfg(feature = "alloc")]
mod task;
#[cfg(feature = "timings")]
mod timings;
mod trace;

#[cfg(feature = "metrics")]
pub mod metrics;

pub use error::{BuildError, Rejected, ReleaseError, SubmitError};
pub use error_kind::ErrorKind;
pub use exec::WorkFn;
pub use oneshot::{Oneshot, Recv};
pub use options::{DEFAULT_EXPIRY, MAX_CAPACITY, Options};
pub use pool::{PoolOf, StaticPoolWithFunc};
pub use priority::Priority;
pub use priority_view::Prioritized;
pub use queue::WorkerRing;
pub use release::Release;
pub use stats::Stats;

// With a heap: the pools of closures, and the builders.
#[cfg(feature = "alloc")]
pub use self::{
    builder::{Builder, ForFunc, Pieces, PoolBuilder, PoolWithFuncBuilder},
    multi::{LoadBalancing, MultiPool, MultiPoolOf, MultiPoolWithFunc},
    pool::{Pool, PoolWithFunc},
    queue::IdleQueue,
    task::Task,
};

// With `std`: results, groups, scopes, panics, and the default pool.
#[cfg(feature = "std")]
pub use self::{
    global::{
        cap, configure, free, group, reboot, release, release_async, release_timeout, running,
        scope, spawn, spawn_async, submit, submit_async, wait_idle, wait_released_async,
        wait_released_timeout,
    },
    group::{GroupError, GroupSpawnAsync, JoinNext, PrioritizedGroup, TaskGroup, TaskId, TimedOut},
    guard::panic::{current_worker_index, panic_message},
    guard::policy::PanicHandler,
    join::abort::{AbortHandle, AbortOnDrop},
    join::cancel::CancelToken,
    join::error::{JoinError, SpawnError},
    join::handle::JoinHandle,
    join::spawn_async::SpawnAsync,
    scope::{Scope, ScopedJoinHandle},
    scope_group::ScopedTaskGroup,
};

#[cfg(feature = "timings")]
pub use timings::{Histogram, Sampling, Timings};

/// The README's examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
