//! [`WaitSlots`]: semaphores for the threads that use a pool but are not
//! its workers.
//!
//! A pool blocks the thread that submits to it (a full pool, or the moment a
//! new worker starts), releases it, waits for it to go idle: every such
//! thread needs something to block on. ThreadX gives a thread nothing of the
//! kind (FreeRTOS gives every task notification slots), so each needs a
//! semaphore, and a heap-free program reserves them: a slot thread has its
//! own in its slot, and every other thread takes an entry of the spawner's
//! `WaitSlots` the first time it makes a signal, and gives it back when its
//! last signal is dropped. The entry's semaphore is created the first time
//! the entry is used and never deleted, so a later thread reuses it.

use core::ffi::c_void;
use core::fmt;
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::Relaxed};

use crate::layout::{KernelLayout, SEMAPHORE_BYTES};
use crate::signal::{self, Reserve};
use crate::sys;

/// One entry: a semaphore, the thread using it, and how many of that
/// thread's signals are alive.
pub(crate) struct WaitSlot {
    /// The `TX_THREAD` of the thread using it; null when free. Written
    /// with interrupts masked.
    owner: AtomicPtr<c_void>,
    /// That thread's live signals. Written with interrupts masked.
    signals: AtomicUsize,
    /// Whether the semaphore exists (written by the owner only).
    created: AtomicBool,
    semaphore: Reserve<SEMAPHORE_BYTES>,
}

// SAFETY: `owner` and `signals` change only with interrupts masked; the
// semaphore's memory is handed to the kernel once, by the thread that owns the
// entry while `created` is false, and touched by Rust never again.
unsafe impl Sync for WaitSlot {}

impl WaitSlot {
    const fn new() -> Self {
        WaitSlot {
            owner: AtomicPtr::new(ptr::null_mut()),
            signals: AtomicUsize::new(0),
            created: AtomicBool::new(false),
            semaphore: Reserve::new(),
        }
    }

    /// One signal of the owner is gone; the last frees the entry.
    pub(crate) fn release(&self) {
        let posture = sys::disable();
        let left = self.signals.load(Relaxed).saturating_sub(1);
        self.signals.store(left, Relaxed);
        if left == 0 {
            self.owner.store(ptr::null_mut(), Relaxed);
        }
        // SAFETY: from the `disable` above.
        unsafe { sys::restore(posture) };
    }

    /// The entry's semaphore (created by [`claim`]).
    pub(crate) fn semaphore(&self) -> *mut c_void {
        self.semaphore.at(0)
    }
}

/// Takes (or takes again) the entry of `slots` that thread `me` uses, and
/// makes sure its semaphore exists. `None` if every entry is taken by
/// other threads.
///
/// # Panics
///
/// If the kernel's `TX_SEMAPHORE` does not fit [`SEMAPHORE_BYTES`].
pub(crate) fn claim(slots: &'static [WaitSlot], me: *mut c_void) -> Option<&'static WaitSlot> {
    let posture = sys::disable();
    let mine = slots
        .iter()
        .find(|slot| slot.owner.load(Relaxed) == me)
        .or_else(|| {
            let free = slots
                .iter()
                .find(|slot| slot.owner.load(Relaxed).is_null())?;
            free.owner.store(me, Relaxed);
            Some(free)
        });
    if let Some(slot) = mine {
        slot.signals.store(slot.signals.load(Relaxed) + 1, Relaxed);
    }
    // SAFETY: from the `disable` above.
    unsafe { sys::restore(posture) };
    let slot = mine?;
    if !slot.created.load(Relaxed) {
        let layout = KernelLayout::of_kernel();
        assert!(
            layout.semaphore_fits(),
            "antpool-threadx: the kernel's TX_SEMAPHORE ({} bytes, align {}) does not fit a \
             WaitSlots entry's {SEMAPHORE_BYTES}",
            layout.semaphore_size,
            layout.semaphore_align
        );
        // SAFETY: the entry is ours (we own it, and `created` is false, so
        // no thread made its semaphore), its memory is `'static` and holds a
        // TX_SEMAPHORE (checked above); we are a thread (the spawner checks).
        unsafe { signal::create(slot.semaphore(), c"antpool-wait") };
        slot.created.store(true, Relaxed);
    }
    Some(slot)
}

/// `M` semaphores for threads that use a pool but are not slot threads: the
/// program's own threads that submit, release or wait for a pool to go idle.
/// Hand them to the spawner with
/// [`StaticSpawner::waiters`](crate::StaticSpawner::waiters).
///
/// A thread takes an entry the first time the pool makes it a signal, and
/// gives it back when its last signal is dropped: `M` is how many such
/// threads may be inside a pool's call at once. A thread that finds every
/// entry taken panics (and says so). Each entry reserves
/// [`SEMAPHORE_BYTES`] for its `TX_SEMAPHORE`, which is created the first
/// time the entry is used and never deleted. Put them in a `static`.
///
/// ```
/// use antpool_threadx::WaitSlots;
///
/// // Two threads of the program may submit to the pools at the same time.
/// static WAITERS: WaitSlots<2> = WaitSlots::new();
/// assert_eq!(WAITERS.len(), 2);
/// assert_eq!(WAITERS.in_use(), 0);
/// ```
pub struct WaitSlots<const M: usize> {
    pub(crate) slots: [WaitSlot; M],
}

impl<const M: usize> WaitSlots<M> {
    /// `M` free entries, no semaphore made yet. `const`: for a `static`
    /// (its memory is zeros, so it lands in `.bss`).
    ///
    /// ```
    /// static WAITERS: antpool_threadx::WaitSlots<1> = antpool_threadx::WaitSlots::new();
    /// # let _ = &WAITERS;
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        WaitSlots {
            slots: [const { WaitSlot::new() }; M],
        }
    }

    /// How many entries: `M`.
    ///
    /// ```
    /// static WAITERS: antpool_threadx::WaitSlots<3> = antpool_threadx::WaitSlots::new();
    /// assert_eq!(WAITERS.len(), 3);
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        M
    }

    /// Whether there are no entries (`M == 0`).
    ///
    /// ```
    /// static NONE: antpool_threadx::WaitSlots<0> = antpool_threadx::WaitSlots::new();
    /// assert!(NONE.is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        M == 0
    }

    /// Entries a thread holds right now.
    ///
    /// ```
    /// static WAITERS: antpool_threadx::WaitSlots<2> = antpool_threadx::WaitSlots::new();
    /// assert_eq!(WAITERS.in_use(), 0);
    /// ```
    #[must_use]
    pub fn in_use(&self) -> usize {
        self.slots
            .iter()
            .filter(|slot| !slot.owner.load(Relaxed).is_null())
            .count()
    }

    /// The static memory one entry takes, in bytes.
    ///
    /// ```
    /// use antpool_threadx::{SEMAPHORE_BYTES, WaitSlots};
    /// assert!(WaitSlots::<1>::ENTRY_BYTES >= SEMAPHORE_BYTES);
    /// ```
    pub const ENTRY_BYTES: usize = core::mem::size_of::<WaitSlot>();
}

impl<const M: usize> Default for WaitSlots<M> {
    /// [`WaitSlots::new`].
    ///
    /// ```
    /// let waiters = antpool_threadx::WaitSlots::<2>::default();
    /// assert_eq!(waiters.len(), 2);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<const M: usize> fmt::Debug for WaitSlots<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitSlots")
            .field("len", &M)
            .field("in_use", &self.in_use())
            .finish()
    }
}
