//! The kernel's tick on the micro:bit's nRF51822 (both QEMU programs include
//! this file), and the nRF51 TIMER it runs on. A Cortex-M0's SysTick is
//! optional and the nRF51 has none, so the `ARM_CM0` port's own tick set-up
//! (SysTick) is replaced with TIMER1: 16 MHz divided down to 1 MHz, a compare
//! event every `1 MHz / TICK_HZ` counts that also clears the counter, at the
//! lowest interrupt priority, as the port gives SysTick. Its handler calls
//! the port's tick handler. (QEMU's `microbit` does model a SysTick, which
//! the chip lacks; this does not use it.)

use core::ptr::{read_volatile, write_volatile};

use crate::kernel::TICK_HZ;
use crate::nvic;

/// An nRF51 TIMER, run as a periodic 1 MHz timer on its compare event 0.
pub struct NrfTimer {
    base: usize,
}

const TASKS_START: usize = 0x000;
const TASKS_STOP: usize = 0x004;
const TASKS_CLEAR: usize = 0x00C;
const EVENTS_COMPARE0: usize = 0x140;
const SHORTS: usize = 0x200;
const INTENSET: usize = 0x304;
const INTENCLR: usize = 0x308;
const MODE: usize = 0x504;
const BITMODE: usize = 0x508;
const PRESCALER: usize = 0x510;
const CC0: usize = 0x540;

impl NrfTimer {
    /// The TIMER at `base` (TIMER0 0x4000_8000, TIMER1 0x4000_9000, …), used
    /// by nothing else.
    pub const fn at(base: usize) -> Self {
        NrfTimer { base }
    }

    fn write(&self, offset: usize, value: u32) {
        // SAFETY: a register of this TIMER, which only its owner drives.
        unsafe { write_volatile((self.base + offset) as *mut u32, value) }
    }

    /// Compare event 0 (and its interrupt) every `micros` µs, the counter
    /// `bits` wide (16 on TIMER1 and TIMER2, up to 32 on TIMER0).
    pub fn start_every(&self, micros: u32, bits: u32) {
        self.write(TASKS_STOP, 1);
        self.write(MODE, 0); // a timer, not a counter
        self.write(BITMODE, if bits == 32 { 3 } else { 0 }); // 32 or 16 bits
        self.write(PRESCALER, 4); // 16 MHz / 2^4 = 1 MHz
        self.write(CC0, micros);
        self.write(SHORTS, 1); // COMPARE[0] clears the counter
        self.write(EVENTS_COMPARE0, 0);
        self.write(INTENSET, 1 << 16); // COMPARE[0]
        self.write(TASKS_CLEAR, 1);
        self.write(TASKS_START, 1);
    }

    /// No more events or interrupts.
    pub fn stop(&self) {
        self.write(TASKS_STOP, 1);
        self.write(INTENCLR, 1 << 16);
    }

    /// Clears compare event 0, in the event's handler. It is read back: on
    /// the chip the write reaches the peripheral after the handler may have
    /// returned, and the line would fire again.
    pub fn acknowledge(&self) {
        self.write(EVENTS_COMPARE0, 0);
        // SAFETY: this TIMER's EVENTS_COMPARE[0], as `write`.
        unsafe { read_volatile((self.base + EVENTS_COMPARE0) as *const u32) };
    }
}

/// TIMER1, the kernel's tick, and its interrupt line.
const TIMER1: NrfTimer = NrfTimer::at(0x4000_9000);
pub const TIMER1_LINE: u16 = 9;

/// The lowest priority on the Cortex-M0's two bits: the kernel's own level.
const KERNEL_PRIORITY: u8 = 0xC0;

unsafe extern "C" {
    /// The port's tick handler: `SysTick_Handler`, named `SysTick` by
    /// freertos-next's `FreeRTOSConfig.h` (cortex-m-rt's name for it).
    fn SysTick();
}

/// Replaces the port's weak `vPortSetupTimerInterrupt` (SysTick's set-up);
/// `vPortStartScheduler` calls it once, with interrupts masked.
#[unsafe(no_mangle)]
extern "C" fn vPortSetupTimerInterrupt() {
    nvic::set_priority(TIMER1_LINE, KERNEL_PRIORITY);
    nvic::enable(TIMER1_LINE);
    TIMER1.start_every(1_000_000 / TICK_HZ, 16);
}

/// TIMER1's interrupt: one tick. Call it from the handler of
/// [`TIMER1_LINE`].
pub fn on_tick() {
    TIMER1.acknowledge();
    // SAFETY: the port's tick handler, called from the tick's interrupt, as
    // SysTick's vector would; it masks interrupts around its work itself.
    unsafe { SysTick() };
}
