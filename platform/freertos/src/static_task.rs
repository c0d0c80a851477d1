//! The memory a static task's control block lives in, and the check that it
//! fits the kernel's `StaticTask_t`.
//!
//! `xTaskCreateStatic` writes its task control block into a `StaticTask_t`
//! the caller provides. Its size depends on the kernel's configuration
//! (notification array entries, trace facility, MPU, newlib reentrancy, …)
//! and only C knows it, so this crate reserves a fixed number of bytes and
//! compares them, at run time, with two constants that a two-line C file
//! compiled with the kernel exports (`csrc/antpool_static_task.c`):
//!
//! ```c
//! const size_t antpool_static_task_size = sizeof(StaticTask_t);
//! const size_t antpool_static_task_align = _Alignof(StaticTask_t);
//! ```
//!
//! A reserve that is too small never reaches `xTaskCreateStatic`: the
//! [`TaskSlots`](crate::TaskSlots) check refuses to make the task.

use core::cell::UnsafeCell;
use core::ffi::c_void;
use core::fmt;
use core::mem::MaybeUninit;

use crate::sys;

/// The default number of bytes each slot of [`TaskSlots`](crate::TaskSlots)
/// reserves for the kernel's `StaticTask_t`: 256.
///
/// That covers the common configurations with room to spare: 88 bytes on the
/// Cortex-M3 demo (`ARM_CM3`, two notification entries, align 4), 152 on the
/// 64-bit Posix simulator. Options such as `configUSE_NEWLIB_REENTRANT` (which
/// puts a `struct _reent` in every task) or an MPU port need more: give
/// `TaskSlots` a larger third parameter. To spend no byte more than needed,
/// give it the size the C file reports.
///
/// ```
/// assert_eq!(antpool_freertos::DEFAULT_TCB_BYTES, 256);
/// ```
pub const DEFAULT_TCB_BYTES: usize = 256;

/// The alignment of every slot's `StaticTask_t` reserve: 8 bytes, as much as
/// any FreeRTOS port's `StaticTask_t` needs (it holds pointers and, with
/// 64-bit ticks, `uint64_t`).
///
/// ```
/// assert_eq!(antpool_freertos::TCB_ALIGN, 8);
/// ```
pub const TCB_ALIGN: usize = 8;

/// `BYTES` bytes aligned to [`TCB_ALIGN`], handed to `xTaskCreateStatic` as its
/// `StaticTask_t *`. The kernel owns them from the task's creation on.
#[repr(C, align(8))]
pub(crate) struct TcbReserve<const BYTES: usize>(UnsafeCell<MaybeUninit<[u8; BYTES]>>);

impl<const BYTES: usize> TcbReserve<BYTES> {
    /// Uninitialised bytes (the kernel initialises its control block).
    pub(crate) const fn new() -> Self {
        TcbReserve(UnsafeCell::new(MaybeUninit::uninit()))
    }

    /// The `StaticTask_t *` to give the kernel.
    pub(crate) const fn as_ptr(&self) -> *mut c_void {
        self.0.get().cast()
    }
}

// The reserve's alignment is the constant the check compares with.
const _: () = assert!(core::mem::align_of::<TcbReserve<1>>() == TCB_ALIGN);

/// What the kernel's `StaticTask_t` needs, as `csrc/antpool_static_task.c`
/// reports it.
///
/// ```no_run
/// // In a program that compiles csrc/antpool_static_task.c with its kernel:
/// let layout = antpool_freertos::StaticTaskLayout::of_kernel();
/// assert!(layout.size <= antpool_freertos::DEFAULT_TCB_BYTES);
/// # use antpool_freertos_sim as _; // links the kernel for this example
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StaticTaskLayout {
    /// `sizeof(StaticTask_t)`, in bytes.
    pub size: usize,
    /// `_Alignof(StaticTask_t)`, in bytes.
    pub align: usize,
}

impl StaticTaskLayout {
    /// Reads `antpool_static_task_size` and `antpool_static_task_align`. The
    /// program must link `csrc/antpool_static_task.c`, compiled with the kernel's
    /// `FreeRTOSConfig.h` (without it, the link fails with those two names).
    ///
    /// ```no_run
    /// let layout = antpool_freertos::StaticTaskLayout::of_kernel();
    /// assert!(layout.align.is_power_of_two());
    /// # use antpool_freertos_sim as _; // links the kernel for this example
    /// ```
    #[must_use]
    pub fn of_kernel() -> Self {
        // SAFETY: two `const size_t` the C file defines with these names and
        // types; nothing writes them.
        unsafe {
            StaticTaskLayout {
                size: sys::antpool_static_task_size,
                align: sys::antpool_static_task_align,
            }
        }
    }

    /// Whether a reserve of `bytes` bytes aligned to [`TCB_ALIGN`] holds a
    /// `StaticTask_t` of this layout.
    ///
    /// # Errors
    ///
    /// [`TcbReserveError`] when `bytes` is smaller than [`size`](Self::size),
    /// or [`align`](Self::align) is more than [`TCB_ALIGN`].
    ///
    /// ```
    /// use antpool_freertos::StaticTaskLayout;
    ///
    /// let cortex_m3 = StaticTaskLayout { size: 88, align: 4 };
    /// assert!(cortex_m3.fits(88).is_ok());
    /// let err = cortex_m3.fits(64).unwrap_err();
    /// assert_eq!((err.reserved(), err.kernel().size), (64, 88));
    /// ```
    pub const fn fits(self, bytes: usize) -> Result<(), TcbReserveError> {
        if bytes >= self.size && self.align <= TCB_ALIGN {
            Ok(())
        } else {
            Err(TcbReserveError {
                kernel: self,
                reserved: bytes,
            })
        }
    }
}

/// A slot's reserve for `StaticTask_t` is smaller than the kernel's
/// `StaticTask_t` (or less aligned). Returned by
/// [`TaskSlots::check`](crate::TaskSlots::check); the slots then make no task.
///
/// ```
/// use antpool_freertos::StaticTaskLayout;
///
/// let err = StaticTaskLayout { size: 300, align: 8 }.fits(256).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "the kernel's StaticTask_t needs 300 bytes (align 8), the slots reserve 256 \
///      (align 8): give TaskSlots a TCB reserve of at least 300"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TcbReserveError {
    kernel: StaticTaskLayout,
    reserved: usize,
}

impl TcbReserveError {
    /// What the kernel's `StaticTask_t` needs.
    ///
    /// ```
    /// use antpool_freertos::StaticTaskLayout;
    /// let layout = StaticTaskLayout { size: 96, align: 4 };
    /// assert_eq!(layout.fits(88).unwrap_err().kernel(), layout);
    /// ```
    #[must_use]
    pub const fn kernel(&self) -> StaticTaskLayout {
        self.kernel
    }

    /// The bytes each slot reserves (aligned to [`TCB_ALIGN`]).
    ///
    /// ```
    /// use antpool_freertos::StaticTaskLayout;
    /// let layout = StaticTaskLayout { size: 96, align: 4 };
    /// assert_eq!(layout.fits(88).unwrap_err().reserved(), 88);
    /// ```
    #[must_use]
    pub const fn reserved(&self) -> usize {
        self.reserved
    }
}

impl fmt::Display for TcbReserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let StaticTaskLayout { size, align } = self.kernel;
        write!(
            f,
            "the kernel's StaticTask_t needs {size} bytes (align {align}), the slots reserve {} \
             (align {TCB_ALIGN}): ",
            self.reserved
        )?;
        if align > TCB_ALIGN {
            f.write_str("this crate cannot align a reserve that much")
        } else {
            write!(f, "give TaskSlots a TCB reserve of at least {size}")
        }
    }
}

impl core::error::Error for TcbReserveError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserve_fits_by_size_and_alignment() {
        let layout = StaticTaskLayout { size: 88, align: 4 };
        assert!(layout.fits(88).is_ok());
        assert!(layout.fits(256).is_ok());
        assert!(layout.fits(87).is_err());
        let over_aligned = StaticTaskLayout {
            size: 88,
            align: 16,
        };
        assert_eq!(over_aligned.fits(256).unwrap_err().kernel().align, 16);
    }
}
