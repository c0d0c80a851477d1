//! [`CriticalSection`]: the pool's lock, ThreadX's interrupt lockout.

use core::fmt;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use antpool::port::lock_api::{GuardNoSend, RawMutex};

use crate::sys;

/// The pool's lock on ThreadX: `TX_DISABLE` / `TX_RESTORE`, the kernel's own
/// interrupt lockout (`_tx_thread_interrupt_disable` /
/// `_tx_thread_interrupt_restore`: PRIMASK on Cortex-M, BASEPRI with
/// `TX_PORT_USE_BASEPRI`, the Linux port's recursive mutex).
///
/// The pool holds its lock for a handful of instructions and never across a
/// task, a spawn or a notify, so masking interrupts for that long is the
/// cheapest correct exclusion on one core: no thread can preempt the holder,
/// and a spin lock would let a high-priority thread spin for ever on a lock a
/// preempted low-priority one holds. A `TX_MUTEX` would cost a kernel object
/// per pool and a kernel call per hand-off, and could not be taken from an
/// interrupt handler; this lock can, unchanged: a thread that holds it has
/// interrupts masked, so a handler never finds it held (with
/// `TX_PORT_USE_BASEPRI`, a handler above `TX_PORT_BASEPRI` must not use a
/// pool, as it must not call ThreadX at all).
///
/// The lockout nests; the lock must not, so a `held` flag, read and written
/// inside it, refuses a second holder (the holder's own thread included), and
/// the posture the lockout saved is kept in the lock until the unlock.
///
/// ```no_run
/// use antpool::port::lock_api::RawMutex;
/// use antpool_threadx::CriticalSection;
///
/// // On a running ThreadX thread (or in an interrupt handler):
/// let lock = CriticalSection::INIT;
/// lock.lock();
/// assert!(lock.is_locked());
/// // SAFETY: locked just above, here.
/// unsafe { lock.unlock() };
/// assert!(!lock.is_locked());
/// # use antpool_threadx_sim as _; // links the kernel for this example
/// ```
pub struct CriticalSection {
    /// Whether this lock is held (written only with interrupts masked).
    held: AtomicBool,
    /// The posture `TX_DISABLE` saved when the holder took the lock.
    posture: AtomicU32,
}

// SAFETY: `try_lock` (and `lock` through it) masks interrupts, inside which no
// other thread or handler runs on this (single) core, and takes the lock only
// if `held` is clear, so there is never a second holder — not another thread,
// nor a handler, nor the holder itself re-entering. `held` is cleared before
// `unlock` restores the posture; `GuardNoSend` keeps the unlock on the thread
// (or handler) that locked.
unsafe impl RawMutex for CriticalSection {
    #[allow(clippy::declare_interior_mutable_const)] // `lock_api`'s initialiser constant
    const INIT: Self = CriticalSection {
        held: AtomicBool::new(false),
        posture: AtomicU32::new(0),
    };
    type GuardMarker = GuardNoSend;

    /// # Panics
    ///
    /// If the caller already holds this lock: with interrupts masked nothing
    /// else runs, so `held` can only be its own.
    fn lock(&self) {
        if !self.try_lock() {
            panic!("antpool-threadx: CriticalSection locked again by its holder");
        }
    }

    fn try_lock(&self) -> bool {
        let posture = sys::disable();
        if self.held.load(Relaxed) {
            // Held by the caller itself (nothing else runs while it is held).
            // SAFETY: from the `disable` just above.
            unsafe { sys::restore(posture) };
            return false;
        }
        self.held.store(true, Relaxed);
        self.posture.store(posture, Relaxed);
        true
    }

    unsafe fn unlock(&self) {
        let posture = self.posture.load(Relaxed);
        self.held.store(false, Relaxed);
        // SAFETY: per the trait's contract the caller holds the lock, which it
        // took with the `disable` that returned `posture`.
        unsafe { sys::restore(posture) };
    }

    fn is_locked(&self) -> bool {
        self.held.load(Relaxed)
    }
}

impl fmt::Debug for CriticalSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CriticalSection")
            .field("held", &self.is_locked())
            .finish()
    }
}
