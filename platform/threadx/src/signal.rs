//! [`SemaphoreSignal`]: the pool's signal on a thread's counting semaphore,
//! and the reserve a `TX_SEMAPHORE` lives in.

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_void};
use core::fmt;
use core::mem::MaybeUninit;
use core::time::Duration;

use antpool::port::{Signal, ticks_at_least};

use crate::clock::TickClock;
use crate::sys::{self, Ulong};
use crate::waiters::WaitSlot;

// Named in the docs.
#[cfg(doc)]
use crate::{StaticSpawner, WaitSlots};
#[cfg(doc)]
use antpool::port::Spawner;

/// `BYTES` bytes aligned to [`RESERVE_ALIGN`](crate::RESERVE_ALIGN), handed
/// to the kernel as a control block. The kernel owns them from the object's
/// creation on, and the object is never deleted.
#[repr(C, align(8))]
pub(crate) struct Reserve<const BYTES: usize>(UnsafeCell<MaybeUninit<[u8; BYTES]>>);

impl<const BYTES: usize> Reserve<BYTES> {
    pub(crate) const fn new() -> Self {
        Reserve(UnsafeCell::new(MaybeUninit::uninit()))
    }

    /// The control block at `offset` bytes into the reserve.
    pub(crate) const fn at(&self, offset: usize) -> *mut c_void {
        self.0.get().cast::<u8>().wrapping_add(offset).cast()
    }
}

// The reserves' alignment is the constant the checks compare with.
const _: () = assert!(core::mem::align_of::<Reserve<1>>() == crate::RESERVE_ALIGN);

/// Creates the counting semaphore at `semaphore`, empty.
///
/// # Safety
///
/// `semaphore` is `'static` memory that holds a `TX_SEMAPHORE` (checked
/// against the kernel's size and alignment), no other object was ever made
/// there, and the caller is a thread (or initialization).
pub(crate) unsafe fn create(semaphore: *mut c_void, name: &'static CStr) {
    // SAFETY: per the contract; the name is `'static` (the kernel keeps the
    // pointer, not a copy).
    let status = unsafe { sys::_tx_semaphore_create(semaphore, name.as_ptr(), 0) };
    assert_eq!(
        status,
        sys::TX_SUCCESS,
        "antpool-threadx: tx_semaphore_create failed"
    );
}

/// A pool signal on ThreadX: a counting semaphore (`TX_SEMAPHORE`) that
/// belongs to the thread that made the signal, put with a ceiling of 1.
///
/// `notify` is `tx_semaphore_ceiling_put(semaphore, 1)`: it leaves one token,
/// and a second before the wait finds the count at its ceiling and leaves it
/// at one (`TX_CEILING_EXCEEDED`) — the `Signal` rules 1 and 2 exactly. The
/// waits are `tx_semaphore_get`, forever or for
/// [`ticks_at_least`](antpool::port::ticks_at_least) ticks. The kernel's
/// own interrupt lockout orders the notifier's writes before the woken
/// thread's reads (rule 5). The semaphore lives in a `static` (a
/// [`ThreadSlots`](crate::ThreadSlots) slot, or a [`WaitSlots`] entry) and
/// is never deleted, so `notify` touches nothing of the signal after it
/// copied the semaphore's address out (rule 6). `notify` may be called from
/// an interrupt handler: ThreadX allows a semaphore put there.
///
/// Why a semaphore: ThreadX has no per-thread notification (FreeRTOS's task
/// notifications are what its port uses), so a thread needs a kernel object
/// to block on. A counting semaphore is the cheapest one — its get and put
/// touch one count and at most one suspended thread, where an event flags
/// group parses its get options and walks every suspended thread on each
/// set — and the ceiling put makes it binary without a mutex or a flag beside
/// it. The waits every thread has without an object lose a wake-up that comes
/// before the wait: `tx_thread_wait_abort` of a thread not yet in
/// `tx_thread_sleep`, or `tx_thread_resume` of one not yet in
/// `tx_thread_suspend`, does nothing (rule 1).
///
/// Made by [`StaticSpawner`] (through [`Spawner::signal`]) on the thread
/// that waits on it: a slot thread's semaphore is in its slot; any other
/// thread's comes from the spawner's [`WaitSlots`], held while the thread
/// has a signal alive. Every signal a thread makes shares that semaphore,
/// which is sound by what the pool promises every port: no signal is
/// dropped with a token still on its way, and a thread has one signal in
/// play at a time.
///
/// ```no_run
/// use antpool::port::{Signal, Spawner};
/// use antpool_threadx::{StaticSpawner, ThreadSlots, WaitSlots};
/// use core::time::Duration;
///
/// static SLOTS: ThreadSlots<2, 1024> = ThreadSlots::new();
/// static WAITERS: WaitSlots<1> = WaitSlots::new();
///
/// // On a running ThreadX thread:
/// let signal = StaticSpawner::new(&SLOTS).waiters(&WAITERS).signal();
/// // SAFETY: `signal` is alive for the whole call.
/// unsafe { Signal::notify(&signal) }; // an early notify is kept...
/// assert!(signal.wait_timeout(Duration::from_millis(10))); // ...and consumed here
/// assert!(!signal.wait_timeout(Duration::from_millis(10))); // nothing left: 10+ ms pass
/// # use antpool_threadx_sim as _; // links the kernel for this example
/// ```
pub struct SemaphoreSignal {
    /// The thread's `TX_SEMAPHORE`, in a `static`.
    semaphore: *mut c_void,
    /// The wait slot it came from, released on drop (`None` for a slot
    /// thread's own).
    waiter: Option<&'static WaitSlot>,
}

// SAFETY: the pointer names a kernel semaphore in a `static` that is never
// deleted; the kernel's semaphore calls may be made from any thread (and a
// put from an interrupt handler); the fields are never written after
// construction, and the wait slot's count is changed with interrupts masked.
unsafe impl Send for SemaphoreSignal {}
// SAFETY: as above: shared use only reads the fields and calls the kernel.
unsafe impl Sync for SemaphoreSignal {}

impl SemaphoreSignal {
    /// A signal on `semaphore`, releasing `waiter` when dropped.
    ///
    /// # Safety
    ///
    /// `semaphore` is a created `TX_SEMAPHORE` in `'static` memory, never
    /// deleted, that only the calling thread waits on while this signal (and
    /// any other it makes) lives.
    pub(crate) unsafe fn new(semaphore: *mut c_void, waiter: Option<&'static WaitSlot>) -> Self {
        SemaphoreSignal { semaphore, waiter }
    }

    /// One `tx_semaphore_get` of at most `ticks` (`TX_WAIT_FOREVER` for ever).
    fn get(&self, ticks: Ulong) -> sys::Uint {
        // SAFETY: a created semaphore (`new`'s contract), waited on by the
        // thread that made the signal (rule 4).
        unsafe { sys::_tx_semaphore_get(self.semaphore, ticks) }
    }
}

impl Signal for SemaphoreSignal {
    fn wait(&self) {
        loop {
            match self.get(sys::TX_WAIT_FOREVER) {
                sys::TX_SUCCESS => return,
                // `tx_thread_wait_abort` on this thread: not a token.
                sys::TX_WAIT_ABORTED => continue,
                status => panic!("antpool-threadx: tx_semaphore_get returned {status:#x}"),
            }
        }
    }

    fn wait_timeout(&self, timeout: Duration) -> bool {
        let clock = TickClock::new();
        let ticks = ticks_at_least(timeout, clock.hz());
        if ticks == 0 {
            return self.get(sys::TX_NO_WAIT) == sys::TX_SUCCESS;
        }
        let deadline = clock.ticks().saturating_add(ticks);
        let mut left = ticks;
        loop {
            // The longest wait that is not "for ever".
            let chunk = left.min(u64::from(sys::TX_WAIT_FOREVER - 1)) as Ulong;
            match self.get(chunk) {
                sys::TX_SUCCESS => return true,
                sys::TX_NO_INSTANCE | sys::TX_WAIT_ABORTED => {}
                status => panic!("antpool-threadx: tx_semaphore_get returned {status:#x}"),
            }
            // Timed out (or aborted): wait out what is left, if anything.
            left = deadline.saturating_sub(clock.ticks());
            if left == 0 {
                return false;
            }
        }
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: the caller keeps `*this` alive until the token is published;
        // we copy the semaphore's address out first and never touch `*this`
        // again (the semaphore itself is `'static`).
        let semaphore = unsafe { (*this).semaphore };
        // SAFETY: a created, never-deleted semaphore; a put is allowed from
        // threads and interrupt handlers. A count already at the ceiling
        // stays there: two notifies leave one token.
        let status = unsafe { sys::_tx_semaphore_ceiling_put(semaphore, 1) };
        debug_assert!(
            status == sys::TX_SUCCESS || status == sys::TX_CEILING_EXCEEDED,
            "antpool-threadx: tx_semaphore_ceiling_put returned {status:#x}"
        );
    }
}

impl Drop for SemaphoreSignal {
    fn drop(&mut self) {
        if let Some(waiter) = self.waiter {
            waiter.release();
        }
    }
}

impl fmt::Debug for SemaphoreSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemaphoreSignal")
            .field("semaphore", &self.semaphore)
            .field("wait_slot", &self.waiter.is_some())
            .finish()
    }
}
