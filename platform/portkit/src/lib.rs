//! # antpool-portkit
//!
//! One set of checks that every [antpool] port runs on its own kernel. A
//! port supplies a [`Spawner`](antpool::port::Spawner) (threads, the
//! [`Signal`](antpool::port::Signal) they park on, the lock they exclude
//! each other with) and a [`Clock`](antpool::port::Clock); this crate checks,
//! on the real kernel, that pools built on them keep antpool's promises:
//!
//! | check | what it shows |
//! |---|---|
//! | signal contract | a notify before the wait is kept, a timed wait never ends early, two notifies leave one token (the `Signal` rules 1–2) |
//! | lock | one holder at a time, the holder's own thread included |
//! | every task once | [`JOBS`] jobs on a pool of [`CAP`] workers, each exactly once |
//! | the capacity holds | never more than [`CAP`] jobs at once, and workers overlap |
//! | expiry | idle workers retire on the port's clock, their threads go |
//! | non-blocking submit | `try_invoke` on a full pool hands the argument back |
//! | blocking submit | `invoke` on a full pool blocks its thread until there is room |
//! | tune | growing lets a blocked submitter in at once; shrinking retires idle workers at once |
//! | release | `release_timeout` waits for busy workers and leaves no thread |
//! | spawn failure | a thread the port cannot start hands the argument back |
//! | no heap | every pool is a `StaticPoolWithFunc` in a `static`; the kit allocates nothing |
//! | the interrupt path | `try_invoke_from_isr` from an interrupt handler hands jobs to parked workers only |
//! | async results | a small executor awaits results computed on the workers |
//!
//! The kit is `no_std` and allocates nothing, so it runs wherever the port
//! does: a host simulator, or a 16 KiB Cortex-M0 under QEMU. A port's test
//! program implements [`Port`] (its spawner and clock, and a few kernel
//! services: print a line, sleep, read the tick, count worker threads, start
//! a timer interrupt), declares one `static` [`Pools`] of its type, and calls
//! [`run`] from a thread of the kernel:
//!
//! ```no_run
//! # use antpool_portkit::doc_support::NullPort as MyRtos;
//! use antpool_portkit::{Checks, Pools};
//!
//! // `MyRtos: antpool_portkit::Port` — see `Port` for a whole one.
//! static POOLS: Pools<MyRtos> = Pools::new();
//!
//! // On a thread of the kernel, once it runs:
//! fn controller() {
//!     let mut checks = Checks::new(|line| println!("{line}"));
//!     antpool_portkit::run(&POOLS, &mut checks);
//!     // ... the port's own checks, with the same tally ...
//!     println!("{} passed, {} failed", checks.passed(), checks.failed());
//! }
//! # controller();
//! ```
//!
//! Two kernels run it in this repository: FreeRTOS (`antpool-freertos`: its
//! Posix simulator test and its QEMU boards) and Eclipse ThreadX
//! (`antpool-threadx`: its Linux-port test and its QEMU boards); and the kit
//! runs itself on std's threads (`tests/std_port.rs`). Their READMEs say
//! what each port adds of its own.

#![no_std]

mod batch;
mod checks;
mod contract;
#[doc(hidden)]
pub mod doc_support;
mod interrupts;
mod ledger;
mod pools;
mod port;
mod results;
mod run;
mod submit;
mod wait;

pub use batch::JOBS;
pub use checks::Checks;
pub use interrupts::interrupt;
pub use pools::{CAP, Pools};
pub use port::Port;
pub use run::{Findings, run};
