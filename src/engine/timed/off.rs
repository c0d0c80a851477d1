//! Without the feature `timings`: the timings' types, zero-sized, under the
//! names `on.rs` gives the real ones. Every answer is a constant (nothing is
//! timed, nothing recorded, no clock read), so the code that asks folds away.

use core::marker::PhantomData;

use crate::clock::Instant;
use crate::engine::{Engine, Flavor};
use crate::priority::Priority;

use super::Which;

/// No admission time: nothing is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp;

impl Stamp {
    /// Not timed (the only stamp).
    pub(crate) const NONE: Stamp = Stamp;

    #[inline(always)]
    pub(crate) const fn at(_at: Instant) -> Stamp {
        Stamp
    }

    /// Never timed.
    #[inline(always)]
    pub(crate) const fn get(self) -> Option<Instant> {
        None
    }

    #[inline(always)]
    pub(crate) const fn at_level(self, _level: Priority) -> Stamp {
        self
    }

    /// Never timed.
    #[inline(always)]
    pub(crate) const fn split(self) -> Option<(Instant, Priority)> {
        None
    }
}

/// No histograms.
pub(crate) struct Recorder;

impl Recorder {
    pub(crate) const fn new() -> Self {
        Recorder
    }

    /// (Nothing to add.)
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn add_levels(&mut self) {}

    #[inline(always)]
    pub(crate) fn has_levels(&self) -> bool {
        false
    }

    #[inline(always)]
    pub(crate) fn record(&self, _which: Which, _nanos: u64) {}

    #[inline(always)]
    pub(crate) fn record_queue_wait_at(&self, _level: Priority, _nanos: u64) {}
}

/// Nothing to stamp with.
pub(crate) struct Sampler<'a, E>(PhantomData<&'a E>);

impl<E> Clone for Sampler<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for Sampler<'_, E> {}

impl<'a, E> Sampler<'a, E> {
    #[inline(always)]
    pub(crate) fn new(_engine: &'a E) -> Self {
        Sampler(PhantomData)
    }

    /// None: stamp nothing.
    #[inline(always)]
    pub(crate) fn engine(self) -> Option<&'a E> {
        None
    }
}

/// No lap to remember.
pub(crate) struct Lap;

impl Lap {
    pub(crate) const fn new() -> Self {
        Lap
    }

    #[inline(always)]
    pub(crate) fn get(&self) -> Option<Instant> {
        None
    }

    #[inline(always)]
    pub(crate) fn set(&self, _end: Instant) {}

    #[inline(always)]
    pub(crate) fn forget(&self) {}
}

impl<F: Flavor> Engine<F> {
    /// Sampling off: nothing is timed.
    #[inline(always)]
    pub(super) fn sample(&self) -> Option<usize> {
        None
    }
}
