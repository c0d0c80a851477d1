//! antpool on FreeRTOS with no heap at all, on QEMU's `mps2-an385` board
//! (Cortex-M3, the kernel's `ARM_CM3` port), or built for
//! `thumbv6m-none-eabi` on its `microbit` board (the nRF51822's Cortex-M0,
//! `ARM_CM0`, 16 KiB of RAM, the tick on TIMER1): a whole system whose pools,
//! worker tasks and their stacks are all `static`.
//!
//! The kernel is built with `configSUPPORT_DYNAMIC_ALLOCATION 0` and no
//! `heap_x.c` (build.rs), so there is no `pvPortMalloc` to call. Every pool
//! is a [`StaticPoolWithFunc`] in a `static`, its workers the tasks of a
//! `static` [`TaskSlots`] through [`StaticSpawner`]: tasks made with
//! `xTaskCreateStatic` that never exit, and wait for their next job on a
//! task notification. The controlling task runs the port kit
//! (`antpool-portkit`: the checks every antpool port runs, its interrupt
//! check on the board's timer, with the port's `isr` feature) on
//! `StaticSpawner`, then what is the static slots' own:
//!
//! * the slots' `StaticTask_t` reserve fits the kernel's (and a reserve too
//!   small makes no task);
//! * the next jobs reuse the idle slot tasks: no task is made (the kernel's
//!   task count stays);
//! * with every slot busy, a pool of a larger capacity gets `SpawnFailed`
//!   with its argument back;
//! * the 32-bit tick wrapped under the pool; no Rust heap allocation (the
//!   global allocator counts, and has nothing to give; on the micro:bit no
//!   crate links `alloc`, so there is no allocator at all);
//! * on the micro:bit, that the RAM the statics leave served the main stack.
//!
//! It prints `N passed, N failed` over semihosting and exits QEMU with 0 when
//! all passed. Run it from this directory: `cargo run --release`.

#![no_std]
#![no_main]

#[cfg(not(microbit))]
use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ffi::{CStr, c_char, c_ulong, c_void};
use core::fmt::Arguments;
use core::time::Duration;
#[cfg(not(microbit))]
use portable_atomic::AtomicUsize;
use portable_atomic::{AtomicBool, Ordering::Relaxed};

use antpool::{Options, StaticPoolWithFunc, SubmitError};
use antpool_freertos::{StaticSpawner, StaticTaskLayout, TaskSlots, TickClock};
use antpool_portkit::{Checks, Pools, Port};
use cortex_m_semihosting::hprintln;
// Links freertos-next's `assert_callback`, which its FreeRTOSConfig.h makes
// `configASSERT` call; none of its Rust API is used. (On the micro:bit
// `kernel.rs` defines it.)
#[cfg(not(microbit))]
use freertos_next as _;

/// Slot tasks: the kit's largest pool has four workers.
const SLOT_COUNT: usize = 4;
/// Each slot task's stack, in words (4 bytes on the Cortex-M3). An
/// unoptimised build needs about four times what a release build does.
const STACK_WORDS: usize = if cfg!(debug_assertions) { 1024 } else { 256 };
/// The bytes each slot reserves for `StaticTask_t`: exactly what this kernel
/// configuration needs on the Cortex-M3, and more than the Cortex-M0's (the
/// check below proves it).
const TCB_BYTES: usize = 88;

/// The board (`../qemu`'s): start-up, output, exit and faults, the kit's
/// interrupt timer, and on the micro:bit the kernel's tick.
#[path = "../../qemu/src/cortex_m.rs"]
mod board;
/// The kernel calls and checks both QEMU programs share (`../qemu`'s).
#[path = "../../qemu/src/kernel.rs"]
mod kernel;
/// The kernel's tick on the micro:bit (TIMER1: the nRF51 has no SysTick).
#[cfg(microbit)]
#[path = "../../qemu/src/nrf51_tick.rs"]
mod nrf51_tick;
/// The NVIC, a word at a time (as the Cortex-M0 requires).
#[path = "../../qemu/src/nvic.rs"]
mod nvic;

// The micro:bit's 16 KiB of RAM hold the release build, not an unoptimised
// one, whose stacks are about four times as deep.
#[cfg(all(microbit, debug_assertions))]
compile_error!("the micro:bit has 16 KiB of RAM: build this program with --release");

use kernel::{
    CLOCK, TICK_HZ, TaskHandle, TickMark, UBaseType, delay, own_stack_high_water, task_count,
    ticks, wait_until,
};

// ---------------------------------------------------------------------------
// The kernel call the demo makes itself (the pools' go through antpool-freertos).

unsafe extern "C" {
    fn xTaskCreateStatic(
        code: unsafe extern "C" fn(*mut c_void),
        name: *const c_char,
        stack_depth: c_ulong,
        parameters: *mut c_void,
        priority: UBaseType,
        stack: *mut c_ulong,
        task_buffer: *mut c_void,
    ) -> TaskHandle;
}

/// A task of the demo's own (controller, watchdog): its control block and
/// stack, static, like the slots'.
#[repr(C, align(8))]
struct TaskMemory<const W: usize> {
    tcb: UnsafeCell<[u8; TCB_BYTES]>,
    stack: UnsafeCell<[c_ulong; W]>,
    taken: AtomicBool,
}

// SAFETY: the buffers are handed to the kernel once (`taken`), and never
// touched by Rust again.
unsafe impl<const W: usize> Sync for TaskMemory<W> {}

impl<const W: usize> TaskMemory<W> {
    const fn new() -> Self {
        TaskMemory {
            tcb: UnsafeCell::new([0; TCB_BYTES]),
            stack: UnsafeCell::new([0; W]),
            taken: AtomicBool::new(false),
        }
    }

    fn spawn(
        &'static self,
        name: &'static CStr,
        entry: unsafe extern "C" fn(*mut c_void),
        prio: u32,
    ) {
        let layout = StaticTaskLayout::of_kernel();
        if layout.fits(TCB_BYTES).is_err() || self.taken.swap(true, Relaxed) {
            fail(format_args!("cannot create task {name:?} ({layout:?})"));
        }
        // SAFETY: `entry` never returns (it exits QEMU); `name` is 'static;
        // the buffers are 'static, used for this one task (`taken`), and the
        // TCB buffer holds a StaticTask_t (checked above; 8-byte aligned).
        let made = unsafe {
            xTaskCreateStatic(
                entry,
                name.as_ptr(),
                W as c_ulong,
                core::ptr::null_mut(),
                prio,
                self.stack.get().cast(),
                self.tcb.get().cast(),
            )
        };
        if made.is_null() {
            fail(format_args!("cannot create task {name:?}"));
        }
    }
}

/// One line on the host's console.
fn print(line: Arguments<'_>) {
    board::print(line)
}

fn fail(why: Arguments<'_>) -> ! {
    print(format_args!("FAILED: {}", why));
    board::exit(false)
}

// ---------------------------------------------------------------------------
// No heap: `freertos-next` links `alloc`, so a global allocator must exist.
// There is no kernel heap to forward to; this one counts and gives nothing.
// (On the micro:bit nothing links `alloc`: a crate that allocated would not
// link.)

#[cfg(not(microbit))]
struct CountingAllocator;

#[cfg(not(microbit))]
static RUST_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

#[cfg(not(microbit))]
// SAFETY: never hands out memory: a null return is an allocation failure,
// which every caller must handle.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, _layout: Layout) -> *mut u8 {
        RUST_ALLOCATIONS.fetch_add(1, Relaxed);
        core::ptr::null_mut()
    }

    unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {}
}

#[cfg(not(microbit))]
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

// ---------------------------------------------------------------------------
// The slots, the pools, and the kit's view of the port.

/// Every worker task's control block and stack.
static SLOTS: TaskSlots<SLOT_COUNT, STACK_WORDS, TCB_BYTES> = TaskSlots::new();
static NO_SLOTS: TaskSlots<0, STACK_WORDS, TCB_BYTES> = TaskSlots::new();

type Spawner = StaticSpawner<SLOT_COUNT, STACK_WORDS, TCB_BYTES>;

/// Workers at the controller's priority (time-sliced with it), on notification
/// slot 1 (the kernel is built with two slots).
// SAFETY: index 1 is below configTASK_NOTIFICATION_ARRAY_ENTRIES (2, config/).
const SPAWNER: Spawner = unsafe { StaticSpawner::new(&SLOTS).notify_index(1) }
    .name(c"ap-slot")
    .priority(2)
    .tick_hz(TICK_HZ);

/// FreeRTOS's static slots on this board, as the port kit sees them.
struct Board;

impl Port for Board {
    type Clock = TickClock;
    type Spawner = Spawner;
    type Refusing = StaticSpawner<0, STACK_WORDS, TCB_BYTES>;
    const NAME: &'static str = "FreeRTOS V11.2.0 (StaticSpawner, no heap) on QEMU";
    const CLOCK: TickClock = CLOCK;
    const SPAWNER: Spawner = SPAWNER;
    // SAFETY: as for SPAWNER.
    const REFUSING: StaticSpawner<0, STACK_WORDS, TCB_BYTES> =
        unsafe { StaticSpawner::new(&NO_SLOTS).notify_index(1) }.tick_hz(TICK_HZ);

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

    /// Busy slots: the slot tasks stay, parked, between workers.
    fn worker_threads() -> usize {
        SLOTS.busy()
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

/// The kit's pools: every one a `StaticPoolWithFunc` over the static slots.
static POOLS: Pools<Board> = Pools::new();

/// Jobs of the over-capacity pool hold their slot until this opens.
static GATE: AtomicBool = AtomicBool::new(false);

fn held(_: usize) {
    while !GATE.load(Relaxed) {
        delay(1);
    }
}

/// A pool whose capacity (5) is above the slot count (4), over the same slots.
static OVER: StaticPoolWithFunc<usize, { SLOT_COUNT + 1 }, TickClock, Spawner> =
    StaticPoolWithFunc::new(
        Options::new().capacity(SLOT_COUNT + 1),
        held,
        CLOCK,
        SPAWNER,
    );

/// A reserve far smaller than the kernel's `StaticTask_t`.
static TINY: TaskSlots<1, 64, 16> = TaskSlots::new();
static TINY_POOL: StaticPoolWithFunc<usize, 1, TickClock, StaticSpawner<1, 64, 16>> =
    StaticPoolWithFunc::new(
        Options::new().capacity(1),
        held,
        CLOCK,
        StaticSpawner::new(&TINY),
    );

// ---------------------------------------------------------------------------
// The checks, run by one controlling task.

/// The controller formats the output; the watchdog only its failure. (Less
/// on the micro:bit, with 16 KiB of RAM in all.)
const CONTROLLER_STACK_WORDS: usize = if cfg!(microbit) { 400 } else { 1024 };
const WATCHDOG_STACK_WORDS: usize = if cfg!(microbit) { 160 } else { 256 };
static CONTROLLER: TaskMemory<CONTROLLER_STACK_WORDS> = TaskMemory::new();
static WATCHDOG: TaskMemory<WATCHDOG_STACK_WORDS> = TaskMemory::new();

unsafe extern "C" fn controller(_: *mut c_void) {
    let (core, board, port) = board::core_name();
    hprintln!(
        "antpool on FreeRTOS V11.2.0, {} port, QEMU {} ({}); tick {} Hz; no heap",
        port,
        board,
        core,
        TICK_HZ
    );
    hprintln!(
        "slots: TaskSlots<{}, {}, {}>: {} bytes a slot",
        SLOT_COUNT,
        STACK_WORDS,
        TCB_BYTES,
        TaskSlots::<SLOT_COUNT, STACK_WORDS, TCB_BYTES>::SLOT_BYTES
    );
    let mut checks = Checks::new(print);
    let start_mark = TickMark::now();
    let baseline = task_count();
    #[cfg(not(microbit))]
    let heap_before = RUST_ALLOCATIONS.load(Relaxed);

    // 1. The StaticTask_t reserve, against the kernel's (csrc/antpool_static_task.c).
    let fits = SLOTS.check();
    checks.check(
        "the slots' StaticTask_t reserve fits the kernel's",
        fits.is_ok(),
        format_args!("kernel {:?}, reserve {TCB_BYTES} bytes", fits),
    );
    let tiny = TINY.check();
    let refused = TINY_POOL.invoke(1);
    checks.check(
        "a reserve too small is refused and makes no task",
        tiny.is_err()
            && matches!(refused, Err(SubmitError::SpawnFailed(1)))
            && task_count() == baseline,
        format_args!("{:?}; invoke: {refused:?}", tiny.map_err(|e| e.reserved())),
    );

    // 2. The port kit: the checks every antpool port runs.
    let findings = antpool_portkit::run(&POOLS, &mut checks);
    let word = size_of::<kernel::StackType>();
    let unused = findings.worker_stack_unused.unwrap_or(0) / word;
    checks.check(
        "the slot stacks had room to spare",
        findings.worker_stack_unused.is_some() && unused >= 32,
        format_args!(
            "{} of {STACK_WORDS} words used at most, {unused} never touched",
            STACK_WORDS - unused
        ),
    );

    // 3. The next jobs reuse the idle slot tasks: no task is made.
    let tasks = task_count();
    let idle = SLOTS.idle();
    let busy = SLOTS.busy();
    GATE.store(true, Relaxed);
    for id in 0..idle {
        OVER.invoke(id)
            .unwrap_or_else(|e| fail(format_args!("OVER.invoke({id}): {e:?}")));
    }
    OVER.wait_idle();
    checks.check(
        "the next jobs reuse the IDLE slots: no task is made",
        idle >= 1 && busy == 0 && task_count() == tasks,
        format_args!("{idle} idle slots, {} tasks (was {tasks})", task_count()),
    );

    // 4. Every slot busy: a pool of a larger capacity gets its argument back.
    GATE.store(false, Relaxed);
    for id in 0..SLOT_COUNT {
        OVER.invoke(id)
            .unwrap_or_else(|e| fail(format_args!("OVER.invoke({id}): {e:?}")));
    }
    let busy = SLOTS.busy();
    let refused = OVER.invoke(99);
    GATE.store(true, Relaxed);
    let over_released = OVER.release_timeout(Duration::from_secs(2));
    let all_idle = wait_until(100, || SLOTS.busy() == 0);
    checks.check(
        "with every slot busy the pool gets SpawnFailed with the argument",
        busy == SLOT_COUNT
            && matches!(refused, Err(SubmitError::SpawnFailed(99)))
            && over_released.is_ok()
            && all_idle.is_some(),
        format_args!(
            "{busy} busy slots, {refused:?}, capacity {}; release {over_released:?}",
            SLOT_COUNT + 1
        ),
    );

    // 5. The 32-bit tick wrapped under the pools, and their clock did not.
    start_mark.check_wrapped(&mut checks);

    // 6. No Rust heap anywhere (and no kernel heap: CI checks the ELF).
    #[cfg(not(microbit))]
    kernel::check_no_allocations(&mut checks, RUST_ALLOCATIONS.load(Relaxed) - heap_before);
    // 7. On the micro:bit: what the statics leave of 16 KiB served the
    //    handlers' stack.
    #[cfg(microbit)]
    kernel::check_main_stack(&mut checks);

    hprintln!(
        "batch: {} ticks; {} slot tasks; controller stack: {} of {} words used",
        findings.batch_ticks,
        task_count() - baseline,
        CONTROLLER_STACK_WORDS - own_stack_high_water(),
        CONTROLLER_STACK_WORDS
    );
    hprintln!(
        "antpool on FreeRTOS, static tasks, no heap (QEMU {}): {} passed, {} failed",
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
    CONTROLLER.spawn(c"controller", controller, 2);
    WATCHDOG.spawn(c"watchdog", watchdog, 4);
    // The kernel provides the idle task's memory
    // (configKERNEL_PROVIDED_STATIC_MEMORY).
    kernel::start_scheduler()
}
