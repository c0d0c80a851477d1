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
//! let pool = Pool::new(4)?;                  // at most 4 worker threads
//! for i in 0..8 {
//!     pool.submit(move || println!("task {i}"))?;
//! }
//! pool.release_timeout(Duration::from_secs(5))?; // close, and wait for the workers
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Map
//!
//! | module | what |
//! |---|---|
//! | [`Pool`], [`PoolWithFunc`], [`StaticPoolWithFunc`] | the pools: boxed closures; one function over typed arguments; the same in a `static` |
//! | [`MultiPool`], [`MultiPoolWithFunc`], [`LoadBalancing`] | several pools behind one face |
//! | [`submit`], [`spawn`], [`running`], [`release_timeout`], … | the default pool, created on first use |
//! | [`JoinHandle`], [`JoinError`], [`WorkFn`] | results of `spawn` and `call`: join, poll or `.await` |
//! | [`Stats`] | a lock-free snapshot of a pool's counters |
//! | [`Builder`], [`Options`] | every option, validated into [`BuildError`] |
//! | [`SubmitError`], [`ReleaseError`] | rejected tasks come back inside the error |
//! | [`WorkerQueue`]: [`WorkerStack`], [`WorkerRing`], [`WorkerRingBuf`], [`IdleQueue`] | the idle-worker policy (LIFO, FIFO, fixed, chosen at build) |
//! | [`Clock`], [`Instant`], [`ManualClock`], [`ticks_at_least`] | time, a clock for tests, and tick arithmetic for RTOS ports |
//! | [`Spawner`], [`Signal`], [`Job`] | the platform seam a port implements |
//! | [`StdSpawner`], [`StdSignal`], [`StdLock`], [`StdClock`] | the std platform |
//!
//! How a task travels, and the rules that keep the hand-off sound, are in
//! `src/engine/README.md`.
//!
//! ## Features
//!
//! | feature | default | gives |
//! |---|---|---|
//! | `std` | yes | `alloc` + the std platform, panic catching (`panic_handler`), `log` |
//! | `alloc` | via `std` | [`Pool`], [`PoolWithFunc`], [`WorkerStack`], [`WorkerRingBuf`], [`IdleQueue`] |
//! | (none) | | [`StaticPoolWithFunc`] + [`WorkerRing`] + your `Spawner` and `Clock`: no heap |
//! | `critical-section` | no | atomics through `critical-section` on targets without CAS (thumbv6m) |
//!
//! Single-core targets without CAS may instead build with
//! `RUSTFLAGS="--cfg portable_atomic_unsafe_assume_single_core"`.
//!
//! ## Ports
//!
//! The std platform is built in. FreeRTOS is the crate `antpool-freertos`
//! (`platform/freertos` in the repository: tasks, task notifications, the tick
//! clock, critical sections), tested on the kernel's Posix simulator and on a
//! Cortex-M3 under QEMU; its README says how to port antpool to another RTOS.

#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;

#[macro_use]
mod sync;
#[cfg(feature = "alloc")]
mod builder;
mod clock;
mod engine;
mod error;
mod exec;
mod face;
mod func;
#[cfg(feature = "alloc")]
mod multi;
mod options;
#[cfg(feature = "alloc")]
mod pool;
mod queue;
mod spawner;
mod stats;
#[cfg(feature = "std")]
mod std;
#[cfg(feature = "alloc")]
mod task;

#[cfg(feature = "alloc")]
pub use builder::{Builder, ForFunc, ForPool, PoolBuilder, PoolWithFuncBuilder};
pub use clock::{Clock, Instant, ManualClock, ticks_at_least};
pub use error::{BuildError, ReleaseError, SubmitError};
pub use exec::WorkFn;
#[cfg(feature = "alloc")]
pub use func::PoolWithFunc;
pub use func::StaticPoolWithFunc;
pub use lock_api;
#[cfg(feature = "alloc")]
pub use multi::{LoadBalancing, MultiPool, MultiPoolWithFunc};
pub use options::{DEFAULT_EXPIRY, MAX_CAPACITY, Options};
#[cfg(feature = "alloc")]
pub use pool::{Pool, Task};
#[cfg(feature = "alloc")]
pub use queue::{IdleQueue, WorkerRingBuf, WorkerStack};
pub use queue::{IdleWorker, WorkerId, WorkerQueue, WorkerRing};
pub use spawner::{Job, Signal, Spawner, SpinLock};
pub use stats::Stats;
#[cfg(feature = "std")]
pub use std::global::{
    cap, free, reboot, release, release_timeout, running, spawn, submit, wait_idle,
};
#[cfg(feature = "std")]
pub use std::{JoinError, JoinHandle, PanicHandler, StdClock, StdLock, StdSignal, StdSpawner};

/// The README's examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
