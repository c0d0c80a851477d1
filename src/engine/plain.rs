//! For the tests of the lane's FIFOs: a push and a pop that carry no stamp,
//! with or without the `timings` feature.

use super::timed::Stamp;

/// A push and a pop without stamps.
pub(super) trait Plain<T> {
    fn push_plain(&self, value: T) -> Result<(), T>;
    fn pop_plain(&self) -> Option<T>;
}

macro_rules! plain {
    ([$($generics:tt)*] $fifo:ty) => {
        impl<$($generics)*> Plain<T> for $fifo {
            fn push_plain(&self, value: T) -> Result<(), T> {
                self.push(value, |_, _| Stamp::NONE)
            }

            fn pop_plain(&self) -> Option<T> {
                self.pop().map(|(value, _)| value)
            }
        }
    };
}

plain!([T, S: super::ring::Slots<T>] super::ring::TaskRing<T, S>);
plain!([T: Send + 'static, S: super::ring::Slots<T>] super::transport::Transport<T, S>);
#[cfg(feature = "alloc")]
plain!([T, const B: usize, const S: usize] super::list::TaskList<T, B, S>);
