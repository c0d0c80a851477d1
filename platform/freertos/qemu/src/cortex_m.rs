//! The Cortex-M boards (mps2-an385/386/500/505): `cortex-m-rt` starts the
//! program, semihosting carries its output and its exit code.

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
        0xC23 => ("Cortex-M3", "mps2-an385", "ARM_CM3"),
        0xC24 => ("Cortex-M4F", "mps2-an386", "ARM_CM4F"),
        0xC27 => ("Cortex-M7", "mps2-an500", "ARM_CM4F"),
        0xD21 => ("Cortex-M33", "mps2-an505", "ARM_CM33_NTZ"),
        _ => ("Cortex-M", "an unknown board", "?"),
    }
}

/// A CMSDK APB timer (the interrupt check's source), and its NVIC line.
#[derive(Clone, Copy)]
pub struct Timer {
    base: usize,
    irq: u8,
    clock_hz: u32,
}

/// The board's first CMSDK timer: at 0x4000_0000 on IRQ 8 on mps2-an385/386/500
/// (25 MHz); on mps2-an505 its secure alias 0x5000_0000 on IRQ 3 (20 MHz).
pub fn timer() -> Option<Timer> {
    match core_name().1 {
        "mps2-an385" | "mps2-an386" | "mps2-an500" => Some(Timer {
            base: 0x4000_0000,
            irq: 8,
            clock_hz: 25_000_000,
        }),
        "mps2-an505" => Some(Timer {
            base: 0x5000_0000,
            irq: 3,
            clock_hz: 20_000_000,
        }),
        _ => None,
    }
}

/// The timer's line: at NVIC priority 0xC0, below the kernel's
/// `configMAX_SYSCALL_INTERRUPT_PRIORITY` (0xA0, build.rs), as a handler that
/// calls the kernel (through the pool) must be.
const TIMER_PRIORITY: u8 = 0xC0;
static TIMER_IRQ: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(u8::MAX);
static TIMER_BASE: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

impl Timer {
    fn reg(&self, offset: usize) -> *mut u32 {
        (self.base + offset) as *mut u32
    }

    /// Interrupts at `hz`, handled by `DefaultHandler`.
    pub fn start(&self, hz: u32) {
        use core::sync::atomic::Ordering::Relaxed;
        TIMER_BASE.store(self.base, Relaxed);
        TIMER_IRQ.store(self.irq, Relaxed);
        let irq = usize::from(self.irq);
        // SAFETY: the CMSDK timer's RELOAD, VALUE, INTCLEAR and CTRL; the
        // NVIC's priority byte, clear-pending and set-enable registers of
        // this line. Nothing else drives either.
        unsafe {
            core::ptr::write_volatile(self.reg(0x08), self.clock_hz / hz - 1);
            core::ptr::write_volatile(self.reg(0x04), self.clock_hz / hz - 1);
            core::ptr::write_volatile(self.reg(0x0C), 1);
            core::ptr::write_volatile((0xE000_E400 + irq) as *mut u8, TIMER_PRIORITY);
            core::ptr::write_volatile((0xE000_E280 + 4 * (irq / 32)) as *mut u32, 1 << (irq % 32));
            core::ptr::write_volatile((0xE000_E100 + 4 * (irq / 32)) as *mut u32, 1 << (irq % 32));
            // Enable, with its interrupt.
            core::ptr::write_volatile(self.reg(0x00), 0b1001);
        }
    }

    /// No more interrupts.
    pub fn stop(&self) {
        let irq = usize::from(self.irq);
        // SAFETY: the timer's CTRL and the NVIC's clear-enable register.
        unsafe {
            core::ptr::write_volatile(self.reg(0x00), 0);
            core::ptr::write_volatile((0xE000_E180 + 4 * (irq / 32)) as *mut u32, 1 << (irq % 32));
        }
    }
}

/// Every device interrupt comes here (cortex-m-rt without a device crate):
/// the timer's calls the interrupt check; any other ends the run.
#[cortex_m_rt::exception]
unsafe fn DefaultHandler(irqn: i16) {
    use core::sync::atomic::Ordering::Relaxed;
    if irqn >= 0 && irqn as u8 == TIMER_IRQ.load(Relaxed) {
        let base = TIMER_BASE.load(Relaxed);
        // SAFETY: the timer's INTCLEAR (set up by `Timer::start`).
        unsafe { core::ptr::write_volatile((base + 0x0C) as *mut u32, 1) };
        if !crate::isr::on_interrupt() {
            // SAFETY: the timer's CTRL: stop it.
            unsafe { core::ptr::write_volatile(base as *mut u32, 0) };
        }
        return;
    }
    crate::fail(format_args!("unexpected interrupt {irqn}"))
}

/// Reached on a fault; ends the run instead of hanging.
#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    crate::fail(format_args!("hard fault at pc {:#010x}", frame.pc()))
}
