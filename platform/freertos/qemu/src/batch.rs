//! The batch both QEMU programs run (`../qemu-static` includes this file by
//! path): `JOBS` jobs on a pool, each recording that it ran, how many ran at
//! once and how deep its worker's stack went; then the checks on what they
//! recorded.

use portable_atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};

use antpool::port::Spawner;
use antpool::{StaticPoolWithFunc, SubmitError};
use antpool_freertos::TickClock;

use crate::kernel::{Checks, delay, own_stack_high_water, ticks};

/// A quarter on the micro:bit, whose 16 KiB of RAM hold a byte per job.
pub const JOBS: usize = if cfg!(microbit) { 500 } else { 2_000 };

/// How many times each job ran.
static RAN: [AtomicU8; JOBS] = [const { AtomicU8::new(0) }; JOBS];
/// Jobs running right now, and the most seen at once.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);
/// The smallest stack reserve any worker had while running a job (words).
static HIGH_WATER: AtomicUsize = AtomicUsize::new(usize::MAX);

/// One job: some CPU work, and now and then a block, so that workers overlap
/// and the kernel switches between tasks that hold jobs.
pub fn job(id: usize) {
    let now = ACTIVE.fetch_add(1, Relaxed) + 1;
    MOST.fetch_max(now, Relaxed);
    let mut x = id as u32;
    for _ in 0..100 {
        x = core::hint::black_box(x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223));
    }
    if id % 16 == 0 {
        delay(1);
    }
    HIGH_WATER.fetch_min(own_stack_high_water(), Relaxed);
    RAN[id].fetch_add(1, Relaxed);
    ACTIVE.fetch_sub(1, Relaxed);
}

/// Invokes the batch on `pool` (whose function is [`job`], capacity `cap`),
/// waits for it, and checks: every job ran exactly once; never more than
/// `cap` at once, and workers overlapped. Returns the smallest stack reserve
/// a worker had (for the caller's stack check, which knows the stack size).
pub fn run<const N: usize, S: Spawner>(
    pool: &'static StaticPoolWithFunc<usize, N, TickClock, S>,
    cap: usize,
    checks: &mut Checks,
) -> usize {
    let start = ticks();
    for id in 0..JOBS {
        if let Err(e) = pool.invoke(id) {
            crate::fail(format_args!("invoke({id}) refused: {e:?}"));
        }
    }
    pool.wait_idle();
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
        (2..=cap).contains(&most),
        format_args!("at most {most} jobs at once, capacity {cap}"),
    );
    HIGH_WATER.load(Relaxed)
}

/// The check that the workers' stacks (of `words`) had room to spare, given
/// the smallest reserve [`run`] returned.
pub fn check_stack(checks: &mut Checks, what: &str, words: usize, high_water: usize) {
    checks.check(
        what,
        high_water != usize::MAX && high_water >= 32,
        format_args!(
            "{} of {} words used at most, {} never touched",
            words.saturating_sub(high_water),
            words,
            high_water
        ),
    );
}

/// The check that `pool`, released, hands an argument back as `Closed`.
pub fn check_closed<const N: usize, S: Spawner>(
    pool: &'static StaticPoolWithFunc<usize, N, TickClock, S>,
    checks: &mut Checks,
) {
    let refused = pool.invoke(JOBS);
    checks.check(
        "a released pool hands the argument back",
        matches!(refused, Err(SubmitError::Closed(n)) if n == JOBS),
        format_args!("{refused:?}"),
    );
}
