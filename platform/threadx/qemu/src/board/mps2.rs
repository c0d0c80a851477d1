//! QEMU's mps2-an385 (Cortex-M3, 25 MHz): the kernel's tick is SysTick, the
//! kit's interrupt is the first CMSDK APB timer (0x4000_0000, IRQ 8).

use core::ptr::write_volatile;

use crate::nvic;

pub const BOARD: &str = "mps2-an385";
pub const CORE: &str = "Cortex-M3";

/// The core clock, which drives SysTick and the timer.
const CLOCK_HZ: u32 = 25_000_000;

/// Starts SysTick at the kernel's rate; ThreadX's low-level start-up calls
/// this with interrupts masked.
pub fn start_tick(tick_hz: u32) {
    const SYST_CSR: usize = 0xE000_E010;
    const SYST_RVR: usize = 0xE000_E014;
    const SYST_CVR: usize = 0xE000_E018;
    // SAFETY: SysTick's registers, which only this start-up drives: reload
    // for the tick rate, count from it, and enable with its interrupt on
    // the core clock.
    unsafe {
        write_volatile(SYST_RVR as *mut u32, CLOCK_HZ / tick_hz - 1);
        write_volatile(SYST_CVR as *mut u32, 0);
        write_volatile(SYST_CSR as *mut u32, 0b111);
    }
}

/// SysTick: one tick of the kernel.
#[cortex_m_rt::exception]
fn SysTick() {
    crate::kernel_tick();
}

/// The CMSDK timer's base, line and registers.
const TIMER: usize = 0x4000_0000;
const TIMER_LINE: u16 = 8;
const CTRL: usize = 0x00;
const VALUE: usize = 0x04;
const RELOAD: usize = 0x08;
const INTCLEAR: usize = 0x0C;
/// Any level: ThreadX's lockout (PRIMASK) masks every interrupt.
const TIMER_PRIORITY: u8 = 0x80;

fn write(offset: usize, value: u32) {
    // SAFETY: a register of the CMSDK timer, which only the kit's
    // interrupt check drives.
    unsafe { write_volatile((TIMER + offset) as *mut u32, value) }
}

/// Interrupts at `hz`, each calling the kit.
pub fn start_interrupts(hz: u32) {
    write(RELOAD, CLOCK_HZ / hz - 1);
    write(VALUE, CLOCK_HZ / hz - 1);
    write(INTCLEAR, 1);
    nvic::set_priority(TIMER_LINE, TIMER_PRIORITY);
    nvic::enable(TIMER_LINE);
    write(CTRL, 0b1001); // enable, with its interrupt
}

/// No more interrupts.
pub fn stop_interrupts() {
    write(CTRL, 0);
    nvic::disable(TIMER_LINE);
}

/// `DefaultHandler`'s part: whether `line` was the timer's.
pub fn on_interrupt(line: u16) -> bool {
    if line != TIMER_LINE {
        return false;
    }
    write(INTCLEAR, 1);
    if !antpool_portkit::interrupt() {
        write(CTRL, 0);
    }
    true
}
