//! [`TaskSlots`]: `N` statically allocated FreeRTOS tasks that never exit.
//!
//! Each slot is a control block reserve, a stack and three atomics. A slot is
//! `EMPTY` until its first job, when `xTaskCreateStatic` makes its task in the
//! slot's own memory; the task runs the job (a pool worker's whole life),
//! marks the slot `IDLE` and blocks on a task notification until the next job
//! is handed to it. Slot tasks are never deleted: a task that deletes itself
//! stays on the kernel's termination list until the idle task gets round to it,
//! and nothing reports when that is, so its memory could not safely be reused.
//!
//! ```text
//!            claim (CAS)            task made           job returns
//!   EMPTY ──────────────▶ BUSY ──────────────▶ runs ──────────────▶ IDLE
//!                          ▲                                          │
//!                          └──────── claim (CAS), notify the task ────┘
//! ```
//!
//! Orderings: the claimer writes the job, then publishes it by creating or
//! notifying the task (the kernel's critical sections order the two; the job
//! store is `Release` and the task's swap `Acquire` besides). The task records
//! its own handle before it first goes `IDLE` (`Release`), and a claimer reads
//! the handle only after its `Acquire` CAS from `IDLE`, so it never sees a
//! handle that is not there yet — even if the task that created the slot was
//! preempted before it could store the handle `xTaskCreateStatic` returned.

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_void};
use core::fmt;
use core::ptr;
// portable-atomic's, not core's: Cortex-M0 has no compare-and-swap, and there
// (with the crate's `critical-section` feature) the CAS and the swaps below run
// in a critical section; elsewhere they are core's own instructions. The
// task's swap must stay one step: as a load and a store, a task woken by a
// stray notification could load "no job", and then its store erase the job a
// claimer stored in between (whose notification then finds nothing).
use portable_atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};

use antpool::port::Job;

use crate::static_task::{DEFAULT_TCB_BYTES, StaticTaskLayout, TcbReserve, TcbReserveError};
use crate::sys;
use crate::{StackType, StackWords, UBaseType};

/// No task yet: the first job creates it.
const EMPTY: u8 = 0;
/// The task is parked (or about to park) on its notification, with no job.
const IDLE: u8 = 1;
/// Claimed by a spawner; the task runs (or is about to run) a job.
const BUSY: u8 = 2;

/// The result of the `StaticTask_t` check, kept after the first time.
const UNCHECKED: u8 = 0;
const FITS: u8 = 1;
const TOO_SMALL: u8 = 2;

/// What a slot's task reads: its state, its next job, its handle and the
/// notification index it parks on. The task gets a pointer to this.
struct SlotControl {
    state: AtomicU8,
    job: AtomicPtr<c_void>,
    task: AtomicPtr<c_void>,
    /// The index the task waits on between jobs, fixed when it is created.
    wait_index: AtomicUsize,
}

/// One task's memory: its control and its kernel buffers.
struct Slot<const W: usize, const TCB: usize> {
    control: SlotControl,
    tcb: TcbReserve<TCB>,
    stack: UnsafeCell<[StackType; W]>,
}

/// `N` FreeRTOS tasks with `W`-word stacks, all in static memory, for
/// [`StaticSpawner`](crate::StaticSpawner): the storage of a heap-free pool.
///
/// Each slot reserves `TCB` bytes (default [`DEFAULT_TCB_BYTES`]) for the
/// kernel's `StaticTask_t`, a stack of `W` words of [`StackType`], and a few
/// words of state. A slot's task is created with `xTaskCreateStatic` the first
/// time a pool needs a worker there, and is never deleted: between jobs it
/// waits on a task notification. So the slots must live for the whole program:
/// put them in a `static` (the spawner holds a `&'static`).
///
/// Before the first task is made, the reserve is checked against the kernel's
/// `sizeof(StaticTask_t)`, which the program reports by compiling
/// `csrc/antpool_static_task.c` with its kernel; a reserve too small (or too little
/// aligned) makes no task at all — every spawn is refused — and
/// [`check`](Self::check) says why.
///
/// ```
/// use antpool_freertos::TaskSlots;
///
/// // Four tasks of 256 words (1 KiB on a 32-bit core) each, 88 bytes for each TCB.
/// static SLOTS: TaskSlots<4, 256, 88> = TaskSlots::new();
/// assert_eq!(SLOTS.len(), 4);
/// assert_eq!(SLOTS.busy() + SLOTS.idle(), 0); // no task until the first job
/// ```
pub struct TaskSlots<const N: usize, const W: usize, const TCB: usize = DEFAULT_TCB_BYTES> {
    slots: [Slot<W, TCB>; N],
    /// `UNCHECKED`, `FITS` or `TOO_SMALL`.
    fit: AtomicU8,
}

// SAFETY: the atomics are shared freely. The kernel buffers (`tcb`, `stack`) are
// handed to the kernel once, by the one spawner whose CAS took the slot from
// EMPTY, and not touched by Rust afterwards; the kernel serialises its own use.
unsafe impl<const N: usize, const W: usize, const TCB: usize> Sync for TaskSlots<N, W, TCB> {}

impl<const N: usize, const W: usize, const TCB: usize> TaskSlots<N, W, TCB> {
    /// Empty slots: no task exists until a pool needs a worker. `const`, so the
    /// slots can be (and must be, to be used) a `static`; the memory is zeros,
    /// so it lands in `.bss`.
    ///
    /// ```
    /// static SLOTS: antpool_freertos::TaskSlots<2, 512> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(SLOTS.stack_words(), 512);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        TaskSlots {
            slots: [const {
                Slot {
                    control: SlotControl {
                        state: AtomicU8::new(EMPTY),
                        job: AtomicPtr::new(ptr::null_mut()),
                        task: AtomicPtr::new(ptr::null_mut()),
                        wait_index: AtomicUsize::new(0),
                    },
                    tcb: TcbReserve::new(),
                    stack: UnsafeCell::new([0; W]),
                }
            }; N],
            fit: AtomicU8::new(UNCHECKED),
        }
    }

    /// How many slots (tasks at most): `N`.
    ///
    /// ```
    /// static SLOTS: antpool_freertos::TaskSlots<3, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(SLOTS.len(), 3);
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether there are no slots at all (`N == 0`: every spawn is refused).
    ///
    /// ```
    /// static NONE: antpool_freertos::TaskSlots<0, 256> = antpool_freertos::TaskSlots::new();
    /// assert!(NONE.is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// Each task's stack, in words of [`StackType`]: `W`.
    ///
    /// ```
    /// static SLOTS: antpool_freertos::TaskSlots<1, 384> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(SLOTS.stack_words(), 384);
    /// ```
    #[must_use]
    pub const fn stack_words(&self) -> usize {
        W
    }

    /// The bytes each slot reserves for `StaticTask_t`: `TCB`.
    ///
    /// ```
    /// static SLOTS: antpool_freertos::TaskSlots<1, 256, 96> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(SLOTS.tcb_bytes(), 96);
    /// ```
    #[must_use]
    pub const fn tcb_bytes(&self) -> usize {
        TCB
    }

    /// The static memory one slot takes, in bytes: its `StaticTask_t` reserve,
    /// its stack and its state (with padding).
    ///
    /// ```
    /// use antpool_freertos::{StackType, TaskSlots};
    /// let per_slot = TaskSlots::<4, 256, 88>::SLOT_BYTES;
    /// assert!(per_slot >= 88 + 256 * size_of::<StackType>());
    /// assert_eq!(size_of::<TaskSlots<4, 256, 88>>() >= 4 * per_slot, true);
    /// ```
    pub const SLOT_BYTES: usize = core::mem::size_of::<Slot<W, TCB>>();

    /// Slots whose task holds a job right now (a pool worker's whole life).
    ///
    /// ```
    /// static SLOTS: antpool_freertos::TaskSlots<2, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(SLOTS.busy(), 0);
    /// ```
    #[must_use]
    pub fn busy(&self) -> usize {
        self.count(BUSY)
    }

    /// Slots whose task exists and waits for its next job.
    ///
    /// ```
    /// static SLOTS: antpool_freertos::TaskSlots<2, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(SLOTS.idle(), 0);
    /// ```
    #[must_use]
    pub fn idle(&self) -> usize {
        self.count(IDLE)
    }

    fn count(&self, state: u8) -> usize {
        self.slots
            .iter()
            .filter(|s| s.control.state.load(Ordering::Relaxed) == state)
            .count()
    }

    /// Checks the `StaticTask_t` reserve against the kernel's (as
    /// `csrc/antpool_static_task.c` reports it), and remembers the answer: the
    /// slots make a task only if it fits. The first spawn that needs a new task
    /// checks too; call this at start-up to learn why spawns would fail.
    ///
    /// # Errors
    ///
    /// [`TcbReserveError`] if the reserve (`TCB` bytes, aligned to
    /// [`TCB_ALIGN`](crate::TCB_ALIGN)) cannot hold the kernel's `StaticTask_t`.
    ///
    /// ```no_run
    /// static SLOTS: antpool_freertos::TaskSlots<4, 256> = antpool_freertos::TaskSlots::new();
    ///
    /// // The program links csrc/antpool_static_task.c, compiled with its kernel.
    /// match SLOTS.check() {
    ///     Ok(layout) => assert!(layout.size <= SLOTS.tcb_bytes()),
    ///     Err(too_small) => panic!("{too_small}"),
    /// }
    /// # use antpool_freertos_sim as _; // links the kernel for this example
    /// ```
    pub fn check(&self) -> Result<StaticTaskLayout, TcbReserveError> {
        let layout = StaticTaskLayout::of_kernel();
        let fits = layout.fits(TCB);
        let verdict = if fits.is_ok() { FITS } else { TOO_SMALL };
        self.fit.store(verdict, Ordering::Relaxed);
        fits.map(|()| layout)
    }

    /// Whether tasks may be made here (checking once).
    fn reserve_fits(&self) -> bool {
        match self.fit.load(Ordering::Relaxed) {
            FITS => true,
            TOO_SMALL => false,
            _ => self.check().is_ok(),
        }
    }

    /// Hands `job` to a slot that is not busy: wakes an idle slot's task, or
    /// makes the task of an empty one. Hands the job back if every slot is busy
    /// (or the reserve does not fit the kernel's `StaticTask_t`).
    pub(crate) fn start(&'static self, job: Job, task: &TaskParams) -> Result<(), Job> {
        let mut can_create = None;
        for slot in &self.slots {
            let control = &slot.control;
            let was = control.state.load(Ordering::Relaxed);
            if was == BUSY {
                continue;
            }
            if was == EMPTY && !*can_create.get_or_insert_with(|| self.reserve_fits()) {
                continue;
            }
            // Acquire: pairs with the task's Release store of IDLE, so its
            // handle (stored before) is visible here.
            if control
                .state
                .compare_exchange(was, BUSY, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                continue;
            }
            // The slot is ours until its task stores IDLE again.
            control.job.store(job.into_raw(), Ordering::Release);
            if was == IDLE {
                let handle = control.task.load(Ordering::Relaxed);
                let index = control.wait_index.load(Ordering::Relaxed) as UBaseType;
                // SAFETY: `handle` is the slot's task, which is never deleted;
                // `index` is the one it was created to wait on, in bounds by the
                // `notify_index` contract of the spawner that created it;
                // eIncrement with a NULL previous value is xTaskNotifyGiveIndexed.
                unsafe {
                    sys::xTaskGenericNotify(handle, index, 0, sys::E_INCREMENT, ptr::null_mut());
                }
                return Ok(());
            }
            return slot.create(task).map_err(|()| {
                // SAFETY: no task was made, so the job we stored is still ours
                // alone; swap it out and free the slot again.
                let job =
                    unsafe { Job::from_raw(control.job.swap(ptr::null_mut(), Ordering::Relaxed)) };
                control.state.store(EMPTY, Ordering::Release);
                job
            });
        }
        Err(job)
    }
}

impl<const N: usize, const W: usize, const TCB: usize> Default for TaskSlots<N, W, TCB> {
    /// [`TaskSlots::new`].
    ///
    /// ```
    /// let slots = antpool_freertos::TaskSlots::<2, 128>::default();
    /// assert_eq!(slots.len(), 2);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const W: usize, const TCB: usize> fmt::Debug for TaskSlots<N, W, TCB> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskSlots")
            .field("slots", &N)
            .field("stack_words", &W)
            .field("tcb_bytes", &TCB)
            .field("busy", &self.busy())
            .field("idle", &self.idle())
            .finish()
    }
}

/// What a new slot task is made with (from the spawner).
pub(crate) struct TaskParams {
    pub(crate) name: &'static CStr,
    pub(crate) priority: UBaseType,
    pub(crate) wait_index: UBaseType,
}

impl<const W: usize, const TCB: usize> Slot<W, TCB> {
    /// Makes this slot's task, which runs the job already stored. `Err` if the
    /// kernel made none.
    ///
    /// Only the spawner whose CAS took the slot from `EMPTY` calls this, once,
    /// on a slot in a `static`, after the reserve check passed.
    fn create(&'static self, task: &TaskParams) -> Result<(), ()> {
        self.control
            .wait_index
            .store(task.wait_index as usize, Ordering::Relaxed);
        let control: *const SlotControl = &self.control;
        // SAFETY:
        // * `slot_entry` matches `TaskFunction_t` and gets a pointer to this
        //   slot's control, which is `'static` and only read through atomics;
        // * the stack and the TCB reserve belong to this slot, are `'static`, and
        //   no other task was ever made in them (we took the slot from EMPTY),
        //   so the kernel may own them from now on;
        // * the reserve holds a `StaticTask_t` (`reserve_fits` passed) and is
        //   aligned to TCB_ALIGN, at least the kernel's alignment;
        // * the name is NUL-terminated and copied by the kernel.
        let handle = unsafe {
            sys::xTaskCreateStatic(
                slot_entry,
                task.name.as_ptr(),
                W as StackWords,
                control.cast_mut().cast(),
                task.priority,
                self.stack.get().cast(),
                self.tcb.as_ptr(),
            )
        };
        if handle.is_null() {
            return Err(());
        }
        // The task stores the same handle itself before it first goes IDLE;
        // storing it here as well makes it visible to `Debug` at once.
        self.control.task.store(handle, Ordering::Relaxed);
        Ok(())
    }
}

/// The entry of every slot task (`C-unwind` where panics unwind, `C`
/// elsewhere: see `sys::TaskFunction`).
///
/// # Safety
///
/// As for [`slot_main`].
#[cfg(panic = "unwind")]
unsafe extern "C-unwind" fn slot_entry(arg: *mut c_void) {
    // SAFETY: per this function's contract.
    unsafe { slot_main(arg) }
}

/// The entry of every slot task (see the `panic = "unwind"` one).
///
/// # Safety
///
/// As for [`slot_main`].
#[cfg(not(panic = "unwind"))]
unsafe extern "C" fn slot_entry(arg: *mut c_void) {
    // SAFETY: per this function's contract.
    unsafe { slot_main(arg) }
}

/// A slot task's life: run the job it was made for, go IDLE, wait for the
/// next, forever.
///
/// # Safety
///
/// `arg` points to the `'static` [`SlotControl`] of the slot this task was
/// created in, whose `job` holds a job from `Job::into_raw`.
#[inline(always)]
unsafe fn slot_main(arg: *mut c_void) -> ! {
    // SAFETY: per the contract: a `'static` control, shared through atomics.
    let control = unsafe { &*arg.cast_const().cast::<SlotControl>() };
    // SAFETY: the calling task exists (it is running this).
    let me = unsafe { sys::xTaskGetCurrentTaskHandle() };
    control.task.store(me, Ordering::Relaxed);
    let index = control.wait_index.load(Ordering::Relaxed) as UBaseType;
    loop {
        // Acquire: pairs with the claimer's Release store of the job.
        let raw = control.job.swap(ptr::null_mut(), Ordering::Acquire);
        // No job: a token that was not a claim's (the pool promises none, but
        // a stray notify on this index must not become a null job), or the
        // claim's own token after its job was already taken: wait again.
        if !raw.is_null() {
            // SAFETY: the claimer stored a job from `into_raw` before it created
            // or notified this task, and only this task takes it out.
            let job = unsafe { Job::from_raw(raw) };
            job.run();
            // Release: the handle (stored above) and everything the job did
            // happen before a claimer's Acquire CAS from IDLE.
            control.state.store(IDLE, Ordering::Release);
        }
        // A claimer may already have taken the slot and notified us: the kernel
        // keeps that token, so this returns at once. One claim, one token.
        // SAFETY: this task's own notification slot `index`, in bounds by the
        // spawner's `notify_index` contract; clear on exit.
        while unsafe { sys::ulTaskGenericNotifyTake(index, sys::PD_TRUE, sys::MAX_DELAY) } == 0 {}
    }
}
