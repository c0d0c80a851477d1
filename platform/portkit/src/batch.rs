//! The main pool's life: a batch of jobs (each once, within the capacity, on
//! threads of the port), idle workers expiring on the port's clock, and a
//! release that leaves no thread behind.

use core::time::Duration;

use portable_atomic::{AtomicBool, Ordering};

use antpool::SubmitError;

use crate::Checks;
use crate::ledger::{Ledger, Low, Meter};
use crate::pools::{CAP, EXPIRY, Pools};
use crate::port::Port;
use crate::wait::{ticks_in, wait_until};

/// The batch: how many jobs, and their ids (`0..JOBS`).
///
/// ```
/// assert_eq!(antpool_portkit::JOBS, 2_000);
/// ```
pub const JOBS: usize = 2_000;
/// Ids of jobs that wait for [`GATE`] before they finish: `GATED + k`, `k < 32`.
pub(crate) const GATED: usize = 1 << 16;
/// Ids of jobs that hold their worker for two ticks: `HELD + k`, `k < 32`.
pub(crate) const HELD: usize = 1 << 17;

static BATCH: Ledger<{ JOBS.div_ceil(32) }> = Ledger::new();
pub(crate) static GATED_RAN: Ledger<1> = Ledger::new();
static HELD_RAN: Ledger<1> = Ledger::new();
/// Batch jobs running at once.
static AT_ONCE: Meter = Meter::new();
/// The least stack any job's worker had left.
pub(crate) static STACK_LEFT: Low = Low::new();
/// Opens the gated jobs.
pub(crate) static GATE: AtomicBool = AtomicBool::new(false);

/// The main pool's function (and the refusing pool's, which never runs it).
pub(crate) fn job<P: Port>(id: usize) {
    if id >= HELD {
        P::sleep(2);
        HELD_RAN.mark(id - HELD);
    } else if id >= GATED {
        while !GATE.load(Ordering::Acquire) {
            P::sleep(1);
        }
        GATED_RAN.mark(id - GATED);
    } else {
        batch_job::<P>(id);
    }
}

/// Some arithmetic and, now and then, a sleep, so that workers overlap and
/// the kernel switches between threads that hold jobs.
fn batch_job<P: Port>(id: usize) {
    AT_ONCE.enter();
    let mut x = id as u32;
    for _ in 0..100 {
        x = core::hint::black_box(x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
    }
    if id % 16 == 0 {
        P::sleep(1);
    }
    if let Some(left) = P::stack_unused() {
        STACK_LEFT.record(left);
    }
    BATCH.mark(id);
    AT_ONCE.leave();
}

/// What the batch saw.
pub(crate) struct Batch {
    pub(crate) workers: usize,
    pub(crate) ticks: u64,
}

/// [`JOBS`] jobs on the main pool: each exactly once, never more than the
/// capacity at once (and more than one: workers overlap), every worker a
/// thread of the port.
pub(crate) fn run<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) -> Batch {
    let pool = &pools.main;
    BATCH.clear();
    AT_ONCE.reset();
    let start = P::ticks();
    let mut refused = 0;
    let mut most_running = 0;
    for id in 0..JOBS {
        if pool.invoke(id).is_err() {
            refused += 1;
        }
        most_running = most_running.max(pool.running());
    }
    pool.wait_idle();
    let ticks = P::ticks() - start;
    let once = BATCH.count(0..JOBS);
    checks.check(
        "every job ran exactly once",
        once == JOBS && BATCH.again() == 0 && refused == 0,
        format_args!(
            "{once} of {JOBS} ran, {} twice, {refused} refused, in {ticks} ticks",
            BATCH.again()
        ),
    );
    let most = AT_ONCE.most();
    checks.check(
        "the capacity holds, and workers overlap",
        (2..=CAP).contains(&most) && most_running <= CAP,
        format_args!(
            "at most {most} jobs at once, running() at most {most_running}, capacity {CAP}"
        ),
    );
    let workers = pool.running();
    let threads = wait_until::<P>(50, || P::worker_threads() == workers);
    checks.check(
        "every worker is a thread of the port",
        workers >= 1 && threads.is_some(),
        format_args!("{workers} workers, {} worker threads", P::worker_threads()),
    );
    Batch { workers, ticks }
}

/// Idle workers expire on the port's clock: all still there half an expiry
/// after the batch, none (and no thread) soon after the expiry.
pub(crate) fn expiry<P: Port>(pools: &'static Pools<P>, checks: &mut Checks, workers: usize) {
    let pool = &pools.main;
    let expiry = ticks_in::<P>(EXPIRY);
    let idle_from = P::ticks();
    P::sleep((expiry / 2) as u32);
    let half_way = pool.running();
    let gone = wait_until::<P>(4 * expiry, || {
        pool.running() == 0 && P::worker_threads() == 0
    });
    checks.check(
        "idle workers expire on the port's clock, and their threads go",
        half_way == workers && gone.is_some(),
        format_args!(
            "{half_way} of {workers} alive {} ticks idle, none {} ticks after going idle (expiry {expiry} ticks)",
            expiry / 2,
            P::ticks() - idle_from
        ),
    );
    let stats = pool.stats();
    checks.check(
        "the pool counted every job and every worker",
        stats.completed == JOBS && stats.spawned == stats.retired && stats.spawned >= workers,
        format_args!(
            "completed {}, spawned {}, retired {}",
            stats.completed, stats.spawned, stats.retired
        ),
    );
}

/// `release_timeout` waits for every busy worker, leaves no thread, and the
/// released pool hands arguments back.
pub(crate) fn release<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) {
    let pool = &pools.main;
    HELD_RAN.clear();
    for k in 0..CAP {
        if let Err(e) = pool.invoke(HELD + k) {
            checks.check(
                "the main pool takes work before its release",
                false,
                format_args!("{e:?}"),
            );
            return;
        }
    }
    let busy = pool.running();
    let start = P::ticks();
    let released = pool.release_timeout(Duration::from_secs(5));
    let taken = P::ticks() - start;
    checks.check(
        "release_timeout waits for every busy worker",
        released.is_ok() && pool.running() == 0 && HELD_RAN.count(0..CAP) == CAP,
        format_args!(
            "{released:?} after {taken} ticks, {} of {CAP} held jobs done, {busy} workers",
            HELD_RAN.count(0..CAP)
        ),
    );
    let gone = wait_until::<P>(100, || P::worker_threads() == 0);
    checks.check(
        "release leaves no thread",
        gone.is_some(),
        format_args!("{} worker threads after the release", P::worker_threads()),
    );
    let refused = pool.invoke(JOBS);
    checks.check(
        "a released pool hands the argument back",
        matches!(refused, Err(SubmitError::Closed(n)) if n == JOBS),
        format_args!("{refused:?}"),
    );
}
