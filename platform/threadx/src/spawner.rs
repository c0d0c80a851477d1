//! [`StaticSpawner`]: pool workers on static ThreadX threads that never exit.

use core::ffi::CStr;
use core::fmt;

use antpool::port::{Job, Spawner};

use crate::layout::{DEFAULT_KERNEL_BYTES, KernelLayout};
use crate::lock::CriticalSection;
use crate::signal::SemaphoreSignal;
use crate::slots::{ThreadParams, ThreadSlots};
use crate::sys;
use crate::waiters::{self, WaitSlot, WaitSlots};

// Named in the docs.
#[cfg(doc)]
use antpool::port::Signal;

/// Starts pool workers on the threads of a `static` [`ThreadSlots`]: no
/// kernel heap, no Rust heap, and no thread is ever deleted.
///
/// `spawn` claims a slot that is not busy: an empty one gets its thread made
/// with `tx_thread_create` in the slot's own memory, an idle one has its
/// thread (parked on its semaphore since its last job) woken with the new
/// job. When every slot is busy the job is handed back, and the submitter
/// gets [`SubmitError::SpawnFailed`](antpool::SubmitError::SpawnFailed) with
/// its argument. So give the pool a capacity of at most `N` — or more, on
/// purpose, to have submissions beyond `N` refused instead of queued.
///
/// When a worker retires (expiry, or a pool's release) its job returns and
/// its slot goes back to idle: the thread stays, parked, with its stack and
/// control block, ready for the next worker of this pool or of any other
/// pool that spawns from the same slots. A worker stops counting for its
/// pool a few instructions before its job returns and its slot is idle
/// again, so a spawn in that moment that finds every other slot busy is
/// refused like any other; only a thread that preempts the retiring slot
/// thread can come then, and a spare slot absorbs it.
///
/// Signals are [`SemaphoreSignal`]s: a slot thread's is the semaphore in its
/// slot (on which it also waits for its next job: the two never overlap),
/// and any other thread that uses the pool takes one of the spawner's
/// [`waiters`](Self::waiters). The lock is [`CriticalSection`]
/// (`TX_DISABLE`). Both work in interrupt handlers as they are, so
/// [`StaticPoolWithFunc::try_invoke_from_isr`](antpool::StaticPoolWithFunc::try_invoke_from_isr)
/// needs no feature and no C of its own.
///
/// The program compiles `csrc/antpool_threadx.c` with its kernel.
///
/// ```no_run
/// use antpool::{Options, StaticPoolWithFunc};
/// use antpool_threadx::{StaticSpawner, ThreadSlots, TickClock, WaitSlots};
/// use core::time::Duration;
///
/// fn blink(led: u8) {
///     // ... runs on a slot thread
/// #   let _ = led;
/// }
///
/// // Three threads with 2 KiB stacks, their control blocks, two semaphores
/// // for the program's own threads, the pool: all static.
/// static SLOTS: ThreadSlots<3, 2048> = ThreadSlots::new();
/// static WAITERS: WaitSlots<2> = WaitSlots::new();
/// static POOL: StaticPoolWithFunc<u8, 3, TickClock, StaticSpawner<3, 2048>> =
///     StaticPoolWithFunc::new(
///         Options::new().capacity(3).expiry(Duration::from_millis(500)),
///         blink,
///         TickClock::new(),
///         StaticSpawner::new(&SLOTS).waiters(&WAITERS).name(c"blink").priority(10),
///     );
///
/// // In a thread, once the kernel runs:
/// fn app() {
///     SLOTS.check().expect("the control blocks fit the reserve");
///     for led in 0..8 {
///         POOL.invoke(led).unwrap(); // blocks while all 3 workers are busy
///     }
///     POOL.release_timeout(Duration::from_secs(1)).unwrap(); // every slot idle
/// }
/// # use antpool_threadx_sim as _; // links the kernel for this example
/// ```
#[derive(Clone, Copy)]
pub struct StaticSpawner<
    const N: usize,
    const STACK: usize,
    const KERNEL: usize = DEFAULT_KERNEL_BYTES,
> {
    slots: &'static ThreadSlots<N, STACK, KERNEL>,
    waiters: &'static [WaitSlot],
    name: &'static CStr,
    priority: u32,
    preemption_threshold: Option<u32>,
    time_slice: u32,
}

impl<const N: usize, const STACK: usize, const KERNEL: usize> StaticSpawner<N, STACK, KERNEL> {
    /// The default priority of a worker thread: 16, the middle of ThreadX's
    /// default 32 (0 is the highest).
    pub const DEFAULT_PRIORITY: u32 = 16;

    /// Workers on `slots`, named `antpool`, at
    /// [`DEFAULT_PRIORITY`](Self::DEFAULT_PRIORITY), with no preemption
    /// threshold and no time slice, and no wait slots (the program's threads
    /// that use the pool need [`waiters`](Self::waiters)). The stack size is
    /// the slots' `STACK`.
    ///
    /// ```
    /// use antpool_threadx::{StaticSpawner, ThreadSlots};
    ///
    /// static SLOTS: ThreadSlots<2, 1024> = ThreadSlots::new();
    /// const SPAWNER: StaticSpawner<2, 1024> = StaticSpawner::new(&SLOTS);
    /// assert_eq!(SPAWNER.get_priority(), 16);
    /// assert_eq!(SPAWNER.slots().len(), 2);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn new(slots: &'static ThreadSlots<N, STACK, KERNEL>) -> Self {
        StaticSpawner {
            slots,
            waiters: &[],
            name: c"antpool",
            priority: Self::DEFAULT_PRIORITY,
            preemption_threshold: None,
            time_slice: 0,
        }
    }

    /// The semaphores for the program's threads that use the pool (submit,
    /// release, wait for it to go idle) and are not slot threads. Without
    /// them such a thread panics at its first blocking call.
    ///
    /// ```
    /// use antpool_threadx::{StaticSpawner, ThreadSlots, WaitSlots};
    ///
    /// static SLOTS: ThreadSlots<2, 1024> = ThreadSlots::new();
    /// static WAITERS: WaitSlots<2> = WaitSlots::new();
    /// const SPAWNER: StaticSpawner<2, 1024> = StaticSpawner::new(&SLOTS).waiters(&WAITERS);
    /// assert_eq!(SPAWNER.wait_slots(), 2);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn waiters<const M: usize>(mut self, waiters: &'static WaitSlots<M>) -> Self {
        self.waiters = &waiters.slots;
        self
    }

    /// The name every slot thread gets (when it is made). ThreadX keeps the
    /// pointer, so it is `'static`.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// let spawner = antpool_threadx::StaticSpawner::new(&SLOTS).name(c"io");
    /// assert_eq!(spawner.get_name(), c"io");
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn name(mut self, name: &'static CStr) -> Self {
        self.name = name;
        self
    }

    /// The priority every slot thread is made with: 0 is the highest, and it
    /// must be below the kernel's `TX_MAX_PRIORITIES` (a spawn with a
    /// priority out of range is refused). A thread keeps it for good: a slot
    /// made by one spawner keeps its priority when another spawner over the
    /// same slots reuses it.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// let spawner = antpool_threadx::StaticSpawner::new(&SLOTS).priority(8);
    /// assert_eq!(spawner.get_priority(), 8);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn priority(mut self, priority: u32) -> Self {
        self.priority = priority;
        self
    }

    /// A preemption threshold for the slot threads: while one runs, only
    /// threads of a priority above `threshold` (numerically below it) may
    /// preempt it. At most the priority (a larger one is refused at spawn);
    /// by default it is the priority, which disables it.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// let spawner = antpool_threadx::StaticSpawner::new(&SLOTS).priority(8).preemption_threshold(4);
    /// assert_eq!(spawner.get_preemption_threshold(), 4);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn preemption_threshold(mut self, threshold: u32) -> Self {
        self.preemption_threshold = Some(threshold);
        self
    }

    /// The time slice of the slot threads, in ticks: how long one runs
    /// before a ready thread of its priority gets the processor. 0 (the
    /// default, `TX_NO_TIME_SLICE`) lets it run until it blocks. ThreadX
    /// slices only threads without a preemption threshold.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// let spawner = antpool_threadx::StaticSpawner::new(&SLOTS).time_slice(5);
    /// assert_eq!(spawner.get_time_slice(), 5);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn time_slice(mut self, ticks: u32) -> Self {
        self.time_slice = ticks;
        self
    }

    /// The slots this spawner starts workers on.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<4, 1024> = antpool_threadx::ThreadSlots::new();
    /// let spawner = antpool_threadx::StaticSpawner::new(&SLOTS);
    /// assert_eq!(spawner.slots().busy(), 0);
    /// ```
    #[must_use]
    pub const fn slots(&self) -> &'static ThreadSlots<N, STACK, KERNEL> {
        self.slots
    }

    /// How many wait slots the spawner has.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(antpool_threadx::StaticSpawner::new(&SLOTS).wait_slots(), 0);
    /// ```
    #[must_use]
    pub const fn wait_slots(&self) -> usize {
        self.waiters.len()
    }

    /// The thread name.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(antpool_threadx::StaticSpawner::new(&SLOTS).get_name(), c"antpool");
    /// ```
    #[must_use]
    pub const fn get_name(&self) -> &'static CStr {
        self.name
    }

    /// The slot thread priority.
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(antpool_threadx::StaticSpawner::new(&SLOTS).get_priority(), 16);
    /// ```
    #[must_use]
    pub const fn get_priority(&self) -> u32 {
        self.priority
    }

    /// The preemption threshold (the priority when none was set).
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// let spawner = antpool_threadx::StaticSpawner::new(&SLOTS).priority(9);
    /// assert_eq!(spawner.get_preemption_threshold(), 9);
    /// ```
    #[must_use]
    pub const fn get_preemption_threshold(&self) -> u32 {
        match self.preemption_threshold {
            Some(threshold) => threshold,
            None => self.priority,
        }
    }

    /// The time slice, in ticks (0: none).
    ///
    /// ```
    /// # static SLOTS: antpool_threadx::ThreadSlots<1, 1024> = antpool_threadx::ThreadSlots::new();
    /// assert_eq!(antpool_threadx::StaticSpawner::new(&SLOTS).get_time_slice(), 0);
    /// ```
    #[must_use]
    pub const fn get_time_slice(&self) -> u32 {
        self.time_slice
    }
}

impl<const N: usize, const STACK: usize, const KERNEL: usize> fmt::Debug
    for StaticSpawner<N, STACK, KERNEL>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticSpawner")
            .field("slots", self.slots)
            .field("wait_slots", &self.waiters.len())
            .field("name", &self.name)
            .field("priority", &self.priority)
            .field("preemption_threshold", &self.get_preemption_threshold())
            .field("time_slice", &self.time_slice)
            .finish()
    }
}

impl<const N: usize, const STACK: usize, const KERNEL: usize> Spawner
    for StaticSpawner<N, STACK, KERNEL>
{
    type Signal = SemaphoreSignal;
    type Lock = CriticalSection;

    /// Runs `job` on a slot thread: an idle slot's thread is woken, an empty
    /// slot's thread is made with `tx_thread_create`.
    ///
    /// # Errors
    ///
    /// `Err(job)` when every slot is busy, when the slots' reserve does not
    /// fit the kernel's control blocks (see [`ThreadSlots::check`]), or when
    /// the priority is not below `TX_MAX_PRIORITIES` or the preemption
    /// threshold is above the priority.
    fn spawn(&self, job: Job) -> Result<(), Job> {
        let threshold = self.get_preemption_threshold();
        if self.priority >= KernelLayout::of_kernel().max_priorities || threshold > self.priority {
            return Err(job);
        }
        let thread = ThreadParams {
            name: self.name,
            priority: self.priority,
            preemption_threshold: threshold,
            time_slice: self.time_slice,
        };
        self.slots.start(job, &thread)
    }

    /// The calling thread's semaphore: its slot's, if it is a slot thread of
    /// these slots; else a wait slot, taken until its last signal is dropped.
    ///
    /// # Panics
    ///
    /// If the caller is not a running ThreadX thread (before
    /// `tx_kernel_enter` runs a thread, in `tx_application_define`, or in an
    /// interrupt handler): the pool would block it on a semaphore. And if it
    /// is not a slot thread and every wait slot is taken by another thread
    /// (give the spawner more [`waiters`](Self::waiters)).
    fn signal(&self) -> SemaphoreSignal {
        assert!(
            sys::in_thread(),
            "antpool-threadx: a pool must be used from a running ThreadX thread \
             (not before the scheduler, in tx_application_define, or in an interrupt handler)"
        );
        // SAFETY: returns the running thread, which exists (checked above).
        let me = unsafe { sys::_tx_thread_identify() };
        if let Some(index) = self.slots.slot_of(me) {
            // SAFETY: the slot's semaphore was created before its thread (us),
            // lives in the `'static` slots and is never deleted; only the
            // slot's thread waits on it.
            return unsafe { SemaphoreSignal::new(self.slots.semaphore(index), None) };
        }
        match waiters::claim(self.waiters, me) {
            // SAFETY: the wait slot's semaphore is created (`claim`), in a
            // `static`, never deleted, and this thread owns the slot until its
            // last signal (this one included) is dropped.
            Some(slot) => unsafe { SemaphoreSignal::new(slot.semaphore(), Some(slot)) },
            None => panic!(
                "antpool-threadx: a thread that is not a slot thread uses a pool, and all {} wait \
                 slots are taken: give StaticSpawner::waiters a larger WaitSlots",
                self.waiters.len()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SLOTS: ThreadSlots<2, 256, 128> = ThreadSlots::new();
    static WAITERS: WaitSlots<3> = WaitSlots::new();

    #[test]
    fn spawner_options_are_kept() {
        let s = StaticSpawner::new(&SLOTS)
            .waiters(&WAITERS)
            .name(c"x")
            .priority(4)
            .preemption_threshold(2)
            .time_slice(7);
        assert_eq!(s.get_name(), c"x");
        assert_eq!(s.get_priority(), 4);
        assert_eq!(s.get_preemption_threshold(), 2);
        assert_eq!(s.get_time_slice(), 7);
        assert_eq!(s.wait_slots(), 3);
        assert_eq!(
            (
                s.slots().len(),
                s.slots().stack_bytes(),
                s.slots().kernel_bytes()
            ),
            (2, 256, 128)
        );
    }
}
