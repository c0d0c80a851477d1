//! For the tests of the lane's FIFOs: a push and a pop that carry no stamp,
//! with or without the `timings` feature.

use super::stamp::{stamped, with_stamp};

/// A push and a pop without stamps.
pub(super) trait Plain<T> {
    fn push_plain(&self, value: T) -> Result<(), T>;
    fn pop_plain(&self) -> Option<T>;
}

macro_rules! plain {
    ([$($generics:tt)*] $fifo:ty) => {
        impl<$($generics)*> Plain<T> for $fifo {
            fn push_plain(&self, value: T) -> Result<(), T> {
                with_stamp!(self, push(value) ; &|_, _| super::stamp::Stamp::NONE)
            }

            #[allow(clippy::map_identity)] // (without the feature there is no stamp)
            fn pop_plain(&self) -> Option<T> {
                self.pop().map(|stamped!(value, _)| value)
            }
        }
    };
}

plain!([T, S: super::ring::Slots<T>] super::ring::Ring<T, S>);
#[cfg(feature = "alloc")]
plain!([T] super::list::List<T>);
