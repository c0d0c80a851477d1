//! The atomics the engine uses: `portable-atomic`'s (so the core builds on
//! targets without compare-and-swap), or loom's when the crate is built with
//! `--cfg antpool_loom` for model checking (see `tests/loom.rs`).
//!
//! Loom's atomics cannot be made in a `const fn`, so functions that make them are
//! declared with [`maybe_const_fn!`]: `const` normally, plain under loom.

#[cfg(not(antpool_loom))]
pub(crate) use portable_atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

#[cfg(antpool_loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// Declares a function `const`, except under loom. (`#[macro_use]` on the
/// module makes it visible to the modules declared after it.)
macro_rules! maybe_const_fn {
    ($(#[$meta:meta])* $vis:vis fn $($rest:tt)*) => {
        #[cfg(not(antpool_loom))]
        $(#[$meta])* $vis const fn $($rest)*
        #[cfg(antpool_loom)]
        $(#[$meta])* $vis fn $($rest)*
    };
}
