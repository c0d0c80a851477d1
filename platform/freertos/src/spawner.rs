//! [`FreeRtosSpawner`]: pool workers as FreeRTOS tasks.

use core::ffi::{CStr, c_void};
use core::fmt;
use core::ptr;

use antpool::port::{Job, Spawner};

use crate::lock::CriticalSection;
use crate::signal::TaskSignal;
use crate::sys;
use crate::{StackWords, UBaseType};

// Named in the docs.
#[cfg(doc)]
use crate::clock::TickClock;
#[cfg(doc)]
use antpool::port::Signal;

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
    #[must_use = "a builder: use the one this returns"]
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
    #[must_use = "a builder: use the one this returns"]
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
    #[must_use = "a builder: use the one this returns"]
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
    #[must_use = "a builder: use the one this returns"]
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
    #[must_use = "a builder: use the one this returns"]
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
    #[must_use = "a builder: use the one this returns"]
    pub const fn tick_hz(mut self, hz: u32) -> Self {
        self.tick_hz = hz;
        self
    }

    /// The task name.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::FreeRtosSpawner::new().get_name(), c"antpool");
    /// ```
    #[must_use]
    pub const fn get_name(&self) -> &'static CStr {
        self.name
    }

    /// The stack size in words.
    ///
    /// ```
    /// use antpool_freertos::FreeRtosSpawner;
    /// assert_eq!(FreeRtosSpawner::new().get_stack_words(), FreeRtosSpawner::DEFAULT_STACK_WORDS);
    /// ```
    #[must_use]
    pub const fn get_stack_words(&self) -> StackWords {
        self.stack_words
    }

    /// The worker priority.
    ///
    /// ```
    /// use antpool_freertos::FreeRtosSpawner;
    /// assert_eq!(FreeRtosSpawner::new().get_priority(), FreeRtosSpawner::DEFAULT_PRIORITY);
    /// ```
    #[must_use]
    pub const fn get_priority(&self) -> UBaseType {
        self.priority
    }

    /// The notification index.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::FreeRtosSpawner::new().get_notify_index(), 0);
    /// ```
    #[must_use]
    pub const fn get_notify_index(&self) -> UBaseType {
        self.notify_index
    }

    /// The tick rate.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::FreeRtosSpawner::new().get_tick_hz(), 1_000);
    /// ```
    #[must_use]
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

/// The entry of every worker task (`C-unwind` where panics unwind, `C`
/// elsewhere: see `sys::TaskFunction`).
///
/// # Safety
///
/// As for [`worker_main`].
#[cfg(panic = "unwind")]
unsafe extern "C-unwind" fn worker_entry(arg: *mut c_void) {
    // SAFETY: per this function's contract.
    unsafe { worker_main(arg) }
}

/// The entry of every worker task (see the `panic = "unwind"` one).
///
/// # Safety
///
/// As for [`worker_main`].
#[cfg(not(panic = "unwind"))]
unsafe extern "C" fn worker_entry(arg: *mut c_void) {
    // SAFETY: per this function's contract.
    unsafe { worker_main(arg) }
}

/// A worker task's life: run the job (the worker's whole life), then delete
/// the task.
///
/// # Safety
///
/// `arg` comes from `Job::into_raw` in [`FreeRtosSpawner::spawn`], and the kernel
/// passes it to exactly one task.
#[inline(always)]
unsafe fn worker_main(arg: *mut c_void) -> ! {
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
        TaskSignal::for_current_task(self.notify_index, self.tick_hz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
