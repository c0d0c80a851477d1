//! [`TickClock`]: the kernel's tick count, extended to 64 bits.

use antpool::port::{Clock, Instant};

use crate::sys;
use crate::{BaseType, TickType};

/// The pool's clock on FreeRTOS: the kernel's tick count, extended to 64 bits.
///
/// It reads the tick count and the kernel's count of tick overflows together
/// (`vTaskSetTimeOutState`, inside the kernel's critical section), so a 32-bit
/// tick at 1 kHz, which wraps after 49.7 days, still gives a clock that never
/// goes back — without the port having to be called before every wrap.
///
/// ```
/// use antpool_freertos::TickClock;
/// const CLOCK: TickClock = TickClock::new(1_000); // configTICK_RATE_HZ
/// assert_eq!(CLOCK.hz(), 1_000);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TickClock {
    hz: u32,
}

impl TickClock {
    /// A clock over a tick of `hz` per second (`configTICK_RATE_HZ`; 0 counts
    /// as 1).
    ///
    /// ```
    /// assert_eq!(antpool_freertos::TickClock::new(100).hz(), 100);
    /// ```
    #[must_use = "a builder: use the one this returns"]
    pub const fn new(hz: u32) -> Self {
        TickClock { hz }
    }

    /// The tick rate.
    ///
    /// ```
    /// assert_eq!(antpool_freertos::TickClock::new(250).hz(), 250);
    /// ```
    #[must_use]
    pub const fn hz(&self) -> u32 {
        self.hz
    }

    /// The tick count since the scheduler started, extended to 64 bits.
    ///
    /// ```no_run
    /// // On a running FreeRTOS task:
    /// let clock = antpool_freertos::TickClock::new(1_000);
    /// let (a, b) = (clock.ticks(), clock.ticks());
    /// assert!(b >= a);
    /// # use antpool_freertos_sim as _; // links the kernel for this example
    /// ```
    #[must_use]
    pub fn ticks(&self) -> u64 {
        let mut now = sys::TimeOut {
            overflow_count: 0,
            time_on_entering: 0,
        };
        // SAFETY: a valid out-pointer; the kernel fills both fields in one
        // critical section.
        unsafe { sys::vTaskSetTimeOutState(&mut now) };
        extend(now.overflow_count, now.time_on_entering)
    }
}

/// The 64-bit tick count from the kernel's overflow count and tick count.
fn extend(overflows: BaseType, ticks: TickType) -> u64 {
    // A negative overflow count cannot happen (the kernel only increments it).
    extend_with(overflows as u64, wide(ticks), TickType::BITS)
}

/// A tick count as `u64`: the identity on the Posix simulator, a widening on
/// 32-bit ports, where `TickType_t` is `u32`.
#[allow(clippy::useless_conversion)] // not useless on 32-bit targets
pub(crate) fn wide(ticks: TickType) -> u64 {
    u64::from(ticks)
}

/// [`extend`] for a tick counter of `bits` bits, so that the 32-bit case
/// (Cortex-M) is tested on a 64-bit host too.
fn extend_with(overflows: u64, ticks: u64, bits: u32) -> u64 {
    if bits >= 64 {
        // A 64-bit tick does not overflow in practice (and the kernel counts none).
        ticks
    } else {
        (overflows << bits) | ticks
    }
}

impl Clock for TickClock {
    fn now(&self) -> Instant {
        Instant::from_ticks(self.ticks(), self.hz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extend_puts_overflows_above_the_tick_bits() {
        // This kernel's own width (64 bits on the Posix simulator).
        assert_eq!(extend(0, 12345), 12345);
        // A 32-bit tick (Cortex-M): overflows go above bit 31.
        assert_eq!(extend_with(0, 7, 32), 7);
        assert_eq!(extend_with(1, 0, 32), 1u64 << 32);
        assert_eq!(extend_with(2, 5, 32), (2u64 << 32) | 5);
        // The last tick before a wrap is below the first one after it.
        assert!(extend_with(0, u64::from(u32::MAX), 32) < extend_with(1, 0, 32));
        // A 64-bit tick ignores the (always zero) overflow count.
        assert_eq!(extend_with(0, u64::MAX, 64), u64::MAX);
    }
}
