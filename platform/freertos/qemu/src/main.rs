//! antpool on FreeRTOS on Cortex-M and RISC-V: QEMU's `mps2-an385` board
//! (Cortex-M3, the kernel's `ARM_CM3` port) by default; built for
//! `thumbv7em-none-eabihf`, the same program runs on `mps2-an386` (Cortex-M4F)
//! and `mps2-an500` (Cortex-M7) with the `ARM_CM4F` port, built for
//! `thumbv8m.main-none-eabihf` on `mps2-an505` (Cortex-M33, `ARM_CM33_NTZ`,
//! secure-only), built for `thumbv6m-none-eabi` on `microbit` (the BBC
//! micro:bit's nRF51822, a Cortex-M0 with 16 KiB of RAM, `ARM_CM0`, its tick
//! on TIMER1), and built for `riscv32imac-unknown-none-elf` on `virt` (an
//! RV32IMAC hart, `GCC/RISC-V` on the CLINT's timer). Real tick interrupts and
//! task switching; what differs per board is in `cortex_m.rs` (with
//! `cmsdk.rs` or `nrf51.rs`) and `riscv.rs`.
//!
//! A [`StaticPoolWithFunc`] in a `static` (an idle ring of fixed size, no heap)
//! whose workers are FreeRTOS tasks runs a batch of jobs; the program checks
//! what the Posix simulator test checks, on the real port:
//!
//! * every job ran exactly once, never more than `CAP` at a time, and workers
//!   did overlap (the kernel switched between tasks holding jobs);
//! * every worker is a FreeRTOS task, and idle ones expire on the tick clock;
//! * `release_timeout` ends every worker task, and a released pool refuses work;
//! * nothing on the Rust heap: a counting global allocator sees no allocation
//!   (on the micro:bit no crate links `alloc`, so there is no allocator);
//! * how much of each worker's stack its jobs used (the high-water mark);
//! * with an FPU: `f32` state live across a task switch survives, which tells
//!   a kernel port that saves the FPU's registers from one that does not.
//!
//! It prints `N passed, N failed` (over semihosting, or the UART) and exits
//! QEMU with 0 when all passed. Run it from this directory: `cargo run
//! --release`, with `--target` for the other boards (`.cargo/config.toml`).

#![no_std]
#![no_main]

#[cfg(not(microbit))]
use core::alloc::{GlobalAlloc, Layout};
use core::ffi::{CStr, c_char, c_long, c_ulong, c_void};
use core::fmt::Arguments;
#[cfg(not(microbit))]
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use core::time::Duration;

use antpool::{Options, StaticPoolWithFunc};
use antpool_freertos::{FreeRtosSpawner, TickClock};
#[cfg(not(microbit))]
use freertos_next::FreeRtosAllocator;

/// The async check (`Oneshot` results awaited on a task).
mod await_result;
/// The interrupt check (`try_invoke_from_isr`).
mod isr;

/// The batch of jobs both QEMU programs run.
mod batch;
/// The kernel calls and checks both QEMU programs share.
mod kernel;

use batch::job;

use kernel::{
    CLOCK, Checks, TICK_HZ, TaskHandle, TickMark, UBaseType, delay, own_stack_high_water,
    task_count, ticks, wait_until,
};

/// What differs between the boards: start-up, output, exit and faults.
#[cfg_attr(target_arch = "arm", path = "cortex_m.rs")]
#[cfg_attr(target_arch = "riscv32", path = "riscv.rs")]
mod board;
/// The kernel's tick on the micro:bit (TIMER1: the nRF51 has no SysTick).
#[cfg(microbit)]
mod nrf51_tick;
/// The NVIC, a word at a time (as the Cortex-M0 requires).
#[cfg(target_arch = "arm")]
mod nvic;

// The micro:bit's 16 KiB of RAM hold the release build (see the sizes below),
// not an unoptimised one, whose stacks are about four times as deep.
#[cfg(all(microbit, debug_assertions))]
compile_error!("the micro:bit has 16 KiB of RAM: build this program with --release");

/// Prints a line on the board's console (semihosting, or the UART).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::board::print(format_args!($($arg)*))
    };
}

const CAP: usize = 4;
const EXPIRY_TICKS: u64 = 100;
/// Each worker's stack, in words (4 bytes on the Cortex-M3). An unoptimised
/// build needs about four times what a release build does.
const WORKER_STACK_WORDS: u32 = if cfg!(debug_assertions) { 1024 } else { 256 };

// ---------------------------------------------------------------------------
// The kernel calls the demo makes itself (the pool's go through antpool-freertos).

type BaseType = c_long;

unsafe extern "C" {
    /// heap_4's lowest free count since start-up.
    fn xPortGetMinimumEverFreeHeapSize() -> usize;
    fn xTaskCreate(
        code: unsafe extern "C" fn(*mut c_void),
        name: *const c_char,
        stack_depth: c_ulong,
        parameters: *mut c_void,
        priority: UBaseType,
        created: *mut TaskHandle,
    ) -> BaseType;
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

/// One line on the board's console.
fn print(line: Arguments<'_>) {
    board::print(line)
}

fn fail(why: Arguments<'_>) -> ! {
    say!("FAILED: {}", why);
    board::exit(false)
}

// ---------------------------------------------------------------------------
// No Rust heap: `freertos-next` links `alloc`, so a global allocator must exist;
// this one counts, and the demo checks that the count stays 0. (On the
// micro:bit nothing links `alloc`: a crate that allocated would not link.)

#[cfg(not(microbit))]
struct CountingAllocator;

#[cfg(not(microbit))]
static RUST_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

#[cfg(not(microbit))]
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

#[cfg(not(microbit))]
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

// ---------------------------------------------------------------------------
// The pool and what its jobs record.

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

/// The kernel's heap (`configTOTAL_HEAP_SIZE`, build.rs): every task's stack
/// and control block.
const KERNEL_HEAP_BYTES: usize = if cfg!(microbit) { 8 * 1024 } else { 256 * 1024 };

/// The controller's stack, in words: it formats the output. (Less on the
/// micro:bit, whose tasks share 8 KiB of heap.)
const CONTROLLER_STACK_WORDS: u32 = if cfg!(microbit) { 320 } else { 1024 };
/// The watchdog's: it only formats its failure.
const WATCHDOG_STACK_WORDS: u32 = if cfg!(microbit) { 160 } else { 256 };

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
    let mut checks = Checks::new();
    let start_mark = TickMark::now();
    let baseline = task_count();
    #[cfg(not(microbit))]
    let heap_before = RUST_ALLOCATIONS.load(Relaxed);

    // 1. A batch of jobs: each exactly once, within capacity, on worker tasks.
    let high_water = batch::run(&POOL, CAP, &mut checks);
    let workers = POOL.running();
    checks.check(
        "every worker is a FreeRTOS task",
        workers >= 1 && task_count() == baseline + workers,
        format_args!(
            "{workers} workers, {} tasks, {baseline} before",
            task_count()
        ),
    );
    batch::check_stack(
        &mut checks,
        "the worker stacks had room to spare",
        WORKER_STACK_WORDS as usize,
        high_water,
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
    batch::check_closed(&POOL, &mut checks);

    // 4. The 32-bit tick wrapped under the pool, and its clock did not.
    start_mark.check_wrapped(&mut checks);

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
    #[cfg(not(microbit))]
    kernel::check_no_allocations(&mut checks, RUST_ALLOCATIONS.load(Relaxed) - heap_before);
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

    // 9. On the micro:bit: what the statics leave of 16 KiB served the
    //    handlers' stack.
    #[cfg(microbit)]
    kernel::check_main_stack(&mut checks);

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
        "kernel heap: {} of {} bytes never used",
        // SAFETY: reads heap_4's record; callable from a task.
        unsafe { xPortGetMinimumEverFreeHeapSize() },
        KERNEL_HEAP_BYTES
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
    spawn(c"watchdog", watchdog, WATCHDOG_STACK_WORDS, 4);
    kernel::start_scheduler()
}
