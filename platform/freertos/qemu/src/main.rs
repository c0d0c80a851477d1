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
//! The controlling task runs the port kit (`antpool-portkit`): the checks
//! every antpool port runs, on `StaticPoolWithFunc`s in `static`s (idle
//! rings of fixed size, no heap) whose workers are FreeRTOS tasks — every
//! job once, the capacity, expiry deleting the tasks, blocking and
//! non-blocking submits, `tune`, release leaving no task, a refused spawn,
//! the interrupt path from a hardware timer (the port's `isr` feature) and
//! results awaited by a small executor. Then what is this port's and these
//! boards' own:
//!
//! * the 32-bit tick wrapped under the pool's clock;
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
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
#[cfg(target_abi = "eabihf")]
use core::time::Duration;

#[cfg(target_abi = "eabihf")]
use antpool::{Options, StaticPoolWithFunc};
use antpool_freertos::{FreeRtosSpawner, TickClock};
use antpool_portkit::{Checks, Pools, Port};
#[cfg(not(microbit))]
use freertos_next::FreeRtosAllocator;

/// The kernel calls and checks both QEMU programs share.
mod kernel;

use kernel::{
    CLOCK, TICK_HZ, TaskHandle, TickMark, UBaseType, delay, own_stack_high_water, task_count, ticks,
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

/// The FPU check's pool's capacity.
#[cfg(target_abi = "eabihf")]
const CAP: usize = 4;
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

/// The kernel's tasks before the kit made any: the controller, the
/// watchdog, the idle task.
static BASELINE: AtomicUsize = AtomicUsize::new(0);

/// FreeRTOS on this board, as the port kit sees it.
struct Board;

impl Port for Board {
    type Clock = TickClock;
    type Spawner = FreeRtosSpawner;
    type Refusing = FreeRtosSpawner;
    const NAME: &'static str = "FreeRTOS V11.2.0 on QEMU";
    const CLOCK: TickClock = CLOCK;
    const SPAWNER: FreeRtosSpawner = SPAWNER;
    /// A stack larger than the kernel's whole heap: xTaskCreate fails.
    const REFUSING: FreeRtosSpawner = SPAWNER.stack_words(1 << 20);

    fn print(line: Arguments<'_>) {
        print(line);
    }

    fn sleep(ticks: u32) {
        delay(ticks);
    }

    fn ticks() -> u64 {
        ticks()
    }

    fn tick_hz() -> u32 {
        TICK_HZ
    }

    /// Tasks made for workers and not yet deleted (the idle task deletes a
    /// task that deleted itself a moment later).
    fn worker_threads() -> usize {
        task_count().saturating_sub(BASELINE.load(Relaxed))
    }

    /// The calling task's stack high-water mark, in bytes.
    fn stack_unused() -> Option<usize> {
        Some(own_stack_high_water() * size_of::<kernel::StackType>())
    }

    fn start_interrupts(hz: u32) -> Result<(), &'static str> {
        let timer = board::timer().ok_or("no timer interrupt known on this board")?;
        timer.start(hz);
        Ok(())
    }

    fn stop_interrupts() {
        if let Some(timer) = board::timer() {
            timer.stop();
        }
    }

    fn in_interrupt() -> bool {
        kernel::in_isr()
    }
}

/// The kit's pools: every one a `StaticPoolWithFunc` over `SPAWNER`.
static POOLS: Pools<Board> = Pools::new();

// ---------------------------------------------------------------------------
// The checks, run by one controlling task.

/// The kernel's heap (`configTOTAL_HEAP_SIZE`, build.rs): every task's stack
/// and control block.
const KERNEL_HEAP_BYTES: usize = if cfg!(microbit) { 8 * 1024 } else { 256 * 1024 };

/// The controller's stack, in words: it formats the output and polls the
/// kit's futures. (Less on the micro:bit, whose tasks share 8 KiB of heap;
/// twice as much unoptimised.)
const CONTROLLER_STACK_WORDS: u32 = match (cfg!(microbit), cfg!(debug_assertions)) {
    (true, _) => 400,
    (false, true) => 2048,
    (false, false) => 1024,
};
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
        "pools: StaticPoolWithFunc in statics, worker stacks {} words",
        WORKER_STACK_WORDS
    );
    let mut checks = Checks::new(print);
    let start_mark = TickMark::now();
    BASELINE.store(task_count(), Relaxed);
    #[cfg(not(microbit))]
    let heap_before = RUST_ALLOCATIONS.load(Relaxed);

    // 1. The port kit: the checks every antpool port runs.
    let findings = antpool_portkit::run(&POOLS, &mut checks);
    let word = size_of::<kernel::StackType>();
    let unused = findings.worker_stack_unused.unwrap_or(0) / word;
    checks.check(
        "the worker stacks had room to spare",
        findings.worker_stack_unused.is_some() && unused >= 32,
        format_args!(
            "{} of {} words used at most, {} never touched",
            WORKER_STACK_WORDS as usize - unused,
            WORKER_STACK_WORDS,
            unused
        ),
    );

    // 2. The 32-bit tick wrapped under the pool, and its clock did not.
    start_mark.check_wrapped(&mut checks);

    // 3. No Rust heap anywhere in the pools.
    #[cfg(not(microbit))]
    kernel::check_no_allocations(&mut checks, RUST_ALLOCATIONS.load(Relaxed) - heap_before);
    // 4. With an FPU: f32 state survives task switches.
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

    // 5. On the micro:bit: what the statics leave of 16 KiB served the
    //    handlers' stack.
    #[cfg(microbit)]
    kernel::check_main_stack(&mut checks);

    say!(
        "batch: {} ticks; controller stack: {} of {} words used",
        findings.batch_ticks,
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
        checks.passed(),
        checks.failed()
    );
    board::exit(checks.all_passed())
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
