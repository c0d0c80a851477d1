//! antpool on the real Eclipse ThreadX kernel (its Linux port: every ThreadX
//! thread a pthread, scheduled by the kernel): the port kit's checks on
//! `StaticSpawner`, `SemaphoreSignal`, `CriticalSection` and `TickClock`,
//! then what is ThreadX's own — the control-block reserve check, slot
//! threads reused rather than made, every slot busy, wait slots given back,
//! the 32-bit tick wrapping under the pool's clock.
//!
//! Build with `THREADX_DIR` naming a ThreadX tree (see `sim/`). The kernel
//! owns the process, so this is a `harness = false` test: one controlling
//! thread runs every check, prints `N passed, N failed`, and ends the
//! process with the result.

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering::Relaxed};
use std::time::Duration;

use antpool::port::Spawner;
use antpool::{Options, StaticPoolWithFunc, SubmitError};
use antpool_portkit::{Checks, Pools, Port};
use antpool_threadx::{StaticSpawner, ThreadSlots, TickClock, WaitSlots};
use antpool_threadx_sim::{run, say, set_ticks, sleep, ticks};

/// The slot threads: four for the kit's largest pool, and a spare that
/// absorbs a worker still retiring when the next pool spawns.
const SLOT_COUNT: usize = 5;
/// On the Linux port a thread runs on its pthread's stack: a slot's stack
/// only has to be at least TX_MINIMUM_STACK.
const STACK: usize = 1024;

static SLOTS: ThreadSlots<SLOT_COUNT, STACK> = ThreadSlots::new();
/// The controlling thread is the one thread of the program's own that uses
/// the pools; a second entry is spare.
static WAITERS: WaitSlots<2> = WaitSlots::new();
static NO_SLOTS: ThreadSlots<0, STACK> = ThreadSlots::new();

type Workers = StaticSpawner<SLOT_COUNT, STACK>;
/// Workers at the controlling thread's priority (16): they run when it
/// blocks, and it when they do.
const SPAWNER: Workers = StaticSpawner::new(&SLOTS)
    .waiters(&WAITERS)
    .name(c"ap-worker")
    .priority(16);

unsafe extern "C" {
    /// The kernel's count of created threads (`tx_thread.h`).
    static _tx_thread_created_count: u32;
    fn _tx_thread_identify() -> *mut std::ffi::c_void;
    fn _tx_thread_wait_abort(thread: *mut std::ffi::c_void) -> u32;
}

fn threads_created() -> u32 {
    // SAFETY: a kernel counter, read whole (a 32-bit ULONG).
    unsafe { core::ptr::read_volatile(&raw const _tx_thread_created_count) }
}

struct ThreadX;

extern "C" fn on_interrupt() -> c_int {
    c_int::from(antpool_portkit::interrupt())
}

impl Port for ThreadX {
    type Clock = TickClock;
    type Spawner = Workers;
    type Refusing = StaticSpawner<0, STACK>;
    const NAME: &'static str = "Eclipse ThreadX 6.4, Linux port";
    const CLOCK: TickClock = TickClock::new();
    const SPAWNER: Workers = SPAWNER;
    const REFUSING: StaticSpawner<0, STACK> = StaticSpawner::new(&NO_SLOTS).waiters(&WAITERS);

    fn print(line: std::fmt::Arguments<'_>) {
        say!("{line}");
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

    fn start_interrupts(hz: u32) -> Result<(), &'static str> {
        antpool_threadx_sim::start_interrupts(hz, on_interrupt);
        Ok(())
    }

    fn stop_interrupts() {
        antpool_threadx_sim::stop_interrupts();
    }

    fn in_interrupt() -> bool {
        antpool_threadx::in_interrupt()
    }
}

static POOLS: Pools<ThreadX> = Pools::new();

/// Jobs of the over-capacity pool hold their slot until this opens.
static GATE: AtomicBool = AtomicBool::new(false);

fn held(_: usize) {
    while !GATE.load(Relaxed) {
        sleep(1);
    }
}

/// A pool whose capacity (6) is above the slot count (5), over the same slots.
static OVER: StaticPoolWithFunc<usize, 6, TickClock, Workers> =
    StaticPoolWithFunc::new(Options::new().capacity(6), held, TickClock::new(), SPAWNER);

/// A reserve far smaller than the kernel's control blocks.
static TINY: ThreadSlots<1, STACK, 16> = ThreadSlots::new();
static TINY_POOL: StaticPoolWithFunc<usize, 1, TickClock, StaticSpawner<1, STACK, 16>> =
    StaticPoolWithFunc::new(
        Options::new().capacity(1),
        held,
        TickClock::new(),
        StaticSpawner::new(&TINY).waiters(&WAITERS),
    );

/// The controlling thread, for the aborter below.
static CONTROLLER: AtomicPtr<std::ffi::c_void> = AtomicPtr::new(std::ptr::null_mut());
/// What `tx_thread_wait_abort` returned (`TX_SUCCESS`, 0, if it aborted a wait).
static ABORT_STATUS: AtomicU32 = AtomicU32::new(u32::MAX);

/// A worker that, 10 ticks after it starts, aborts the controlling thread's
/// wait (`tx_thread_wait_abort`).
fn abort_controller(_: usize) {
    sleep(10);
    // SAFETY: the controlling thread, which exists for the whole run.
    let status = unsafe { _tx_thread_wait_abort(CONTROLLER.load(Relaxed)) };
    ABORT_STATUS.store(status, Relaxed);
}

static ABORTER: StaticPoolWithFunc<usize, 1, TickClock, Workers> = StaticPoolWithFunc::new(
    Options::new().capacity(1),
    abort_controller,
    TickClock::new(),
    SPAWNER,
);

/// A tick count half a second before the 32-bit wrap: the kit's run (about
/// a second of ticks) crosses it.
const NEAR_WRAP: u32 = u32::MAX - 500;

fn main() {
    // Before the kernel runs, a pool cannot block anyone: making a signal
    // must panic (with a message), not hang.
    std::panic::set_hook(Box::new(|_| {}));
    let early = std::panic::catch_unwind(|| SPAWNER.signal());
    let _ = std::panic::take_hook();
    let early_message = match &early {
        Ok(_) => String::from("no panic"),
        Err(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
    };
    run("antpool on ThreadX (Linux port)", move || {
        let mut checks = Checks::new(ThreadX::print);
        checks.check(
            "a signal made before the kernel runs panics instead of hanging",
            early.is_err() && early_message.contains("running ThreadX thread"),
            format_args!("{early_message}"),
        );
        reserve_is_checked(&mut checks);
        aborted_wait_waits_out_its_time(&mut checks);
        set_ticks(NEAR_WRAP);
        let clock = TickClock::new();
        let (raw_start, clock_start) = (ticks(), clock.ticks());

        let findings = antpool_portkit::run(&POOLS, &mut checks);
        say!("kit findings: {findings:?}");

        let (raw_end, clock_end) = (ticks(), clock.ticks());
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
            "every wait slot is given back",
            WAITERS.in_use() == 0,
            format_args!("{} of {} in use", WAITERS.in_use(), WAITERS.len()),
        );
        say!(
            "{} passed, {} failed; {} slot threads, {} threads made in all",
            checks.passed(),
            checks.failed(),
            SLOTS.busy() + SLOTS.idle(),
            threads_created()
        );
        checks.all_passed()
    })
}

fn reserve_is_checked(checks: &mut Checks) {
    let fits = SLOTS.check();
    checks.check(
        "the slots' reserve holds the kernel's TX_THREAD and TX_SEMAPHORE",
        fits.is_ok(),
        format_args!("{fits:?}, reserve {} bytes", SLOTS.kernel_bytes()),
    );
    let made = threads_created();
    let tiny = TINY.check();
    let refused = TINY_POOL.invoke(1);
    checks.check(
        "a reserve too small is refused and makes no thread",
        tiny.is_err()
            && matches!(refused, Err(SubmitError::SpawnFailed(1)))
            && threads_created() == made,
        format_args!(
            "{}; invoke: {refused:?}",
            tiny.map_or_else(|e| e.to_string(), |l| format!("{l:?}"))
        ),
    );
}

/// `tx_thread_wait_abort` ends a thread's wait early, without a token: a
/// pool signal's timed wait must wait out the rest (rule 2).
fn aborted_wait_waits_out_its_time(checks: &mut Checks) {
    use antpool::port::Signal;
    // SAFETY: the running thread.
    CONTROLLER.store(unsafe { _tx_thread_identify() }, Relaxed);
    let signal = SPAWNER.signal();
    ABORTER.invoke(0).expect("a slot for the aborter");
    let start = ticks();
    let woken = signal.wait_timeout(Duration::from_millis(50));
    let slept = ticks().wrapping_sub(start);
    drop(signal);
    let released = ABORTER.release_timeout(Duration::from_secs(2));
    checks.check(
        "a timed wait aborted by tx_thread_wait_abort waits out its time",
        !woken && ABORT_STATUS.load(Relaxed) == 0 && slept >= 50 && released.is_ok(),
        format_args!(
            "woken = {woken}, abort status {:#x}, slept {slept} ticks for 50 ms",
            ABORT_STATUS.load(Relaxed)
        ),
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
        OVER.invoke(id).expect("open pool");
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
    // OVER's idle workers (from above) hold some of the slots; it takes the rest.
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
    let idle = antpool_threadx_sim_wait(|| SLOTS.busy() == 0);
    checks.check(
        "with every slot busy the pool gets SpawnFailed with the argument",
        started == SLOT_COUNT
            && busy == SLOT_COUNT
            && matches!(refused, Err(SubmitError::SpawnFailed(99)))
            && released.is_ok()
            && idle,
        format_args!("{busy} busy slots, {refused:?}, capacity 6; release {released:?}"),
    );
}

/// Waits up to 100 ticks for `done`.
fn antpool_threadx_sim_wait(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if done() {
            return true;
        }
        sleep(1);
    }
    done()
}
