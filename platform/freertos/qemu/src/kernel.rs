//! What both QEMU programs (this one and `../qemu-static`, which includes
//! this file by path) need from the kernel and from each other: the tick
//! clock, delays, task counts and stack high-water marks, the checks of
//! their own beside the port kit's, and the hooks the kernel and the runtime
//! call. The including crate provides `print` (one line on its console) and
//! `fail` (print, then exit QEMU with a failure).

use core::ffi::{CStr, c_char, c_ulong, c_void};
use core::panic::PanicInfo;

use antpool_freertos::TickClock;
use antpool_portkit::Checks;

pub type UBaseType = c_ulong;
pub type TickType = c_ulong;
pub type TaskHandle = *mut c_void;
/// `StackType_t`: the word stacks are counted in.
pub type StackType = c_ulong;

unsafe extern "C" {
    fn vTaskStartScheduler();
    fn vTaskDelay(ticks: TickType);
    fn xTaskGetTickCount() -> TickType;
    fn uxTaskGetNumberOfTasks() -> UBaseType;
    fn uxTaskGetStackHighWaterMark(task: TaskHandle) -> UBaseType;
}

/// `configTICK_RATE_HZ`.
pub const TICK_HZ: u32 = 1_000;

/// The pools' clock: the tick count extended to 64 bits. The kernel starts its
/// 32-bit tick 60 ticks before the wrap (config/UserConfig.h), so every
/// measurement here crosses it.
pub const CLOCK: TickClock = TickClock::new(TICK_HZ);

pub fn ticks() -> u64 {
    CLOCK.ticks()
}

/// The kernel's own 32-bit tick count.
pub fn raw_ticks() -> u32 {
    // SAFETY: reads the tick count; callable from any task.
    unsafe { xTaskGetTickCount() as u32 }
}

pub fn delay(ticks: u32) {
    // SAFETY: blocks the calling task (always a task here, never an interrupt).
    unsafe { vTaskDelay(TickType::from(ticks)) }
}

pub fn task_count() -> usize {
    // SAFETY: reads a kernel counter.
    unsafe { uxTaskGetNumberOfTasks() as usize }
}

/// Waits (in 1-tick steps) up to `limit` ticks for `done`; the ticks it took.
/// (`../qemu-static` waits with it; this program's waits are the kit's.)
#[allow(dead_code)]
pub fn wait_until(limit: u64, mut done: impl FnMut() -> bool) -> Option<u64> {
    let start = ticks();
    loop {
        if done() {
            return Some(ticks() - start);
        }
        if ticks() - start > limit {
            return None;
        }
        delay(1);
    }
}

/// Whether the caller is an interrupt handler, as antpool-freertos's `isr`
/// feature decides it (`csrc/antpool_isr.c`: `xPortIsInsideInterrupt`, or
/// on RISC-V the glue's test of the stack pointer).
pub fn in_isr() -> bool {
    unsafe extern "C" {
        fn antpool_in_isr() -> core::ffi::c_long;
    }
    // SAFETY: reads the core's state; callable anywhere.
    unsafe { antpool_in_isr() != 0 }
}

/// The smallest stack reserve (in words) the calling task has ever had.
pub fn own_stack_high_water() -> usize {
    // SAFETY: NULL means the calling task, which is alive.
    unsafe { uxTaskGetStackHighWaterMark(core::ptr::null_mut()) as usize }
}

/// The check that nothing allocated on the Rust heap: `allocations`, what the
/// program's counting global allocator counted during the checks. (On the
/// micro:bit there is no allocator: nothing links `alloc`.)
#[cfg(not(microbit))]
pub fn check_no_allocations(checks: &mut Checks, allocations: usize) {
    checks.check(
        "no Rust heap allocation",
        allocations == 0,
        format_args!("{allocations} allocations"),
    );
}

/// The main stack — interrupt handlers', and start-up's before the scheduler
/// — on the micro:bit: how many of its bytes were ever used, and its size.
/// It is the RAM that the program's statics leave (cortex-m-rt puts it at
/// the top, down to `_stack_end`) and cortex-m-rt painted it before `main`
/// (its `paint-stack` feature): the used part is what lost the paint.
#[cfg(microbit)]
pub fn main_stack_use() -> (usize, usize) {
    unsafe extern "C" {
        static _stack_end: u32;
        static _stack_start: u32;
    }
    let end = &raw const _stack_end;
    let start = &raw const _stack_start;
    let words = (start as usize - end as usize) / 4;
    // The stack grows down from `_stack_start`: the first word from the
    // bottom that lost the paint is as deep as it ever went.
    let untouched = (0..words)
        // SAFETY: words of the main stack, in RAM; read one at a time while
        // handlers may write above the deepest point (never below it).
        .take_while(|&i| unsafe { end.add(i).read_volatile() } == cortex_m_rt::STACK_PAINT_VALUE)
        .count();
    (4 * (words - untouched), 4 * words)
}

/// The check that the main stack had room to spare (see [`main_stack_use`]).
#[cfg(microbit)]
pub fn check_main_stack(checks: &mut Checks) {
    let (used, size) = main_stack_use();
    checks.check(
        "the main stack (interrupts, start-up) had room to spare",
        used + 512 <= size,
        format_args!("{used} of {size} bytes used at most (the RAM the statics leave)"),
    );
}

/// The kernel's 32-bit tick and the pools' 64-bit clock at one moment: the
/// start of a run, whose end checks that the tick wrapped (the kernel starts
/// it 60 ticks before the wrap) and the clock did not.
pub struct TickMark {
    raw: u32,
    clock: u64,
}

impl TickMark {
    pub fn now() -> Self {
        TickMark {
            raw: raw_ticks(),
            clock: ticks(),
        }
    }

    /// Checks that the tick wrapped since this mark and the clock went on.
    pub fn check_wrapped(&self, checks: &mut Checks) {
        let (start, now) = (self, TickMark::now());
        checks.check(
            "the 32-bit tick wrapped during the run; the pool's clock went on",
            now.raw < start.raw && now.clock > start.clock,
            format_args!(
                "kernel tick {:#010x} -> {:#010x}, clock {:#x} -> {:#x}",
                start.raw, now.raw, start.clock, now.clock
            ),
        );
    }
}

/// Starts the scheduler; returns only if it could not start.
pub fn start_scheduler() -> ! {
    // SAFETY: called once, from the start-up code, before any task runs; it
    // does not return unless the kernel cannot make its idle task.
    unsafe { vTaskStartScheduler() };
    crate::fail(format_args!("the scheduler did not start"))
}

/// `configCHECK_FOR_STACK_OVERFLOW 2` calls this when a task overran its stack.
#[unsafe(no_mangle)]
extern "C" fn vApplicationStackOverflowHook(_task: TaskHandle, name: *const c_char) {
    // SAFETY: the kernel passes the task's NUL-terminated name.
    let name = unsafe { CStr::from_ptr(name) };
    crate::fail(format_args!("stack overflow in task {name:?}"))
}

/// `configASSERT` calls this (freertos-next's `FreeRTOSConfig.h`). freertos-next
/// defines it on the boards where it builds; on the micro:bit the program
/// does, as freertos-next's does: it ends the run.
#[cfg(microbit)]
#[unsafe(no_mangle)]
extern "C" fn assert_callback(line: u32, file: *const c_char) {
    // SAFETY: the kernel passes `__FILE__`, a NUL-terminated literal.
    let file = unsafe { CStr::from_ptr(file) };
    crate::fail(format_args!("configASSERT failed at {file:?}:{line}"))
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    crate::fail(format_args!("panic: {info}"))
}
