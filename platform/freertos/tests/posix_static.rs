//! `StaticSpawner` on the real FreeRTOS kernel (V11.2.0, Posix simulator
//! port): pool workers on `TaskSlots` tasks made with `xTaskCreateStatic`,
//! which never exit but park between jobs.
//!
//! A `harness = false` test, like `posix_pool.rs`: one controlling task runs
//! every check, prints `N passed, N failed`, and ends the process.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use antpool::{Options, StaticPoolWithFunc, SubmitError};
use antpool_freertos::{StaticSpawner, TaskSlots, TickClock};
use antpool_freertos_sim::{Checks, delay, run, say, task_count, ticks, wait_until};

const TICK_HZ: u32 = 1_000;
const CLOCK: TickClock = TickClock::new(TICK_HZ);
const SLOT_COUNT: usize = 4;
/// The Posix port runs tasks on pthreads with their own stacks: a slot's stack
/// only has to hold the port's thread record.
const STACK_WORDS: usize = 256;
const JOBS: usize = 2_000;
const EXPIRY_TICKS: u64 = 100;

static SLOTS: TaskSlots<SLOT_COUNT, STACK_WORDS> = TaskSlots::new();
// SAFETY: index 1 is below configTASK_NOTIFICATION_ARRAY_ENTRIES (2, sim/config).
const SPAWNER: StaticSpawner<SLOT_COUNT, STACK_WORDS> =
    unsafe { StaticSpawner::new(&SLOTS).notify_index(1) }
        .name(c"ap-slot")
        .priority(2)
        .tick_hz(TICK_HZ);

/// How many times each job ran; jobs running now, and the most at once.
static RAN: [AtomicU8; JOBS] = [const { AtomicU8::new(0) }; JOBS];
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

fn job(id: usize) {
    let now = ACTIVE.fetch_add(1, Relaxed) + 1;
    MOST.fetch_max(now, Relaxed);
    let mut x = id as u64;
    for _ in 0..200 {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
    if id % 16 == 0 {
        delay(1);
    }
    RAN[id].fetch_add(1, Relaxed);
    ACTIVE.fetch_sub(1, Relaxed);
}

static POOL: StaticPoolWithFunc<
    usize,
    SLOT_COUNT,
    TickClock,
    StaticSpawner<SLOT_COUNT, STACK_WORDS>,
> = StaticPoolWithFunc::new(
    Options::new()
        .capacity(SLOT_COUNT)
        .expiry(Duration::from_millis(EXPIRY_TICKS)),
    job,
    CLOCK,
    SPAWNER,
);

/// Jobs of the over-capacity pool hold their slot until this opens.
static GATE: AtomicBool = AtomicBool::new(false);

fn held(_: usize) {
    while !GATE.load(Relaxed) {
        delay(1);
    }
}

/// A pool whose capacity is above the slot count: the spawner refuses.
static OVER: StaticPoolWithFunc<usize, 6, TickClock, StaticSpawner<SLOT_COUNT, STACK_WORDS>> =
    StaticPoolWithFunc::new(Options::new().capacity(6), held, CLOCK, SPAWNER);

/// A reserve far smaller than any `StaticTask_t`.
static TINY: TaskSlots<1, STACK_WORDS, 16> = TaskSlots::new();
static TINY_POOL: StaticPoolWithFunc<usize, 1, TickClock, StaticSpawner<1, STACK_WORDS, 16>> =
    StaticPoolWithFunc::new(
        Options::new().capacity(1),
        job,
        CLOCK,
        StaticSpawner::new(&TINY),
    );

fn main() {
    run("StaticSpawner on FreeRTOS (Posix simulator)", |checks| {
        say!("FreeRTOS V11.2.0, Posix port; {SPAWNER:?}");
        say!(
            "one slot: {} bytes ({}-byte TCB reserve, {STACK_WORDS}-word stack)",
            TaskSlots::<SLOT_COUNT, STACK_WORDS>::SLOT_BYTES,
            SLOTS.tcb_bytes()
        );
        let baseline = task_count();
        reserve_is_checked(checks);
        every_job_once_on_static_slots(checks, baseline);
        expiry_returns_slots_for_reuse(checks, baseline);
        every_slot_busy_hands_the_argument_back(checks, baseline);
        release_leaves_every_slot_idle(checks, baseline);
    })
}

fn reserve_is_checked(checks: &mut Checks) {
    say!("StaticTask_t reserve");
    let fits = SLOTS.check();
    checks.check(
        "the TCB reserve holds the kernel's StaticTask_t",
        fits.is_ok(),
        format!("{fits:?}, reserve {} bytes", SLOTS.tcb_bytes()),
    );
    let tiny = TINY.check();
    let refused = TINY_POOL.invoke(1);
    checks.check(
        "a reserve too small is refused and makes no task",
        tiny.is_err() && matches!(refused, Err(SubmitError::SpawnFailed(1))) && TINY.busy() == 0,
        format!(
            "{}; invoke: {refused:?}",
            tiny.map_or_else(|e| e.to_string(), |l| format!("{l:?}"))
        ),
    );
}

fn every_job_once_on_static_slots(checks: &mut Checks, baseline: usize) {
    say!("{JOBS} jobs on {SLOT_COUNT} static slots");
    let start = ticks();
    let mut refused = 0;
    for id in 0..JOBS {
        if POOL.invoke(id).is_err() {
            refused += 1;
        }
    }
    POOL.wait_idle();
    let once = RAN.iter().filter(|r| r.load(Relaxed) == 1).count();
    checks.check(
        "every job ran exactly once",
        once == JOBS && refused == 0,
        format!(
            "{once} of {JOBS} once, {refused} refused, {} ticks",
            ticks() - start
        ),
    );
    let most = MOST.load(Relaxed);
    checks.check(
        "never more than the capacity at once",
        (1..=SLOT_COUNT).contains(&most),
        format!("at most {most} at once, {SLOT_COUNT} slots"),
    );
    let made = task_count() - baseline;
    checks.check(
        "every worker is a slot task",
        (1..=SLOT_COUNT).contains(&made) && SLOTS.busy() + SLOTS.idle() == made,
        format!(
            "{made} tasks made, {} busy + {} idle slots, {} workers",
            SLOTS.busy(),
            SLOTS.idle(),
            POOL.running()
        ),
    );
}

fn expiry_returns_slots_for_reuse(checks: &mut Checks, baseline: usize) {
    say!("expiry");
    let tasks = task_count();
    // A retired worker's slot goes IDLE when its job returns, a moment after
    // the pool stopped counting it.
    let expired = wait_until(4 * EXPIRY_TICKS, || {
        POOL.running() == 0 && SLOTS.idle() == tasks - baseline
    });
    let idle = SLOTS.idle();
    checks.check(
        "idle workers expire; their slots go IDLE and their tasks stay",
        expired.is_some() && idle == tasks - baseline && SLOTS.busy() == 0 && task_count() == tasks,
        format!("{idle} idle slots, {} tasks (was {tasks})", task_count()),
    );
    let before = POOL.stats().completed;
    for id in 0..SLOT_COUNT {
        POOL.invoke(id % JOBS).expect("open pool");
    }
    POOL.wait_idle();
    checks.check(
        "the next jobs reuse the slots: no task is made",
        task_count() == tasks && POOL.stats().completed == before + SLOT_COUNT,
        format!("{} tasks (was {tasks})", task_count()),
    );
}

fn every_slot_busy_hands_the_argument_back(checks: &mut Checks, baseline: usize) {
    say!("every slot busy");
    // The main pool's idle workers hold slots too: let them go first.
    let _ = wait_until(4 * EXPIRY_TICKS, || {
        POOL.running() == 0 && SLOTS.busy() == 0
    });
    for id in 0..SLOT_COUNT {
        OVER.invoke(id).expect("a slot for each");
    }
    let busy = SLOTS.busy();
    let refused = OVER.invoke(99);
    GATE.store(true, Relaxed);
    // Its workers hold the slots until they retire: release them.
    let over = OVER.release_timeout(Duration::from_secs(2));
    checks.check(
        "with every slot busy the pool gets SpawnFailed with the argument",
        busy == SLOT_COUNT && matches!(refused, Err(SubmitError::SpawnFailed(99))) && over.is_ok(),
        format!(
            "{busy} busy slots, {refused:?}, {} tasks made, release {over:?}",
            task_count() - baseline
        ),
    );
}

fn release_leaves_every_slot_idle(checks: &mut Checks, baseline: usize) {
    say!("release");
    let tasks = task_count();
    for id in 0..SLOT_COUNT {
        POOL.invoke(id).expect("open pool");
    }
    let released = POOL.release_timeout(Duration::from_secs(2));
    let all_idle = wait_until(100, || SLOTS.idle() == tasks - baseline);
    checks.check(
        "release returns Ok, leaves no worker holding a job, every slot IDLE",
        released.is_ok() && all_idle.is_some() && SLOTS.busy() == 0,
        format!(
            "{released:?}, {} idle of {} slot tasks, {} tasks (was {tasks})",
            SLOTS.idle(),
            tasks - baseline,
            task_count()
        ),
    );
}
