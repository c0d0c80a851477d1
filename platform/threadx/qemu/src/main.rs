//! antpool on Eclipse ThreadX with no heap at all, on QEMU's `mps2-an385`
//! board (Cortex-M3, ThreadX's `cortex_m3/gnu` port, SysTick), or built for
//! `thumbv6m-none-eabi` on its `microbit` board (the nRF51822's Cortex-M0,
//! `cortex_m0/gnu`, 16 KiB of RAM, the tick on TIMER1).
//!
//! Every pool is a `StaticPoolWithFunc` in a `static`, its workers the
//! threads of a `static` [`ThreadSlots`] (`StaticSpawner`), its signals the
//! slots' semaphores and one [`WaitSlots`] entry for the controlling thread;
//! the program's own two threads are static too, and no crate links `alloc`
//! (so nothing can allocate: there is no allocator to link). ThreadX's byte
//! pools are not used: `.ci/run` checks that the ELF has none of their
//! functions.
//!
//! The controlling thread runs the port kit (`antpool-portkit`: the checks
//! every port runs, with its interrupt check on a hardware timer), then what
//! is ThreadX's and this board's own: the control-block reserve check, slot
//! threads reused and not made again, every slot busy, the wait slot given
//! back, the 32-bit tick wrapping under the pool's clock; and it reports the
//! static RAM and every stack's high-water mark. It prints `N passed, N
//! failed` over semihosting and exits QEMU with 0 when all passed. Run it
//! from this directory with THREADX_DIR set: `cargo run --release`.

#![no_std]
#![no_main]

use core::ffi::c_void;
use core::fmt::Arguments;
use core::time::Duration;

use antpool::{Options, StaticPoolWithFunc, SubmitError};
use antpool_portkit::{Checks, Pools, Port};
use antpool_threadx::{StaticSpawner, ThreadSlots, TickClock, WaitSlots};
use core::sync::atomic::{AtomicBool, Ordering::Relaxed};
use cortex_m_semihosting::{debug, hprintln};

/// The board: its tick, the kit's interrupt, its names.
#[cfg_attr(not(microbit), path = "board/mps2.rs")]
#[cfg_attr(microbit, path = "board/microbit.rs")]
mod board;
/// The NVIC, a word at a time (as the Cortex-M0 requires).
mod nvic;
/// The program's own threads' memory.
mod threads;

use threads::ThreadMemory;

// The micro:bit's 16 KiB of RAM hold the release build, not an unoptimised
// one, whose stacks are about four times as deep.
#[cfg(all(microbit, debug_assertions))]
compile_error!("the micro:bit has 16 KiB of RAM: build this program with --release");

// ---------------------------------------------------------------------------
// The kernel calls the demo makes itself (the pools' go through
// antpool-threadx).

unsafe extern "C" {
    /// `tx_kernel_enter`.
    fn _tx_initialize_kernel_enter();
    fn _tx_timer_interrupt();
    fn _tx_thread_sleep(ticks: u32) -> u32;
    fn _tx_time_get() -> u32;
    fn _tx_time_set(ticks: u32);
    static mut _tx_thread_system_stack_ptr: *mut c_void;
    static mut _tx_initialize_unused_memory: *mut c_void;
    /// The kernel's count of created threads.
    static _tx_thread_created_count: u32;
    /// "Copyright (c) ... ThreadX Cortex-M3/GNU Version 6.4.2 *"
    static _tx_version_id: [u8; 0];
}

/// One tick of the kernel: the board's tick interrupt calls it.
pub fn kernel_tick() {
    // SAFETY: the port's timer interrupt processing, called from the tick's
    // handler as the port's example SysTick handler does; it pends PendSV
    // itself when a thread must switch.
    unsafe { _tx_timer_interrupt() }
}

fn sleep(ticks: u32) {
    // SAFETY: called from a thread (never a handler).
    unsafe { _tx_thread_sleep(ticks) };
}

fn threads_created() -> u32 {
    // SAFETY: a kernel counter, read whole.
    unsafe { core::ptr::read_volatile(&raw const _tx_thread_created_count) }
}

fn print(line: Arguments<'_>) {
    hprintln!("{}", line);
}

fn exit(passed: bool) -> ! {
    debug::exit(if passed {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}

fn fail(why: Arguments<'_>) -> ! {
    hprintln!("FAILED: {}", why);
    exit(false)
}

// ---------------------------------------------------------------------------
// The slots, the pools, and the kit's view of the port.

/// The slot threads: four for the kit's largest pool, and (where RAM allows)
/// a spare that absorbs a worker still retiring when the next pool spawns.
/// (At the controlling thread's priority, with no time slice, a retiring
/// worker finishes before the controller runs again: four suffice.)
const SLOT_COUNT: usize = if cfg!(microbit) { 4 } else { 5 };
/// Each slot thread's stack, in bytes (ThreadX counts bytes). A Cortex-M0
/// takes more than a Cortex-M3 for the same code (no 32-bit Thumb-2 forms),
/// and an unoptimised build about four times what a release build does.
const STACK: usize = match (cfg!(debug_assertions), cfg!(microbit)) {
    (true, _) => 4096,
    (false, true) => 1280,
    (false, false) => 1024,
};
/// Each slot's reserve for its TX_THREAD (180 bytes) and TX_SEMAPHORE (32):
/// exactly what the Cortex-M0 and M3 ports need (the check below proves it).
const KERNEL: usize = 212;

static SLOTS: ThreadSlots<SLOT_COUNT, STACK, KERNEL> = ThreadSlots::new();
/// The controlling thread is the one thread of the program's own that uses
/// the pools: one semaphore for it.
static WAITERS: WaitSlots<1> = WaitSlots::new();
static NO_SLOTS: ThreadSlots<0, STACK, KERNEL> = ThreadSlots::new();

type Workers = StaticSpawner<SLOT_COUNT, STACK, KERNEL>;
/// Workers at the controlling thread's priority (16), which the kit expects:
/// they run when it blocks, and it when they do.
const SPAWNER: Workers = StaticSpawner::new(&SLOTS)
    .waiters(&WAITERS)
    .name(c"ap-worker")
    .priority(16);

struct Board;

impl Port for Board {
    type Clock = TickClock;
    type Spawner = Workers;
    type Refusing = StaticSpawner<0, STACK, KERNEL>;
    const NAME: &'static str = if cfg!(microbit) {
        "Eclipse ThreadX 6.4, cortex_m0 port, QEMU microbit"
    } else {
        "Eclipse ThreadX 6.4, cortex_m3 port, QEMU mps2-an385"
    };
    const CLOCK: TickClock = TickClock::new();
    const SPAWNER: Workers = SPAWNER;
    const REFUSING: StaticSpawner<0, STACK, KERNEL> =
        StaticSpawner::new(&NO_SLOTS).waiters(&WAITERS);

    fn print(line: Arguments<'_>) {
        print(line);
    }

    fn sleep(ticks: u32) {
        sleep(ticks);
    }

    fn ticks() -> u64 {
        TickClock::new().ticks()
    }

    fn tick_hz() -> u32 {
        TickClock::new().hz()
    }

    fn worker_threads() -> usize {
        SLOTS.busy()
    }

    /// The calling slot thread's stack: what the kernel's fill shows.
    fn stack_unused() -> Option<usize> {
        SLOTS.current().and_then(|slot| SLOTS.stack_unused(slot))
    }

    fn start_interrupts(hz: u32) -> Result<(), &'static str> {
        board::start_interrupts(hz);
        Ok(())
    }

    fn stop_interrupts() {
        board::stop_interrupts();
    }

    fn in_interrupt() -> bool {
        antpool_threadx::in_interrupt()
    }
}

static POOLS: Pools<Board> = Pools::new();

/// Jobs of the over-capacity pool hold their slot until this opens.
static GATE: AtomicBool = AtomicBool::new(false);

fn held(_: usize) {
    while !GATE.load(Relaxed) {
        sleep(1);
    }
}

/// A pool whose capacity is above the slot count, over the same slots.
static OVER: StaticPoolWithFunc<usize, { SLOT_COUNT + 1 }, TickClock, Workers> =
    StaticPoolWithFunc::new(
        Options::new().capacity(SLOT_COUNT + 1),
        held,
        TickClock::new(),
        SPAWNER,
    );

/// A reserve far smaller than the kernel's control blocks.
static TINY: ThreadSlots<1, 256, 16> = ThreadSlots::new();
static TINY_POOL: StaticPoolWithFunc<usize, 1, TickClock, StaticSpawner<1, 256, 16>> =
    StaticPoolWithFunc::new(
        Options::new().capacity(1),
        held,
        TickClock::new(),
        StaticSpawner::new(&TINY).waiters(&WAITERS),
    );

// ---------------------------------------------------------------------------
// The program's own threads.

/// The controlling thread formats the output; the watchdog only its failure.
const CONTROLLER_STACK: usize = if cfg!(debug_assertions) { 8192 } else { 2048 };
const WATCHDOG_STACK: usize = if cfg!(debug_assertions) { 2048 } else { 640 };
static CONTROLLER: ThreadMemory<CONTROLLER_STACK> = ThreadMemory::new();
static WATCHDOG: ThreadMemory<WATCHDOG_STACK> = ThreadMemory::new();

/// A tick count half a second before the 32-bit wrap: the kit's run (about
/// a second of ticks) crosses it.
const NEAR_WRAP: u32 = u32::MAX - 500;

extern "C" fn controller(_: u32) {
    // SAFETY: the kernel's version string, NUL-terminated, never written.
    let version = unsafe { core::ffi::CStr::from_ptr((&raw const _tx_version_id).cast()) };
    hprintln!(
        "{:?}; QEMU {} ({}); tick {} Hz; no heap",
        version,
        board::BOARD,
        board::CORE,
        TickClock::new().hz()
    );
    let mut checks = Checks::new(print);
    reserve_is_checked(&mut checks);

    // SAFETY: sets the kernel's tick count, from a thread.
    unsafe { _tx_time_set(NEAR_WRAP) };
    // SAFETY: reads the kernel's tick count.
    let raw_start = unsafe { _tx_time_get() };
    let clock_start = TickClock::new().ticks();
    let findings = antpool_portkit::run(&POOLS, &mut checks);
    // SAFETY: as above.
    let raw_end = unsafe { _tx_time_get() };
    let clock_end = TickClock::new().ticks();
    checks.check(
        "the 32-bit tick wrapped during the run; the pool's clock went on",
        raw_end < raw_start && clock_end > clock_start,
        format_args!(
            "tick {raw_start:#010x} -> {raw_end:#010x}, clock {clock_start:#x} -> {clock_end:#x}"
        ),
    );
    slots_are_reused(&mut checks);
    every_slot_busy_hands_the_argument_back(&mut checks);
    checks.check(
        "the wait slot is given back",
        WAITERS.in_use() == 0,
        format_args!("{} of {} in use", WAITERS.in_use(), WAITERS.len()),
    );
    stacks_and_ram(&mut checks, findings);
    hprintln!(
        "antpool on ThreadX (QEMU {}): {} passed, {} failed",
        board::CORE,
        checks.passed(),
        checks.failed()
    );
    exit(checks.all_passed())
}

/// Ends the run if the checks have not finished in 60 s of ticks.
extern "C" fn watchdog(_: u32) {
    sleep(60_000);
    fail(format_args!("the demo did not finish in 60 000 ticks"))
}

fn reserve_is_checked(checks: &mut Checks) {
    let fits = SLOTS.check();
    checks.check(
        "the slots' reserve holds the kernel's TX_THREAD and TX_SEMAPHORE",
        fits.is_ok(),
        format_args!("{fits:?}, reserve {KERNEL} bytes"),
    );
    let made = threads_created();
    let tiny = TINY.check();
    let refused = TINY_POOL.invoke(1);
    checks.check(
        "a reserve too small is refused and makes no thread",
        tiny.is_err()
            && matches!(refused, Err(SubmitError::SpawnFailed(1)))
            && threads_created() == made,
        format_args!("{:?}; invoke: {refused:?}", tiny.map_err(|e| e.reserved())),
    );
}

/// After the kit, every slot thread is idle; a pool that spawns again gets
/// them back, and the kernel makes no thread.
fn slots_are_reused(checks: &mut Checks) {
    let made = threads_created();
    let idle = SLOTS.idle();
    let busy = SLOTS.busy();
    GATE.store(true, Relaxed);
    for id in 0..idle {
        if let Err(e) = OVER.invoke(id) {
            fail(format_args!("OVER.invoke({id}): {e:?}"));
        }
    }
    OVER.wait_idle();
    checks.check(
        "spawning again reuses the idle slot threads: no thread is made",
        idle >= 1 && busy == 0 && threads_created() == made,
        format_args!(
            "{idle} idle slots, {made} threads made before, {} after",
            threads_created()
        ),
    );
}

fn every_slot_busy_hands_the_argument_back(checks: &mut Checks) {
    GATE.store(false, Relaxed);
    let mut started = 0;
    for id in 0..SLOT_COUNT {
        if OVER.invoke(id).is_ok() {
            started += 1;
        }
    }
    let busy = SLOTS.busy();
    let refused = OVER.invoke(99);
    GATE.store(true, Relaxed);
    let released = OVER.release_timeout(Duration::from_secs(2));
    let mut idle = false;
    for _ in 0..100 {
        idle = SLOTS.busy() == 0;
        if idle {
            break;
        }
        sleep(1);
    }
    checks.check(
        "with every slot busy the pool gets SpawnFailed with the argument",
        started == SLOT_COUNT
            && busy == SLOT_COUNT
            && matches!(refused, Err(SubmitError::SpawnFailed(99)))
            && released.is_ok()
            && idle,
        format_args!(
            "{busy} busy slots, {refused:?}, capacity {}; release {released:?}",
            SLOT_COUNT + 1
        ),
    );
}

/// The main stack — interrupt handlers', and start-up's — how many of its
/// bytes were ever used, and its size. It is the RAM the statics leave
/// (cortex-m-rt puts it at the top, down to `_stack_end`), painted at reset
/// (cortex-m-rt's `paint-stack`): the used part is what lost the paint.
fn main_stack_use() -> (usize, usize) {
    unsafe extern "C" {
        static _stack_end: u32;
        static _stack_start: u32;
    }
    let end = &raw const _stack_end;
    let start = &raw const _stack_start;
    let words = (start as usize - end as usize) / 4;
    let untouched = (0..words)
        // SAFETY: words of the main stack, in RAM; read one at a time while
        // handlers may write above the deepest point (never below it).
        .take_while(|&i| unsafe { end.add(i).read_volatile() } == cortex_m_rt::STACK_PAINT_VALUE)
        .count();
    (4 * (words - untouched), 4 * words)
}

/// The statics' RAM (`.data` and `.bss`), in bytes.
fn static_ram() -> usize {
    unsafe extern "C" {
        static __sdata: u32;
        static __edata: u32;
        static __sbss: u32;
        static __ebss: u32;
    }
    let span = |from: *const u32, to: *const u32| to as usize - from as usize;
    span(&raw const __sdata, &raw const __edata) + span(&raw const __sbss, &raw const __ebss)
}

/// Every stack's high-water mark and the static RAM, printed and checked.
fn stacks_and_ram(checks: &mut Checks, findings: antpool_portkit::Findings) {
    let worker = (0..SLOT_COUNT)
        .filter_map(|slot| SLOTS.stack_unused(slot))
        .map(|unused| STACK - unused)
        .max()
        .unwrap_or(0);
    let (main_used, main_size) = main_stack_use();
    let controller = CONTROLLER.used();
    let watchdog = WATCHDOG.used();
    checks.check(
        "every stack had room to spare (high-water marks)",
        worker > 0
            && worker + 128 <= STACK
            && controller + 256 <= CONTROLLER_STACK
            && watchdog < WATCHDOG_STACK
            && main_used + 256 <= main_size,
        format_args!(
            "worker slots {worker} of {STACK} bytes (the kit's batch jobs left {:?} unused), \
             controller {controller} of {CONTROLLER_STACK}, watchdog {watchdog} of {WATCHDOG_STACK}, \
             main (interrupts) {main_used} of {main_size}",
            findings.worker_stack_unused
        ),
    );
    let ours = [
        ("slots", size_of_val(&SLOTS)),
        ("kit pools", size_of_val(&POOLS)),
        ("wait slot", size_of_val(&WAITERS)),
        (
            "other pools",
            size_of_val(&OVER) + size_of_val(&TINY_POOL) + size_of_val(&TINY),
        ),
        (
            "own threads",
            size_of_val(&CONTROLLER) + size_of_val(&WATCHDOG),
        ),
    ];
    let total = static_ram();
    let listed: usize = ours.iter().map(|(_, bytes)| bytes).sum();
    print(format_args!(
        "static RAM: {} bytes (.data + .bss): slots {} ({} x {} = TX_THREAD+TX_SEMAPHORE {KERNEL} + stack {STACK} + state), \
         kit pools {}, wait slot {}, other pools {}, own threads {}, kernel and the rest {}; main stack {} bytes",
        total,
        ours[0].1,
        SLOT_COUNT,
        ThreadSlots::<SLOT_COUNT, STACK, KERNEL>::SLOT_BYTES,
        ours[1].1,
        ours[2].1,
        ours[3].1,
        ours[4].1,
        total.saturating_sub(listed),
        main_size
    ));
}

// ---------------------------------------------------------------------------
// Start-up, and the hooks the kernel and the runtime call.

#[cortex_m_rt::entry]
fn main() -> ! {
    // SAFETY: enters the kernel once, from reset, on the main stack: it
    // calls `_tx_initialize_low_level` and `tx_application_define` below,
    // then schedules the first thread and never returns.
    unsafe { _tx_initialize_kernel_enter() };
    fail(format_args!("tx_kernel_enter returned"))
}

/// The port's low-level start-up (the port's example has it in assembly):
/// interrupts masked, the system stack and first free memory noted, the
/// kernel's handlers at their priorities, the tick started.
#[unsafe(no_mangle)]
extern "C" fn _tx_initialize_low_level() {
    cortex_m::interrupt::disable();
    unsafe extern "C" {
        static _stack_start: u32;
        static __ebss: u32;
    }
    // SAFETY: start-up, before any thread or handler runs: nothing else
    // reads or writes these two kernel variables now. The system stack is the
    // main stack's top (its reset value); the first free memory is the end of
    // .bss (handed to tx_application_define, which does not use it).
    unsafe {
        (&raw mut _tx_thread_system_stack_ptr).write((&raw const _stack_start).cast_mut().cast());
        (&raw mut _tx_initialize_unused_memory).write((&raw const __ebss).cast_mut().cast());
    }
    nvic::set_kernel_priorities();
    board::start_tick(TickClock::new().hz());
}

/// The kernel calls this once, before it schedules the first thread.
#[unsafe(no_mangle)]
extern "C" fn tx_application_define(_first_unused_memory: *mut c_void) {
    CONTROLLER.spawn(c"controller", controller, 16);
    WATCHDOG.spawn(c"watchdog", watchdog, 1);
}

/// Every device interrupt comes here (cortex-m-rt without a device crate):
/// the board's tick and timer are the board's to handle; any other ends the
/// run.
#[cortex_m_rt::exception]
unsafe fn DefaultHandler(irqn: i16) {
    if u16::try_from(irqn).is_ok_and(board::on_interrupt) {
        return;
    }
    fail(format_args!("unexpected interrupt {irqn}"))
}

/// Reached on a fault; ends the run instead of hanging.
#[cortex_m_rt::exception]
unsafe fn HardFault(frame: &cortex_m_rt::ExceptionFrame) -> ! {
    fail(format_args!("hard fault at pc {:#010x}", frame.pc()))
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    fail(format_args!("panic: {info}"))
}
