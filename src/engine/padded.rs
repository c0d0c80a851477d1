//! [`Padded`]: a value alone on its cache line(s), so the threads that write it
//! do not slow down the threads that read its neighbours (false sharing).
//!
//! 128 bytes on x86-64 and AArch64, where the hardware fetches lines in pairs
//! (the same choice as crossbeam's `CachePadded`); 64 on other 64-bit targets;
//! 16 on 32-bit targets, whose microcontrollers rarely have a data cache and
//! always have little RAM.

use core::ops::Deref;

/// `T`, aligned (and so padded) to a cache line.
#[cfg_attr(any(target_arch = "x86_64", target_arch = "aarch64"), repr(align(128)))]
#[cfg_attr(
    all(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        target_pointer_width = "64"
    ),
    repr(align(64))
)]
#[cfg_attr(not(target_pointer_width = "64"), repr(align(16)))]
pub(crate) struct Padded<T>(T);

impl<T> Padded<T> {
    pub(crate) const fn new(value: T) -> Self {
        Padded(value)
    }
}

impl<T> Deref for Padded<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Padded;

    #[test]
    fn neighbours_do_not_share_a_line() {
        let pair = [Padded::new(0u8), Padded::new(1u8)];
        let gap = (&pair[1] as *const _ as usize) - (&pair[0] as *const _ as usize);
        assert!(gap >= 64 || cfg!(not(target_pointer_width = "64")));
        assert_eq!(*pair[1], 1);
    }
}
