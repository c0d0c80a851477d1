//! [`StaticSpawner`]: pool workers on static FreeRTOS tasks that never exit.

use core::ffi::CStr;
use core::fmt;

use antpool::port::{Job, Spawner};

use crate::UBaseType;
use crate::lock::CriticalSection;
use crate::signal::TaskSignal;
use crate::static_task::DEFAULT_TCB_BYTES;
use crate::task_slots::{TaskParams, TaskSlots};

// Named in the docs.
#[cfg(doc)]
use crate::{FreeRtosSpawner, clock::TickClock};
#[cfg(doc)]
use antpool::port::Signal;

/// Starts pool workers on the tasks of a `static` [`TaskSlots`]: no kernel
/// heap, no Rust heap, and no task is ever deleted.
///
/// `spawn` claims a slot that is not busy: an empty one gets its task made
/// with `xTaskCreateStatic` in the slot's own memory, an idle one has its
/// task (parked on a notification since its last job) woken with the new job.
/// When every slot is busy the job is handed back, and the submitter gets
/// [`SubmitError::SpawnFailed`](antpool::SubmitError::SpawnFailed) with its
/// argument. So give the pool a capacity of at most `N` — or more, on purpose,
/// to have submissions beyond `N` refused instead of queued.
///
/// When a worker retires (expiry, or a pool's release) its job returns and its
/// slot goes back to idle: the task stays, parked, with its stack and control
/// block, ready for the next worker of this pool or of any other pool that
/// spawns from the same slots. Expiry frees no memory — the memory is static
/// anyway — and the kernel's task count does not go down.
///
/// A worker stops counting for its pool — for the capacity, `running()` and
/// `release_timeout` — a few instructions before its job returns and its slot
/// is idle again. So a slot can still be busy right after `release_timeout`
/// returned `Ok` or a worker expired, and a spawn in that moment that finds
/// every other slot busy is refused like any other. Only a task that preempts
/// the retiring slot task can come in that moment: submitters at a lower
/// priority than the slot tasks never do; otherwise a spare slot (more slots
/// than the pools' capacities add up to) absorbs one retiring worker.
///
/// Signals and the lock are [`FreeRtosSpawner`]'s: [`TaskSignal`] on the
/// notification index [`notify_index`](Self::notify_index) and
/// [`CriticalSection`]. A slot task waits for its next job on the same index,
/// between jobs. Sharing it is safe because the two never overlap: the pool
/// consumes every token it sends a worker's signal before the worker's job
/// returns ("no stale tokens", see [`Signal`]), and a slot's task is notified
/// for a new job only after that job was claimed from `IDLE`, which the task
/// sets after its previous job returned.
///
/// The program must compile `csrc/antpool_static_task.c` with its kernel (the
/// size of `StaticTask_t`, which [`TaskSlots::check`] compares with its
/// reserve), and build the kernel with `configSUPPORT_STATIC_ALLOCATION 1`.
///
/// ```no_run
/// use antpool::{Options, StaticPoolWithFunc};
/// use antpool_freertos::{StaticSpawner, TaskSlots, TickClock};
/// use core::time::Duration;
///
/// fn blink(led: u8) {
///     // ... runs on a slot task
/// #   let _ = led;
/// }
///
/// // Three tasks with 512-word stacks, their TCBs, the pool: all static.
/// static SLOTS: TaskSlots<3, 512> = TaskSlots::new();
/// static POOL: StaticPoolWithFunc<u8, 3, TickClock, StaticSpawner<3, 512>> =
///     StaticPoolWithFunc::new(
///         Options::new().capacity(3).expiry(Duration::from_millis(500)),
///         blink,
///         TickClock::new(1_000),
///         StaticSpawner::new(&SLOTS).name(c"blink").priority(2).tick_hz(1_000),
///     );
///
/// // In a task, once the scheduler runs:
/// fn app() {
///     SLOTS.check().expect("StaticTask_t fits the reserve");
///     for led in 0..8 {
///         POOL.invoke(led).unwrap(); // blocks while all 3 workers are busy
///     }
///     POOL.release_timeout(Duration::from_secs(1)).unwrap(); // every slot idle
/// }
/// # use antpool_freertos_sim as _; // links the kernel for this example
/// ```
#[derive(Clone, Copy)]
pub struct StaticSpawner<const N: usize, const W: usize, const TCB: usize = DEFAULT_TCB_BYTES> {
    slots: &'static TaskSlots<N, W, TCB>,
    name: &'static CStr,
    priority: UBaseType,
    notify_index: UBaseType,
    tick_hz: u32,
}

impl<const N: usize, const W: usize, const TCB: usize> StaticSpawner<N, W, TCB> {
    /// Workers on `slots`, named `antpool`, at priority
    /// [`FreeRtosSpawner::DEFAULT_PRIORITY`], on notification index 0, with a
    /// 1 kHz tick. The stack size is the slots' `W`.
    ///
    /// ```
    /// use antpool_freertos::{StaticSpawner, TaskSlots};
    ///
    /// static SLOTS: TaskSlots<2, 256> = TaskSlots::new();
    /// const SPAWNER: StaticSpawner<2, 256> = StaticSpawner::new(&SLOTS);
    /// assert_eq!(SPAWNER.get_notify_index(), 0);
    /// assert_eq!(SPAWNER.slots().len(), 2);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn new(slots: &'static TaskSlots<N, W, TCB>) -> Self {
        StaticSpawner {
            slots,
            name: c"antpool",
            priority: crate::FreeRtosSpawner::DEFAULT_PRIORITY,
            notify_index: 0,
            tick_hz: 1_000,
        }
    }

    /// The name every slot task gets (when it is made).
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// let spawner = antpool_freertos::StaticSpawner::new(&SLOTS).name(c"io");
    /// assert_eq!(spawner.get_name(), c"io");
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn name(mut self, name: &'static CStr) -> Self {
        self.name = name;
        self
    }

    /// The priority every slot task is made with. A task keeps it for good: a
    /// slot made by one spawner keeps its priority when another spawner over
    /// the same slots reuses it.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// let spawner = antpool_freertos::StaticSpawner::new(&SLOTS).priority(3);
    /// assert_eq!(spawner.get_priority(), 3);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn priority(mut self, priority: UBaseType) -> Self {
        self.priority = priority;
        self
    }

    /// The task-notification index the pool's signals use (default 0), and the
    /// index a slot task made by this spawner waits on between jobs. As for
    /// [`FreeRtosSpawner::notify_index`], nothing else may use it on the tasks
    /// that submit or run tasks.
    ///
    /// # Safety
    ///
    /// `index` must be below the kernel's `configTASK_NOTIFICATION_ARRAY_ENTRIES`
    /// (the kernel indexes its arrays with it, checked only by `configASSERT`).
    /// Index 0 is always valid.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// // SAFETY: the kernel is built with configTASK_NOTIFICATION_ARRAY_ENTRIES 2.
    /// let spawner = unsafe { antpool_freertos::StaticSpawner::new(&SLOTS).notify_index(1) };
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
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// let spawner = antpool_freertos::StaticSpawner::new(&SLOTS).tick_hz(100);
    /// assert_eq!(spawner.get_tick_hz(), 100);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn tick_hz(mut self, hz: u32) -> Self {
        self.tick_hz = hz;
        self
    }

    /// The slots this spawner starts workers on.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<4, 256> = antpool_freertos::TaskSlots::new();
    /// let spawner = antpool_freertos::StaticSpawner::new(&SLOTS);
    /// assert_eq!(spawner.slots().busy(), 0);
    /// ```
    #[must_use]
    pub const fn slots(&self) -> &'static TaskSlots<N, W, TCB> {
        self.slots
    }

    /// The task name.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(antpool_freertos::StaticSpawner::new(&SLOTS).get_name(), c"antpool");
    /// ```
    #[must_use]
    pub const fn get_name(&self) -> &'static CStr {
        self.name
    }

    /// The slot task priority.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(antpool_freertos::StaticSpawner::new(&SLOTS).get_priority(), 1);
    /// ```
    #[must_use]
    pub const fn get_priority(&self) -> UBaseType {
        self.priority
    }

    /// The notification index.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(antpool_freertos::StaticSpawner::new(&SLOTS).get_notify_index(), 0);
    /// ```
    #[must_use]
    pub const fn get_notify_index(&self) -> UBaseType {
        self.notify_index
    }

    /// The tick rate.
    ///
    /// ```
    /// # static SLOTS: antpool_freertos::TaskSlots<1, 256> = antpool_freertos::TaskSlots::new();
    /// assert_eq!(antpool_freertos::StaticSpawner::new(&SLOTS).get_tick_hz(), 1_000);
    /// ```
    #[must_use]
    pub const fn get_tick_hz(&self) -> u32 {
        self.tick_hz
    }
}

impl<const N: usize, const W: usize, const TCB: usize> fmt::Debug for StaticSpawner<N, W, TCB> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticSpawner")
            .field("slots", self.slots)
            .field("name", &self.name)
            .field("priority", &self.priority)
            .field("notify_index", &self.notify_index)
            .field("tick_hz", &self.tick_hz)
            .finish()
    }
}

impl<const N: usize, const W: usize, const TCB: usize> Spawner for StaticSpawner<N, W, TCB> {
    type Signal = TaskSignal;
    type Lock = CriticalSection;

    /// Runs `job` on a slot task: an idle slot's task is woken, an empty
    /// slot's task is made with `xTaskCreateStatic`.
    ///
    /// # Errors
    ///
    /// `Err(job)` when every slot is busy, or when the slots' `StaticTask_t`
    /// reserve is too small for the kernel's (see [`TaskSlots::check`]).
    fn spawn(&self, job: Job) -> Result<(), Job> {
        let task = TaskParams {
            name: self.name,
            priority: self.priority,
            wait_index: self.notify_index,
        };
        self.slots.start(job, &task)
    }

    /// # Panics
    ///
    /// If the scheduler is not running, as for [`FreeRtosSpawner`]: use pools
    /// from tasks only.
    fn signal(&self) -> TaskSignal {
        TaskSignal::for_current_task(self.notify_index, self.tick_hz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SLOTS: TaskSlots<2, 64, 128> = TaskSlots::new();

    #[test]
    fn spawner_options_are_kept() {
        // SAFETY: only stored and read back; no kernel call uses it.
        let s = unsafe { StaticSpawner::new(&SLOTS).notify_index(1) }
            .name(c"x")
            .priority(4)
            .tick_hz(250);
        assert_eq!(s.get_name(), c"x");
        assert_eq!(s.get_priority(), 4);
        assert_eq!(s.get_notify_index(), 1);
        assert_eq!(s.get_tick_hz(), 250);
        assert_eq!(
            (
                s.slots().len(),
                s.slots().stack_words(),
                s.slots().tcb_bytes()
            ),
            (2, 64, 128)
        );
    }
}
