//! [`Stamp`]: the admission time a task carries through the lane (feature
//! `timings`), and [`Taken`]: a task as a worker takes it.
//!
//! Without the feature none of it exists where a task travels: the aliases
//! below are the task itself and the macros expand to the code without a stamp,
//! so the hot paths compile to what they were (not merely to what an optimiser
//! makes of a zero-sized stamp: a wrapper around a task is a move of it, and
//! its moves are what a tiny task's cost is made of: `BENCHMARKS.md`, "What the
//! engine's constants rest on").
//!
//! A stamp travels with its task the way the task does: in a ring or list slot
//! (written with the task before the slot's `Release` store, read after the
//! popper's `Acquire` load), in a waiter's node (under the node protocol), in a
//! job record (for a new worker's first task). So it needs no atomic and no
//! ordering of its own (`timed.rs`, "No new protocol").

#[cfg(feature = "timings")]
use crate::clock::Instant;
#[cfg(all(feature = "timings", feature = "alloc"))]
use crate::priority::Priority;

/// When a task was admitted, if it is timed (feature `timings`) — and, in a
/// pool that times its queue waits per level, at which level.
///
/// The level rides in the top two bits ([`at_level`](Self::at_level)), `0`
/// for `Normal`: a stamp of a pool without levels, or of the `Normal` lane,
/// is the plain time, so only the `High` and `Low` ones are ever marked, and
/// only a pool with levels reads a stamp's level ([`split`](Self::split)).
/// That leaves such a pool's clock 2⁶² ns (146 years) from its origin.
#[cfg(feature = "timings")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

/// Where a stamp's level starts (see [`Stamp`]).
#[cfg(all(feature = "timings", feature = "alloc"))]
const LEVEL_SHIFT: u32 = 62;

#[cfg(feature = "timings")]
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
    #[cfg(feature = "alloc")]
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
    #[cfg(feature = "alloc")]
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

/// A task with its stamp, as the lane and a new worker's job record carry it
/// (without the feature: the task).
#[cfg(feature = "timings")]
pub(crate) type Stamped<T> = (T, Stamp);
/// A task with its stamp (without the feature: the task).
#[cfg(not(feature = "timings"))]
pub(crate) type Stamped<T> = T;

/// A task as a worker takes it (without the feature: the task).
#[cfg(feature = "timings")]
pub(crate) type TakenOf<F> = Taken<<F as super::Flavor>::Task>;
/// A task as a worker takes it (without the feature: the task).
#[cfg(not(feature = "timings"))]
pub(crate) type TakenOf<F> = <F as super::Flavor>::Task;

/// A task as a worker takes it: with its stamp, and whether the worker looked
/// or parked for it — then the end of its last task is not this one's start.
#[cfg(feature = "timings")]
pub(crate) struct Taken<T> {
    pub(crate) task: T,
    pub(crate) stamp: Stamp,
    pub(crate) fresh: bool,
}

#[cfg(feature = "timings")]
impl<T> Taken<T> {
    /// A task taken straight after the worker's last one (from the lane or a
    /// blocked submitter).
    #[inline(always)]
    pub(crate) fn straight((task, stamp): Stamped<T>) -> Self {
        Taken {
            task,
            stamp,
            fresh: false,
        }
    }

    /// The same task, found after the worker looked or parked (or its first).
    #[inline(always)]
    pub(crate) fn looked(self) -> Self {
        Taken {
            fresh: true,
            ..self
        }
    }
}

/// `stamped!(task, stamp)`: a [`Stamped`] task, as an expression or a
/// pattern (without the feature: `task`; `stamp` is not even evaluated).
#[cfg(feature = "timings")]
macro_rules! stamped {
    ($task:tt, $($stamp:tt)+) => {
        ($task, $($stamp)+)
    };
}
/// (Without the feature: the task.)
#[cfg(not(feature = "timings"))]
macro_rules! stamped {
    ($task:tt, $($stamp:tt)+) => {
        $task
    };
}

/// `with_stamp!(receiver.method(args) ; stamp)`: the call with `stamp` as a
/// last argument (without the feature: the call without it, and `stamp` not
/// evaluated).
#[cfg(feature = "timings")]
macro_rules! with_stamp {
    ($recv:expr, $method:ident($($arg:expr),* $(,)?) ; $stamp:expr) => {
        $recv.$method($($arg,)* $stamp)
    };
}
/// (Without the feature: the call without the stamp.)
#[cfg(not(feature = "timings"))]
macro_rules! with_stamp {
    ($recv:expr, $method:ident($($arg:expr),* $(,)?) ; $stamp:expr) => {
        $recv.$method($($arg),*)
    };
}

/// `straight!(stamped)`: a [`TakenOf`] task taken straight after the last
/// (without the feature: the task).
#[cfg(feature = "timings")]
macro_rules! straight {
    ($stamped:expr) => {
        $crate::engine::stamp::Taken::straight($stamped)
    };
}
/// (Without the feature: the task.)
#[cfg(not(feature = "timings"))]
macro_rules! straight {
    ($stamped:expr) => {
        $stamped
    };
}

/// `looked!(taken)`: the task, found after looking or parking (without the
/// feature: the task).
#[cfg(feature = "timings")]
macro_rules! looked {
    ($taken:expr) => {
        ($taken).looked()
    };
}
/// (Without the feature: the task.)
#[cfg(not(feature = "timings"))]
macro_rules! looked {
    ($taken:expr) => {
        $taken
    };
}

pub(crate) use {looked, stamped, straight, with_stamp};

#[cfg(all(test, feature = "timings", feature = "alloc"))]
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
