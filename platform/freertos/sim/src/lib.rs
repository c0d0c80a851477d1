//! The FreeRTOS kernel on its Posix simulator, for `antpool-freertos`' tests.
//!
//! `build.rs` compiles FreeRTOS-Kernel V11.2.0 (from `freertos-next`) for the
//! Posix port; this library adds what a test program on it needs:
//!
//! * a global allocator that suspends the scheduler around `malloc`, because
//!   the simulator switches tasks by suspending pthreads, and a task suspended
//!   inside glibc's allocator would leave its lock held for every other task;
//! * [`say!`], `println!` under the same protection (stdio takes pthread locks);
//! * [`run`]: starts the scheduler with one controlling task, a watchdog that
//!   fails the run if it hangs, and ends the process with the result (the
//!   scheduler owns the process, so a test is a `harness = false` binary);
//! * [`Checks`], the `N passed, N failed` tally, and a few kernel calls;
//! * [`set_tick_interrupt`]: a handler called inside the kernel's tick
//!   interrupt (a signal handler on the running task's thread), with
//!   antpool-freertos's `isr` feature turned on for it — the simulator's
//!   interrupt, for the port kit's interrupt check.
//!
//! ```no_run
//! use antpool_freertos_sim::{Checks, run, ticks};
//!
//! fn main() {
//!     run("example", |checks: &mut Checks| {
//!         let t = ticks();
//!         checks.check("the tick counter does not go back", ticks() >= t, "");
//!     });
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::{CStr, c_char, c_long, c_ulong, c_void};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

// Links freertos-next's `assert_callback`, which its `FreeRTOSConfig.h` makes
// `configASSERT` call: a failed kernel assertion panics (and, crossing the C
// frames, aborts the run) with the file and line.
use freertos_next as _;

type BaseType = c_long;
type UBaseType = c_ulong;
type TickType = c_ulong;
type TaskHandle = *mut c_void;
type TaskFunction = unsafe extern "C-unwind" fn(*mut c_void);

unsafe extern "C" {
    fn xTaskCreate(
        code: TaskFunction,
        name: *const c_char,
        stack_depth: c_ulong,
        parameters: *mut c_void,
        priority: UBaseType,
        created: *mut TaskHandle,
    ) -> BaseType;
    fn vTaskStartScheduler();
    fn vTaskSuspendAll();
    fn xTaskResumeAll() -> BaseType;
    fn vTaskDelay(ticks: TickType);
    fn xTaskGetTickCount() -> TickType;
    fn uxTaskGetNumberOfTasks() -> UBaseType;
    fn antpool_sim_set_tick_interrupt(handler: Option<extern "C" fn()>);
    fn xPortIsInsideInterrupt() -> BaseType;
}

unsafe extern "C-unwind" {
    fn vTaskDelete(task: TaskHandle);
}

/// Set by the first task, once the scheduler runs; from then on every
/// allocation suspends the scheduler around the system allocator.
static SCHEDULER_RUNNING: AtomicBool = AtomicBool::new(false);

/// Runs `f` with the scheduler suspended, if it runs (no task switch can
/// happen inside, so no task is parked holding a libc lock that `f` needs).
///
/// ```no_run
/// let n = antpool_freertos_sim::suspended(|| 6 * 7);
/// assert_eq!(n, 42);
/// ```
pub fn suspended<R>(f: impl FnOnce() -> R) -> R {
    if !SCHEDULER_RUNNING.load(Ordering::Relaxed) {
        return f();
    }
    // SAFETY: called from a task (only tasks run once the flag is set, besides
    // the watchdog, which never calls this); suspending nests.
    unsafe { vTaskSuspendAll() };
    let r = f();
    // SAFETY: pairs with the suspend above, on the same task.
    unsafe { xTaskResumeAll() };
    r
}

/// The system allocator, called with the scheduler suspended (see [`suspended`]).
///
/// ```
/// // Installed by this crate as the global allocator:
/// let v = vec![1, 2, 3];
/// assert_eq!(v.len(), 3);
/// ```
pub struct SchedulerSafeAlloc;

// SAFETY: every method forwards to `System` with the same arguments; suspending
// the scheduler around it changes no allocator invariant.
unsafe impl GlobalAlloc for SchedulerSafeAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded from our caller's contract.
        suspended(|| unsafe { System.alloc(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded from our caller's contract.
        suspended(|| unsafe { System.dealloc(ptr, layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded from our caller's contract.
        suspended(|| unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded from our caller's contract.
        suspended(|| unsafe { System.realloc(ptr, layout, new_size) })
    }
}

#[global_allocator]
static ALLOCATOR: SchedulerSafeAlloc = SchedulerSafeAlloc;

/// `println!` with the scheduler suspended (stdio takes pthread locks).
///
/// ```no_run
/// antpool_freertos_sim::say!("{} workers", 4);
/// ```
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::suspended(|| println!($($arg)*))
    };
}

/// The kernel's tick count (1 kHz: one tick per millisecond).
///
/// ```no_run
/// let t = antpool_freertos_sim::ticks();
/// antpool_freertos_sim::delay(5);
/// assert!(antpool_freertos_sim::ticks() >= t + 5);
/// ```
pub fn ticks() -> u64 {
    // SAFETY: a plain read of the kernel's tick count.
    unsafe { xTaskGetTickCount() as u64 }
}

/// Blocks the calling task for `ticks` ticks (`vTaskDelay`).
///
/// ```no_run
/// antpool_freertos_sim::delay(1); // let the other tasks run
/// ```
pub fn delay(ticks: u64) {
    // SAFETY: called from a task.
    unsafe { vTaskDelay(ticks as TickType) };
}

/// How many tasks the kernel holds: ours, the idle task, and deleted tasks the
/// idle task has not cleaned up yet.
///
/// ```no_run
/// assert!(antpool_freertos_sim::task_count() >= 2); // the idle task and the caller
/// ```
pub fn task_count() -> usize {
    // SAFETY: a plain read of a kernel counter.
    unsafe { uxTaskGetNumberOfTasks() as usize }
}

/// Waits (in steps of one tick) until `done()` holds, for at most `limit`
/// ticks. Returns the ticks waited, or `None` if the limit passed first.
///
/// ```no_run
/// let t = antpool_freertos_sim::ticks();
/// let waited = antpool_freertos_sim::wait_until(100, || antpool_freertos_sim::ticks() >= t + 10);
/// assert!(waited.is_some());
/// ```
pub fn wait_until(limit: u64, mut done: impl FnMut() -> bool) -> Option<u64> {
    let start = ticks();
    loop {
        if done() {
            return Some(ticks() - start);
        }
        if ticks() - start > limit {
            return None;
        }
        delay(1);
    }
}

/// Calls `handler` inside every tick interrupt from now on (`None`: no
/// more). It runs in the tick's signal handler on the running task's thread,
/// at the start of `xTaskIncrementTick` (even while the scheduler is
/// suspended; never while a task is inside a critical section, which blocks
/// the signal): as an interrupt handler runs. It may use antpool-freertos's
/// interrupt path (`try_invoke_from_isr`: this crate turns on the port's
/// `isr` feature and gives its C functions for this port), and must not
/// block, allocate or print. About 1 000 calls a second.
///
/// ```no_run
/// extern "C" fn each_tick() {
///     assert!(antpool_freertos_sim::in_tick_interrupt());
/// }
/// antpool_freertos_sim::set_tick_interrupt(Some(each_tick));
/// antpool_freertos_sim::delay(10);
/// antpool_freertos_sim::set_tick_interrupt(None);
/// ```
pub fn set_tick_interrupt(handler: Option<extern "C" fn()>) {
    // SAFETY: stores the handler (a function that never unwinds) for the
    // tick hook in csrc/posix_glue.c.
    unsafe { antpool_sim_set_tick_interrupt(handler) }
}

/// Whether the caller is the tick interrupt's handler (see
/// [`set_tick_interrupt`]): what antpool-freertos's `isr` feature asks.
///
/// ```no_run
/// // On a task:
/// assert!(!antpool_freertos_sim::in_tick_interrupt());
/// ```
pub fn in_tick_interrupt() -> bool {
    // SAFETY: reads the glue's flag.
    unsafe { xPortIsInsideInterrupt() != 0 }
}

/// The entry of a task made by [`spawn_task`].
///
/// # Safety
///
/// `arg` is a `Box<Box<dyn FnOnce() + Send>>` made by `spawn_task`, passed to
/// this task alone.
unsafe extern "C-unwind" fn boxed_entry(arg: *mut c_void) {
    // SAFETY: per the contract.
    let f = unsafe { Box::from_raw(arg.cast::<Box<dyn FnOnce() + Send>>()) };
    f();
    // SAFETY: NULL deletes the calling task (on Posix this ends its pthread with
    // a forced unwind; nothing is left in this frame to drop).
    unsafe { vTaskDelete(std::ptr::null_mut()) };
}

/// Starts `f` on a new FreeRTOS task of `priority` with a stack of `stack_words`
/// words; the task deletes itself when `f` returns. Panics if the kernel cannot
/// make the task.
///
/// ```no_run
/// antpool_freertos_sim::spawn_task(c"helper", 2, 1024, || antpool_freertos_sim::say!("hello"));
/// ```
pub fn spawn_task(
    name: &'static CStr,
    priority: u32,
    stack_words: u32,
    f: impl FnOnce() + Send + 'static,
) {
    let boxed: Box<Box<dyn FnOnce() + Send>> = Box::new(Box::new(f));
    let arg = Box::into_raw(boxed).cast::<c_void>();
    // SAFETY: `boxed_entry` matches the kernel's task function; `arg` goes to
    // the new task alone; the name is NUL-terminated and copied by the kernel.
    let created = unsafe {
        xTaskCreate(
            boxed_entry,
            name.as_ptr(),
            stack_words as c_ulong,
            arg,
            priority as UBaseType,
            std::ptr::null_mut(),
        )
    };
    if created != 1 {
        // SAFETY: the task was not made, so `arg` is still ours.
        drop(unsafe { Box::from_raw(arg.cast::<Box<dyn FnOnce() + Send>>()) });
        panic!("xTaskCreate failed for {name:?}");
    }
}

/// A tally of named checks, printed as they happen and summed up at the end
/// as `N passed, N failed`.
///
/// ```
/// let mut checks = antpool_freertos_sim::Checks::default();
/// checks.check("two and two", 2 + 2 == 4, "");
/// assert_eq!((checks.passed, checks.failed), (1, 0));
/// ```
#[derive(Debug, Default)]
pub struct Checks {
    /// Checks that held.
    pub passed: usize,
    /// Checks that did not.
    pub failed: usize,
}

impl Checks {
    /// Records whether `what` held; `detail` is printed with it.
    ///
    /// ```
    /// let mut checks = antpool_freertos_sim::Checks::default();
    /// checks.check("one is odd", 1 % 2 == 1, "1 % 2 = 1");
    /// assert_eq!(checks.failed, 0);
    /// ```
    pub fn check(&mut self, what: &str, ok: bool, detail: impl std::fmt::Display) {
        let mark = if ok { "ok  " } else { "FAIL" };
        say!("  {mark} {what}  {detail}");
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
    }
}

/// What the controlling task runs.
type Body = Box<dyn FnOnce(&mut Checks) + Send>;

/// The entry of the controlling task.
///
/// # Safety
///
/// `arg` is a `Box<(&'static str, Body)>` made by [`run`].
unsafe extern "C-unwind" fn controller(arg: *mut c_void) {
    SCHEDULER_RUNNING.store(true, Ordering::Relaxed);
    // SAFETY: per the contract.
    let job = unsafe { Box::from_raw(arg.cast::<(&'static str, Body)>()) };
    let (name, body) = *job;
    let mut checks = Checks::default();
    body(&mut checks);
    say!("{name}: {} passed, {} failed", checks.passed, checks.failed);
    suspended(|| {
        let _ = std::io::stdout().flush();
    });
    // The scheduler owns the process, and ending it would cancel the other
    // task threads: end the process from here.
    std::process::exit(if checks.failed == 0 { 0 } else { 1 });
}

/// How long a run may take before the watchdog fails it.
pub const WATCHDOG: Duration = Duration::from_secs(120);

/// Starts the FreeRTOS scheduler with one task (priority 2, 16 Ki words of
/// stack) that runs `body`, then exits the process: 0 if every check passed,
/// 1 if one failed, and a watchdog thread aborts the run after [`WATCHDOG`].
/// Never returns.
///
/// ```no_run
/// antpool_freertos_sim::run("demo", |checks| checks.check("runs on a task", true, ""));
/// ```
pub fn run(name: &'static str, body: impl FnOnce(&mut Checks) + Send + 'static) -> ! {
    // A plain thread, made before the kernel sets up its signals: the tick
    // (SIGALRM) is sent to the running task's thread only, so this one sleeps
    // undisturbed. It must not allocate once the scheduler runs (the allocator
    // would suspend the scheduler from a thread that is not a task), and it
    // frees its start-up allocations before the closure runs: wait for that.
    static WATCHING: AtomicBool = AtomicBool::new(false);
    std::thread::spawn(|| {
        WATCHING.store(true, Ordering::Release);
        std::thread::sleep(WATCHDOG);
        let _ = std::io::stderr().write_all(b"watchdog: the FreeRTOS run hung; aborting\n");
        std::process::abort();
    });
    while !WATCHING.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
    let job: Box<(&'static str, Body)> = Box::new((name, Box::new(body)));
    let arg = Box::into_raw(job).cast::<c_void>();
    // SAFETY: `controller` matches the kernel's task function and gets `arg`
    // alone; the name is NUL-terminated.
    let created = unsafe {
        xTaskCreate(
            controller,
            c"controller".as_ptr(),
            16 * 1024,
            arg,
            2,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(created, 1, "xTaskCreate failed for the controlling task");
    // SAFETY: called once, from main, after the first task exists.
    unsafe { vTaskStartScheduler() };
    // Only reached if the scheduler could not start (no idle task memory).
    let _ = std::io::stderr().write_all(b"vTaskStartScheduler returned\n");
    std::process::exit(2);
}
