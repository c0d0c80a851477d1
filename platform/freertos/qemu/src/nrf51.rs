//! The micro:bit's nRF51822 (QEMU `microbit`): the interrupt check's timer is
//! TIMER0, and TIMER1 is the kernel's tick (`nrf51_tick.rs`).

use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use crate::nrf51_tick::{self, NrfTimer};
use crate::nvic;

/// TIMER0, on its interrupt line.
#[derive(Clone, Copy)]
pub struct Timer;

const TIMER0: NrfTimer = NrfTimer::at(0x4000_8000);
const TIMER0_LINE: u16 = 8;

/// Above the kernel's tick and task switch (0xC0): the ARM_CM0 port masks
/// every interrupt in its critical sections (it has no BASEPRI), so a
/// handler at any priority may call its FromISR functions. Its IPR word is
/// the tick's too (lines 8 to 11): `nvic::set_priority` keeps the other.
const TIMER_PRIORITY: u8 = 0x80;

static RUNNING: AtomicBool = AtomicBool::new(false);

/// TIMER0.
pub fn timer() -> Option<Timer> {
    Some(Timer)
}

impl Timer {
    /// Interrupts at `hz` (up to 1 MHz), handled by `DefaultHandler`.
    pub fn start(&self, hz: u32) {
        RUNNING.store(true, Relaxed);
        nvic::set_priority(TIMER0_LINE, TIMER_PRIORITY);
        nvic::enable(TIMER0_LINE);
        TIMER0.start_every(1_000_000 / hz, 32);
    }

    /// No more interrupts.
    pub fn stop(&self) {
        RUNNING.store(false, Relaxed);
        TIMER0.stop();
        nvic::disable(TIMER0_LINE);
    }
}

/// `DefaultHandler`'s part: whether `line` was the tick's or the interrupt
/// check's timer (then it is acknowledged and handled).
pub fn on_interrupt(line: u16) -> bool {
    match line {
        nrf51_tick::TIMER1_LINE => nrf51_tick::on_tick(),
        TIMER0_LINE => {
            TIMER0.acknowledge();
            if RUNNING.load(Relaxed) && !antpool_portkit::interrupt() {
                Timer.stop();
            }
        }
        _ => return false,
    }
    true
}
