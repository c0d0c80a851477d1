//! The kernel's tick on the micro:bit's nRF51822 (both QEMU programs include
//! this file). A Cortex-M0's SysTick is optional and the nRF51 has none, so
//! the `ARM_CM0` port's own tick set-up (SysTick) is replaced with TIMER1:
//! 16 MHz divided down to 1 MHz, a compare event every `1 MHz / TICK_HZ`
//! counts that also clears the counter, at the lowest interrupt priority, as
//! the port gives SysTick. Its handler calls the port's tick handler. (QEMU's
//! `microbit` does model a SysTick, which the chip lacks; this does not use it.)

use core::ptr::{read_volatile, write_volatile};

use crate::kernel::TICK_HZ;
use crate::nvic;

/// TIMER1's registers, and its interrupt line.
const TIMER1: usize = 0x4000_9000;
const TASKS_START: usize = 0x000;
const TASKS_STOP: usize = 0x004;
const TASKS_CLEAR: usize = 0x00C;
const EVENTS_COMPARE0: usize = 0x140;
const SHORTS: usize = 0x200;
const INTENSET: usize = 0x304;
const MODE: usize = 0x504;
const BITMODE: usize = 0x508;
const PRESCALER: usize = 0x510;
const CC0: usize = 0x540;
pub const TIMER1_LINE: u16 = 9;

/// The lowest priority on the Cortex-M0's two bits: the kernel's own level.
const KERNEL_PRIORITY: u8 = 0xC0;

unsafe extern "C" {
    /// The port's tick handler: `SysTick_Handler`, named `SysTick` by
    /// freertos-next's `FreeRTOSConfig.h` (cortex-m-rt's name for it).
    fn SysTick();
}

fn write(offset: usize, value: u32) {
    // SAFETY: a register of TIMER1, which only the kernel's tick uses.
    unsafe { write_volatile((TIMER1 + offset) as *mut u32, value) }
}

/// Replaces the port's weak `vPortSetupTimerInterrupt` (SysTick's set-up);
/// `vPortStartScheduler` calls it once, with interrupts masked.
#[unsafe(no_mangle)]
extern "C" fn vPortSetupTimerInterrupt() {
    write(TASKS_STOP, 1);
    write(MODE, 0); // a timer, not a counter
    write(BITMODE, 0); // 16 bits (TIMER1 has no more)
    write(PRESCALER, 4); // 16 MHz / 2^4 = 1 MHz
    write(CC0, 1_000_000 / TICK_HZ);
    write(SHORTS, 1); // COMPARE[0] clears the counter
    write(EVENTS_COMPARE0, 0);
    write(INTENSET, 1 << 16); // COMPARE[0]
    nvic::set_priority(TIMER1_LINE, KERNEL_PRIORITY);
    nvic::enable(TIMER1_LINE);
    write(TASKS_CLEAR, 1);
    write(TASKS_START, 1);
}

/// TIMER1's interrupt: one tick. Call it from the handler of
/// [`TIMER1_LINE`].
pub fn on_tick() {
    write(EVENTS_COMPARE0, 0);
    // Read the event back: on the chip the write reaches the peripheral
    // after the handler may have returned, and the line would fire again.
    // SAFETY: TIMER1's EVENTS_COMPARE[0], as above.
    unsafe { read_volatile((TIMER1 + EVENTS_COMPARE0) as *const u32) };
    // SAFETY: the port's tick handler, called from the tick's interrupt, as
    // SysTick's vector would; it masks interrupts around its work itself.
    unsafe { SysTick() };
}
