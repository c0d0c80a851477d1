//! [`TickClock`]: the kernel's tick count (`tx_time_get`), extended to 64
//! bits.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};

use antpool::port::{Clock, Instant};

use crate::sys;

/// The last tick count read, and how many times it wrapped. Read and
/// written only with interrupts masked (`TX_DISABLE`), so plain loads and
/// stores suffice, and one pair serves every clock: the kernel has one tick.
static LAST: AtomicU32 = AtomicU32::new(0);
static WRAPS: AtomicU32 = AtomicU32::new(0);

/// The pool's clock on ThreadX: `tx_time_get()` at the kernel's
/// `TX_TIMER_TICKS_PER_SECOND`, extended to 64 bits.
///
/// ThreadX's tick count is a 32-bit `ULONG` that wraps (after 49.7 days at
/// 1 kHz) and, unlike FreeRTOS, the kernel counts no overflows. So each
/// reading compares itself with the last one, under `TX_DISABLE`, and
/// counts a wrap when the count went back. That needs a reading at least
/// once every 2³² ticks: a pool reads the clock whenever a worker parks or
/// wakes, and an idle worker wakes at least once per `expiry`, so this holds
/// unless a program keeps its pools idle with purging off for 49 days. (A
/// `tx_time_set` that moves the count back counts as a wrap: the clock jumps
/// forward, never back.)
///
/// The rate is the kernel's own `TX_TIMER_TICKS_PER_SECOND`, read from
/// `csrc/antpool_threadx.c`: there is no rate to pass, and none to get
/// wrong. Make the kernel's timer interrupt tick at that rate (the Linux
/// port does; on Cortex-M, your `SysTick` set-up does).
///
/// ```no_run
/// use antpool::port::Clock;
/// use antpool_threadx::TickClock;
///
/// const CLOCK: TickClock = TickClock::new();
/// // On a running ThreadX thread:
/// let (a, b) = (CLOCK.ticks(), CLOCK.ticks());
/// assert!(b >= a);
/// let _now = CLOCK.now();
/// # use antpool_threadx_sim as _; // links the kernel for this example
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TickClock;

impl TickClock {
    /// The clock (there is one tick; every `TickClock` reads it).
    ///
    /// ```
    /// const CLOCK: antpool_threadx::TickClock = antpool_threadx::TickClock::new();
    /// # let _ = CLOCK;
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        TickClock
    }

    /// The kernel's tick rate, `TX_TIMER_TICKS_PER_SECOND`.
    ///
    /// ```no_run
    /// assert!(antpool_threadx::TickClock::new().hz() >= 1);
    /// # use antpool_threadx_sim as _; // links the kernel for this example
    /// ```
    #[must_use]
    pub fn hz(&self) -> u32 {
        sys::tick_hz()
    }

    /// The tick count, extended to 64 bits.
    ///
    /// ```no_run
    /// // On a running ThreadX thread:
    /// let t = antpool_threadx::TickClock::new().ticks();
    /// # let _ = t;
    /// # use antpool_threadx_sim as _; // links the kernel for this example
    /// ```
    #[must_use]
    pub fn ticks(&self) -> u64 {
        let posture = sys::disable();
        // SAFETY: reads the kernel's tick count; callable anywhere.
        let now = unsafe { sys::_tx_time_get() };
        let wraps = extend(&LAST, &WRAPS, now);
        // SAFETY: `posture` is what the `disable` above returned, on this thread.
        unsafe { sys::restore(posture) };
        (u64::from(wraps) << 32) | u64::from(now)
    }
}

/// Records `now` as the last reading and returns the wrap count it belongs
/// to. The caller masks interrupts around it.
fn extend(last: &AtomicU32, wraps: &AtomicU32, now: u32) -> u32 {
    let mut count = wraps.load(Relaxed);
    if now < last.load(Relaxed) {
        count = count.wrapping_add(1);
        wraps.store(count, Relaxed);
    }
    last.store(now, Relaxed);
    count
}

impl Clock for TickClock {
    fn now(&self) -> Instant {
        Instant::from_ticks(self.ticks(), self.hz())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrap_of_the_tick_counts_once() {
        let (last, wraps) = (AtomicU32::new(0), AtomicU32::new(0));
        assert_eq!(extend(&last, &wraps, u32::MAX - 1), 0);
        assert_eq!(extend(&last, &wraps, u32::MAX), 0);
        assert_eq!(extend(&last, &wraps, 3), 1);
        assert_eq!(extend(&last, &wraps, 3), 1);
        assert_eq!(extend(&last, &wraps, 9), 1);
        // The 64-bit count goes on across the wrap.
        assert!((u64::from(1u32) << 32) | 3 > u64::from(u32::MAX));
    }
}
