//! The Cortex-M boards (mps2-an385/386/500/505, and the micro:bit):
//! `cortex-m-rt` starts the program, semihosting carries its output and its
//! exit code.

use core::fmt::Arguments;

use cortex_m_semihosting::{debug, hprintln};

#[cortex_m_rt::entry]
fn main() -> ! {
    crate::start()
}

/// Prints one line on the host's console.
pub fn print(line: Arguments<'_>) {
    hprintln!("{}", line);
}

/// Ends QEMU with exit code 0 if `passed`, 1 if not.
pub fn exit(passed: bool) -> ! {
    debug::exit(if passed {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}

/// The core, from the SCB's CPUID register (its part number) — the same ELF
/// runs on the M4F and the M7 boards — with its board and the kernel port
/// `freertos-build` picks for its target.
pub fn core_name() -> (&'static str, &'static str, &'static str) {
    // SAFETY: CPUID is a read-only register every Cortex-M core has here.
    let cpuid = unsafe { core::ptr::read_volatile(0xE000_ED00 as *const u32) };
    match (cpuid >> 4) & 0xFFF {
        0xC20 => ("Cortex-M0", "microbit", "ARM_CM0"),
        0xC23 => ("Cortex-M3", "mps2-an385", "ARM_CM3"),
        0xC24 => ("Cortex-M4F", "mps2-an386", "ARM_CM4F"),
        0xC27 => ("Cortex-M7", "mps2-an500", "ARM_CM4F"),
        0xD21 => ("Cortex-M33", "mps2-an505", "ARM_CM33_NTZ"),
        _ => ("Cortex-M", "an unknown board", "?"),
    }
}

/// The interrupt check's timer (and, on the micro:bit, the kernel's tick).
#[cfg_attr(not(microbit), path = "cmsdk.rs")]
#[cfg_attr(microbit, path = "nrf51.rs")]
mod soc;

pub use soc::timer;

/// Every device interrupt comes here (cortex-m-rt without a device crate):
/// the timers' are the board's to handle; any other ends the run.
#[cortex_m_rt::exception]
unsafe fn DefaultHandler(irqn: i16) {
    if u16::try_from(irqn).is_ok_and(soc::on_interrupt) {
        return;
    }
    crate::fail(format_args!("unexpected interrupt {irqn}"))
}

/// Reached on a fault; ends the run instead of hanging.
#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    crate::fail(format_args!("hard fault at pc {:#010x}", frame.pc()))
}
