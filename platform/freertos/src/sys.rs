//! The kernel functions this port calls, by their real names (not the macros
//! that wrap them in `task.h`).

use core::ffi::{c_char, c_int, c_void};

use crate::{BaseType, StackType, StackWords, TaskHandle, TickType, UBaseType};

/// `TaskFunction_t`. Declared `C-unwind` where panics unwind: on the Posix
/// simulator a task that deletes itself ends its pthread with a forced unwind,
/// which must be allowed to pass through the entry's frame. Plain `C`
/// elsewhere: with `panic = "abort"` a `C-unwind` declaration still plants an
/// abort-on-unwind landing pad that names `rust_eh_personality`, which
/// bare-metal targets do not define (the link of a RISC-V program failed on
/// it; on ARM the pad hid in `.ARM.extab`, which `cortex-m-rt` discards).
#[cfg(panic = "unwind")]
pub(crate) type TaskFunction = unsafe extern "C-unwind" fn(*mut c_void);
/// `TaskFunction_t` (see the `panic = "unwind"` declaration).
#[cfg(not(panic = "unwind"))]
pub(crate) type TaskFunction = unsafe extern "C" fn(*mut c_void);

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
    /// Needs `configSUPPORT_STATIC_ALLOCATION 1`. `task_buffer` is a
    /// `StaticTask_t *`; returns NULL only if either buffer is NULL.
    pub(crate) fn xTaskCreateStatic(
        code: TaskFunction,
        name: *const c_char,
        stack_depth: StackWords,
        parameters: *mut c_void,
        priority: UBaseType,
        stack_buffer: *mut StackType,
        task_buffer: *mut c_void,
    ) -> TaskHandle;
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
    /// `pdTRUE` once the time since `vTaskSetTimeOutState(timeout)` passed
    /// `*ticks_to_wait`; else lowers `*ticks_to_wait` to what is left.
    pub(crate) fn xTaskCheckForTimeOut(
        timeout: *mut TimeOut,
        ticks_to_wait: *mut TickType,
    ) -> BaseType;
    pub(crate) fn xTaskGetSchedulerState() -> BaseType;
    pub(crate) fn vPortEnterCritical();
    pub(crate) fn vPortExitCritical();
}

// Not the kernel's: `csrc/antpool_static_task.c`, compiled with the kernel by a
// program that uses `StaticSpawner` (only its TCB check reads them).
unsafe extern "C" {
    /// `sizeof(StaticTask_t)`.
    pub(crate) static antpool_static_task_size: usize;
    /// `_Alignof(StaticTask_t)`.
    pub(crate) static antpool_static_task_align: usize;
}

#[cfg(panic = "unwind")]
unsafe extern "C-unwind" {
    /// May unwind (Posix: `pthread_exit`) when a task deletes itself.
    pub(crate) fn vTaskDelete(task: TaskHandle);
}

// Where panics abort, nothing unwinds through a task's frames (see
// `TaskFunction`).
#[cfg(not(panic = "unwind"))]
unsafe extern "C" {
    pub(crate) fn vTaskDelete(task: TaskHandle);
}

// The `isr` feature's C shim (`csrc/antpool_isr.c`), and the one FromISR call
// it needs that is a real function.
#[cfg(feature = "isr")]
unsafe extern "C" {
    pub(crate) fn vTaskGenericNotifyGiveFromISR(
        task: TaskHandle,
        index: UBaseType,
        higher_priority_task_woken: *mut BaseType,
    );
    fn antpool_in_isr() -> BaseType;
    pub(crate) fn antpool_enter_critical_from_isr() -> UBaseType;
    pub(crate) fn antpool_exit_critical_from_isr(saved: UBaseType);
    pub(crate) fn antpool_yield_from_isr(higher_priority_task_woken: BaseType);
}

/// Whether the caller is an interrupt handler (`xPortIsInsideInterrupt`).
#[cfg(feature = "isr")]
pub(crate) fn in_isr() -> bool {
    // SAFETY: reads the core's state (on Cortex-M, IPSR); callable anywhere.
    unsafe { antpool_in_isr() != 0 }
}
