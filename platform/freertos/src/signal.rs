//! [`TaskSignal`]: the pool's signal on a task-notification slot.

use core::fmt;
use core::ptr;
use core::time::Duration;

use antpool::port::{Signal, ticks_at_least};

use crate::clock::wide;
use crate::sys;
use crate::{TaskHandle, TickType, UBaseType};

// Named in the docs.
#[cfg(doc)]
use crate::spawner::FreeRtosSpawner;
#[cfg(doc)]
use antpool::port::Spawner;

/// A pool signal on FreeRTOS: one task-notification slot of the task that made
/// it.
///
/// `notify` is `xTaskNotifyGiveIndexed` (increment the slot's value), and the
/// waits are `ulTaskNotifyTakeIndexed` with clear-on-exit (a timed wait that
/// `xTaskAbortDelay` ends early waits out the rest): a notify that comes
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
/// use antpool::port::{Signal, Spawner};
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
    pub(crate) task: TaskHandle,
    pub(crate) index: UBaseType,
    pub(crate) tick_hz: u32,
}

// SAFETY: the handle names a kernel task; the kernel's notification calls may be
// made from any task, and the fields are never written after construction.
unsafe impl Send for TaskSignal {}
// SAFETY: as above: shared use only reads the fields and calls the kernel.
unsafe impl Sync for TaskSignal {}

impl TaskSignal {
    /// A signal on notification slot `index` of the calling task: what
    /// [`Spawner::signal`] returns for [`FreeRtosSpawner`] and
    /// [`StaticSpawner`](crate::StaticSpawner).
    ///
    /// # Panics
    ///
    /// If the scheduler is not running (before `vTaskStartScheduler`, or
    /// between `vTaskSuspendAll` and `xTaskResumeAll`): the pool would block
    /// the calling code on a notification no task can receive.
    pub(crate) fn for_current_task(index: UBaseType, tick_hz: u32) -> TaskSignal {
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
            index,
            tick_hz,
        }
    }

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
        if left == 0 {
            return self.take(0);
        }
        // Longest single wait that is not "forever".
        let chunk = wide(sys::MAX_DELAY - 1);
        loop {
            let piece = left.min(chunk);
            // A take can also end early without a token (`xTaskAbortDelay`
            // on this task): the kernel's timeout record says what is left
            // of the piece, and the wait goes on for that (rule 2).
            let mut since = sys::TimeOut {
                overflow_count: 0,
                time_on_entering: 0,
            };
            // SAFETY: a valid out-pointer; the kernel fills it.
            unsafe { sys::vTaskSetTimeOutState(&mut since) };
            let mut remaining = piece as TickType;
            loop {
                if self.take(remaining) {
                    return true;
                }
                // SAFETY: the record set above, and a valid in/out count.
                if unsafe { sys::xTaskCheckForTimeOut(&mut since, &mut remaining) } == sys::PD_TRUE
                {
                    break;
                }
            }
            left -= piece;
            if left == 0 {
                return false;
            }
        }
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: the caller keeps `*this` alive until the token is published;
        // we copy what we need out of it first and never touch it again.
        let (task, index) = unsafe { ((*this).task, (*this).index) };
        #[cfg(feature = "isr")]
        if sys::in_isr() {
            let mut woken: crate::BaseType = 0;
            // SAFETY: as below; the FromISR form is the one an interrupt
            // handler may call. `woken` says whether the notified task
            // outranks the one interrupted: if so, switch to it when the
            // handler returns (`portYIELD_FROM_ISR`).
            unsafe {
                sys::vTaskGenericNotifyGiveFromISR(task, index, &mut woken);
                sys::antpool_yield_from_isr(woken);
            }
            return;
        }
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
