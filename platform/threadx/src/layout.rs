//! What the kernel's control blocks need, and the check that a reserve of
//! bytes holds them.
//!
//! ThreadX creates every object in memory the caller gives it: a `TX_THREAD`
//! and its stack for a thread, a `TX_SEMAPHORE` for a semaphore. Their sizes
//! depend on the port and the configuration (the Linux port adds a pthread
//! and a POSIX semaphore to every thread; the performance counters, notify
//! callbacks and user extensions add fields), and only C knows them. So this
//! crate reserves a fixed number of bytes and compares them, at run time,
//! with what `csrc/antpool_threadx.c` (compiled with the kernel) reports. A
//! reserve that is too small never reaches the kernel: the slot makes no
//! thread.

use core::fmt;

use crate::sys;

/// The alignment of every reserve this crate hands the kernel: 8 bytes, as
/// much as any ThreadX port's control blocks need (pointers and, on the
/// 64-bit Linux port, `pthread_t`).
///
/// ```
/// assert_eq!(antpool_threadx::RESERVE_ALIGN, 8);
/// ```
pub const RESERVE_ALIGN: usize = 8;

/// The default bytes each [`ThreadSlots`](crate::ThreadSlots) slot reserves
/// for its thread's `TX_THREAD` and its semaphore's `TX_SEMAPHORE`: 512.
///
/// Enough for the configurations measured here with room to spare: 212 on
/// the Cortex-M0/M3/M4 ports (180 + 32), 424 on the 64-bit Linux port
/// (360 + 64). Performance counters (`TX_THREAD_ENABLE_PERFORMANCE_INFO`,
/// `TX_SEMAPHORE_ENABLE_PERFORMANCE_INFO`), a `TX_THREAD_USER_EXTENSION` or
/// `TX_ENABLE_EVENT_TRACE` make them larger. To spend no byte more than
/// needed, give `ThreadSlots` what [`KernelLayout::slot_bytes`] says.
///
/// ```
/// assert_eq!(antpool_threadx::DEFAULT_KERNEL_BYTES, 512);
/// ```
pub const DEFAULT_KERNEL_BYTES: usize = 512;

/// The bytes each [`WaitSlots`](crate::WaitSlots) entry reserves for its
/// `TX_SEMAPHORE`: 96 (32 on Cortex-M, 64 on the 64-bit Linux port, 24
/// more with `TX_SEMAPHORE_ENABLE_PERFORMANCE_INFO`).
///
/// ```
/// assert_eq!(antpool_threadx::SEMAPHORE_BYTES, 96);
/// ```
pub const SEMAPHORE_BYTES: usize = 96;

/// What the kernel's control blocks need, as `csrc/antpool_threadx.c`
/// reports them from the kernel's own headers.
///
/// ```no_run
/// // In a program that compiles csrc/antpool_threadx.c with its kernel:
/// let layout = antpool_threadx::KernelLayout::of_kernel();
/// assert!(layout.slot_bytes() <= antpool_threadx::DEFAULT_KERNEL_BYTES);
/// # use antpool_threadx_sim as _; // links the kernel for this example
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelLayout {
    /// `sizeof(TX_THREAD)`.
    pub thread_size: usize,
    /// `_Alignof(TX_THREAD)`.
    pub thread_align: usize,
    /// `sizeof(TX_SEMAPHORE)`.
    pub semaphore_size: usize,
    /// `_Alignof(TX_SEMAPHORE)`.
    pub semaphore_align: usize,
    /// `sizeof(ULONG)`: 4 on every port this crate knows.
    pub ulong_size: usize,
    /// `TX_MINIMUM_STACK`: the smallest stack `tx_thread_create` accepts.
    pub minimum_stack: usize,
    /// `TX_MAX_PRIORITIES`: priorities run from 0 (the highest) to this minus 1.
    pub max_priorities: u32,
}

impl KernelLayout {
    /// Reads the constants of `csrc/antpool_threadx.c`. The program must link
    /// that file, compiled with the kernel's headers and options (without it
    /// the link fails on `antpool_tx_thread_size` and its kin).
    ///
    /// ```no_run
    /// let layout = antpool_threadx::KernelLayout::of_kernel();
    /// assert_eq!(layout.ulong_size, 4);
    /// # use antpool_threadx_sim as _; // links the kernel for this example
    /// ```
    #[must_use]
    pub fn of_kernel() -> Self {
        // SAFETY: constants the C file defines with these names and types;
        // nothing writes them.
        unsafe {
            KernelLayout {
                thread_size: sys::antpool_tx_thread_size,
                thread_align: sys::antpool_tx_thread_align,
                semaphore_size: sys::antpool_tx_semaphore_size,
                semaphore_align: sys::antpool_tx_semaphore_align,
                ulong_size: sys::antpool_tx_ulong_size,
                minimum_stack: sys::antpool_tx_minimum_stack,
                max_priorities: sys::antpool_tx_max_priorities,
            }
        }
    }

    /// Where a slot's `TX_SEMAPHORE` starts in its reserve: after the
    /// `TX_THREAD`, aligned.
    ///
    /// ```
    /// # let layout = antpool_threadx::KernelLayout { thread_size: 180, thread_align: 4,
    /// #     semaphore_size: 32, semaphore_align: 4, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
    /// // The Cortex-M3 port's control blocks:
    /// assert_eq!(layout.semaphore_offset(), 180);
    /// ```
    #[must_use]
    pub const fn semaphore_offset(&self) -> usize {
        self.thread_size
            .next_multiple_of(if self.semaphore_align == 0 {
                1
            } else {
                self.semaphore_align
            })
    }

    /// The bytes a slot's reserve needs: a `TX_THREAD`, then a `TX_SEMAPHORE`.
    ///
    /// ```
    /// # let layout = antpool_threadx::KernelLayout { thread_size: 360, thread_align: 8,
    /// #     semaphore_size: 64, semaphore_align: 8, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
    /// // The 64-bit Linux port's:
    /// assert_eq!(layout.slot_bytes(), 424);
    /// ```
    #[must_use]
    pub const fn slot_bytes(&self) -> usize {
        self.semaphore_offset() + self.semaphore_size
    }

    /// Whether a slot reserve of `kernel_bytes` bytes (aligned to
    /// [`RESERVE_ALIGN`]) holds a `TX_THREAD` and a `TX_SEMAPHORE`, a stack
    /// of `stack_bytes` is one the kernel accepts, and `ULONG` is 32 bits.
    ///
    /// # Errors
    ///
    /// [`ReserveError`], saying which of these fails.
    ///
    /// ```
    /// # let layout = antpool_threadx::KernelLayout { thread_size: 180, thread_align: 4,
    /// #     semaphore_size: 32, semaphore_align: 4, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
    /// assert!(layout.check(212, 1024).is_ok());
    /// assert!(layout.check(200, 1024).is_err()); // no room for the semaphore
    /// assert!(layout.check(212, 128).is_err());  // below TX_MINIMUM_STACK
    /// ```
    pub const fn check(self, kernel_bytes: usize, stack_bytes: usize) -> Result<(), ReserveError> {
        let problem = if self.ulong_size != 4 {
            Problem::Ulong
        } else if self.thread_align > RESERVE_ALIGN || self.semaphore_align > RESERVE_ALIGN {
            Problem::Align
        } else if self.slot_bytes() > kernel_bytes {
            Problem::Kernel
        } else if stack_bytes < self.minimum_stack {
            Problem::Stack
        } else {
            return Ok(());
        };
        Err(ReserveError {
            kernel: self,
            kernel_bytes,
            stack_bytes,
            problem,
        })
    }

    /// Whether a [`WaitSlots`](crate::WaitSlots) entry's [`SEMAPHORE_BYTES`]
    /// hold a `TX_SEMAPHORE`.
    ///
    /// ```
    /// # let layout = antpool_threadx::KernelLayout { thread_size: 180, thread_align: 4,
    /// #     semaphore_size: 32, semaphore_align: 4, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
    /// assert!(layout.semaphore_fits());
    /// ```
    #[must_use]
    pub const fn semaphore_fits(&self) -> bool {
        self.ulong_size == 4
            && self.semaphore_size <= SEMAPHORE_BYTES
            && self.semaphore_align <= RESERVE_ALIGN
    }
}

/// What did not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Problem {
    Ulong,
    Align,
    Kernel,
    Stack,
}

/// A slot's reserve cannot hold the kernel's control blocks, or its stack is
/// below `TX_MINIMUM_STACK` (or the kernel's `ULONG` is not 32 bits).
/// Returned by [`ThreadSlots::check`](crate::ThreadSlots::check); the slots
/// then make no thread.
///
/// ```
/// # let layout = antpool_threadx::KernelLayout { thread_size: 360, thread_align: 8,
/// #     semaphore_size: 64, semaphore_align: 8, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
/// let err = layout.check(256, 1024).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "the kernel's TX_THREAD and TX_SEMAPHORE need 424 bytes, the slots reserve 256: \
///      give ThreadSlots a KERNEL reserve of at least 424"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReserveError {
    kernel: KernelLayout,
    kernel_bytes: usize,
    stack_bytes: usize,
    problem: Problem,
}

impl ReserveError {
    /// What the kernel's control blocks need.
    ///
    /// ```
    /// # let layout = antpool_threadx::KernelLayout { thread_size: 180, thread_align: 4,
    /// #     semaphore_size: 32, semaphore_align: 4, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
    /// assert_eq!(layout.check(64, 1024).unwrap_err().kernel(), layout);
    /// ```
    #[must_use]
    pub const fn kernel(&self) -> KernelLayout {
        self.kernel
    }

    /// The bytes each slot reserves for the control blocks.
    ///
    /// ```
    /// # let layout = antpool_threadx::KernelLayout { thread_size: 180, thread_align: 4,
    /// #     semaphore_size: 32, semaphore_align: 4, ulong_size: 4, minimum_stack: 200, max_priorities: 32 };
    /// assert_eq!(layout.check(64, 1024).unwrap_err().reserved(), 64);
    /// ```
    #[must_use]
    pub const fn reserved(&self) -> usize {
        self.kernel_bytes
    }
}

impl fmt::Display for ReserveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = &self.kernel;
        match self.problem {
            Problem::Ulong => write!(
                f,
                "the kernel's ULONG is {} bytes: antpool-threadx knows ports with a 32-bit ULONG",
                k.ulong_size
            ),
            Problem::Align => write!(
                f,
                "the kernel's TX_THREAD (align {}) or TX_SEMAPHORE (align {}) needs more than the \
                 {RESERVE_ALIGN}-byte alignment antpool-threadx gives its reserves",
                k.thread_align, k.semaphore_align
            ),
            Problem::Kernel => write!(
                f,
                "the kernel's TX_THREAD and TX_SEMAPHORE need {} bytes, the slots reserve {}: \
                 give ThreadSlots a KERNEL reserve of at least {}",
                k.slot_bytes(),
                self.kernel_bytes,
                k.slot_bytes()
            ),
            Problem::Stack => write!(
                f,
                "a slot's stack is {} bytes, below the kernel's TX_MINIMUM_STACK ({})",
                self.stack_bytes, k.minimum_stack
            ),
        }
    }
}

impl core::error::Error for ReserveError {}

#[cfg(test)]
mod tests {
    use super::*;

    const CORTEX_M3: KernelLayout = KernelLayout {
        thread_size: 180,
        thread_align: 4,
        semaphore_size: 32,
        semaphore_align: 4,
        ulong_size: 4,
        minimum_stack: 200,
        max_priorities: 32,
    };

    #[test]
    fn a_reserve_fits_by_size_alignment_and_stack() {
        assert_eq!(CORTEX_M3.slot_bytes(), 212);
        assert!(CORTEX_M3.check(212, 200).is_ok());
        assert_eq!(
            CORTEX_M3.check(211, 1024).unwrap_err().problem,
            Problem::Kernel
        );
        assert_eq!(
            CORTEX_M3.check(212, 199).unwrap_err().problem,
            Problem::Stack
        );
        let wide = KernelLayout {
            ulong_size: 8,
            ..CORTEX_M3
        };
        assert_eq!(wide.check(512, 1024).unwrap_err().problem, Problem::Ulong);
        let odd = KernelLayout {
            thread_size: 181,
            ..CORTEX_M3
        };
        assert_eq!(odd.semaphore_offset(), 184);
        let aligned = KernelLayout {
            thread_align: 16,
            ..CORTEX_M3
        };
        assert_eq!(
            aligned.check(512, 1024).unwrap_err().problem,
            Problem::Align
        );
    }
}
