//! The interrupt check: a hardware timer's interrupt hands jobs to a pool's
//! parked workers with `try_invoke_from_isr`, first alone, then while a task
//! invokes on the same pool. Every job an interrupt handed over runs once,
//! every one it got back never runs, and no interrupt starts a worker.

use core::time::Duration;
use portable_atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};

use antpool::{Options, StaticPoolWithFunc, SubmitError};
use antpool_freertos::{FreeRtosSpawner, TickClock};

use crate::SPAWNER;
use crate::board;
use crate::kernel::{CLOCK, Checks, delay, task_count, wait_until};

/// Interrupts in each phase: alone, then beside the task's invokes (half as
/// many on the micro:bit, whose 16 KiB of RAM hold two bytes per interrupt).
const ALONE: usize = if cfg!(microbit) { 200 } else { 400 };
const BESIDE: usize = if cfg!(microbit) { 300 } else { 600 };
const INTERRUPTS: usize = ALONE + BESIDE;
/// Jobs the controller task invokes during the second phase.
const TASK_JOBS: usize = if cfg!(microbit) { 250 } else { 500 };
/// The timer's rate.
pub const HZ: u32 = 2_000;
const CAP: usize = 4;
/// Warm workers: the interrupts find at most this many parked, and must not
/// start more although the capacity has room.
const WARM: usize = 2;

static RAN: [AtomicU8; INTERRUPTS + TASK_JOBS] =
    [const { AtomicU8::new(0) }; INTERRUPTS + TASK_JOBS];
static TAKEN: [AtomicBool; INTERRUPTS] = [const { AtomicBool::new(false) }; INTERRUPTS];
static FIRED: AtomicUsize = AtomicUsize::new(0);
/// Interrupts allowed so far (the phases raise it).
static ALLOWED: AtomicUsize = AtomicUsize::new(0);
static OVERLOADED: AtomicUsize = AtomicUsize::new(0);
static OTHER_ERRORS: AtomicUsize = AtomicUsize::new(0);
/// Handler calls that the port did not see as inside an interrupt.
static UNSEEN: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" {
    /// antpool-freertos's test for interrupt context (`csrc/antpool_isr.c`,
    /// `xPortIsInsideInterrupt`): what picks its `FROM_ISR` lock and notify.
    fn antpool_in_isr() -> core::ffi::c_long;
}

fn in_isr() -> bool {
    // SAFETY: reads the core's state; callable anywhere.
    unsafe { antpool_in_isr() != 0 }
}

/// Some work, and a block now and then, so that interrupts also find every
/// worker busy.
fn job(id: usize) {
    let mut x = id as u32;
    for _ in 0..200 {
        x = core::hint::black_box(x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
    }
    if id % 2 == 0 {
        delay(2);
    }
    RAN[id].fetch_add(1, Relaxed);
}

static POOL: StaticPoolWithFunc<usize, CAP, TickClock, FreeRtosSpawner> = StaticPoolWithFunc::new(
    Options::new()
        .capacity(CAP)
        .min_idle(WARM)
        .expiry(Duration::from_secs(60)),
    job,
    CLOCK,
    SPAWNER,
);

/// The timer interrupt's work: one `try_invoke_from_isr` while the phase
/// allows. Returns whether to keep the timer running.
pub fn on_interrupt() -> bool {
    let allowed = ALLOWED.load(Relaxed);
    let n = FIRED.load(Relaxed);
    if n >= allowed {
        return n < INTERRUPTS;
    }
    FIRED.store(n + 1, Relaxed);
    if !in_isr() {
        UNSEEN.fetch_add(1, Relaxed);
    }
    match POOL.try_invoke_from_isr(n) {
        Ok(()) => TAKEN[n].store(true, Relaxed),
        Err(SubmitError::Overload(back)) if back == n => {
            OVERLOADED.fetch_add(1, Relaxed);
        }
        Err(_) => {
            OTHER_ERRORS.fetch_add(1, Relaxed);
        }
    }
    n + 1 < INTERRUPTS
}

/// Interrupt jobs `range` ran once if taken, never if handed back.
fn exactly_as_taken(range: core::ops::Range<usize>) -> bool {
    range
        .into_iter()
        .all(|n| RAN[n].load(Relaxed) == u8::from(TAKEN[n].load(Relaxed)))
}

fn taken(range: core::ops::Range<usize>) -> usize {
    range.filter(|&n| TAKEN[n].load(Relaxed)).count()
}

/// Runs both phases on `timer`, the board's interrupt source.
pub fn check(checks: &mut Checks, timer: board::Timer) {
    let baseline = task_count();
    if let Err(e) = POOL.start_min_idle() {
        crate::fail(format_args!("start_min_idle: {e:?}"));
    }
    let parked = wait_until(100, || POOL.idle() == WARM);
    let spawned = POOL.stats().spawned;
    timer.start(HZ);

    // 1. Interrupts alone: they hand to the two parked workers, or get
    //    their job back; none starts a worker though the capacity has room.
    ALLOWED.store(ALONE, Relaxed);
    let alone = wait_until(10_000, || FIRED.load(Relaxed) >= ALONE);
    let idle = POOL.wait_idle_timeout(Duration::from_secs(5));
    let spawned_alone = POOL.stats().spawned - spawned;
    checks.check(
        "interrupts hand jobs to parked workers, start none, and get the rest back",
        parked.is_some()
            && alone.is_some()
            && !in_isr()
            && UNSEEN.load(Relaxed) == 0
            && idle
            && spawned_alone == 0
            && exactly_as_taken(0..ALONE)
            && taken(0..ALONE) > 0,
        format_args!(
            "{} interrupts at {HZ} Hz in {:?} ticks, {} not seen as interrupts: {} handed over and run once, {} handed back; {spawned_alone} workers started",
            ALONE,
            alone,
            UNSEEN.load(Relaxed),
            taken(0..ALONE),
            ALONE - taken(0..ALONE),
        ),
    );

    // 2. Interrupts beside a task that invokes on the same pool.
    ALLOWED.store(INTERRUPTS, Relaxed);
    for id in INTERRUPTS..INTERRUPTS + TASK_JOBS {
        if let Err(e) = POOL.invoke(id) {
            crate::fail(format_args!("invoke({id}) refused: {e:?}"));
        }
        if id % 8 == 0 {
            delay(1);
        }
    }
    let beside = wait_until(10_000, || FIRED.load(Relaxed) >= INTERRUPTS);
    timer.stop();
    let idle = POOL.wait_idle_timeout(Duration::from_secs(5));
    let task_jobs_once = (INTERRUPTS..INTERRUPTS + TASK_JOBS).all(|n| RAN[n].load(Relaxed) == 1);
    let handed = taken(ALONE..INTERRUPTS);
    checks.check(
        "interrupts racing a task's invokes: each job once if taken, never if handed back",
        beside.is_some()
            && idle
            && exactly_as_taken(ALONE..INTERRUPTS)
            && task_jobs_once
            && handed > 0
            && OVERLOADED.load(Relaxed) > 0
            && OTHER_ERRORS.load(Relaxed) == 0,
        format_args!(
            "{BESIDE} interrupts: {handed} handed over, {} handed back; {TASK_JOBS}/{TASK_JOBS} task jobs once; {} overloads in all, {} other errors",
            BESIDE - handed,
            OVERLOADED.load(Relaxed),
            OTHER_ERRORS.load(Relaxed),
        ),
    );
    let released = POOL.release_timeout(Duration::from_secs(2));
    let cleaned = wait_until(100, || task_count() == baseline);
    if released.is_err() || cleaned.is_none() {
        crate::fail(format_args!("the interrupt pool did not end: {released:?}"));
    }
}
