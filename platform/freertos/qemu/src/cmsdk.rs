//! The interrupt check's timer on QEMU's mps2 boards (an385/386/500/505): the
//! first CMSDK APB timer.

use core::ptr::write_volatile;
use core::sync::atomic::{AtomicU16, AtomicUsize, Ordering::Relaxed};

use crate::nvic;

/// A CMSDK APB timer (the interrupt check's source), and its NVIC line.
#[derive(Clone, Copy)]
pub struct Timer {
    base: usize,
    line: u16,
    clock_hz: u32,
}

/// The board's first CMSDK timer: at 0x4000_0000 on IRQ 8 on mps2-an385/386/500
/// (25 MHz); on mps2-an505 its secure alias 0x5000_0000 on IRQ 3 (20 MHz).
pub fn timer() -> Option<Timer> {
    match super::core_name().1 {
        "mps2-an385" | "mps2-an386" | "mps2-an500" => Some(Timer {
            base: 0x4000_0000,
            line: 8,
            clock_hz: 25_000_000,
        }),
        "mps2-an505" => Some(Timer {
            base: 0x5000_0000,
            line: 3,
            clock_hz: 20_000_000,
        }),
        _ => None,
    }
}

/// The timer's line: at NVIC priority 0xC0, below the kernel's
/// `configMAX_SYSCALL_INTERRUPT_PRIORITY` (0xA0, build.rs), as a handler that
/// calls the kernel (through the pool) must be.
const TIMER_PRIORITY: u8 = 0xC0;
static TIMER_LINE: AtomicU16 = AtomicU16::new(u16::MAX);
static TIMER_BASE: AtomicUsize = AtomicUsize::new(0);

/// CTRL, VALUE, RELOAD and INTCLEAR.
const CTRL: usize = 0x00;
const VALUE: usize = 0x04;
const RELOAD: usize = 0x08;
const INTCLEAR: usize = 0x0C;

fn write(base: usize, offset: usize, value: u32) {
    // SAFETY: a register of the CMSDK timer at `base`, which only the
    // interrupt check drives.
    unsafe { write_volatile((base + offset) as *mut u32, value) }
}

impl Timer {
    /// Interrupts at `hz`, handled by `DefaultHandler`.
    pub fn start(&self, hz: u32) {
        TIMER_BASE.store(self.base, Relaxed);
        TIMER_LINE.store(self.line, Relaxed);
        write(self.base, RELOAD, self.clock_hz / hz - 1);
        write(self.base, VALUE, self.clock_hz / hz - 1);
        write(self.base, INTCLEAR, 1);
        nvic::set_priority(self.line, TIMER_PRIORITY);
        nvic::enable(self.line);
        // Enable, with its interrupt.
        write(self.base, CTRL, 0b1001);
    }

    /// No more interrupts.
    pub fn stop(&self) {
        write(self.base, CTRL, 0);
        nvic::disable(self.line);
    }
}

/// `DefaultHandler`'s part: whether `line` was the timer's (then it is
/// acknowledged and the interrupt check has run).
pub fn on_interrupt(line: u16) -> bool {
    if line != TIMER_LINE.load(Relaxed) {
        return false;
    }
    let base = TIMER_BASE.load(Relaxed);
    write(base, INTCLEAR, 1);
    if !antpool_portkit::interrupt() {
        write(base, CTRL, 0);
    }
    true
}
