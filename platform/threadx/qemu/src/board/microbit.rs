//! QEMU's microbit (the BBC micro:bit's nRF51822, a Cortex-M0 with 16 KiB of
//! RAM). The nRF51 has no SysTick (QEMU models one; the chip lacks it), so
//! the kernel's tick is TIMER1; the kit's interrupt is TIMER0. Both count a
//! 1 MHz clock (16 MHz divided by 16) to a compare event that clears them.

use core::ptr::{read_volatile, write_volatile};

use crate::nvic;

pub const BOARD: &str = "microbit";
pub const CORE: &str = "Cortex-M0";

/// An nRF51 TIMER, periodic on its compare event 0.
struct NrfTimer(usize);

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
    fn write(&self, offset: usize, value: u32) {
        // SAFETY: a register of this TIMER, which only its owner drives.
        unsafe { write_volatile((self.0 + offset) as *mut u32, value) }
    }

    /// Compare event 0 (and its interrupt) every `micros` µs, 16 bits wide.
    fn start_every(&self, micros: u32) {
        self.write(TASKS_STOP, 1);
        self.write(MODE, 0);
        self.write(BITMODE, 0);
        self.write(PRESCALER, 4);
        self.write(CC0, micros);
        self.write(SHORTS, 1);
        self.write(EVENTS_COMPARE0, 0);
        self.write(INTENSET, 1 << 16);
        self.write(TASKS_CLEAR, 1);
        self.write(TASKS_START, 1);
    }

    fn stop(&self) {
        self.write(TASKS_STOP, 1);
        self.write(INTENCLR, 1 << 16);
    }

    /// Clears compare event 0, read back so the line does not fire again.
    fn acknowledge(&self) {
        self.write(EVENTS_COMPARE0, 0);
        // SAFETY: this TIMER's EVENTS_COMPARE[0], as `write`.
        unsafe { read_volatile((self.0 + EVENTS_COMPARE0) as *const u32) };
    }
}

const TIMER0: NrfTimer = NrfTimer(0x4000_8000);
const TIMER0_LINE: u16 = 8;
const TIMER1: NrfTimer = NrfTimer(0x4000_9000);
const TIMER1_LINE: u16 = 9;

/// The tick above the lowest level (the Cortex-M0 has two priority bits):
/// ThreadX idles inside its PendSV handler, at the lowest level, waiting for
/// a thread to become ready, and only an interrupt that preempts it can make
/// one ready. At 0xC0 the tick would share PendSV's level (0xFF reads as
/// 0xC0 on two bits) and the first sleep would never end. The port's
/// example puts SysTick at 0x40. ThreadX's lockout (PRIMASK) masks both.
const TICK_PRIORITY: u8 = 0x40;
const TIMER_PRIORITY: u8 = 0x80;

/// Starts TIMER1 at the kernel's rate; ThreadX's low-level start-up calls
/// this with interrupts masked.
pub fn start_tick(tick_hz: u32) {
    nvic::set_priority(TIMER1_LINE, TICK_PRIORITY);
    nvic::enable(TIMER1_LINE);
    TIMER1.start_every(1_000_000 / tick_hz);
}

/// Interrupts at `hz`, each calling the kit.
pub fn start_interrupts(hz: u32) {
    nvic::set_priority(TIMER0_LINE, TIMER_PRIORITY);
    nvic::enable(TIMER0_LINE);
    TIMER0.start_every(1_000_000 / hz);
}

/// No more interrupts.
pub fn stop_interrupts() {
    TIMER0.stop();
    nvic::disable(TIMER0_LINE);
}

/// `DefaultHandler`'s part: whether `line` was the tick's or the kit's.
pub fn on_interrupt(line: u16) -> bool {
    match line {
        TIMER1_LINE => {
            TIMER1.acknowledge();
            crate::kernel_tick();
        }
        TIMER0_LINE => {
            TIMER0.acknowledge();
            if !antpool_portkit::interrupt() {
                TIMER0.stop();
            }
        }
        _ => return false,
    }
    true
}
