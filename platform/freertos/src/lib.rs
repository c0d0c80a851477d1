//! # antpool-freertos
//!
//! [antpool] on FreeRTOS: every worker is a FreeRTOS task, parked on a
//! task notification, and the pool's clock is the kernel's tick counter.
//!
//! | antpool needs | this crate | FreeRTOS call |
//! |---|---|---|
//! | [`Spawner::spawn`] | [`FreeRtosSpawner`] | `xTaskCreate(entry, name, stack_words, Job::into_raw(job), priority, NULL)`; the task runs the job, then `vTaskDelete(NULL)` |
//! | [`Spawner::spawn`], no heap | [`StaticSpawner`] over a `static` [`TaskSlots`] | `xTaskCreateStatic` in a free slot the first time; afterwards the slot's task, parked on a notification since its last job, is woken with the next |
//! | [`Spawner::signal`] | [`TaskSignal`] | remembers `xTaskGetCurrentTaskHandle()` |
//! | [`Signal::wait`] / [`Signal::wait_timeout`] | [`TaskSignal`] | `ulTaskGenericNotifyTake(index, pdTRUE, ticks)` |
//! | [`Signal::notify`] | [`TaskSignal`] | `xTaskGenericNotify(task, index, 0, eIncrement, NULL)` (= `xTaskNotifyGiveIndexed`) |
//! | [`Spawner::Lock`] | [`CriticalSection`] | `vPortEnterCritical` / `vPortExitCritical` |
//! | [`Clock::now`] | [`TickClock`] | `vTaskSetTimeOutState`: the tick count *and* its overflow count, so a 32-bit tick never wraps |
//!
//! The crate has no build script and brings no kernel: the program that uses it
//! links FreeRTOS (its own build, or `freertos-next` + `freertos-build`, as the
//! simulator test and the QEMU demo in this repository do) and this crate calls
//! the kernel's public functions by name. The kernel must be built with:
//!
//! * `configUSE_TASK_NOTIFICATIONS 1` and `configTASK_NOTIFICATION_ARRAY_ENTRIES`
//!   greater than the [notification index](FreeRtosSpawner::notify_index) the pool
//!   uses (index 0 is also used by stream and message buffers: if the
//!   application uses those, give the pool index 1);
//! * `configSUPPORT_DYNAMIC_ALLOCATION 1` (workers are made with `xTaskCreate`),
//!   `INCLUDE_vTaskDelete 1`, `INCLUDE_xTaskGetCurrentTaskHandle 1`, and
//!   `INCLUDE_xTaskGetSchedulerState 1` (or `configUSE_TIMERS 1`): a pool used
//!   before the scheduler runs panics instead of hanging;
//! * one core (`configNUMBER_OF_CORES 1`: the lock is `vPortEnterCritical`);
//! * a port that exports `vPortEnterCritical` / `vPortExitCritical` as functions
//!   (ARM Cortex-M and Posix do; where `portENTER_CRITICAL` is only a macro, as
//!   on RISC-V, add the two-function C shim from `README.md`);
//! * `TickType_t`, `BaseType_t`, `UBaseType_t`, `StackType_t` and
//!   `configSTACK_DEPTH_TYPE` as wide as C's `unsigned long` / `long` (true of
//!   the Posix, Cortex-M and RISC-V ports with their default configuration, with
//!   32- or 64-bit ticks).
//!
//! On a core without compare-and-swap — Cortex-M0 and M0+
//! (`thumbv6m-none-eabi`) — turn on this crate's `critical-section` feature and
//! link a `critical-section` implementation (`cortex-m`'s
//! `critical-section-single-core`): the atomic read-modify-writes then mask
//! interrupts for a few instructions. `README.md` ("Cortex-M0 and M0+") says
//! what else differs there: the kernel does not catch a pool used from an
//! interrupt, the tick may need a timer of the chip's, the NVIC takes only
//! whole words.
//!
//! Pools must be used from tasks: not from `main` before the scheduler starts,
//! and not from an interrupt — except
//! [`StaticPoolWithFunc::try_invoke_from_isr`](antpool::StaticPoolWithFunc::try_invoke_from_isr)
//! with this crate's `isr` feature, which makes [`CriticalSection`] and
//! [`TaskSignal`] use the kernel's `FROM_ISR` calls inside an interrupt
//! (compile `csrc/antpool_isr.c` with the kernel; only interrupts at or below
//! `configMAX_SYSCALL_INTERRUPT_PRIORITY`; `README.md` has the rules).
//!
//! [`StaticSpawner`] needs no kernel heap at all (`configSUPPORT_DYNAMIC_ALLOCATION`
//! may be 0): its workers run on `N` tasks made with `xTaskCreateStatic` in a
//! `static` [`TaskSlots`], which never exit. It needs
//! `configSUPPORT_STATIC_ALLOCATION 1`, and the program compiles
//! `csrc/antpool_static_task.c` with its kernel, so that the slots can check their
//! `StaticTask_t` reserve against the kernel's ([`TaskSlots::check`]).
//!
//! A whole pool, in a `static`, with no heap (the QEMU demo runs this shape):
//!
//! ```no_run
//! use antpool::{Options, StaticPoolWithFunc, WorkerRing};
//! use antpool_freertos::{FreeRtosSpawner, TickClock};
//! use core::time::Duration;
//!
//! fn blink(led: u8) {
//!     // ... runs on a worker task
//! #   let _ = led;
//! }
//!
//! static POOL: StaticPoolWithFunc<u8, 3, TickClock, FreeRtosSpawner> =
//!     StaticPoolWithFunc::new(
//!         Options::new().capacity(3).expiry(Duration::from_millis(500)),
//!         blink,
//!         TickClock::new(1_000),
//!         FreeRtosSpawner::new().name(c"blink").stack_words(512).priority(2).tick_hz(1_000),
//!     );
//!
//! // In a task, once the scheduler runs:
//! fn app() {
//!     for led in 0..8 {
//!         POOL.invoke(led).unwrap(); // blocks while all 3 workers are busy
//!     }
//!     POOL.release_timeout(Duration::from_secs(1)).unwrap(); // every worker ended (its task deletes itself just after)
//! }
//! # use antpool_freertos_sim as _; // links the kernel for this example
//! ```
//!
//! `README.md` beside this file maps each trait method to the kernel, gives
//! stack sizes and priorities, and says how to write a port for another RTOS.

#![no_std]

use core::ffi::{c_long, c_ulong, c_void};

// The traits the crate docs above link to.
#[cfg(doc)]
use antpool::port::{Clock, Signal, Spawner};

mod clock;
mod lock;
mod signal;
mod spawner;
mod static_spawner;
mod static_task;
mod sys;
mod task_slots;

pub use clock::TickClock;
pub use lock::CriticalSection;
pub use signal::TaskSignal;
pub use spawner::FreeRtosSpawner;
pub use static_spawner::StaticSpawner;
pub use static_task::{DEFAULT_TCB_BYTES, StaticTaskLayout, TCB_ALIGN, TcbReserveError};
pub use task_slots::TaskSlots;

/// FreeRTOS's `BaseType_t` (`long` on the Posix, Cortex-M and RISC-V ports).
///
/// ```
/// let pd_pass: antpool_freertos::BaseType = 1;
/// # assert_eq!(pd_pass, 1);
/// ```
pub type BaseType = c_long;
/// FreeRTOS's `UBaseType_t` (task priorities, notification indices).
///
/// ```
/// let priority: antpool_freertos::UBaseType = 2;
/// # assert_eq!(priority, 2);
/// ```
pub type UBaseType = c_ulong;
/// FreeRTOS's `TickType_t`: 64 bits on the Posix port, 32 on Cortex-M.
///
/// ```
/// let timeout: antpool_freertos::TickType = 100;
/// # assert_eq!(timeout, 100);
/// ```
pub type TickType = c_ulong;
/// FreeRTOS's `configSTACK_DEPTH_TYPE` (by default `StackType_t`): a stack size
/// in words, not bytes.
///
/// ```
/// let stack: antpool_freertos::StackWords = 1024; // 4 KiB on a 32-bit core
/// # assert_eq!(stack, 1024);
/// ```
pub type StackWords = c_ulong;
/// FreeRTOS's `StackType_t`, the word a task stack is counted in (`unsigned
/// long` on the Posix, Cortex-M and RISC-V ports: 4 bytes on a 32-bit core).
///
/// ```
/// let word = core::mem::size_of::<antpool_freertos::StackType>();
/// # assert!(word == 4 || word == 8);
/// ```
pub type StackType = c_ulong;
/// FreeRTOS's `TaskHandle_t`.
///
/// ```
/// let none: antpool_freertos::TaskHandle = core::ptr::null_mut();
/// # assert!(none.is_null());
/// ```
pub type TaskHandle = *mut c_void;
