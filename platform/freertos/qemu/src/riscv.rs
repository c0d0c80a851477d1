//! QEMU's `virt` board with an RV32IMAC hart (`riscv32imac-unknown-none-elf`,
//! the kernel's `GCC/RISC-V` port on the CLINT's machine timer): a few lines
//! of start-up code, output on the 16550 UART, and the exit code through the
//! SiFive test device. No runtime crate: `link-riscv.x` lays the program out.

use core::fmt::{Arguments, Write};
use core::sync::atomic::{AtomicBool, Ordering::Acquire, Ordering::Release};

// The reset vector (QEMU jumps to 0x8000_0000 with `-bios none`): the global
// pointer and the stack, `.bss` zeroed, every trap to the kernel's handler,
// then `rust_start`. (`.data` needs no copy: QEMU loads the ELF into RAM.)
core::arch::global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, _stack_top
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  la t0, freertos_risc_v_trap_handler
    csrw mtvec, t0
    call rust_start
3:  j 3b
"#
);

/// Where `_start` goes once memory is ready.
#[unsafe(no_mangle)]
extern "C" fn rust_start() -> ! {
    crate::start()
}

/// The 16550 UART's transmit register and line status register.
const UART_THR: *mut u8 = 0x1000_0000 as *mut u8;
const UART_LSR: *const u8 = 0x1000_0005 as *const u8;
/// The SiFive test device: 0x5555 ends QEMU with 0, `code << 16 | 0x3333` with `code`.
const TEST_DEVICE: *mut u32 = 0x0010_0000 as *mut u32;

/// Serialises printing: tasks on one hart are preempted by the tick, and a
/// line cut in half by another task's line is hard to read. (A try-lock, so a
/// fault inside a print still gets its message out.)
static PRINTING: AtomicBool = AtomicBool::new(false);

struct Uart;

impl Write for Uart {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        for byte in s.bytes() {
            // SAFETY: the 16550's registers on `virt`; bit 5 of LSR is "THR empty".
            unsafe {
                while core::ptr::read_volatile(UART_LSR) & 0x20 == 0 {}
                core::ptr::write_volatile(UART_THR, byte);
            }
        }
        Ok(())
    }
}

/// Prints one line on the UART (QEMU's `-nographic` console).
pub fn print(line: Arguments<'_>) {
    let mut spins = 0u32;
    while PRINTING
        .compare_exchange(false, true, Acquire, Acquire)
        .is_err()
        && spins < 1_000_000
    {
        spins += 1;
        core::hint::spin_loop();
    }
    let _ = writeln!(Uart, "{line}");
    PRINTING.store(false, Release);
}

/// Ends QEMU with exit code 0 if `passed`, 1 if not.
pub fn exit(passed: bool) -> ! {
    let code = if passed { 0x5555 } else { (1 << 16) | 0x3333 };
    // SAFETY: the test device's only register on `virt`; the write ends QEMU.
    unsafe { core::ptr::write_volatile(TEST_DEVICE, code) };
    #[allow(clippy::empty_loop)]
    loop {}
}

/// The core, its board and the kernel port.
pub fn core_name() -> (&'static str, &'static str, &'static str) {
    ("RV32IMAC", "virt", "GCC/RISC-V")
}

/// The kernel calls this for a trap that is neither an interrupt nor an
/// environment call (the port's weak default loops forever); ends the run.
/// `resume` is where the port would return to: the faulting instruction's
/// address plus 4.
#[unsafe(no_mangle)]
extern "C" fn freertos_risc_v_application_exception_handler(mcause: usize, resume: usize) {
    crate::fail(format_args!(
        "exception, mcause {mcause:#x}, return address {resume:#010x}"
    ))
}

/// The interrupt check's source on `virt`: the Goldfish RTC's alarm, a
/// device interrupt (line 11) through the PLIC to the hart's machine
/// external interrupt, which the kernel's port enables (`mie.MEIE`) and
/// passes to `freertos_risc_v_application_interrupt_handler`.
#[derive(Clone, Copy)]
pub struct Timer;

const RTC: usize = 0x0010_1000;
const RTC_TIME_LOW: usize = RTC;
const RTC_TIME_HIGH: usize = RTC + 0x04;
const RTC_ALARM_LOW: usize = RTC + 0x08;
const RTC_ALARM_HIGH: usize = RTC + 0x0C;
const RTC_IRQ_ENABLED: usize = RTC + 0x10;
const RTC_CLEAR_INTERRUPT: usize = RTC + 0x1C;
const RTC_IRQ: usize = 11;
const PLIC: usize = 0x0C00_0000;
/// Hart 0's machine-mode context: its enable bits, threshold and claim.
const PLIC_ENABLE: usize = PLIC + 0x2000;
const PLIC_THRESHOLD: usize = PLIC + 0x20_0000;
const PLIC_CLAIM: usize = PLIC + 0x20_0004;

/// The alarm's period, in the RTC's nanoseconds.
static PERIOD_NS: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

fn write(addr: usize, value: u32) {
    // SAFETY: a register of the RTC or the PLIC on `virt` (the constants above).
    unsafe { core::ptr::write_volatile(addr as *mut u32, value) }
}

fn read(addr: usize) -> u32 {
    // SAFETY: as for `write`.
    unsafe { core::ptr::read_volatile(addr as *const u32) }
}

/// Arms the RTC's alarm one period from now.
fn arm() {
    let now = u64::from(read(RTC_TIME_LOW)) | (u64::from(read(RTC_TIME_HIGH)) << 32);
    let at = now + u64::from(PERIOD_NS.load(core::sync::atomic::Ordering::Relaxed));
    write(RTC_ALARM_HIGH, (at >> 32) as u32);
    write(RTC_ALARM_LOW, at as u32); // this write arms it
}

/// The Goldfish RTC: every board `virt` has one.
pub fn timer() -> Option<Timer> {
    Some(Timer)
}

impl Timer {
    /// Interrupts at about `hz` (each one arms the next).
    pub fn start(&self, hz: u32) {
        PERIOD_NS.store(1_000_000_000 / hz, core::sync::atomic::Ordering::Relaxed);
        write(PLIC + 4 * RTC_IRQ, 1);
        write(PLIC_THRESHOLD, 0);
        write(PLIC_ENABLE, read(PLIC_ENABLE) | 1 << RTC_IRQ);
        write(RTC_IRQ_ENABLED, 1);
        arm();
    }

    /// No more interrupts.
    pub fn stop(&self) {
        write(RTC_IRQ_ENABLED, 0);
        write(PLIC_ENABLE, read(PLIC_ENABLE) & !(1 << RTC_IRQ));
    }
}

/// The kernel calls this for an interrupt other than its machine timer: the
/// RTC's, through the PLIC, calls the interrupt check; any other ends the run.
#[unsafe(no_mangle)]
extern "C" fn freertos_risc_v_application_interrupt_handler(mcause: usize) {
    const MACHINE_EXTERNAL: usize = (1 << 31) | 11;
    if mcause == MACHINE_EXTERNAL {
        let line = read(PLIC_CLAIM);
        if line as usize == RTC_IRQ {
            write(RTC_CLEAR_INTERRUPT, 1);
            if antpool_portkit::interrupt() {
                arm();
            } else {
                write(RTC_IRQ_ENABLED, 0);
            }
            write(PLIC_CLAIM, line); // complete
            return;
        }
        crate::fail(format_args!("unexpected device interrupt {line}"))
    }
    crate::fail(format_args!("unexpected interrupt, mcause {mcause:#x}"))
}
