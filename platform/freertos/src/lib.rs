//! # antpool-freertos
//!
//! [antpool] on FreeRTOS: every worker is a FreeRTOS task, parked on a
//! task notification, and the pool's clock is the kernel's tick counter.
//!
//! | antpool needs | this crate | FreeRTOS call |
//! |---|---|---|
//! | [`Spawner::spawn`] | [`FreeRtosSpawner`] | `xTaskCreate(entry, name, stack_words, Job::into_raw(job), priority, NULL)`; the task runs the job, then `vTaskDelete(NULL)` |
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
//! Pools must be used from tasks: not from `main` before the scheduler starts,
//! and never from an interrupt.
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
//!     POOL.release_timeout(Duration::from_secs(1)).unwrap(); // every worker task deleted
//! }
//! # use antpool_freertos_sim as _; // links the kernel for this example
//! ```
//!
//! `README.md` beside this file maps each trait method to the kernel, gives
//! stack sizes and priorities, and says how to write a port for another RTOS.

#![no_std]

use core::ffi::{CStr, c_char, c_int, c_long, c_ulong, c_void};
use core::fmt;
use core::ptr;
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};
use core::time::Duration;

use antpool::lock_api::{GuardNoSend, RawMutex};
use antpool::{Clock, Instant, Job, Signal, Spawner, ticks_at_least};

/// FreeRTOS's `BaseType_t` (`long` on the Posix, Cortex-M and RISC-V ports).
pub type BaseType = c_long;
/// FreeRTOS's `UBaseType_t` (task priorities, notification indices).
pub type UBaseType = c_ulong;
/// FreeRTOS's `TickType_t`: 64 bits on the Posix port, 32 on Cortex-M.
pub type TickType = c_ulong;
/// FreeRTOS's `configSTACK_DEPTH_TYPE` (by default `StackType_t`): a stack size
/// in words, not bytes.
pub type StackWords = c_ulong;
/// FreeRTOS's `TaskHandle_t`.
pub type TaskHandle = *mut c_void;

/// The kernel functions this port calls, by their real names (not the macros
/// that wrap them in `task.h`).
mod sys {
    use super::{BaseType, StackWords, TaskHandle, TickType, UBaseType, c_char, c_int, c_void};

    /// `TaskFunction_t`. Declared `C-unwind`: on the Posix simulator a task that
    /// deletes itself ends its pthread with a forced unwind, which must be allowed
    /// to pass through the entry's frame.
    pub(crate) type TaskFunction = unsafe extern "C-unwind" fn(*mut c_void);

    /// `TimeOut_t` from `task.h`.
    #[repr(C)]
    pub(crate) struct TimeOut {
        pub(crate) overflow_count: BaseType,
        pub(crate) time_on_entering: TickType,
    }

    /// `eIncrement` of `eNotifyAction`: what `xTaskNotifyGive` passes.
    pub(crate) const E_INCREMENT: c_int = 2;
    /// `pdPASS`.
    pub(crate) const PD_PASS: BaseType = 1;
    /// `pdTRUE`.
    pub(crate) const PD_TRUE: BaseType = 1;
    /// `taskSCHEDULER_RUNNING`.
    pub(crate) const SCHEDULER_RUNNING: BaseType = 2;
    /// `portMAX_DELAY`: "wait forever" when `INCLUDE_vTaskSuspend` is 1.
    pub(crate) const MAX_DELAY: TickType = TickType::MAX;

    unsafe extern "C" {
        pub(crate) fn xTaskCreate(
            code: TaskFunction,
            name: *const c_char,
            stack_depth: StackWords,
            parameters: *mut c_void,
            priority: UBaseType,
            created: *mut TaskHandle,
        ) -> BaseType;
        pub(crate) fn xTaskGetCurrentTaskHandle() -> TaskHandle;
        pub(crate) fn ulTaskGenericNotifyTake(
            index: UBaseType,
            clear_count_on_exit: BaseType,
            ticks_to_wait: TickType,
        ) -> u32;
        pub(crate) fn xTaskGenericNotify(
            task: TaskHandle,
            index: UBaseType,
            value: u32,
            action: c_int,
            previous_value: *mut u32,
        ) -> BaseType;
        pub(crate) fn vTaskSetTimeOutState(timeout: *mut TimeOut);
        pub(crate) fn xTaskGetSchedulerState() -> BaseType;
        pub(crate) fn vPortEnterCritical();
        pub(crate) fn vPortExitCritical();
    }

    unsafe extern "C-unwind" {
        /// May unwind (Posix: `pthread_exit`) when a task deletes itself.
        pub(crate) fn vTaskDelete(task: TaskHandle);
    }
}

/// Starts pool workers as FreeRTOS tasks.
///
/// Every worker is a task made with `xTaskCreate` whose entry runs the pool's
/// [`Job`] and then deletes itself. If the kernel cannot make the task (its heap
/// is exhausted), the job is handed back and the submitter gets
/// [`SubmitError::SpawnFailed`](antpool::SubmitError::SpawnFailed) with its task.
///
/// The spawner also makes the [`TaskSignal`]s the pool parks on, so it carries
/// the notification index and the tick rate they use.
///
/// ```
/// use antpool_freertos::FreeRtosSpawner;
///
/// // SAFETY: the kernel is built with configTASK_NOTIFICATION_ARRAY_ENTRIES >= 2.
/// const SPAWNER: FreeRtosSpawner = unsafe { FreeRtosSpawner::new().notify_index(1) }
///     .name(c"worker")     // the task name (at most configMAX_TASK_NAME_LEN - 1 shown)
///     .stack_words(768)    // words of StackType_t, not bytes
///     .priority(3)         // FreeRTOS priority of every worker
///     .tick_hz(1_000);     // configTICK_RATE_HZ
/// assert_eq!(SPAWNER.get_stack_words(), 768);
/// assert_eq!(SPAWNER.get_priority(), 3);
/// ```
#[derive(Clone, Copy)]
pub struct FreeRtosSpawner {
    name: &'static CStr,
    stack_words: StackWords,
    priority: UBaseType,
    notify_index: UBaseType,
    tick_hz: u32,
}

impl FreeRtosSpawner {
    /// The default stack of a worker task, in words: 512 (2 KiB on a 32-bit
    /// core). The QEMU Cortex-M3 demo measures how much of it a worker uses.
    pub const DEFAULT_STACK_WORDS: StackWords = 512;

    /// The default priority of a worker task: 1, one above the idle task.
    pub const DEFAULT_PRIORITY: UBaseType = 1;

    /// Workers named `antpool`, with [`DEFAULT_STACK_WORDS`](Self::DEFAULT_STACK_WORDS),
    /// [`DEFAULT_PRIORITY`](Self::DEFAULT_PRIORITY), notification index 0 and a
    /// 1 kHz tick.
    ///
    /// ```
    /// let spawner = antpool_freertos::FreeRtosSpawner::new();
    /// assert_eq!(spawner.get_notify_index(), 0);
    /// assert_eq!(spawner.get_tick_hz(), 1_000);
    /// ```
    pub const fn new() -> Self {
        FreeRtosSpawner {
            name: c"antpool",
            stack_words: Self::DEFAULT_STACK_WORDS,
            priority: Self::DEFAULT_PRIORITY,
            notify_index: 0,
            tick_hz: 1_000,
        }
    }

    /// The name every worker task gets.
    ///
    /// ```
    /// let spawner = antpool_freertos::FreeRtosSpawner::new().name(c"io");
    /// assert_eq!(spawner.get_name(), c"io");
    /// ```
    pub const fn name(mut self, name: &'static CStr) -> Self {
        self.name = name;
        self
    }

    /// The stack of every worker task, in words of `StackType_t` (FreeRTOS's
    /// unit: 4 bytes on a 32-bit core). It must hold the pool's worker loop
    /// (a few hundred bytes) plus the deepest call of your task function.
    ///
    /// ```
    /// let spawner = antpool_freertos::FreeRtosSpawner::new().stack_words(1024);
    /// assert_eq!(spawner.get_stack_words(), 1024);
    /// ```
    pub const fn stack_words(mut self, words: StackWords) -> Self {
        self.stack_words = words;
        self
    }

    /// The priority of every worker task. A submitter that runs at a higher
    /// priority than the workers keeps the CPU while it submits; one that runs
    /// lower lets a woken worker start its task at once.
    ///
    /// ```
    /// let spawner = antpool_freertos::FreeRtosSpawner::new().priority(2);
    /// assert_eq!(spawner.get_priority(), 2);
    /// ```
    pub const fn priority(mut self, priority: UBaseType) -> Self {
        self.priority = priority;
        self
    }

    /// The task-notification index the pool's signals use (default 0). Nothing
    /// else may use it on the tasks that submit or run tasks ([`Signal`] rule 3);
    /// FreeRTOS's stream and message buffers use index 0, so a program that has
    /// those gives the pool index 1.
    ///
    /// # Safety
    ///
    /// `index` must be below the kernel's `configTASK_NOTIFICATION_ARRAY_ENTRIES`.
    /// The kernel indexes each task's notification arrays with it, checked only
    /// by `configASSERT` (often compiled out), and this crate cannot read the
    /// kernel's configuration. Index 0 is always valid.
    ///
    /// ```
    /// // SAFETY: the kernel is built with configTASK_NOTIFICATION_ARRAY_ENTRIES 2.
    /// let spawner = unsafe { antpool_freertos::FreeRtosSpawner::new().notify_index(1) };
    /// assert_eq!(spawner.get_notify_index(), 1);
    /// ```
    pub const unsafe fn notify_index(mut self, index: UBaseType) -> Self {
        self.notify_index = index;
        self
    }

    /// The kernel's tick rate, `configTICK_RATE_HZ`, used to turn the pool's
    /// timeouts into ticks. Give the [`TickClock`] the same rate.
    ///
    /// ```
    /// let spawner = antpool_freertos::FreeRtosSpawner::new().tick_hz(100);
    /// assert_eq!(spawner.get_tick_hz(), 100);
    /// ```
    pub const fn tick_hz(mut self, hz: u32) -> Self {
        self.tick_hz = hz;
        self
    }

    /// The task name.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::FreeRtosSpawner::new().get_name(), c"antpool");
    /// ```
    pub const fn get_name(&self) -> &'static CStr {
        self.name
    }

    /// The stack size in words.
    ///
    /// ```
    /// use antpool_freertos::FreeRtosSpawner;
    /// assert_eq!(FreeRtosSpawner::new().get_stack_words(), FreeRtosSpawner::DEFAULT_STACK_WORDS);
    /// ```
    pub const fn get_stack_words(&self) -> StackWords {
        self.stack_words
    }

    /// The worker priority.
    ///
    /// ```
    /// use antpool_freertos::FreeRtosSpawner;
    /// assert_eq!(FreeRtosSpawner::new().get_priority(), FreeRtosSpawner::DEFAULT_PRIORITY);
    /// ```
    pub const fn get_priority(&self) -> UBaseType {
        self.priority
    }

    /// The notification index.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::FreeRtosSpawner::new().get_notify_index(), 0);
    /// ```
    pub const fn get_notify_index(&self) -> UBaseType {
        self.notify_index
    }

    /// The tick rate.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::FreeRtosSpawner::new().get_tick_hz(), 1_000);
    /// ```
    pub const fn get_tick_hz(&self) -> u32 {
        self.tick_hz
    }
}

impl Default for FreeRtosSpawner {
    /// [`FreeRtosSpawner::new`].
    ///
    /// ```
    /// let spawner = antpool_freertos::FreeRtosSpawner::default();
    /// assert_eq!(spawner.get_priority(), 1);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for FreeRtosSpawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FreeRtosSpawner")
            .field("name", &self.name)
            .field("stack_words", &self.stack_words)
            .field("priority", &self.priority)
            .field("notify_index", &self.notify_index)
            .field("tick_hz", &self.tick_hz)
            .finish()
    }
}

/// The entry of every worker task: run the job (the worker's whole life), then
/// delete the task.
///
/// # Safety
///
/// `arg` comes from `Job::into_raw` in [`FreeRtosSpawner::spawn`], and the kernel
/// passes it to exactly one task.
unsafe extern "C-unwind" fn worker_entry(arg: *mut c_void) {
    // SAFETY: per the contract, `arg` is a job handed to this task alone.
    let job = unsafe { Job::from_raw(arg) };
    job.run();
    // Everything this frame owned is gone (the job was consumed), so the forced
    // unwind that ends the thread on the Posix simulator has nothing to drop.
    // SAFETY: NULL deletes the calling task, which is what a task must do instead
    // of returning from its entry.
    unsafe { sys::vTaskDelete(ptr::null_mut()) };
    // A deleted task is never scheduled again; this is not reached.
    loop {
        core::hint::spin_loop();
    }
}

impl Spawner for FreeRtosSpawner {
    type Signal = TaskSignal;
    type Lock = CriticalSection;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        let arg = job.into_raw();
        // SAFETY: `worker_entry` matches `TaskFunction_t`; the name is a
        // NUL-terminated string that the kernel copies; `arg` goes to the new task
        // alone; a NULL handle pointer is allowed.
        let created = unsafe {
            sys::xTaskCreate(
                worker_entry,
                self.name.as_ptr(),
                self.stack_words,
                arg,
                self.priority,
                ptr::null_mut(),
            )
        };
        if created == sys::PD_PASS {
            Ok(())
        } else {
            // SAFETY: no task was made (errCOULD_NOT_ALLOCATE_REQUIRED_MEMORY), so
            // nothing used `arg`; it is still the job `into_raw` gave us.
            Err(unsafe { Job::from_raw(arg) })
        }
    }

    /// # Panics
    ///
    /// If the scheduler is not running (before `vTaskStartScheduler`, or
    /// between `vTaskSuspendAll` and `xTaskResumeAll`): the pool would block
    /// the calling code on a notification no task can receive. Use pools from
    /// tasks only, never from `main` before the scheduler or from an interrupt.
    fn signal(&self) -> TaskSignal {
        // SAFETY: reads one kernel variable; callable from any context.
        let state = unsafe { sys::xTaskGetSchedulerState() };
        assert!(
            state == sys::SCHEDULER_RUNNING,
            "antpool-freertos: a pool must be used from a running task \
             (xTaskGetSchedulerState() = {state}, not taskSCHEDULER_RUNNING)"
        );
        TaskSignal {
            // SAFETY: the scheduler runs (checked above) and the pool makes signals
            // only on the task that will wait on them, so this returns that task.
            task: unsafe { sys::xTaskGetCurrentTaskHandle() },
            index: self.notify_index,
            tick_hz: self.tick_hz,
        }
    }
}

/// A pool signal on FreeRTOS: one task-notification slot of the task that made
/// it.
///
/// `notify` is `xTaskNotifyGiveIndexed` (increment the slot's value), and the
/// waits are `ulTaskNotifyTakeIndexed` with clear-on-exit: a notify that comes
/// before the wait is kept by the kernel, and two notifies before a wait leave
/// one token — exactly the [`Signal`] contract. The kernel's own critical
/// sections order the notifier's writes before the woken task's reads (rule 5),
/// and after `xTaskGenericNotify` has published the token it touches only the
/// task's control block, which the kernel keeps alive until the task is deleted
/// (rule 6: the signal itself is read before the call).
///
/// Made by [`FreeRtosSpawner`] (through [`Spawner::signal`]) on the task that
/// waits on it. Every signal a task makes shares that task's slot. That is
/// sound because of what the pool promises every port (see [`Signal`]): no
/// signal is dropped with a token still on its way, and a task has one signal
/// in play at a time. So no stale token is left to end the task's next wait
/// early.
///
/// ```no_run
/// use antpool::{Signal, Spawner};
/// use antpool_freertos::FreeRtosSpawner;
/// use core::time::Duration;
///
/// // On a running FreeRTOS task:
/// let signal = FreeRtosSpawner::new().signal();
/// // SAFETY: `signal` is alive for the whole call.
/// unsafe { Signal::notify(&signal) }; // an early notify is kept...
/// assert!(signal.wait_timeout(Duration::from_millis(10))); // ...and consumed here
/// assert!(!signal.wait_timeout(Duration::from_millis(10))); // nothing left: 10+ ms pass
/// # use antpool_freertos_sim as _; // links the kernel for this example
/// ```
pub struct TaskSignal {
    task: TaskHandle,
    index: UBaseType,
    tick_hz: u32,
}

// SAFETY: the handle names a kernel task; the kernel's notification calls may be
// made from any task, and the fields are never written after construction.
unsafe impl Send for TaskSignal {}
// SAFETY: as above: shared use only reads the fields and calls the kernel.
unsafe impl Sync for TaskSignal {}

impl TaskSignal {
    /// Takes the token, waiting at most `ticks` (`MAX_DELAY` excluded).
    fn take(&self, ticks: TickType) -> bool {
        // SAFETY: called by the task that made the signal (rule 4), on its own
        // notification slot, whose index is in bounds (`notify_index`'s
        // contract); clear-on-exit makes the slot a binary semaphore.
        unsafe { sys::ulTaskGenericNotifyTake(self.index, sys::PD_TRUE, ticks) != 0 }
    }
}

impl Signal for TaskSignal {
    fn wait(&self) {
        // With INCLUDE_vTaskSuspend 1 one call blocks for good; without it,
        // portMAX_DELAY is a (very long) finite wait, so loop.
        while !self.take(sys::MAX_DELAY) {}
    }

    fn wait_timeout(&self, timeout: Duration) -> bool {
        let mut left = ticks_at_least(timeout, self.tick_hz);
        // Longest single wait that is not "forever".
        let chunk = wide(sys::MAX_DELAY - 1);
        loop {
            let ticks = left.min(chunk);
            if self.take(ticks as TickType) {
                return true;
            }
            left -= ticks;
            if left == 0 {
                return false;
            }
        }
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: the caller keeps `*this` alive until the token is published;
        // we copy what we need out of it first and never touch it again.
        let (task, index) = unsafe { ((*this).task, (*this).index) };
        // SAFETY: `task` is the live task that owns the signal (it cannot be
        // deleted before it consumed this token); `index` is in bounds
        // (`notify_index`'s contract); eIncrement with a NULL previous-value
        // pointer is `xTaskNotifyGiveIndexed`.
        unsafe {
            sys::xTaskGenericNotify(task, index, 0, sys::E_INCREMENT, ptr::null_mut());
        }
    }
}

impl fmt::Debug for TaskSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskSignal")
            .field("task", &self.task)
            .field("index", &self.index)
            .finish()
    }
}

/// The pool's lock on FreeRTOS: a kernel critical section
/// (`vPortEnterCritical` / `vPortExitCritical`).
///
/// A spin lock is wrong between tasks of different priorities on one core (a
/// high-priority task spinning on a lock that a preempted low-priority task
/// holds never lets it run), and a FreeRTOS mutex costs a kernel object per
/// pool. The pool holds its lock for a handful of instructions and never across
/// a task, a spawn, an allocation of its own or a notify, so masking the
/// scheduler (and interrupts up to `configMAX_SYSCALL_INTERRUPT_PRIORITY`) for
/// that long is the cheapest exclusion there is. Critical sections nest, and
/// all pools share the one section: that is sound because the pool never waits
/// while holding its lock.
///
/// Keep the pool's idle queue free of allocation under this lock: use
/// [`WorkerRing`](antpool::WorkerRing) (or a `WorkerRingBuf` built up front),
/// not a growing `WorkerStack`.
///
/// ```no_run
/// use antpool::lock_api::RawMutex;
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
    };
    type GuardMarker = GuardNoSend;

    /// # Panics
    ///
    /// If this task already holds this lock: inside the critical section no
    /// other task runs, so `held` can only be our own. (Kernel critical sections
    /// nest, so without the check a second guard would alias the first.)
    fn lock(&self) {
        if !self.try_lock() {
            panic!("antpool-freertos: CriticalSection locked again by the task that holds it");
        }
    }

    fn try_lock(&self) -> bool {
        // SAFETY: called from a task (the pool never locks from an interrupt;
        // the Cortex-M ports configASSERT that).
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
        self.held.store(false, Relaxed);
        // SAFETY: per the trait's contract the section is held by this task.
        unsafe { sys::vPortExitCritical() };
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

/// The pool's clock on FreeRTOS: the kernel's tick count, extended to 64 bits.
///
/// It reads the tick count and the kernel's count of tick overflows together
/// (`vTaskSetTimeOutState`, inside the kernel's critical section), so a 32-bit
/// tick at 1 kHz, which wraps after 49.7 days, still gives a clock that never
/// goes back — without the port having to be called before every wrap.
///
/// ```
/// use antpool_freertos::TickClock;
/// const CLOCK: TickClock = TickClock::new(1_000); // configTICK_RATE_HZ
/// assert_eq!(CLOCK.hz(), 1_000);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TickClock {
    hz: u32,
}

impl TickClock {
    /// A clock over a tick of `hz` per second (`configTICK_RATE_HZ`; 0 counts
    /// as 1).
    ///
    /// ```
    /// assert_eq!(antpool_freertos::TickClock::new(100).hz(), 100);
    /// ```
    pub const fn new(hz: u32) -> Self {
        TickClock { hz }
    }

    /// The tick rate.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::TickClock::new(250).hz(), 250);
    /// ```
    pub const fn hz(&self) -> u32 {
        self.hz
    }

    /// The tick count since the scheduler started, extended to 64 bits.
    ///
    /// ```no_run
    /// // On a running FreeRTOS task:
    /// let clock = antpool_freertos::TickClock::new(1_000);
    /// let (a, b) = (clock.ticks(), clock.ticks());
    /// assert!(b >= a);
    /// # use antpool_freertos_sim as _; // links the kernel for this example
    /// ```
    pub fn ticks(&self) -> u64 {
        let mut now = sys::TimeOut {
            overflow_count: 0,
            time_on_entering: 0,
        };
        // SAFETY: a valid out-pointer; the kernel fills both fields in one
        // critical section.
        unsafe { sys::vTaskSetTimeOutState(&mut now) };
        extend(now.overflow_count, now.time_on_entering)
    }
}

/// The 64-bit tick count from the kernel's overflow count and tick count.
fn extend(overflows: BaseType, ticks: TickType) -> u64 {
    // A negative overflow count cannot happen (the kernel only increments it).
    extend_with(overflows as u64, wide(ticks), TickType::BITS)
}

/// A tick count as `u64`: the identity on the Posix simulator, a widening on
/// 32-bit ports, where `TickType_t` is `u32`.
#[allow(clippy::useless_conversion)] // not useless on 32-bit targets
fn wide(ticks: TickType) -> u64 {
    u64::from(ticks)
}

/// [`extend`] for a tick counter of `bits` bits, so that the 32-bit case
/// (Cortex-M) is tested on a 64-bit host too.
fn extend_with(overflows: u64, ticks: u64, bits: u32) -> u64 {
    if bits >= 64 {
        // A 64-bit tick does not overflow in practice (and the kernel counts none).
        ticks
    } else {
        (overflows << bits) | ticks
    }
}

impl Clock for TickClock {
    fn now(&self) -> Instant {
        Instant::from_ticks(self.ticks(), self.hz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_puts_overflows_above_the_tick_bits() {
        // This kernel's own width (64 bits on the Posix simulator).
        assert_eq!(extend(0, 12345), 12345);
        // A 32-bit tick (Cortex-M): overflows go above bit 31.
        assert_eq!(extend_with(0, 7, 32), 7);
        assert_eq!(extend_with(1, 0, 32), 1u64 << 32);
        assert_eq!(extend_with(2, 5, 32), (2u64 << 32) | 5);
        // The last tick before a wrap is below the first one after it.
        assert!(extend_with(0, u64::from(u32::MAX), 32) < extend_with(1, 0, 32));
        // A 64-bit tick ignores the (always zero) overflow count.
        assert_eq!(extend_with(0, u64::MAX, 64), u64::MAX);
    }

    #[test]
    fn spawner_options_are_kept() {
        // SAFETY: only stored and read back; no kernel call uses it.
        let s = unsafe { FreeRtosSpawner::new().notify_index(2) }
            .name(c"x")
            .stack_words(100)
            .priority(4)
            .tick_hz(250);
        assert_eq!(s.get_name(), c"x");
        assert_eq!(s.get_stack_words(), 100);
        assert_eq!(s.get_priority(), 4);
        assert_eq!(s.get_notify_index(), 2);
        assert_eq!(s.get_tick_hz(), 250);
    }
}
