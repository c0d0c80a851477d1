//! Eclipse ThreadX on its Linux port, for `antpool-threadx`'s tests.
//!
//! `build.rs` compiles the kernel (`common/`) and its Linux port
//! (`ports/linux/gnu/`: every ThreadX thread a pthread, the scheduler and
//! the timer interrupt pthreads of their own) from the tree `THREADX_DIR`
//! names, with `config/tx_user.h` (a 1 kHz tick), this crate's glue and
//! antpool-threadx's `csrc/antpool_threadx.c`. A missing `THREADX_DIR` stops
//! the build with a message that names it. This library adds what a test
//! program on the kernel needs:
//!
//! * a global allocator that masks the port's interrupts (`TX_DISABLE`)
//!   around `malloc` on ThreadX threads: the port preempts a thread by
//!   suspending its pthread with a signal, and one suspended inside glibc's
//!   allocator would leave its lock held for every other thread;
//! * [`say!`], `println!` under the same protection (stdio takes locks);
//! * [`run`]: starts the kernel with one controlling thread (priority 16), a
//!   watchdog that fails the run if it hangs, and ends the process with the
//!   result (the kernel owns the process, so a test is a `harness = false`
//!   binary);
//! * [`start_interrupts`]: a simulated interrupt — a pthread at the port's
//!   interrupt priority that calls a handler between
//!   `_tx_thread_context_save` and `_tx_thread_context_restore`, as the
//!   port's own timer does;
//! * [`sleep`] and [`ticks`].
//!
//! ```no_run
//! use antpool_threadx_sim::{run, say, ticks};
//!
//! fn main() {
//!     run("example", || {
//!         let t = ticks();
//!         say!("the tick counter: {t}");
//!         ticks() >= t
//!     });
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{c_int, c_long, c_uint, c_void};
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

unsafe extern "C" {
    fn antpool_sim_start(body: extern "C" fn());
    fn antpool_sim_start_interrupts(hz: c_long, handler: extern "C" fn() -> c_int);
    fn antpool_sim_stop_interrupts();
    fn antpool_sim_on_threadx_thread() -> c_int;
    fn _tx_thread_interrupt_disable() -> c_uint;
    fn _tx_thread_interrupt_restore(posture: c_uint);
    fn _tx_thread_sleep(ticks: u32) -> c_uint;
    fn _tx_time_get() -> u32;
    fn _tx_time_set(ticks: u32);
}

/// Runs `f` with the port's interrupts masked if the caller is a ThreadX
/// thread (so the kernel cannot suspend it inside `f` with a libc lock
/// held), and plainly elsewhere (before the kernel, on other pthreads).
///
/// ```no_run
/// let n = antpool_threadx_sim::masked(|| 6 * 7);
/// assert_eq!(n, 42);
/// ```
pub fn masked<R>(f: impl FnOnce() -> R) -> R {
    // SAFETY: reads a thread-local of the port; callable on any pthread.
    if unsafe { antpool_sim_on_threadx_thread() } == 0 {
        return f();
    }
    // SAFETY: the port's TX_DISABLE, on a ThreadX thread; it nests.
    let posture = unsafe { _tx_thread_interrupt_disable() };
    let r = f();
    // SAFETY: restores what the disable above saved, on the same thread.
    unsafe { _tx_thread_interrupt_restore(posture) };
    r
}

/// The system allocator, called with the port's interrupts masked on
/// ThreadX threads (see [`masked`]).
///
/// ```
/// // Installed by this crate as the global allocator:
/// let v = vec![1, 2, 3];
/// assert_eq!(v.len(), 3);
/// ```
pub struct MaskedAlloc;

// SAFETY: every method forwards to `System` with the same arguments; masking
// the port's interrupts around it changes no allocator invariant.
unsafe impl GlobalAlloc for MaskedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded from our caller's contract.
        masked(|| unsafe { System.alloc(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded from our caller's contract.
        masked(|| unsafe { System.dealloc(ptr, layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded from our caller's contract.
        masked(|| unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded from our caller's contract.
        masked(|| unsafe { System.realloc(ptr, layout, new_size) })
    }
}

#[global_allocator]
static ALLOCATOR: MaskedAlloc = MaskedAlloc;

/// `println!` with the port's interrupts masked (stdio takes locks).
///
/// ```no_run
/// antpool_threadx_sim::say!("{} workers", 4);
/// ```
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::masked(|| println!($($arg)*))
    };
}

/// The kernel's tick count (`tx_time_get`; 1 kHz: one tick a millisecond).
///
/// ```no_run
/// let t = antpool_threadx_sim::ticks();
/// antpool_threadx_sim::sleep(5);
/// assert!(antpool_threadx_sim::ticks().wrapping_sub(t) >= 5);
/// ```
pub fn ticks() -> u32 {
    // SAFETY: reads the kernel's tick count.
    unsafe { _tx_time_get() }
}

/// Sets the kernel's tick count (`tx_time_set`): a test starts it just
/// before the 32-bit wrap, so that its clock readings cross it.
///
/// ```no_run
/// antpool_threadx_sim::set_ticks(u32::MAX - 60);
/// ```
pub fn set_ticks(ticks: u32) {
    // SAFETY: sets the kernel's tick count; callable from a thread.
    unsafe { _tx_time_set(ticks) }
}

/// Blocks the calling thread for `ticks` ticks (`tx_thread_sleep`).
///
/// ```no_run
/// antpool_threadx_sim::sleep(1); // let the other threads run
/// ```
pub fn sleep(ticks: u32) {
    // SAFETY: called from a thread.
    unsafe { _tx_thread_sleep(ticks) };
}

/// Starts calling `handler` in a simulated interrupt about `hz` times a
/// second, until it returns 0 or [`stop_interrupts`] is called. The handler
/// runs on the interrupt pthread between `_tx_thread_context_save` and
/// `_tx_thread_context_restore`: ThreadX sees it as an interrupt, and no
/// ThreadX thread runs meanwhile.
///
/// ```no_run
/// extern "C" fn handler() -> core::ffi::c_int {
///     0 // once is enough
/// }
/// antpool_threadx_sim::start_interrupts(1_000, handler);
/// ```
pub fn start_interrupts(hz: u32, handler: extern "C" fn() -> c_int) {
    // SAFETY: hands the glue a rate and a handler that never unwinds.
    unsafe { antpool_sim_start_interrupts(c_long::from(hz), handler) }
}

/// Stops the simulated interrupt.
///
/// ```no_run
/// antpool_threadx_sim::stop_interrupts();
/// ```
pub fn stop_interrupts() {
    // SAFETY: clears the glue's flag.
    unsafe { antpool_sim_stop_interrupts() }
}

/// What the controlling thread runs: returns whether everything passed.
type Body = Box<dyn FnOnce() -> bool + Send>;

/// The body [`run`] hands the controlling thread.
static BODY: Mutex<Option<(&'static str, Body)>> = Mutex::new(None);

/// The controlling thread's body: runs the test, prints the verdict, ends the
/// process.
extern "C" fn controller() {
    let (name, body) =
        masked(|| BODY.lock().expect("no panic holds it").take()).expect("run() stored the body");
    let passed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or(false);
    masked(|| {
        println!("{name}: {}", if passed { "passed" } else { "FAILED" });
        let _ = std::io::stdout().flush();
        // With interrupts masked nothing else runs: ending the process here
        // finds no ThreadX thread suspended inside a libc lock.
        std::process::exit(if passed { 0 } else { 1 })
    })
}

/// How long a run may take before the watchdog fails it.
pub const WATCHDOG: Duration = Duration::from_secs(120);

/// Starts the kernel with one thread (priority 16) that runs `body`, then
/// exits the process: 0 if `body` returned `true`, 1 if it returned `false`
/// or panicked, and a watchdog aborts the run after [`WATCHDOG`]. Never
/// returns.
///
/// ```no_run
/// antpool_threadx_sim::run("demo", || true);
/// ```
pub fn run(name: &'static str, body: impl FnOnce() -> bool + Send + 'static) -> ! {
    // A plain pthread, made before the kernel: it never uses ThreadX, and
    // never allocates once the kernel runs. It frees its start-up allocations
    // before the closure runs: wait for that.
    static WATCHING: AtomicBool = AtomicBool::new(false);
    std::thread::spawn(|| {
        WATCHING.store(true, Ordering::Release);
        std::thread::sleep(WATCHDOG);
        let _ = std::io::stderr().write_all(b"watchdog: the ThreadX run hung; aborting\n");
        std::process::abort();
    });
    while !WATCHING.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    *BODY.lock().expect("nothing else holds it") = Some((name, Box::new(body)));
    // SAFETY: called once, from main, before the kernel runs; `controller`
    // never returns (it ends the process) and never unwinds.
    unsafe { antpool_sim_start(controller) };
    let _ = std::io::stderr().write_all(b"tx_kernel_enter returned\n");
    std::process::exit(2);
}

/// Keeps the linker from dropping the kernel when a program references
/// nothing of this crate but its build (doc examples, `use ... as _`).
#[doc(hidden)]
pub fn link() -> *const c_void {
    antpool_sim_start as *const c_void
}
