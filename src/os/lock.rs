//! [`StdLock`]: a spin lock that backs off to `yield` under contention.

use core::sync::atomic::{AtomicBool, Ordering};

use crossbeam_utils::Backoff;

/// The lock std pools put around their idle queue: a test-and-test-and-set spin
/// lock that backs off with [`crossbeam_utils::Backoff`] — a few rounds of
/// spinning, then `thread::yield_now`.
///
/// The pool holds it for a handful of instructions, so a waiter almost always gets
/// it while spinning; yielding matters when a thousand threads share two cores and
/// the holder was preempted. On the hand-off path a spin lock measured faster
/// than `std::sync::Mutex` (the figure is in the crate's `BENCHMARKS.md`).
///
/// ```
/// use antpool::port::StdLock;
/// use antpool::port::lock_api::RawMutex;
/// let lock = StdLock::INIT;
/// lock.lock();
/// assert!(!lock.try_lock());
/// // SAFETY: held by this thread (locked above).
/// unsafe { lock.unlock() };
/// assert!(lock.try_lock());
/// # unsafe { lock.unlock() };
/// ```
#[derive(Debug)]
pub struct StdLock {
    locked: AtomicBool,
}

impl Default for StdLock {
    fn default() -> Self {
        StdLock {
            locked: AtomicBool::new(false),
        }
    }
}

// SAFETY: `lock` returns only once this thread flipped `locked` from false to true
// (with Acquire), and `unlock` flips it back (with Release), so at most one holder
// exists and each holder sees the previous holder's writes.
unsafe impl lock_api::RawMutex for StdLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: StdLock = StdLock {
        locked: AtomicBool::new(false),
    };

    type GuardMarker = lock_api::GuardSend;

    fn lock(&self) {
        if self.try_lock() {
            return;
        }
        let backoff = Backoff::new();
        loop {
            while self.locked.load(Ordering::Relaxed) {
                backoff.snooze();
            }
            if self.try_lock() {
                return;
            }
        }
    }

    fn try_lock(&self) -> bool {
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    unsafe fn unlock(&self) {
        self.locked.store(false, Ordering::Release);
    }
}
