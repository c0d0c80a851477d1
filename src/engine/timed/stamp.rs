//! [`Stamp`] (feature `timings`): the admission time a task carries through
//! the lane — and, in a pool that times its queue waits per level, its level.
//!
//! A stamp travels with its task the way the task does: in a ring or list slot
//! (written with the task before the slot's `Release` store, read after the
//! popper's `Acquire` load), in a waiter's node (under the node protocol), in
//! a job record (for a new worker's first task). So it needs no atomic and no
//! ordering of its own (`engine/README.md`, "Timings").

use crate::clock::Instant;
use crate::priority::Priority;

/// When a task was admitted, if it is timed (feature `timings`) — and, in a
/// pool that times its queue waits per level, at which level.
///
/// The level rides in the top two bits ([`at_level`](Self::at_level)), `0`
/// for `Normal`: a stamp of a pool without levels, or of the `Normal` lane,
/// is the plain time, so only the `High` and `Low` ones are ever marked, and
/// only a pool with levels reads a stamp's level ([`split`](Self::split)).
/// That leaves such a pool's clock 2⁶² ns (146 years) from its origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

/// Where a stamp's level starts (see [`Stamp`]).
const LEVEL_SHIFT: u32 = 62;

impl Stamp {
    /// Not timed.
    pub(crate) const NONE: Stamp = Stamp(u64::MAX);

    /// Admitted at `at`. (The last nanosecond of 584 years reads as "not
    /// timed".)
    #[inline]
    pub(crate) const fn at(at: Instant) -> Stamp {
        Stamp(at.as_nanos())
    }

    /// The admission time, if the task is timed (a stamp no level marked:
    /// see [`split`](Self::split) for the others).
    #[inline]
    pub(crate) const fn get(self) -> Option<Instant> {
        match self.0 {
            u64::MAX => None,
            nanos => Some(Instant::from_nanos(nanos)),
        }
    }

    /// The stamp of a task that waits at `level`, for a pool that times its
    /// queue waits per level: the level in the top bits (`Normal` leaves
    /// them 0, so this is the stamp itself). One `or`: "not timed" stays
    /// so, and marking a marked stamp again at its level changes nothing.
    #[inline(always)]
    pub(crate) const fn at_level(self, level: Priority) -> Stamp {
        let code: u64 = match level {
            Priority::Normal => 0,
            Priority::High => 1,
            Priority::Low => 2,
        };
        Stamp(self.0 | code << LEVEL_SHIFT)
    }

    /// The admission time and level of a timed task of a pool that times its
    /// queue waits per level (see [`at_level`](Self::at_level)); `None` if
    /// the task is not timed.
    #[inline]
    pub(crate) const fn split(self) -> Option<(Instant, Priority)> {
        if self.0 == u64::MAX {
            return None;
        }
        let level = match self.0 >> LEVEL_SHIFT {
            1 => Priority::High,
            2 => Priority::Low,
            _ => Priority::Normal,
        };
        let nanos = self.0 & ((1 << LEVEL_SHIFT) - 1);
        Some((Instant::from_nanos(nanos), level))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_carries_its_level_in_its_top_bits() {
        let last = Instant::from_nanos((1 << LEVEL_SHIFT) - 1);
        for at in [Instant::ZERO, Instant::from_nanos(1_234_567), last] {
            let plain = Stamp::at(at);
            // Unmarked, or marked `Normal`: the plain time, read as `Normal`.
            assert_eq!(plain.at_level(Priority::Normal), plain);
            assert_eq!(plain.split(), Some((at, Priority::Normal)));
            for level in Priority::ALL {
                let marked = plain.at_level(level);
                assert_eq!(marked.split(), Some((at, level)), "{at:?} {level:?}");
                assert_eq!(marked.at_level(level), marked, "marking again");
                assert_ne!(marked, Stamp::NONE);
            }
        }
        assert_ne!(
            Stamp::at(Instant::ZERO).at_level(Priority::High),
            Stamp::at(Instant::ZERO).at_level(Priority::Low)
        );
        for level in Priority::ALL {
            assert_eq!(Stamp::NONE.at_level(level), Stamp::NONE);
        }
        assert_eq!(Stamp::NONE.split(), None);
    }
}
