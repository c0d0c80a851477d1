//! The kernel functions this port calls, by their real names: the `_tx_`
//! services that `tx_api.h`'s macros expand to without error checking. They
//! exist in every ThreadX build whatever its error-checking setting (the
//! checking `_txe_` wrappers call them), and the port passes them only
//! arguments it has checked itself. Also the constants and two functions of
//! `csrc/antpool_threadx.c`, which the program compiles with its kernel.

use core::ffi::{c_char, c_int, c_void};

/// ThreadX's `ULONG`: 32 bits on every port (on the 64-bit Linux port too,
/// where it is `unsigned int`); `csrc/antpool_threadx.c` reports it and
/// [`KernelLayout::check`](crate::KernelLayout::check) checks it.
pub(crate) type Ulong = u32;
/// ThreadX's `UINT`.
pub(crate) type Uint = u32;

/// `TX_SUCCESS`.
pub(crate) const TX_SUCCESS: Uint = 0x00;
/// `TX_NO_INSTANCE`: a semaphore get that timed out.
pub(crate) const TX_NO_INSTANCE: Uint = 0x0D;
/// `TX_WAIT_ABORTED`: `tx_thread_wait_abort` ended the wait.
pub(crate) const TX_WAIT_ABORTED: Uint = 0x1A;
/// `TX_CEILING_EXCEEDED`: the put found the count at the ceiling.
pub(crate) const TX_CEILING_EXCEEDED: Uint = 0x21;
/// `TX_NO_WAIT`.
pub(crate) const TX_NO_WAIT: Ulong = 0;
/// `TX_WAIT_FOREVER`.
pub(crate) const TX_WAIT_FOREVER: Ulong = 0xFFFF_FFFF;
/// `TX_AUTO_START`.
pub(crate) const TX_AUTO_START: Uint = 1;

/// A thread's entry: `VOID (*)(ULONG)`. Plain `C`: a slot thread never
/// returns, and nothing unwinds through it (the Linux port ends a thread
/// with `pthread_exit` only when it is terminated or deleted, which slot
/// threads never are).
pub(crate) type ThreadEntry = extern "C" fn(Ulong);

unsafe extern "C" {
    pub(crate) fn _tx_thread_create(
        thread: *mut c_void,
        name: *const c_char,
        entry: ThreadEntry,
        entry_input: Ulong,
        stack_start: *mut c_void,
        stack_size: Ulong,
        priority: Uint,
        preempt_threshold: Uint,
        time_slice: Ulong,
        auto_start: Uint,
    ) -> Uint;
    pub(crate) fn _tx_thread_identify() -> *mut c_void;
    pub(crate) fn _tx_semaphore_create(
        semaphore: *mut c_void,
        name: *const c_char,
        initial_count: Ulong,
    ) -> Uint;
    pub(crate) fn _tx_semaphore_get(semaphore: *mut c_void, wait_option: Ulong) -> Uint;
    pub(crate) fn _tx_semaphore_ceiling_put(semaphore: *mut c_void, ceiling: Ulong) -> Uint;
    pub(crate) fn _tx_time_get() -> Ulong;
    /// `TX_DISABLE`: masks interrupts (PRIMASK, or BASEPRI with
    /// `TX_PORT_USE_BASEPRI`; the Linux port's recursive mutex) and returns
    /// the posture to restore.
    pub(crate) fn _tx_thread_interrupt_disable() -> Uint;
    /// `TX_RESTORE`.
    pub(crate) fn _tx_thread_interrupt_restore(posture: Uint);
}

// `csrc/antpool_threadx.c`, compiled with the kernel.
unsafe extern "C" {
    pub(crate) static antpool_tx_thread_size: usize;
    pub(crate) static antpool_tx_thread_align: usize;
    pub(crate) static antpool_tx_semaphore_size: usize;
    pub(crate) static antpool_tx_semaphore_align: usize;
    pub(crate) static antpool_tx_ulong_size: usize;
    pub(crate) static antpool_tx_ticks_per_second: Ulong;
    pub(crate) static antpool_tx_max_priorities: core::ffi::c_uint;
    pub(crate) static antpool_tx_minimum_stack: usize;
    fn antpool_tx_in_thread() -> c_int;
    fn antpool_tx_in_isr() -> c_int;
}

/// Whether the caller is a ThreadX thread, with the scheduler running.
pub(crate) fn in_thread() -> bool {
    // SAFETY: reads the kernel's state (and IPSR on Cortex-M); callable anywhere.
    unsafe { antpool_tx_in_thread() != 0 }
}

/// Whether the caller is an interrupt handler.
pub(crate) fn in_isr() -> bool {
    // SAFETY: as for `in_thread`.
    unsafe { antpool_tx_in_isr() != 0 }
}

/// `TX_TIMER_TICKS_PER_SECOND`, as the kernel was built.
pub(crate) fn tick_hz() -> u32 {
    // SAFETY: a constant the C file defines; nothing writes it.
    unsafe { antpool_tx_ticks_per_second }.max(1)
}

/// Masks interrupts until [`restore`]: `TX_DISABLE`.
pub(crate) fn disable() -> Uint {
    // SAFETY: the port's own interrupt lockout; callable from threads and
    // interrupt handlers, and nests (each restore puts back what its
    // disable found).
    unsafe { _tx_thread_interrupt_disable() }
}

/// `TX_RESTORE` of what [`disable`] returned.
///
/// # Safety
///
/// `posture` came from [`disable`] on this thread or handler, and the
/// disables and restores of this thread pair up last-in first-out.
pub(crate) unsafe fn restore(posture: Uint) {
    // SAFETY: per the contract.
    unsafe { _tx_thread_interrupt_restore(posture) }
}
