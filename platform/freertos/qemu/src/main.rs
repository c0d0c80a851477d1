//! antpool on FreeRTOS on Cortex-M and RISC-V: QEMU's `mps2-an385` board
//! (Cortex-M3, the kernel's `ARM_CM3` port) by default; built for
//! `thumbv7em-none-eabihf`, the same program runs on `mps2-an386` (Cortex-M4F)
//! and `mps2-an500` (Cortex-M7) with the `ARM_CM4F` port, built for
//! `thumbv8m.main-none-eabihf` on `mps2-an505` (Cortex-M33, `ARM_CM33_NTZ`,
//! secure-only), and built for `riscv32imac-unknown-none-elf` on `virt` (an
//! RV32IMAC hart, `GCC/RISC-V` on the CLINT's timer). Real tick interrupts and
//! task switching; what differs per board is in `cortex_m.rs` and `riscv.rs`.
//!
//! A [`StaticPoolWithFunc`] in a `static` (an idle ring of fixed size, no heap)
//! whose workers are FreeRTOS tasks runs a batch of jobs; the program checks
//! what the Posix simulator test checks, on the real port:
//!
//! * every job ran exactly once, never more than `CAP` at a time, and workers
//!   did overlap (the kernel switched between tasks holding jobs);
//! * every worker is a FreeRTOS task, and idle ones expire on the tick clock;
//! * `release_timeout` ends every worker task, and a released pool refuses work;
//! * nothing on the Rust heap: a counting global allocator sees no allocation;
//! * how much of each worker's stack its jobs used (the high-water mark);
//! * with an FPU: `f32` state live across a task switch survives, which tells
//!   a kernel port that saves the FPU's registers from one that does not.
//!
//! It prints `N passed, N failed` (over semihosting, or the UART) and exits
//! QEMU with 0 when all passed. Run it from this directory: `cargo run
//! --release`, with `--target` for the other boards (`.cargo/config.toml`).

#![no_std]
#![no_main]

use core::alloc::{GlobalAlloc, Layout};
use core::ffi::{CStr, c_char, c_long, c_ulong, c_void};
use core::fmt::Arguments;
use core::panic::PanicInfo;
use core::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use core::time::Duration;

use antpool::{Options, StaticPoolWithFunc, SubmitError};
use antpool_freertos::{FreeRtosSpawner, TickClock};
use freertos_next::FreeRtosAllocator;

/// The async check (`Oneshot` results awaited on a task).
mod await_result;
/// The interrupt check (`try_invoke_from_isr`).
mod isr;

/// What differs between the boards: start-up, output, exit and faults.
#[cfg_attr(target_arch = "arm", path = "cortex_m.rs")]
#[cfg_attr(target_arch = "riscv32", path = "riscv.rs")]
mod board;

/// Prints a line on the board's console (semihosting, or the UART).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::board::print(format_args!($($arg)*))
    };
}

const TICK_HZ: u32 = 1_000;
const CAP: usize = 4;
const JOBS: usize = 2_000;
const EXPIRY_TICKS: u64 = 100;
/// Each worker's stack, in words (4 bytes on the Cortex-M3). An unoptimised
/// build needs about four times what a release build does.
const WORKER_STACK_WORDS: u32 = if cfg!(debug_assertions) { 1024 } else { 256 };

// ---------------------------------------------------------------------------
// The kernel calls the demo makes itself (the pool's go through antpool-freertos).

type BaseType = c_long;
type UBaseType = c_ulong;
type TickType = c_ulong;
type TaskHandle = *mut c_void;

unsafe extern "C" {
    fn xTaskCreate(
        code: unsafe extern "C" fn(*mut c_void),
        name: *const c_char,
        stack_depth: c_ulong,
        parameters: *mut c_void,
        priority: UBaseType,
        created: *mut TaskHandle,
    ) -> BaseType;
    fn vTaskStartScheduler();
    fn vTaskDelay(ticks: TickType);
    fn xTaskGetTickCount() -> TickType;
    fn uxTaskGetNumberOfTasks() -> UBaseType;
    fn uxTaskGetStackHighWaterMark(task: TaskHandle) -> UBaseType;
}

/// The pool's clock: the tick count extended to 64 bits. The kernel starts its
/// 32-bit tick 60 ticks before the wrap (config/UserConfig.h), so every
/// measurement here crosses it.
const CLOCK: TickClock = TickClock::new(TICK_HZ);

fn ticks() -> u64 {
    CLOCK.ticks()
}

/// The kernel's own 32-bit tick count.
fn raw_ticks() -> u32 {
    // SAFETY: reads the tick count; callable from any task.
    unsafe { xTaskGetTickCount() }
}

fn delay(ticks: u32) {
    // SAFETY: blocks the calling task (always a task here, never an interrupt).
    unsafe { vTaskDelay(ticks) }
}

fn task_count() -> usize {
    // SAFETY: reads a kernel counter.
    unsafe { uxTaskGetNumberOfTasks() as usize }
}

/// Waits (in 1-tick steps) up to `limit` ticks for `done`; the ticks it took.
fn wait_until(limit: u64, mut done: impl FnMut() -> bool) -> Option<u64> {
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

/// The smallest stack reserve (in words) the calling task has ever had.
fn own_stack_high_water() -> usize {
    // SAFETY: NULL means the calling task, which is alive.
    unsafe { uxTaskGetStackHighWaterMark(core::ptr::null_mut()) as usize }
}

fn spawn(name: &'static CStr, entry: unsafe extern "C" fn(*mut c_void), words: u32, prio: u32) {
    // SAFETY: `entry` never returns (it exits QEMU), `name` is 'static, and no
    // parameter or handle is passed.
    let made = unsafe {
        xTaskCreate(
            entry,
            name.as_ptr(),
            words,
            core::ptr::null_mut(),
            prio,
            core::ptr::null_mut(),
        )
    };
    if made != 1 {
        fail(format_args!("cannot create task {name:?}"));
    }
}

fn fail(why: Arguments<'_>) -> ! {
    say!("FAILED: {}", why);
    board::exit(false)
}

// ---------------------------------------------------------------------------
// No Rust heap: `freertos-next` links `alloc`, so a global allocator must exist;
// this one counts, and the demo checks that the count stays 0.

struct CountingAllocator;

static RUST_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to FreeRTOS's heap_4 (`pvPortMalloc`, 8-byte aligned), which
// is all the demo would get if anything allocated; nothing should.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        RUST_ALLOCATIONS.fetch_add(1, Relaxed);
        if layout.align() > 8 {
            return core::ptr::null_mut();
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { FreeRtosAllocator.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above.
        unsafe { FreeRtosAllocator.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

// ---------------------------------------------------------------------------
// The pool and what its jobs record.

/// How many times each job ran.
static RAN: [AtomicU8; JOBS] = [const { AtomicU8::new(0) }; JOBS];
/// Jobs running right now, and the most seen at once.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);
/// The smallest stack reserve any worker had while running a job (words).
static WORKER_HIGH_WATER: AtomicUsize = AtomicUsize::new(usize::MAX);

fn job(id: usize) {
    let now = ACTIVE.fetch_add(1, Relaxed) + 1;
    MOST.fetch_max(now, Relaxed);
    // Some CPU work, and now and then a block, so that workers overlap and the
    // kernel switches between tasks that hold jobs.
    let mut x = id as u32;
    for _ in 0..100 {
        x = core::hint::black_box(x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
    }
    if id % 16 == 0 {
        delay(1);
    }
    WORKER_HIGH_WATER.fetch_min(own_stack_high_water(), Relaxed);
    RAN[id].fetch_add(1, Relaxed);
    ACTIVE.fetch_sub(1, Relaxed);
}

/// Workers at the controller's priority (time-sliced with it), on notification
/// slot 1 (the kernel is built with two slots).
// SAFETY: index 1 is below configTASK_NOTIFICATION_ARRAY_ENTRIES (2, config/).
const SPAWNER: FreeRtosSpawner = unsafe { FreeRtosSpawner::new().notify_index(1) }
    .name(c"ap-worker")
    .stack_words(WORKER_STACK_WORDS)
    .priority(2)
    .tick_hz(TICK_HZ);

/// The FPU check's jobs, and how many of them found their `f32` state changed.
#[cfg(target_abi = "eabihf")]
const FPU_JOBS: usize = 400;
#[cfg(target_abi = "eabihf")]
static FPU_MISMATCHES: AtomicUsize = AtomicUsize::new(0);

/// Keeps `f32` values live across a block (another worker runs, doing the
/// same with other values), then compares them with a recomputation. Values
/// live across a call sit in the callee-saved `s16`–`s31`, which only a port
/// that saves the FPU context keeps across a task switch.
#[cfg(target_abi = "eabihf")]
fn fpu_job(seed: usize) {
    let start = |seed: usize| {
        let x = core::hint::black_box(seed as f32 * 0.5 + 1.25);
        [x, x * 1.5 + 0.25, x * 2.25 - 0.5, x * 3.125 + 1.0]
    };
    let mut live = start(seed);
    for v in live.iter_mut() {
        *v = *v * 1.0001 + 0.5;
    }
    delay(1);
    for v in live.iter_mut() {
        *v = *v * 0.999 - 0.25;
    }
    let mut again = start(seed);
    for v in again.iter_mut() {
        *v = (*v * 1.0001 + 0.5) * 0.999 - 0.25;
    }
    if core::hint::black_box(live) != again {
        FPU_MISMATCHES.fetch_add(1, Relaxed);
    }
}

#[cfg(target_abi = "eabihf")]
static FPU_POOL: StaticPoolWithFunc<usize, CAP, TickClock, FreeRtosSpawner> =
    StaticPoolWithFunc::new(Options::new().capacity(CAP), fpu_job, CLOCK, SPAWNER);

static POOL: StaticPoolWithFunc<usize, CAP, TickClock, FreeRtosSpawner> = StaticPoolWithFunc::new(
    Options::new()
        .capacity(CAP)
        .expiry(Duration::from_millis(EXPIRY_TICKS)),
    job,
    CLOCK,
    SPAWNER,
);

// ---------------------------------------------------------------------------
// The checks, run by one controlling task.

struct Checks {
    passed: usize,
    failed: usize,
}

impl Checks {
    fn check(&mut self, what: &str, ok: bool, detail: Arguments<'_>) {
        if ok {
            self.passed += 1;
            say!("  ok    {} ({})", what, detail);
        } else {
            self.failed += 1;
            say!("  FAIL  {} ({})", what, detail);
        }
    }
}

const CONTROLLER_STACK_WORDS: u32 = 1024;

unsafe extern "C" fn controller(_: *mut c_void) {
    let (core, board, port) = board::core_name();
    say!(
        "antpool on FreeRTOS V11.2.0, {} port, QEMU {} ({}); tick {} Hz",
        port,
        board,
        core,
        TICK_HZ
    );
    say!(
        "pool: StaticPoolWithFunc<_, {}> in a static, worker stacks {} words",
        CAP,
        WORKER_STACK_WORDS
    );
    let mut checks = Checks {
        passed: 0,
        failed: 0,
    };
    let (raw_start, clock_start) = (raw_ticks(), ticks());
    let baseline = task_count();
    let heap_before = RUST_ALLOCATIONS.load(Relaxed);

    // 1. A batch of jobs: each exactly once, within capacity, on worker tasks.
    let start = ticks();
    for id in 0..JOBS {
        if let Err(e) = POOL.invoke(id) {
            fail(format_args!("invoke({id}) refused: {e:?}"));
        }
    }
    POOL.wait_idle();
    let taken = ticks() - start;
    let once = RAN.iter().filter(|r| r.load(Relaxed) == 1).count();
    checks.check(
        "every job ran exactly once",
        once == JOBS,
        format_args!("{once} of {JOBS} jobs once, in {taken} ticks"),
    );
    let most = MOST.load(Relaxed);
    checks.check(
        "never more than the capacity at once, and workers overlapped",
        (2..=CAP).contains(&most),
        format_args!("at most {most} jobs at once, capacity {CAP}"),
    );
    let workers = POOL.running();
    checks.check(
        "every worker is a FreeRTOS task",
        workers >= 1 && task_count() == baseline + workers,
        format_args!(
            "{workers} workers, {} tasks, {baseline} before",
            task_count()
        ),
    );
    let high_water = WORKER_HIGH_WATER.load(Relaxed);
    checks.check(
        "the worker stacks had room to spare",
        high_water != usize::MAX && high_water >= 32,
        format_args!(
            "{} of {} words used at most, {} never touched",
            WORKER_STACK_WORDS as usize - high_water,
            WORKER_STACK_WORDS,
            high_water
        ),
    );

    // 2. Idle workers expire on the tick clock, and their tasks are deleted.
    let idle_from = ticks();
    delay((EXPIRY_TICKS / 2) as u32);
    let alive_half_way = POOL.running();
    let expired = wait_until(4 * EXPIRY_TICKS, || {
        POOL.running() == 0 && task_count() == baseline
    });
    checks.check(
        "idle workers expire on the tick clock and their tasks are deleted",
        alive_half_way == workers && expired.is_some(),
        format_args!(
            "{alive_half_way}/{workers} alive at {} ticks idle, none {} ticks after going idle",
            EXPIRY_TICKS / 2,
            ticks() - idle_from
        ),
    );

    // 3. Release ends every worker task, and a released pool refuses work.
    for id in 0..CAP {
        POOL.invoke(id)
            .unwrap_or_else(|e| fail(format_args!("{e:?}")));
    }
    let busy = POOL.running();
    let released = POOL.release_timeout(Duration::from_secs(2));
    let cleaned = wait_until(100, || task_count() == baseline);
    checks.check(
        "release_timeout ends every worker task",
        busy >= 1 && released.is_ok() && cleaned.is_some(),
        format_args!(
            "{busy} workers, {released:?}, {} tasks after, {baseline} before",
            task_count()
        ),
    );
    let refused = POOL.invoke(JOBS);
    checks.check(
        "a released pool hands the argument back",
        matches!(refused, Err(SubmitError::Closed(n)) if n == JOBS),
        format_args!("{refused:?}"),
    );

    // 4. The 32-bit tick wrapped under the pool, and its clock did not.
    let (raw_end, clock_end) = (raw_ticks(), ticks());
    checks.check(
        "the 32-bit tick wrapped during the run; the pool's clock went on",
        raw_end < raw_start && clock_end > clock_start,
        format_args!(
            "kernel tick {raw_start:#010x} -> {raw_end:#010x}, clock {clock_start:#x} -> {clock_end:#x}"
        ),
    );

    // 5. Jobs handed over from a timer interrupt.
    match board::timer() {
        Some(timer) => isr::check(&mut checks, timer),
        None => {
            say!("  (no timer interrupt known on this board: the interrupt checks are not run)")
        }
    }

    // 6. A future awaits results computed on workers.
    await_result::check(&mut checks);

    // 7. No Rust heap anywhere in the pools.
    let allocations = RUST_ALLOCATIONS.load(Relaxed) - heap_before;
    checks.check(
        "no Rust heap allocation",
        allocations == 0,
        format_args!("{allocations} allocations"),
    );
    // 8. With an FPU: f32 state survives task switches.
    #[cfg(target_abi = "eabihf")]
    {
        for seed in 0..FPU_JOBS {
            if let Err(e) = FPU_POOL.invoke(seed) {
                fail(format_args!("FPU_POOL.invoke({seed}) refused: {e:?}"));
            }
        }
        let ended = FPU_POOL.release_timeout(Duration::from_secs(10));
        let mismatches = FPU_MISMATCHES.load(Relaxed);
        checks.check(
            "f32 state live across task switches survives (the port saves the FPU)",
            ended.is_ok() && mismatches == 0,
            format_args!("{mismatches} mismatches in {FPU_JOBS} jobs; release {ended:?}"),
        );
    }

    let stats = POOL.stats();
    say!(
        "stats: {} completed, {} workers spawned, {} retired; controller stack: {} of {} words used",
        stats.completed,
        stats.spawned,
        stats.retired,
        CONTROLLER_STACK_WORDS as usize - own_stack_high_water(),
        CONTROLLER_STACK_WORDS
    );

    say!(
        "antpool on FreeRTOS (QEMU {}): {} passed, {} failed",
        core,
        checks.passed,
        checks.failed
    );
    board::exit(checks.failed == 0)
}

/// Ends the run if the checks have not finished in 60 s of ticks.
unsafe extern "C" fn watchdog(_: *mut c_void) {
    delay(60_000);
    fail(format_args!("the demo did not finish in 60 000 ticks"))
}

/// Called by the board's start-up code, once, on the only stack there is.
fn start() -> ! {
    spawn(c"controller", controller, CONTROLLER_STACK_WORDS, 2);
    spawn(c"watchdog", watchdog, 256, 4);
    // SAFETY: called once, from main, before any task runs; it does not return
    // unless the kernel cannot make its idle task.
    unsafe { vTaskStartScheduler() };
    fail(format_args!("the scheduler did not start"))
}

// ---------------------------------------------------------------------------
// Hooks the kernel and the runtime call.

/// `configCHECK_FOR_STACK_OVERFLOW 2` calls this when a task overran its stack.
#[unsafe(no_mangle)]
extern "C" fn vApplicationStackOverflowHook(_task: TaskHandle, name: *const c_char) {
    // SAFETY: the kernel passes the task's NUL-terminated name.
    let name = unsafe { CStr::from_ptr(name) };
    fail(format_args!("stack overflow in task {name:?}"))
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    fail(format_args!("panic: {info}"))
}
