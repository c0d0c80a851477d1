//! The NVIC, written as every Cortex-M allows (both QEMU programs include
//! this file). ARMv6-M — the Cortex-M0 and M0+ — takes only word accesses to
//! the NVIC's registers: a line's priority, one byte of a 32-bit IPR word
//! shared by four lines, is set by reading the word, changing its byte and
//! writing it back, with interrupts masked so that no handler writes the
//! same word in between. (ARMv7-M and ARMv8-M also allow byte writes to the
//! priorities; on ARMv6-M they are UNPREDICTABLE, though QEMU takes them.)

use core::ptr::{read_volatile, write_volatile};

/// Interrupt set-enable, clear-enable and clear-pending: one bit a line,
/// 32 lines a word; writing 1 acts, writing 0 does nothing.
const ISER: usize = 0xE000_E100;
const ICER: usize = 0xE000_E180;
const ICPR: usize = 0xE000_E280;
/// Interrupt priority: one byte a line, four lines a word.
const IPR: usize = 0xE000_E400;

/// Writes `line`'s bit in the one-bit-a-line register bank at `bank`.
fn set_bit(bank: usize, line: u16) {
    let word = (bank + 4 * usize::from(line / 32)) as *mut u32;
    // SAFETY: a write-one-to-act NVIC register of an interrupt line the
    // program owns; the other lines' bits are written as 0, which does
    // nothing to them.
    unsafe { write_volatile(word, 1 << (line % 32)) };
}

/// Gives `line` the `priority` (the top bits count: 2 of them on the
/// Cortex-M0, 3 on QEMU's mps2 boards; 0 is the most urgent).
pub fn set_priority(line: u16, priority: u8) {
    let word = (IPR + 4 * usize::from(line / 4)) as *mut u32;
    let shift = 8 * u32::from(line % 4);
    cortex_m::interrupt::free(|_| {
        // SAFETY: the IPR word of `line`, read and written whole; only
        // `line`'s byte changes, and with interrupts masked nothing writes
        // the word between the read and the write.
        unsafe {
            let others = read_volatile(word) & !(0xFF << shift);
            write_volatile(word, others | (u32::from(priority) << shift));
        }
    });
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
