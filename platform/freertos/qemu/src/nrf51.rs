//! The micro:bit's nRF51822 (QEMU `microbit`): the interrupt check's timer is
//! TIMER0, and TIMER1 is the kernel's tick (`nrf51_tick.rs`).

use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use crate::nrf51_tick;
use crate::nvic;

/// TIMER0, counting at 1 MHz: a compare event every `1 MHz / hz` counts,
/// which also clears the counter.
#[derive(Clone, Copy)]
pub struct Timer;

const TIMER0: usize = 0x4000_8000;
const TIMER0_LINE: u16 = 8;
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

/// Above the kernel's tick and task switch (0xC0): the ARM_CM0 port masks
/// every interrupt in its critical sections (it has no BASEPRI), so a
/// handler at any priority may call its FromISR functions. Its IPR word is
/// the tick's too (lines 8 to 11): `nvic::set_priority` keeps the other.
const TIMER_PRIORITY: u8 = 0x80;

static RUNNING: AtomicBool = AtomicBool::new(false);

fn write(offset: usize, value: u32) {
    // SAFETY: a register of TIMER0, which only the interrupt check drives.
    unsafe { write_volatile((TIMER0 + offset) as *mut u32, value) }
}

/// TIMER0.
pub fn timer() -> Option<Timer> {
    Some(Timer)
}

impl Timer {
    /// Interrupts at `hz` (up to 1 MHz), handled by `DefaultHandler`.
    pub fn start(&self, hz: u32) {
        write(TASKS_STOP, 1);
        write(MODE, 0); // a timer
        write(BITMODE, 3); // 32 bits
        write(PRESCALER, 4); // 16 MHz / 2^4 = 1 MHz
        write(CC0, 1_000_000 / hz);
        write(SHORTS, 1); // COMPARE[0] clears the counter
        write(EVENTS_COMPARE0, 0);
        write(INTENSET, 1 << 16);
        RUNNING.store(true, Relaxed);
        nvic::set_priority(TIMER0_LINE, TIMER_PRIORITY);
        nvic::enable(TIMER0_LINE);
        write(TASKS_CLEAR, 1);
        write(TASKS_START, 1);
    }

    /// No more interrupts.
    pub fn stop(&self) {
        RUNNING.store(false, Relaxed);
        write(TASKS_STOP, 1);
        write(INTENCLR, 1 << 16);
        nvic::disable(TIMER0_LINE);
    }
}

/// `DefaultHandler`'s part: whether `line` was the tick's or the interrupt
/// check's timer (then it is acknowledged and handled).
pub fn on_interrupt(line: u16) -> bool {
    match line {
        nrf51_tick::TIMER1_LINE => nrf51_tick::on_tick(),
        TIMER0_LINE => {
            write(EVENTS_COMPARE0, 0);
            // Read back, so that the cleared event has reached the timer
            // before the handler returns (else the line fires again).
            // SAFETY: TIMER0's EVENTS_COMPARE[0], as `write`.
            unsafe { read_volatile((TIMER0 + EVENTS_COMPARE0) as *const u32) };
            if RUNNING.load(Relaxed) && !crate::isr::on_interrupt() {
                Timer.stop();
            }
        }
        _ => return false,
    }
    true
}
