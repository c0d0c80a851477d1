//! The NVIC and the system handlers' priorities, written a word at a time:
//! ARMv6-M (the Cortex-M0) takes only word accesses to these registers, and
//! a line's priority is one byte of a word four lines share. So a priority
//! is set by reading the word, changing its byte and writing it back, with
//! interrupts masked so that no handler writes the same word in between.

use core::ptr::{read_volatile, write_volatile};

/// Interrupt set-enable and clear-enable, clear-pending: one bit a line.
const ISER: usize = 0xE000_E100;
const ICER: usize = 0xE000_E180;
const ICPR: usize = 0xE000_E280;
/// Interrupt priority: one byte a line, four lines a word.
const IPR: usize = 0xE000_E400;
/// System handler priorities 12–15 (SysTick, PendSV) and 8–11 (SVCall).
const SHPR3: usize = 0xE000_ED20;
const SHPR2: usize = 0xE000_ED1C;

/// Writes `line`'s bit in the one-bit-a-line bank at `bank`.
fn set_bit(bank: usize, line: u16) {
    let word = (bank + 4 * usize::from(line / 32)) as *mut u32;
    // SAFETY: a write-one-to-act NVIC register; the other lines' bits are
    // written as 0, which does nothing to them.
    unsafe { write_volatile(word, 1 << (line % 32)) };
}

/// Replaces byte `index` of the word at `address` with `value`.
fn set_byte(address: usize, index: u32, value: u8) {
    let word = address as *mut u32;
    let shift = 8 * index;
    cortex_m::interrupt::free(|_| {
        // SAFETY: a priority register, read and written whole; only one byte
        // changes, and with interrupts masked nothing writes the word between
        // the read and the write.
        unsafe {
            let others = read_volatile(word) & !(0xFF << shift);
            write_volatile(word, others | (u32::from(value) << shift));
        }
    });
}

/// Gives interrupt `line` the `priority` (the top bits count; 0 is the most
/// urgent).
pub fn set_priority(line: u16, priority: u8) {
    set_byte(
        IPR + 4 * usize::from(line / 4),
        u32::from(line % 4),
        priority,
    );
}

/// Lets `line` interrupt, forgetting an interrupt it raised before.
pub fn enable(line: u16) {
    set_bit(ICPR, line);
    set_bit(ISER, line);
}

/// Stops `line` from interrupting.
pub fn disable(line: u16) {
    set_bit(ICER, line);
}

/// ThreadX's system handler priorities: PendSV (its context switch) and
/// SVCall at the lowest, SysTick above them (as the port's example
/// `tx_initialize_low_level.S` sets them).
pub fn set_kernel_priorities() {
    set_byte(SHPR3, 2, 0xFF); // PendSV
    set_byte(SHPR3, 3, 0x40); // SysTick
    set_byte(SHPR2, 3, 0xFF); // SVCall
}
