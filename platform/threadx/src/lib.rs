//! # antpool-threadx
//!
//! [antpool] on Eclipse ThreadX: every worker is a ThreadX thread in a
//! `static` slot (its `TX_THREAD`, its stack and its semaphore), parked on
//! a counting semaphore, and the pool's clock is the kernel's tick. No
//! kernel heap and no Rust heap: ThreadX creates every object in memory the
//! caller gives it, and so does this port.
//!
//! | antpool needs | this crate | ThreadX call |
//! |---|---|---|
//! | [`Spawner::spawn`] | [`StaticSpawner`] over a `static` [`ThreadSlots`] | `tx_thread_create` in a free slot the first time; afterwards the slot's thread, parked on its semaphore since its last job, is woken with the next (`tx_semaphore_ceiling_put`) |
//! | [`Spawner::signal`] | [`SemaphoreSignal`] | the calling thread's semaphore: its slot's, or one of the spawner's [`WaitSlots`] |
//! | [`Signal::wait`] / [`Signal::wait_timeout`] | [`SemaphoreSignal`] | `tx_semaphore_get(semaphore, TX_WAIT_FOREVER)` / `(semaphore, ticks)` |
//! | [`Signal::notify`] | [`SemaphoreSignal`] | `tx_semaphore_ceiling_put(semaphore, 1)`: a second notify leaves one token |
//! | [`Spawner::Lock`] | [`CriticalSection`] | `TX_DISABLE` / `TX_RESTORE` (`_tx_thread_interrupt_disable` / `_tx_thread_interrupt_restore`) |
//! | [`Clock::now`] | [`TickClock`] | `tx_time_get()`, 32 bits, extended to 64 with a wrap count kept under `TX_DISABLE`; the rate is the kernel's `TX_TIMER_TICKS_PER_SECOND` |
//!
//! The crate has no build script and brings no kernel: the program links
//! ThreadX (built for its port with its own `tx_user.h`), and this crate
//! calls the kernel's services by their real names (`_tx_thread_create`,
//! `_tx_semaphore_get`, …: what `tx_api.h`'s macros expand to, present in
//! every build). The program also compiles `csrc/antpool_threadx.c` (shipped
//! with the crate) with its kernel: it reports the sizes of `TX_THREAD` and
//! `TX_SEMAPHORE` (which depend on the port and the configuration), the tick
//! rate, and whether the caller runs in a thread or an interrupt handler.
//!
//! Interrupt handlers: ThreadX lets a handler put a semaphore and mask
//! interrupts, so the pool's signal and lock work there unchanged, and
//! [`StaticPoolWithFunc::try_invoke_from_isr`](antpool::StaticPoolWithFunc::try_invoke_from_isr)
//! needs no feature and no extra C. (With `TX_PORT_USE_BASEPRI`, a handler
//! above `TX_PORT_BASEPRI` must not use a pool, as it must not call ThreadX.)
//!
//! Pools are used from ThreadX threads (and `try_invoke_from_isr` from
//! handlers): not from `main` before `tx_kernel_enter`, and not from
//! `tx_application_define` — making a signal there panics rather than hang.
//! One core: the lock is the kernel's interrupt lockout.
//!
//! A whole pool, in a `static`, with no heap (the QEMU demo runs this shape):
//!
//! ```no_run
//! use antpool::{Options, StaticPoolWithFunc};
//! use antpool_threadx::{StaticSpawner, ThreadSlots, TickClock, WaitSlots};
//! use core::time::Duration;
//!
//! fn blink(led: u8) {
//!     // ... runs on a slot thread
//! #   let _ = led;
//! }
//!
//! static SLOTS: ThreadSlots<3, 2048> = ThreadSlots::new();
//! static WAITERS: WaitSlots<1> = WaitSlots::new();
//! static POOL: StaticPoolWithFunc<u8, 3, TickClock, StaticSpawner<3, 2048>> =
//!     StaticPoolWithFunc::new(
//!         Options::new().capacity(3).expiry(Duration::from_millis(500)),
//!         blink,
//!         TickClock::new(),
//!         StaticSpawner::new(&SLOTS).waiters(&WAITERS).name(c"blink").priority(10),
//!     );
//!
//! // In a ThreadX thread, once the kernel runs:
//! fn app() {
//!     for led in 0..8 {
//!         POOL.invoke(led).unwrap(); // blocks while all 3 workers are busy
//!     }
//!     POOL.release_timeout(Duration::from_secs(1)).unwrap(); // every slot idle again
//! }
//! # use antpool_threadx_sim as _; // links the kernel for this example
//! ```
//!
//! `README.md` beside this file maps each trait method to the kernel beside
//! the FreeRTOS port's, says why the port chose what it did, gives stack
//! sizes, and how to port antpool to another RTOS.

#![no_std]

// The traits the crate docs above link to.
#[cfg(doc)]
use antpool::port::{Clock, Signal, Spawner};

mod clock;
mod layout;
mod lock;
mod signal;
mod slots;
mod spawner;
mod sys;
mod waiters;

pub use clock::TickClock;
pub use layout::{
    DEFAULT_KERNEL_BYTES, KernelLayout, RESERVE_ALIGN, ReserveError, SEMAPHORE_BYTES,
};
pub use lock::CriticalSection;
pub use signal::SemaphoreSignal;
pub use slots::ThreadSlots;
pub use spawner::StaticSpawner;
pub use waiters::WaitSlots;

/// Whether the caller runs in an interrupt handler, as ThreadX sees it
/// (`TX_THREAD_GET_SYSTEM_STATE()`: the IPSR register on Cortex-M, the
/// simulated interrupt nesting on the Linux port). For a test that checks a
/// handler is one; the port itself needs no such branch.
///
/// ```no_run
/// // On a running ThreadX thread:
/// assert!(!antpool_threadx::in_interrupt());
/// # use antpool_threadx_sim as _; // links the kernel for this example
/// ```
#[must_use]
pub fn in_interrupt() -> bool {
    sys::in_isr()
}
