//! [`ThreadSlots`]: `N` ThreadX threads in static memory that never exit.
//!
//! Each slot is a reserve for the kernel's control blocks (a `TX_THREAD`,
//! then the thread's `TX_SEMAPHORE`), a stack, and two atomics. A slot is
//! `EMPTY` until its first job, when its semaphore is created and
//! `tx_thread_create` starts its thread in the slot's own memory; the thread
//! runs the job (a pool worker's whole life), marks the slot `IDLE` and
//! blocks on its semaphore until the next job is handed to it. Slot threads
//! are never terminated or deleted: ThreadX cannot delete the calling
//! thread, so a worker that ended its thread would leave a `TX_COMPLETED`
//! thread for someone else to delete before its memory could be used again.
//!
//! ```text
//!            claim (CAS)         thread created          job returns
//!   EMPTY ──────────────▶ BUSY ─────────────────▶ runs ──────────────▶ IDLE
//!                          ▲                                              │
//!                          └──── claim (CAS), put the thread's semaphore ─┘
//! ```
//!
//! A thread finds its slot from `tx_thread_identify()`: its `TX_THREAD` is
//! the first thing in the slot. The claim (a compare-and-swap of the state)
//! and the thread's taking of its job (a swap) run under `TX_DISABLE`, so
//! the port needs no compare-and-swap instruction. Orderings: the claimer
//! writes the job (`Release`), then starts or wakes the thread (the
//! kernel's lockout orders the two besides), and the thread takes the job
//! with an `Acquire` load; the thread's `Release` store of `IDLE` (after its
//! job returned) pairs with the next claimer's `Acquire` load.

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_void};
use core::fmt;
use core::ptr;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};

use antpool::port::Job;

use crate::layout::{DEFAULT_KERNEL_BYTES, KernelLayout, ReserveError};
use crate::signal::{self, Reserve};
use crate::sys::{self, Ulong};

/// No thread yet: the first job creates it.
const EMPTY: u8 = 0;
/// The thread is parked (or about to park) on its semaphore, with no job.
const IDLE: u8 = 1;
/// Claimed by a spawner; the thread runs (or is about to run) a job.
const BUSY: u8 = 2;

/// The result of the reserve check, kept after the first time.
const UNCHECKED: u8 = 0;
const FITS: u8 = 1;
const TOO_SMALL: u8 = 2;

/// What ThreadX fills a new thread's stack with (`TX_STACK_FILL`), unless
/// the kernel is built with `TX_DISABLE_STACK_FILLING`.
const STACK_FILL: u32 = 0xEFEF_EFEF;

/// A stack: zeros until the kernel fills it, 8-byte aligned (Cortex-M's
/// exception frames need it).
#[repr(C, align(8))]
struct Stack<const BYTES: usize>(UnsafeCell<[u8; BYTES]>);

/// One thread's memory. `kernel` comes first, so the thread's `TX_THREAD`
/// — what `tx_thread_identify()` returns — is the slot's address.
#[repr(C)]
struct Slot<const STACK: usize, const KERNEL: usize> {
    kernel: Reserve<KERNEL>,
    state: AtomicU8,
    /// The semaphore exists (the thread may not, if its creation failed).
    semaphore_made: AtomicBool,
    job: AtomicPtr<c_void>,
    stack: Stack<STACK>,
}

/// `N` ThreadX threads with `STACK`-byte stacks, their control blocks and
/// their semaphores, all in static memory, for
/// [`StaticSpawner`](crate::StaticSpawner): the storage of a heap-free pool.
///
/// Each slot reserves `KERNEL` bytes (default [`DEFAULT_KERNEL_BYTES`]) for
/// the kernel's `TX_THREAD` and `TX_SEMAPHORE`, a stack of `STACK` bytes (as
/// ThreadX counts, not words), and a few words of state. A slot's thread is
/// created with `tx_thread_create` the first time a pool needs a worker
/// there, and never ends: between jobs it waits on its semaphore. So the
/// slots must live for the whole program: put them in a `static` (the
/// spawner holds a `&'static`).
///
/// Before the first thread is made, the reserve is checked against the
/// kernel's sizes (`csrc/antpool_threadx.c`, compiled with the kernel); a
/// reserve that is too small, or a stack below `TX_MINIMUM_STACK`, makes no
/// thread at all — every spawn is refused — and [`check`](Self::check) says
/// why.
///
/// ```
/// use antpool_threadx::ThreadSlots;
///
/// // Four threads with 1 KiB stacks and 212 bytes of control blocks each
/// // (a TX_THREAD and a TX_SEMAPHORE on the Cortex-M3 port).
/// static SLOTS: ThreadSlots<4, 1024, 212> = ThreadSlots::new();
/// assert_eq!(SLOTS.len(), 4);
/// assert_eq!(SLOTS.busy() + SLOTS.idle(), 0); // no thread until the first job
/// ```
pub struct ThreadSlots<
    const N: usize,
    const STACK: usize,
    const KERNEL: usize = DEFAULT_KERNEL_BYTES,
> {
    slots: [Slot<STACK, KERNEL>; N],
    /// `UNCHECKED`, `FITS` or `TOO_SMALL`.
    fit: AtomicU8,
}

// SAFETY: the atomics are shared freely. The kernel reserves and the stacks are
// handed to the kernel once, by the one spawner whose CAS took the slot from
// EMPTY, and not written by Rust afterwards (the stacks are only read, with
// volatile loads, to measure them); the kernel serialises its own use.
unsafe impl<const N: usize, const STACK: usize, const KERNEL: usize> Sync
    for ThreadSlots<N, STACK, KERNEL>
{
}

impl<const N: usize, const STACK: usize, const KERNEL: usize> ThreadSlots<N, STACK, KERNEL> {
    /// Empty slots: no thread exists until a pool needs a worker. `const`, so
    /// the slots can be (and must be, to be used) a `static`; the memory is
    /// zeros, so it lands in `.bss`.
    ///
    /// ```
    /// static SLOTS: antpool_threadx::ThreadSlots<2, 2048> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(SLOTS.stack_bytes(), 2048);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        const {
            assert!(
                STACK as u64 <= Ulong::MAX as u64,
                "a ThreadX stack size is a 32-bit ULONG"
            );
        }
        ThreadSlots {
            slots: [const {
                Slot {
                    kernel: Reserve::new(),
                    state: AtomicU8::new(EMPTY),
                    semaphore_made: AtomicBool::new(false),
                    job: AtomicPtr::new(ptr::null_mut()),
                    stack: Stack(UnsafeCell::new([0; STACK])),
                }
            }; N],
            fit: AtomicU8::new(UNCHECKED),
        }
    }

    /// How many slots (threads at most): `N`.
    ///
    /// ```
    /// static SLOTS: antpool_threadx::ThreadSlots<3, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(SLOTS.len(), 3);
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether there are no slots at all (`N == 0`: every spawn is refused).
    ///
    /// ```
    /// static NONE: antpool_threadx::ThreadSlots<0, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert!(NONE.is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// Each thread's stack, in bytes: `STACK`.
    ///
    /// ```
    /// static SLOTS: antpool_threadx::ThreadSlots<1, 1536> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(SLOTS.stack_bytes(), 1536);
    /// ```
    #[must_use]
    pub const fn stack_bytes(&self) -> usize {
        STACK
    }

    /// The bytes each slot reserves for the kernel's control blocks: `KERNEL`.
    ///
    /// ```
    /// static SLOTS: antpool_threadx::ThreadSlots<1, 1024, 212> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(SLOTS.kernel_bytes(), 212);
    /// ```
    #[must_use]
    pub const fn kernel_bytes(&self) -> usize {
        KERNEL
    }

    /// The static memory one slot takes, in bytes: its control-block reserve,
    /// its stack and its state (with padding).
    ///
    /// ```
    /// use antpool_threadx::ThreadSlots;
    /// let per_slot = ThreadSlots::<4, 1024, 212>::SLOT_BYTES;
    /// assert!(per_slot >= 212 + 1024);
    /// assert!(size_of::<ThreadSlots<4, 1024, 212>>() >= 4 * per_slot);
    /// ```
    pub const SLOT_BYTES: usize = core::mem::size_of::<Slot<STACK, KERNEL>>();

    /// Slots whose thread holds a job right now (a pool worker's whole life).
    ///
    /// ```
    /// static SLOTS: antpool_threadx::ThreadSlots<2, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(SLOTS.busy(), 0);
    /// ```
    #[must_use]
    pub fn busy(&self) -> usize {
        self.count(BUSY)
    }

    /// Slots whose thread exists and waits for its next job.
    ///
    /// ```
    /// static SLOTS: antpool_threadx::ThreadSlots<2, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(SLOTS.idle(), 0);
    /// ```
    #[must_use]
    pub fn idle(&self) -> usize {
        self.count(IDLE)
    }

    fn count(&self, state: u8) -> usize {
        self.slots
            .iter()
            .filter(|s| s.state.load(Ordering::Relaxed) == state)
            .count()
    }

    /// Checks the control-block reserve and the stack size against the
    /// kernel's (as `csrc/antpool_threadx.c` reports them), and remembers the
    /// answer: the slots make a thread only if they fit. The first spawn that
    /// needs a new thread checks too; call this at start-up to learn why
    /// spawns would fail.
    ///
    /// # Errors
    ///
    /// [`ReserveError`] if `KERNEL` bytes cannot hold a `TX_THREAD` and a
    /// `TX_SEMAPHORE`, or `STACK` is below `TX_MINIMUM_STACK`.
    ///
    /// ```no_run
    /// static SLOTS: antpool_threadx::ThreadSlots<4, 1024> = antpool_threadx::ThreadSlots::new();
    ///
    /// // The program links csrc/antpool_threadx.c, compiled with its kernel.
    /// match SLOTS.check() {
    ///     Ok(layout) => assert!(layout.slot_bytes() <= SLOTS.kernel_bytes()),
    ///     Err(too_small) => panic!("{too_small}"),
    /// }
    /// # use antpool_threadx_sim as _; // links the kernel for this example
    /// ```
    pub fn check(&self) -> Result<KernelLayout, ReserveError> {
        let layout = KernelLayout::of_kernel();
        let fits = layout.check(KERNEL, STACK);
        let verdict = if fits.is_ok() { FITS } else { TOO_SMALL };
        self.fit.store(verdict, Ordering::Relaxed);
        fits.map(|()| layout)
    }

    /// Whether threads may be made here (checking once).
    fn reserve_fits(&self) -> bool {
        match self.fit.load(Ordering::Relaxed) {
            FITS => true,
            TOO_SMALL => false,
            _ => self.check().is_ok(),
        }
    }

    /// The slot whose thread is `thread` (a `TX_THREAD *`), if any.
    pub(crate) fn slot_of(&self, thread: *mut c_void) -> Option<usize> {
        self.slots
            .iter()
            .position(|slot| ptr::eq(slot.kernel.at(0), thread))
    }

    /// The semaphore of slot `index`.
    pub(crate) fn semaphore(&self, index: usize) -> *mut c_void {
        self.slots[index].semaphore()
    }

    /// The slot whose thread is the caller, if it is a slot thread of these
    /// slots.
    ///
    /// ```no_run
    /// static SLOTS: antpool_threadx::ThreadSlots<2, 1024> = antpool_threadx::ThreadSlots::new();
    /// // On a thread the program made itself:
    /// assert_eq!(SLOTS.current(), None);
    /// # use antpool_threadx_sim as _; // links the kernel for this example
    /// ```
    #[must_use]
    pub fn current(&self) -> Option<usize> {
        // SAFETY: returns the running thread (or NULL); callable anywhere.
        let me = unsafe { sys::_tx_thread_identify() };
        if me.is_null() {
            return None;
        }
        self.slot_of(me)
    }

    /// How many bytes of slot `index`'s stack were never used: the bytes
    /// from its bottom that still hold the kernel's fill pattern (`0xEF`), in
    /// whole words. `None` if the slot has no thread. Read with volatile
    /// loads: for a thread that runs meanwhile, a reading that may be a
    /// little stale. (With `TX_DISABLE_STACK_FILLING` nothing is filled, so
    /// it reads 0. On the Linux port a thread runs on its pthread's stack,
    /// so this stack stays filled.)
    ///
    /// ```no_run
    /// static SLOTS: antpool_threadx::ThreadSlots<2, 1024> = antpool_threadx::ThreadSlots::new();
    /// // Once a pool ran jobs on the slots:
    /// if let Some(unused) = SLOTS.stack_unused(0) {
    ///     println!("slot 0 used at most {} of 1024 bytes", 1024 - unused);
    /// }
    /// # use antpool_threadx_sim as _; // links the kernel for this example
    /// ```
    ///
    /// # Panics
    ///
    /// If `index` is not below `N`.
    #[must_use]
    pub fn stack_unused(&self, index: usize) -> Option<usize> {
        let slot = &self.slots[index];
        if slot.state.load(Ordering::Acquire) == EMPTY {
            return None;
        }
        let words = STACK / 4;
        let bottom = slot.stack.0.get().cast::<u32>();
        let unused = (0..words)
            // SAFETY: word `i` of the slot's stack, initialised (zeros, then
            // the kernel's fill); 8-byte aligned, so every word is aligned.
            .take_while(|&i| unsafe { bottom.add(i).read_volatile() } == STACK_FILL)
            .count();
        Some(4 * unused)
    }

    /// Hands `job` to a slot that is not busy: wakes an idle slot's thread
    /// (any idle slot before an empty one), or makes the thread of an empty
    /// one. Hands the job back if every slot is busy (or the reserve does not
    /// fit the kernel's control blocks).
    pub(crate) fn start(&'static self, job: Job, thread: &ThreadParams) -> Result<(), Job> {
        // Idle slots first: a thread that exists costs nothing to reuse.
        let idle = self.slots.iter().map(|slot| (slot, IDLE));
        let empty = self.slots.iter().map(|slot| (slot, EMPTY));
        let mut can_create = None;
        for (slot, was) in idle.chain(empty) {
            if slot.state.load(Ordering::Relaxed) != was {
                continue;
            }
            if was == EMPTY && !*can_create.get_or_insert_with(|| self.reserve_fits()) {
                break;
            }
            if !slot.claim(was) {
                continue;
            }
            // The slot is ours until its thread stores IDLE again.
            slot.job.store(job.into_raw(), Ordering::Release);
            if was == IDLE {
                // SAFETY: the slot's semaphore exists (its thread does, and
                // was made after it), is `'static` and never deleted; a put is
                // allowed from any thread. Its count is 0 (the thread took
                // the last claim's token before it ran that job), so this
                // leaves the one token this claim owes.
                unsafe { sys::_tx_semaphore_ceiling_put(slot.semaphore(), 1) };
                return Ok(());
            }
            return slot.create(thread).map_err(|()| {
                // SAFETY: no thread was made, so the job we stored is still
                // ours alone; swap it out and free the slot again.
                let job = unsafe { Job::from_raw(slot.take_job()) };
                slot.state.store(EMPTY, Ordering::Release);
                job
            });
        }
        Err(job)
    }
}

impl<const N: usize, const STACK: usize, const KERNEL: usize> Default
    for ThreadSlots<N, STACK, KERNEL>
{
    /// [`ThreadSlots::new`].
    ///
    /// ```
    /// let slots = antpool_threadx::ThreadSlots::<2, 1024>::default();
    /// assert_eq!(slots.len(), 2);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const STACK: usize, const KERNEL: usize> fmt::Debug
    for ThreadSlots<N, STACK, KERNEL>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadSlots")
            .field("slots", &N)
            .field("stack_bytes", &STACK)
            .field("kernel_bytes", &KERNEL)
            .field("busy", &self.busy())
            .field("idle", &self.idle())
            .finish()
    }
}

/// What a new slot thread is made with (from the spawner).
pub(crate) struct ThreadParams {
    pub(crate) name: &'static CStr,
    pub(crate) priority: u32,
    pub(crate) preemption_threshold: u32,
    pub(crate) time_slice: u32,
}

impl<const STACK: usize, const KERNEL: usize> Slot<STACK, KERNEL> {
    /// Takes the slot from `was` to `BUSY` if it is still `was`: a
    /// compare-and-swap under `TX_DISABLE`, so it needs no compare-and-swap
    /// instruction (the Cortex-M0 has none). Acquire: pairs with the
    /// thread's Release store of `IDLE`.
    fn claim(&self, was: u8) -> bool {
        let posture = sys::disable();
        let ours = self.state.load(Ordering::Acquire) == was;
        if ours {
            self.state.store(BUSY, Ordering::Relaxed);
        }
        // SAFETY: from the `disable` above.
        unsafe { sys::restore(posture) };
        ours
    }

    /// Takes the job out (null if there is none): a swap under `TX_DISABLE`.
    /// It must be one step: as a load and a store, a thread woken by a
    /// stray token could load "no job", and its store then erase a job a
    /// claimer stored in between (whose token would find nothing). Acquire:
    /// pairs with the claimer's Release store of the job.
    fn take_job(&self) -> *mut c_void {
        let posture = sys::disable();
        let job = self.job.load(Ordering::Acquire);
        self.job.store(ptr::null_mut(), Ordering::Relaxed);
        // SAFETY: from the `disable` above.
        unsafe { sys::restore(posture) };
        job
    }

    /// This slot's `TX_SEMAPHORE`, after its `TX_THREAD` in the reserve.
    fn semaphore(&self) -> *mut c_void {
        self.kernel.at(KernelLayout::of_kernel().semaphore_offset())
    }

    /// Makes this slot's semaphore (the first time) and thread, which runs
    /// the job already stored. `Err` if the kernel made no thread.
    ///
    /// Only the spawner whose CAS took the slot from `EMPTY` calls this, on a
    /// slot in a `static`, after the reserve check passed.
    fn create(&'static self, thread: &ThreadParams) -> Result<(), ()> {
        if !self.semaphore_made.load(Ordering::Relaxed) {
            // SAFETY: the reserve holds a TX_THREAD and then a TX_SEMAPHORE
            // (checked), is `'static`, and no semaphore was made in it; the
            // spawner runs on a thread.
            unsafe { signal::create(self.semaphore(), c"antpool-slot") };
            self.semaphore_made.store(true, Ordering::Relaxed);
        }
        // SAFETY:
        // * `slot_entry::<STACK, KERNEL>` is a thread entry that finds this
        //   slot from its own TX_THREAD, which is at the slot's address;
        // * the TX_THREAD reserve and the stack belong to this slot, are
        //   `'static`, 8-byte aligned, and no thread was ever made in them (we
        //   took the slot from EMPTY, and a failed create leaves nothing), so
        //   the kernel may own them from now on;
        // * the reserve holds a TX_THREAD and the stack is at least
        //   TX_MINIMUM_STACK (the reserve check passed); the stack size fits a
        //   ULONG (`ThreadSlots::new` asserts it at compile time);
        // * the priority is below TX_MAX_PRIORITIES and the threshold at most
        //   the priority (the spawner checked);
        // * the name is `'static` (the kernel keeps the pointer).
        let status = unsafe {
            sys::_tx_thread_create(
                self.kernel.at(0),
                thread.name.as_ptr(),
                slot_entry::<STACK, KERNEL>,
                0,
                self.stack.0.get().cast(),
                STACK as Ulong,
                thread.priority,
                thread.preemption_threshold,
                thread.time_slice,
                sys::TX_AUTO_START,
            )
        };
        if status == sys::TX_SUCCESS {
            Ok(())
        } else {
            Err(())
        }
    }
}

/// The entry of every slot thread: its life is [`slot_main`].
extern "C" fn slot_entry<const STACK: usize, const KERNEL: usize>(_input: Ulong) {
    slot_main::<STACK, KERNEL>()
}

/// A slot thread's life: run the job it was made for, go IDLE, wait for the
/// next, forever.
fn slot_main<const STACK: usize, const KERNEL: usize>() -> ! {
    // SAFETY: this thread was created by `Slot::create` with
    // `slot_entry::<STACK, KERNEL>`, in the TX_THREAD at the start of a
    // `'static Slot<STACK, KERNEL>`: its own TX_THREAD is that slot's address.
    // The slot is shared through atomics only (and the kernel's own memory).
    let slot = unsafe { &*sys::_tx_thread_identify().cast::<Slot<STACK, KERNEL>>() };
    let semaphore = slot.semaphore();
    loop {
        let raw = slot.take_job();
        // No job: a token that was not a claim's (the pool promises none), or
        // the claim's own token after its job was already taken: wait again.
        if !raw.is_null() {
            // SAFETY: the claimer stored a job from `into_raw` before it
            // created or woke this thread, and only this thread takes it out.
            let job = unsafe { Job::from_raw(raw) };
            job.run();
            // Release: everything the job did happens before a claimer's
            // Acquire CAS from IDLE.
            slot.state.store(IDLE, Ordering::Release);
        }
        // A claimer may already have taken the slot and put the semaphore:
        // the kernel keeps that token, so this returns at once. One claim,
        // one token.
        // SAFETY: this slot's semaphore, created before this thread; only
        // this thread waits on it.
        while unsafe { sys::_tx_semaphore_get(semaphore, sys::TX_WAIT_FOREVER) } != sys::TX_SUCCESS
        {
        }
    }
}
