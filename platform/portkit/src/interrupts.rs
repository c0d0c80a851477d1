//! The interrupt check: an interrupt handler hands jobs to a pool's parked
//! workers with `try_invoke_from_isr`, first alone, then while a thread
//! invokes on the same pool. Every job a handler handed over runs once,
//! every one it got back never runs, and no interrupt starts a worker.
//!
//! The port's handler calls [`interrupt`](crate::interrupt); the kit finds
//! its pools through the [`Entry`] the run installed.

use core::ops::Range;
use core::time::Duration;

use portable_atomic::{AtomicPtr, AtomicUsize, Ordering::Relaxed};

use antpool::SubmitError;

use crate::Checks;
use crate::ledger::Ledger;
use crate::pools::Pools;
use crate::port::Port;
use crate::wait::wait_until;

/// Interrupts in each phase: alone, then beside the thread's invokes.
pub(crate) const ALONE: usize = 400;
pub(crate) const BESIDE: usize = 600;
pub(crate) const INTERRUPTS: usize = ALONE + BESIDE;
/// Jobs the controlling thread invokes during the second phase.
pub(crate) const THREAD_JOBS: usize = 500;
/// The rate the kit asks for (the port may be slower).
pub(crate) const HZ: u32 = 2_000;
/// Warm workers: the interrupts find at most this many parked, and must not
/// start more although the capacity has room.
pub(crate) const WARM: usize = 2;

static RAN: Ledger<{ (INTERRUPTS + THREAD_JOBS).div_ceil(32) }> = Ledger::new();
static TAKEN: Ledger<{ INTERRUPTS.div_ceil(32) }> = Ledger::new();
static FIRED: AtomicUsize = AtomicUsize::new(0);
/// Interrupts allowed so far (the phases raise it).
static ALLOWED: AtomicUsize = AtomicUsize::new(0);
static OVERLOADED: AtomicUsize = AtomicUsize::new(0);
static OTHER_ERRORS: AtomicUsize = AtomicUsize::new(0);
/// Handler calls that the port did not see as inside an interrupt.
static UNSEEN: AtomicUsize = AtomicUsize::new(0);

/// The [`Entry`] of the run in progress: null between runs.
static ENTRY: AtomicPtr<Entry> = AtomicPtr::new(core::ptr::null_mut());

/// How a handler reaches the kit's `static` pools: a field of [`Pools`], so
/// no `static` needs to be generic. `step` is `step::<P>` for the `Pools<P>`
/// this entry is a field of, and `pools` points to that `Pools<P>` once a
/// run installed it.
pub(crate) struct Entry {
    step: unsafe fn(*const ()) -> bool,
    pools: AtomicPtr<()>,
}

impl Entry {
    pub(crate) const fn new(step: unsafe fn(*const ()) -> bool) -> Self {
        Entry {
            step,
            pools: AtomicPtr::new(core::ptr::null_mut()),
        }
    }
}

/// One interrupt's work for the kit's interrupt check. The port's interrupt
/// handler calls it (see [`Port::start_interrupts`]); it returns whether the
/// kit wants more interrupts. Between runs, and once the check has all the
/// interrupts it wants, it does nothing and returns `false`.
///
/// It takes the pool's lock once and may notify one worker, through the
/// port's [`Spawner`](antpool::port::Spawner): the handler must be one that
/// may call the kernel.
///
/// ```
/// // In the port's timer interrupt:
/// if !antpool_portkit::interrupt() {
///     // stop the timer
/// }
/// ```
pub fn interrupt() -> bool {
    let entry = ENTRY.load(Relaxed);
    if entry.is_null() {
        return false;
    }
    // SAFETY: a non-null ENTRY is the `entry` field of the `'static Pools<P>`
    // of the run in progress (installed by `check::<P>` before it starts the
    // interrupts, and cleared after it stopped them), whose `step` is
    // `step::<P>` and whose `pools` points to that same `Pools<P>`.
    unsafe {
        let entry = &*entry;
        (entry.step)(entry.pools.load(Relaxed))
    }
}

/// [`interrupt`] for `Pools<P>`.
///
/// # Safety
///
/// `pools` points to a `'static Pools<P>`.
pub(crate) unsafe fn step<P: Port>(pools: *const ()) -> bool {
    // SAFETY: per the contract.
    let pools = unsafe { &*pools.cast::<Pools<P>>() };
    let allowed = ALLOWED.load(Relaxed);
    let n = FIRED.load(Relaxed);
    if n >= allowed {
        return n < INTERRUPTS;
    }
    // One handler at a time: a load and a store suffice.
    FIRED.store(n + 1, Relaxed);
    if !P::in_interrupt() {
        UNSEEN.fetch_add(1, Relaxed);
    }
    match pools.interrupt.try_invoke_from_isr(n) {
        Ok(()) => TAKEN.mark(n),
        Err(SubmitError::Overload(back)) if back == n => {
            OVERLOADED.fetch_add(1, Relaxed);
        }
        Err(_) => {
            OTHER_ERRORS.fetch_add(1, Relaxed);
        }
    }
    n + 1 < INTERRUPTS
}

/// The interrupt pool's function: some work, and a sleep now and then, so
/// that interrupts also find every worker busy.
pub(crate) fn job<P: Port>(id: usize) {
    let mut x = id as u32;
    for _ in 0..200 {
        x = core::hint::black_box(x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
    }
    if id % 2 == 0 {
        P::sleep(2);
    }
    RAN.mark(id);
}

/// Interrupt jobs `ids` ran once if taken, never if handed back.
fn exactly_as_taken(ids: Range<usize>) -> bool {
    ids.into_iter().all(|n| RAN.has(n) == TAKEN.has(n)) && RAN.again() == 0
}

/// Runs both phases.
pub(crate) fn check<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) {
    let pool = &pools.interrupt;
    for counter in [&FIRED, &ALLOWED, &OVERLOADED, &OTHER_ERRORS, &UNSEEN] {
        counter.store(0, Relaxed);
    }
    RAN.clear();
    TAKEN.clear();
    if let Err(e) = pool.start_min_idle() {
        checks.check(
            "the interrupt pool starts its warm workers",
            false,
            format_args!("{e:?}"),
        );
        return;
    }
    let parked = wait_until::<P>(200, || pool.idle() == WARM);
    let spawned = pool.stats().spawned;
    pools
        .entry
        .pools
        .store((pools as *const Pools<P>).cast_mut().cast(), Relaxed);
    ENTRY.store((&pools.entry as *const Entry).cast_mut(), Relaxed);
    if let Err(why) = P::start_interrupts(HZ) {
        ENTRY.store(core::ptr::null_mut(), Relaxed);
        checks.check(
            "interrupts hand jobs to parked workers",
            false,
            format_args!("the port cannot interrupt a thread: {why}"),
        );
        let _ = pool.release_timeout(Duration::from_secs(5));
        return;
    }

    // 1. Interrupts alone: they hand their job to one of the two parked
    //    workers, or get it back; none starts a worker, though the capacity
    //    has room.
    ALLOWED.store(ALONE, Relaxed);
    let alone = wait_until::<P>(20_000, || FIRED.load(Relaxed) >= ALONE);
    let idle = pool.wait_idle_timeout(Duration::from_secs(5));
    let spawned_alone = pool.stats().spawned - spawned;
    checks.check(
        "interrupts hand jobs to parked workers, start none, and get the rest back",
        parked.is_some()
            && alone.is_some()
            && !P::in_interrupt()
            && UNSEEN.load(Relaxed) == 0
            && idle
            && spawned_alone == 0
            && exactly_as_taken(0..ALONE)
            && TAKEN.count(0..ALONE) > 0,
        format_args!(
            "{ALONE} interrupts in {alone:?} ticks, {} not seen as interrupts: {} handed over and run once, {} handed back; {spawned_alone} workers started",
            UNSEEN.load(Relaxed),
            TAKEN.count(0..ALONE),
            ALONE - TAKEN.count(0..ALONE),
        ),
    );

    // 2. Interrupts beside a thread that invokes on the same pool.
    ALLOWED.store(INTERRUPTS, Relaxed);
    let mut refused = 0;
    for id in INTERRUPTS..INTERRUPTS + THREAD_JOBS {
        if pool.invoke(id).is_err() {
            refused += 1;
        }
        if id % 8 == 0 {
            P::sleep(1);
        }
    }
    let beside = wait_until::<P>(20_000, || FIRED.load(Relaxed) >= INTERRUPTS);
    P::stop_interrupts();
    ENTRY.store(core::ptr::null_mut(), Relaxed);
    let idle = pool.wait_idle_timeout(Duration::from_secs(5));
    let thread_jobs = RAN.count(INTERRUPTS..INTERRUPTS + THREAD_JOBS);
    let handed = TAKEN.count(ALONE..INTERRUPTS);
    checks.check(
        "interrupts racing a thread's invokes: each job once if taken, never if handed back",
        beside.is_some()
            && idle
            && refused == 0
            && exactly_as_taken(ALONE..INTERRUPTS)
            && thread_jobs == THREAD_JOBS
            && handed > 0
            && OVERLOADED.load(Relaxed) > 0
            && OTHER_ERRORS.load(Relaxed) == 0,
        format_args!(
            "{BESIDE} interrupts: {handed} handed over, {} handed back; {thread_jobs}/{THREAD_JOBS} thread jobs once; {} overloads in all, {} other errors",
            BESIDE - handed,
            OVERLOADED.load(Relaxed),
            OTHER_ERRORS.load(Relaxed),
        ),
    );
    let released = pool.release_timeout(Duration::from_secs(5));
    // Its threads go too (a kernel that frees a thread's memory a moment
    // after it ends has it back for the next check's workers).
    let gone = wait_until::<P>(200, || P::worker_threads() == 0);
    if released.is_err() || gone.is_none() {
        checks.check(
            "the interrupt pool ends, and its threads with it",
            false,
            format_args!("{released:?}; {} worker threads", P::worker_threads()),
        );
    }
}
