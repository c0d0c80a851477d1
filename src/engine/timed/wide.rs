//! [`Wide`]: a 64-bit counter that only grows, for the timings' sums and
//! bucket counts — one atomic where the target has 64-bit atomics, two 32-bit
//! halves where it has not. (Statistics: loom need not track them, and does
//! not, as for `UntrackedUsize`.)
//!
//! The two-halves counter is also built for the unit tests on every target,
//! so a 64-bit host checks the one a microcontroller runs.

#[cfg(target_has_atomic = "64")]
pub(super) use one::Wide;

#[cfg(not(target_has_atomic = "64"))]
pub(super) use halves::Wide;

/// One 64-bit atomic.
#[cfg(target_has_atomic = "64")]
mod one {
    use portable_atomic::{AtomicU64, Ordering::Relaxed};

    pub(crate) struct Wide(AtomicU64);

    impl Wide {
        pub(crate) const fn new() -> Self {
            Wide(AtomicU64::new(0))
        }

        #[inline]
        pub(crate) fn add(&self, n: u64) {
            self.0.fetch_add(n, Relaxed);
        }

        pub(crate) fn get(&self) -> u64 {
            self.0.load(Relaxed)
        }
    }
}

/// Two 32-bit halves, the high one raised by whoever carries out of the low
/// one — not a global lock (`portable-atomic`'s fallback), on which a
/// preempted low-priority recorder would stall a higher-priority one on a
/// single-core RTOS. A read in the instant between the low half's wrap and
/// the carry misses 2³² (documented on [`Histogram`](crate::Histogram)).
#[cfg(any(not(target_has_atomic = "64"), test))]
mod halves {
    use portable_atomic::{AtomicU32, Ordering::Relaxed};

    pub(crate) struct Wide {
        low: AtomicU32,
        high: AtomicU32,
    }

    impl Wide {
        pub(crate) const fn new() -> Self {
            Wide {
                low: AtomicU32::new(0),
                high: AtomicU32::new(0),
            }
        }

        #[inline]
        pub(crate) fn add(&self, n: u64) {
            let low = n as u32;
            let mut carry = (n >> 32) as u32;
            if self.low.fetch_add(low, Relaxed).checked_add(low).is_none() {
                carry = carry.wrapping_add(1);
            }
            if carry != 0 {
                self.high.fetch_add(carry, Relaxed);
            }
        }

        pub(crate) fn get(&self) -> u64 {
            loop {
                let high = self.high.load(Relaxed);
                let low = self.low.load(Relaxed);
                if self.high.load(Relaxed) == high {
                    return (u64::from(high) << 32) | u64::from(low);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Both counters (whichever this target uses, and the two halves) sum
    /// past 2³², carrying out of the low half by a sum and by a sample's own
    /// high bits.
    macro_rules! carries {
        ($name:ident, $wide:path) => {
            #[test]
            fn $name() {
                use $wide as Wide;
                let wide = Wide::new();
                assert_eq!(wide.get(), 0);
                wide.add(u64::from(u32::MAX));
                assert_eq!(wide.get(), u64::from(u32::MAX));
                wide.add(2);
                assert_eq!(wide.get(), u64::from(u32::MAX) + 2);
                wide.add(3 << 32);
                assert_eq!(wide.get(), u64::from(u32::MAX) + 2 + (3 << 32));
            }
        };
    }

    carries!(this_targets_counter_carries, super::Wide);
    carries!(the_two_halves_carry, super::halves::Wide);
}
