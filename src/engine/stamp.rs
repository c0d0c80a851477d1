//! [`Stamp`]: the admission time a task carries through the lane (feature
//! `timings`), and [`Taken`]: a task as a worker takes it. Without the
//! feature both are the task alone — a `Stamp` is zero-sized, so the slots,
//! the moves and the code are what they were.
//!
//! A stamp travels with its task the way the task does: in a ring or list slot
//! (written with the task before the slot's `Release` store, read after the
//! popper's `Acquire` load), in a waiter's node (under the node protocol), in
//! a job record (for a new worker's first task). So it needs no atomic and no
//! ordering of its own (`engine/README.md`, "Timings").

#[cfg(feature = "timings")]
use crate::clock::Instant;

/// When a task was admitted, if it is timed (feature `timings`).
#[cfg(feature = "timings")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp(u64);

/// When a task was admitted (without the feature: nothing, zero-sized).
#[cfg(not(feature = "timings"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp;

impl Stamp {
    /// Not timed.
    #[cfg(feature = "timings")]
    pub(crate) const NONE: Stamp = Stamp(u64::MAX);
    /// Not timed.
    #[cfg(not(feature = "timings"))]
    pub(crate) const NONE: Stamp = Stamp;

    /// Admitted at `at`.
    #[cfg(feature = "timings")]
    #[inline]
    pub(crate) const fn at(at: Instant) -> Stamp {
        // (The last nanosecond of 584 years reads as "not timed".)
        Stamp(at.as_nanos())
    }

    /// The admission time, if the task is timed.
    #[cfg(feature = "timings")]
    #[inline]
    pub(crate) const fn get(self) -> Option<Instant> {
        match self.0 {
            u64::MAX => None,
            nanos => Some(Instant::from_nanos(nanos)),
        }
    }
}

/// A task as a worker takes it: with its stamp and (feature `timings`)
/// whether the worker looked or parked for it — then the end of its last task
/// is not this one's start.
pub(crate) struct Taken<T> {
    pub(crate) task: T,
    #[cfg_attr(not(feature = "timings"), allow(dead_code))]
    pub(crate) stamp: Stamp,
    #[cfg(feature = "timings")]
    pub(crate) fresh: bool,
}

impl<T> Taken<T> {
    /// A task taken straight after the worker's last one (from the lane or a
    /// blocked submitter).
    #[inline(always)]
    pub(crate) fn straight((task, stamp): (T, Stamp)) -> Self {
        Taken {
            task,
            stamp,
            #[cfg(feature = "timings")]
            fresh: false,
        }
    }

    /// The same task, found after the worker looked or parked (or its first).
    #[inline(always)]
    pub(crate) fn looked(self) -> Self {
        Taken {
            #[cfg(feature = "timings")]
            fresh: true,
            ..self
        }
    }
}

/// Without the feature: the engine's stamps are all [`Stamp::NONE`], and
/// nothing is recorded (see `timed.rs` for the feature's versions).
#[cfg(not(feature = "timings"))]
impl<F: super::Flavor> super::Engine<F> {
    #[inline(always)]
    pub(super) fn lane_stamp(&self, _position: usize) -> Stamp {
        Stamp::NONE
    }

    #[inline(always)]
    pub(super) fn stamp_now(&self) -> Stamp {
        Stamp::NONE
    }

    #[inline(always)]
    pub(super) fn record_submit_wait(&self, _since: Stamp, _admitted: Stamp) {}

    #[inline(always)]
    pub(super) fn admitted_after_wait(&self, _since: Stamp) {}
}
