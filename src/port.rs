//! For port authors: what a platform implements to run antpool, and the std
//! platform as the worked example.
//!
//! A pool never starts a thread, parks one, takes a lock or reads the time by
//! itself. It asks its [`Spawner`] (threads, with the [`Signal`] a thread parks
//! on and the lock it excludes others with) and its [`Clock`]. The std platform
//! ([`StdSpawner`], [`StdSignal`], [`StdLock`], [`StdClock`]) is built in; the
//! crates `antpool-freertos` and `antpool-threadx` are the FreeRTOS and
//! ThreadX ones. `antpool-threadx`'s README says step by step how to port
//! antpool to another RTOS, from the two, and `antpool-portkit` holds the
//! checks every port runs against its own platform. A custom idle-worker
//! policy implements [`WorkerQueue`].
//!
//! Users of the pools rarely need this module: [`Pool`](crate::Pool) and
//! [`PoolWithFunc`](crate::PoolWithFunc) default to the std platform. A
//! [`StaticPoolWithFunc`](crate::StaticPoolWithFunc) names its platform, so a
//! program that has one imports its clock and spawner from here (on std) or
//! from its port crate.
//!
//! ```
//! use antpool::StaticPoolWithFunc;
//! use antpool::Options;
//! use antpool::port::{StdClock, StdSpawner};
//!
//! let pool: StaticPoolWithFunc<u32, 2, StdClock, StdSpawner> = StaticPoolWithFunc::new(
//!     Options::new().capacity(2),
//!     |n| assert!(n < 10),
//!     StdClock::new(),
//!     StdSpawner::new(),
//! );
//! # drop(pool);
//! ```
//!
//! | the pool needs | the port supplies |
//! |---|---|
//! | a new thread of execution | [`Spawner::spawn`] of a [`Job`] |
//! | to block and be woken | [`Spawner::Signal`], a [`Signal`] |
//! | to exclude briefly | [`Spawner::Lock`], any [`lock_api::RawMutex`] (e.g. [`SpinLock`]) |
//! | time | a [`Clock`] of [`Instant`]s ([`ManualClock`] for tests; [`ticks_at_least`] for tick clocks) |
//! | an idle-worker policy (optional) | a [`WorkerQueue`] of [`IdleWorker`]s, known by [`WorkerId`] |

pub use crate::clock::{Clock, Instant, ManualClock, ticks_at_least};
#[cfg(feature = "std")]
pub use crate::os::clock::StdClock;
#[cfg(feature = "std")]
pub use crate::os::lock::StdLock;
#[cfg(feature = "std")]
pub use crate::os::signal::StdSignal;
#[cfg(feature = "std")]
pub use crate::os::spawner::StdSpawner;
pub use crate::queue::{IdleWorker, WorkerId, WorkerQueue};
pub use crate::spawner::{Job, Signal, Spawner, SpinLock};
pub use lock_api;
