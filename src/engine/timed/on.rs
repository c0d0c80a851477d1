//! The timings' types (feature `timings`): what `timed.rs` reads the clock
//! for and records into. Their zero-sized stand-ins are in `off.rs`.

// Paths spelled out: this file is itself loaded by `#[path]`, and tools that
// walk the modules (cargo-mutants) would look for them under `on/`.
#[path = "recorder.rs"]
mod recorder;
#[path = "stamp.rs"]
mod stamp;

use core::cell::Cell;

use crate::clock::Instant;
use crate::engine::{Engine, Flavor};
use crate::timings::Timings;

pub(crate) use recorder::Recorder;
pub(crate) use stamp::Stamp;

/// What a submitter stamps its push with: the engine, whose sampling and
/// clock decide (`Engine::lane_stamp`).
pub(crate) struct Sampler<'a, E>(&'a E);

impl<E> Clone for Sampler<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for Sampler<'_, E> {}

impl<'a, E> Sampler<'a, E> {
    #[inline(always)]
    pub(crate) fn new(engine: &'a E) -> Self {
        Sampler(engine)
    }

    /// The engine to ask.
    #[inline(always)]
    pub(crate) fn engine(self) -> Option<&'a E> {
        Some(self.0)
    }
}

/// A worker's lap: the end of its last task, if that was timed and the
/// worker went straight on (it then reuses that read as the next task's
/// start). In the worker's mailbox; only the worker touches it.
pub(crate) struct Lap(Cell<Option<Instant>>);

impl Lap {
    pub(crate) const fn new() -> Self {
        Lap(Cell::new(None))
    }

    #[inline(always)]
    pub(crate) fn get(&self) -> Option<Instant> {
        self.0.get()
    }

    /// The last task was timed and ended at `end`.
    #[inline(always)]
    pub(crate) fn set(&self, end: Instant) {
        self.0.set(Some(end));
    }

    /// The last task was not timed, or the worker looked or parked since.
    #[inline(always)]
    pub(crate) fn forget(&self) {
        self.0.set(None);
    }
}

impl<F: Flavor> Engine<F> {
    /// Which tasks are timed: `None` none (`Sampling::Off`), else those whose
    /// lane position `p` has `p & mask == 0`.
    #[inline(always)]
    pub(super) fn sample(&self) -> Option<usize> {
        self.config.sample
    }

    /// A snapshot of the histograms.
    pub(crate) fn timings(&self) -> Timings {
        self.recorder.snapshot()
    }

    /// Whether the timings keep `queue_wait` per level (the facade's
    /// `priority` label).
    #[cfg(feature = "metrics")]
    pub(crate) fn times_levels(&self) -> bool {
        self.recorder.has_levels()
    }
}
