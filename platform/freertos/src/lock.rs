//! [`CriticalSection`]: the pool's lock, a kernel critical section.

use core::fmt;
#[cfg(feature = "isr")]
use core::sync::atomic::AtomicUsize;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use antpool::port::lock_api::{GuardNoSend, RawMutex};

#[cfg(feature = "isr")]
use crate::UBaseType;
use crate::sys;

/// The pool's lock on FreeRTOS: a kernel critical section
/// (`vPortEnterCritical` / `vPortExitCritical`).
///
/// A spin lock is wrong between tasks of different priorities on one core (a
/// high-priority task spinning on a lock that a preempted low-priority task
/// holds never lets it run), and a FreeRTOS mutex costs a kernel object per
/// pool. The pool holds its lock for a handful of instructions and never across
/// a task, a spawn, an allocation of its own or a notify, so masking the
/// scheduler (and interrupts up to `configMAX_SYSCALL_INTERRUPT_PRIORITY`; all
/// of them on a Cortex-M0) for that long is the cheapest exclusion there is. Critical sections nest, and
/// all pools share the one section: that is sound because the pool never waits
/// while holding its lock.
///
/// Keep the pool's idle queue free of allocation under this lock: use
/// [`WorkerRing`](antpool::WorkerRing) (or a `WorkerRingBuf` built up front),
/// not a growing `WorkerStack`.
///
/// ```no_run
/// use antpool::port::lock_api::RawMutex;
/// use antpool_freertos::CriticalSection;
///
/// // On a running FreeRTOS task:
/// let lock = CriticalSection::INIT;
/// lock.lock();
/// assert!(lock.is_locked());
/// // SAFETY: locked just above, on this task.
/// unsafe { lock.unlock() };
/// assert!(!lock.is_locked());
/// # use antpool_freertos_sim as _; // links the kernel for this example
/// ```
pub struct CriticalSection {
    /// Whether this lock is held (written only inside the critical section).
    held: AtomicBool,
    /// With `isr`: whether the holder is an interrupt handler, and the mask
    /// its `taskENTER_CRITICAL_FROM_ISR` saved, for the unlock (written only
    /// inside the section, by the holder).
    #[cfg(feature = "isr")]
    from_isr: AtomicBool,
    #[cfg(feature = "isr")]
    saved_mask: AtomicUsize,
}

// SAFETY: `try_lock` (and `lock` through it) enters a kernel critical section,
// inside which no other task runs on this (single) core, and takes the lock only
// if `held` is clear, so there is never a second holder — not another task, nor
// the holder itself re-entering (the sections nest, `held` does not). `held` is
// cleared before `unlock` leaves the section; `GuardNoSend` keeps the unlock on
// the task that locked.
unsafe impl RawMutex for CriticalSection {
    #[allow(clippy::declare_interior_mutable_const)] // `lock_api`'s initialiser constant
    const INIT: Self = CriticalSection {
        held: AtomicBool::new(false),
        #[cfg(feature = "isr")]
        from_isr: AtomicBool::new(false),
        #[cfg(feature = "isr")]
        saved_mask: AtomicUsize::new(0),
    };
    type GuardMarker = GuardNoSend;

    /// # Panics
    ///
    /// If this task already holds this lock: inside the critical section no
    /// other task runs, so `held` can only be our own. (Kernel critical sections
    /// nest, so without the check a second guard would alias the first.)
    fn lock(&self) {
        if !self.try_lock() {
            #[cfg(feature = "isr")]
            if sys::in_isr() {
                panic!(
                    "antpool-freertos: CriticalSection found held from an interrupt: \
                     only interrupts at or below configMAX_SYSCALL_INTERRUPT_PRIORITY may use a pool"
                );
            }
            panic!("antpool-freertos: CriticalSection locked again by the task that holds it");
        }
    }

    fn try_lock(&self) -> bool {
        #[cfg(feature = "isr")]
        if sys::in_isr() {
            return self.try_lock_from_isr();
        }
        // SAFETY: called from a task (without the `isr` feature the pool is
        // never used from an interrupt; the Cortex-M3 and later ports
        // configASSERT that, the Cortex-M0 port does not: README.md).
        unsafe { sys::vPortEnterCritical() };
        if self.held.load(Relaxed) {
            // Held by this very task (nobody else runs while it holds it):
            // leave the nested section we just entered, and fail.
            // SAFETY: entered just above, on this task.
            unsafe { sys::vPortExitCritical() };
            return false;
        }
        self.held.store(true, Relaxed);
        true
    }

    unsafe fn unlock(&self) {
        #[cfg(feature = "isr")]
        if self.from_isr.load(Relaxed) {
            let saved = self.saved_mask.load(Relaxed);
            self.from_isr.store(false, Relaxed);
            self.held.store(false, Relaxed);
            // SAFETY: per the trait's contract this handler holds the lock,
            // which it entered with `antpool_enter_critical_from_isr`, saving
            // `saved` (a `UBaseType`, stored widened).
            unsafe { sys::antpool_exit_critical_from_isr(saved as UBaseType) };
            return;
        }
        self.held.store(false, Relaxed);
        // SAFETY: per the trait's contract the section is held by this task.
        unsafe { sys::vPortExitCritical() };
    }

    fn is_locked(&self) -> bool {
        self.held.load(Relaxed)
    }
}

#[cfg(feature = "isr")]
impl CriticalSection {
    /// `try_lock` in an interrupt handler: `taskENTER_CRITICAL_FROM_ISR`,
    /// which masks the interrupts that may call the kernel and returns the
    /// mask to restore. A task holding the lock is inside its own critical
    /// section, which masks this handler: so on one core, in a handler at or
    /// below `configMAX_SYSCALL_INTERRUPT_PRIORITY`, the lock is always free
    /// here. (Found held, it fails; `lock` then panics and says why.)
    fn try_lock_from_isr(&self) -> bool {
        // SAFETY: called in an interrupt handler (`in_isr`); the kernel's
        // FromISR section is made for that and nests.
        let saved = unsafe { sys::antpool_enter_critical_from_isr() };
        if self.held.load(Relaxed) {
            // SAFETY: entered just above, in this handler.
            unsafe { sys::antpool_exit_critical_from_isr(saved) };
            return false;
        }
        self.held.store(true, Relaxed);
        self.from_isr.store(true, Relaxed);
        // `UBaseType` is as wide as `usize` on every port this crate is for.
        self.saved_mask.store(saved as usize, Relaxed);
        true
    }
}

impl fmt::Debug for CriticalSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CriticalSection")
            .field("held", &self.is_locked())
            .finish()
    }
}
