//! Without a heap (no feature `alloc`): the stand-ins for what `heap.rs`
//! gives a pool with one, under the same names: a [`Spill`] is never used,
//! nor a boxed job record.
//! Every answer they give is a constant, so the code that asks folds away.

use core::marker::PhantomData;

use super::ring::Slot;
use super::timed::{StampAt, Stamped};
use super::{Engine, EngineRef, First, Flavor};
use crate::sync::Ordering;

/// The slots of a lane added at build (none is, here).
pub(crate) type LevelSlots<T> = [Slot<T>; 1];

/// (Never called: without a heap every handle is a `&'static`, which hands
/// its first task over on the spawner's stack, `launch.rs`.)
pub(super) fn spawn_boxed<H, F>(
    _handle: &H,
    _spawner: &F::Spawner,
    _task: First<F>,
) -> Result<(), First<F>>
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    unreachable!("antpool: a handle without a heap asked for a boxed job record")
}

/// The spill queue of a lane that cannot spill: empty, and never pushed to.
pub(crate) struct Spill<T>(PhantomData<fn() -> T>);

impl<T> Spill<T> {
    /// The spill queue that never is (every lane is bounded).
    pub(crate) const fn new(_may_spill: bool, _at_once: bool) -> Self {
        Spill(PhantomData)
    }

    /// Never: every lane is bounded.
    #[inline(always)]
    pub(crate) fn may_spill(&self) -> bool {
        false
    }

    /// Never.
    #[inline(always)]
    pub(crate) fn is_spilling(&self, _order: Ordering) -> bool {
        false
    }

    /// (Never called: no lane may spill.)
    #[inline(always)]
    pub(crate) fn start(&self) {}

    /// (Never called: no lane may spill.) Hands `value` back.
    #[inline(always)]
    pub(crate) fn push(&self, value: T, _stamp_at: impl StampAt) -> Result<(), T> {
        Err(value)
    }

    /// Nothing.
    #[inline(always)]
    pub(crate) fn pop(&self) -> Option<Stamped<T>> {
        None
    }

    /// Always.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        true
    }

    /// Always 0.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        0
    }

    /// Nothing to close.
    #[inline(always)]
    pub(crate) fn close(&self) {}

    /// Nothing to open.
    #[inline(always)]
    pub(crate) fn reopen(&self) {}
}
