//! [`Owner`]: what makes a pool handle ([`Pool`](crate::Pool),
//! [`PoolWithFunc`](crate::PoolWithFunc)) cheap to clone. Every clone of a
//! handle shares one `Owner`; the last one dropped releases the pool, as
//! dropping the only handle always did. The workers hold the engine, not an
//! `Owner`, so they never keep a pool nobody can reach from closing.

use alloc::sync::Arc;

use crate::engine::{Engine, Flavor};

/// Releases its engine when dropped: shared by the clones of one handle.
pub(crate) struct Owner<F: Flavor>(Arc<Engine<F>>);

impl<F: Flavor> Owner<F> {
    /// The owner of `engine`, for the first handle.
    pub(crate) fn new(engine: Arc<Engine<F>>) -> Arc<Self> {
        Arc::new(Owner(engine))
    }
}

impl<F: Flavor> Drop for Owner<F> {
    fn drop(&mut self) {
        self.0.release();
    }
}
