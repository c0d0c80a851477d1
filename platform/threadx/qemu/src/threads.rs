//! The demo's own threads (the controller and the watchdog): their
//! `TX_THREAD` and stack in static memory, like the slots', and how much of
//! each stack they used.

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_char, c_void};
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};

use antpool_threadx::KernelLayout;

/// Bytes reserved for a `TX_THREAD`: 180 on the Cortex-M0 and M3 ports.
const TCB_BYTES: usize = 184;
/// ThreadX's stack fill (`TX_STACK_FILL`).
const STACK_FILL: u32 = 0xEFEF_EFEF;

unsafe extern "C" {
    fn _tx_thread_create(
        thread: *mut c_void,
        name: *const c_char,
        entry: extern "C" fn(u32),
        entry_input: u32,
        stack_start: *mut c_void,
        stack_size: u32,
        priority: u32,
        preempt_threshold: u32,
        time_slice: u32,
        auto_start: u32,
    ) -> u32;
}

/// A thread's control block and stack.
#[repr(C, align(8))]
pub struct ThreadMemory<const STACK: usize> {
    tcb: UnsafeCell<[u8; TCB_BYTES]>,
    stack: UnsafeCell<[u8; STACK]>,
    taken: AtomicBool,
}

// SAFETY: the buffers are handed to the kernel once (`taken`); afterwards Rust
// only reads the stack, with volatile loads, to measure it.
unsafe impl<const STACK: usize> Sync for ThreadMemory<STACK> {}

impl<const STACK: usize> ThreadMemory<STACK> {
    pub const fn new() -> Self {
        ThreadMemory {
            tcb: UnsafeCell::new([0; TCB_BYTES]),
            stack: UnsafeCell::new([0; STACK]),
            taken: AtomicBool::new(false),
        }
    }

    /// Creates and starts this memory's thread, in `tx_application_define`
    /// (one thread of control: a load and a store guard the memory). Panics
    /// if the kernel's `TX_THREAD` does not fit, the memory is used already,
    /// or the kernel refuses.
    pub fn spawn(&'static self, name: &'static CStr, entry: extern "C" fn(u32), priority: u32) {
        let layout = KernelLayout::of_kernel();
        assert!(
            layout.thread_size <= TCB_BYTES && !self.taken.load(Relaxed),
            "cannot create thread {name:?} ({layout:?})"
        );
        self.taken.store(true, Relaxed);
        // SAFETY: `entry` is a thread entry; `name` is 'static (the kernel keeps
        // it); the buffers are 'static, 8-byte aligned, used for this one
        // thread (`taken`), and the TCB buffer holds a TX_THREAD (checked);
        // the priority is below TX_MAX_PRIORITIES (32), with no threshold.
        let status = unsafe {
            _tx_thread_create(
                self.tcb.get().cast(),
                name.as_ptr(),
                entry,
                0,
                self.stack.get().cast(),
                STACK as u32,
                priority,
                priority,
                0,
                1,
            )
        };
        assert_eq!(status, 0, "tx_thread_create of {name:?}");
    }

    /// The bytes of the stack its thread used at most: those that lost the
    /// kernel's fill, counted from the top.
    pub fn used(&self) -> usize {
        let bottom = self.stack.get().cast::<u32>();
        let unused = (0..STACK / 4)
            // SAFETY: word `i` of this stack, initialised (zeros, then the
            // kernel's fill), aligned; read while the thread may run.
            .take_while(|&i| unsafe { bottom.add(i).read_volatile() } == STACK_FILL)
            .count();
        STACK - 4 * unused
    }
}
