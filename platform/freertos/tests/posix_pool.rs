//! antpool on the real FreeRTOS kernel (V11.2.0, Posix simulator port): the
//! pool's workers are FreeRTOS tasks made by `FreeRtosSpawner`, parked on task
//! notifications, timed by the tick counter, locked by critical sections.
//!
//! The checks every port runs come from the port kit (`antpool-portkit`):
//! the signal contract, the lock, every job once, the capacity, expiry,
//! blocking and non-blocking submits, `tune`, release leaving no task, a
//! refused spawn, `StaticPoolWithFunc` with no heap, the interrupt path (in
//! the kernel's tick interrupt, with the port's `isr` feature) and async
//! results. Around them, what is FreeRTOS's own: a pool used before the
//! scheduler starts, and a heap pool (`PoolWithFunc`) whose expired workers'
//! tasks the kernel deletes.
//!
//! The scheduler owns the process, so this is a `harness = false` test: one
//! controlling task runs every check, prints `N passed, N failed`, and ends the
//! process with the result.

use std::fmt::Arguments;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use antpool::port::{Signal, Spawner};
use antpool::{PoolWithFunc, WorkerRing};
use antpool_freertos::{FreeRtosSpawner, TickClock};
use antpool_freertos_sim::{
    Checks, delay, run, say, set_tick_interrupt, spawn_task, task_count, ticks, wait_until,
};
use antpool_portkit::{Pools, Port};

const TICK_HZ: u32 = 1_000;
const CLOCK: TickClock = TickClock::new(TICK_HZ);
/// Workers at the controller's priority (2), on notification slot 1 (the
/// kernel is built with two slots; slot 0 stays free for stream buffers).
// SAFETY: index 1 is below configTASK_NOTIFICATION_ARRAY_ENTRIES (2, sim/config).
const SPAWNER: FreeRtosSpawner = unsafe { FreeRtosSpawner::new().notify_index(1) }
    .name(c"ap-worker")
    .stack_words(1024)
    .priority(2)
    .tick_hz(TICK_HZ);

const CAP: usize = 4;
const JOBS: usize = 4_000;
const EXPIRY_TICKS: u64 = 100;

/// The kernel's tasks before any pool made one: the controller, the idle
/// and timer tasks.
static BASELINE: AtomicUsize = AtomicUsize::new(0);

/// FreeRTOS as the port kit sees it.
struct FreeRtos;

extern "C" fn each_tick() {
    antpool_portkit::interrupt();
}

impl Port for FreeRtos {
    type Clock = TickClock;
    type Spawner = FreeRtosSpawner;
    type Refusing = FreeRtosSpawner;
    const NAME: &'static str = "FreeRTOS V11.2.0, Posix simulator";
    const CLOCK: TickClock = CLOCK;
    const SPAWNER: FreeRtosSpawner = SPAWNER;
    /// A stack far larger than the kernel's 4 MiB heap: xTaskCreate fails.
    const REFUSING: FreeRtosSpawner = SPAWNER.stack_words(1 << 24);

    fn print(line: Arguments<'_>) {
        say!("{line}");
    }

    fn sleep(ticks: u32) {
        delay(ticks.into());
    }

    fn ticks() -> u64 {
        CLOCK.ticks()
    }

    fn tick_hz() -> u32 {
        TICK_HZ
    }

    /// Tasks made for workers and not yet deleted (the idle task deletes a
    /// task that deleted itself a moment later).
    fn worker_threads() -> usize {
        task_count().saturating_sub(BASELINE.load(Relaxed))
    }

    /// The kernel's tick interrupt: 1 kHz, whatever `hz` asks.
    fn start_interrupts(_hz: u32) -> Result<(), &'static str> {
        set_tick_interrupt(Some(each_tick));
        Ok(())
    }

    fn stop_interrupts() {
        set_tick_interrupt(None);
    }

    fn in_interrupt() -> bool {
        antpool_freertos_sim::in_tick_interrupt()
    }
}

/// The kit's pools: every one a `StaticPoolWithFunc` over `SPAWNER`.
static POOLS: Pools<FreeRtos> = Pools::new();

/// What the jobs of the heap pool record.
struct Ledger {
    /// How many times each job ran.
    ran: Vec<AtomicU8>,
    /// Jobs running right now, and the most seen at once.
    active: AtomicUsize,
    most: AtomicUsize,
}

impl Ledger {
    fn new(jobs: usize) -> Self {
        Ledger {
            ran: (0..jobs).map(|_| AtomicU8::new(0)).collect(),
            active: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        }
    }

    fn job(&self, id: usize) {
        let now = self.active.fetch_add(1, Relaxed) + 1;
        self.most.fetch_max(now, Relaxed);
        // Some CPU work, and now and then a block, so that workers overlap and
        // the kernel switches between them while they hold tasks.
        let mut x = id as u64;
        for _ in 0..200 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        if id % 16 == 0 {
            delay(1);
        }
        self.ran[id].fetch_add(1, Relaxed);
        self.active.fetch_sub(1, Relaxed);
    }
}

fn main() {
    // Before the scheduler runs, a pool cannot block anyone: making a signal
    // must panic (with a message), not hang.
    std::panic::set_hook(Box::new(|_| {}));
    let early = std::panic::catch_unwind(|| SPAWNER.signal());
    let _ = std::panic::take_hook();
    let early_message = match &early {
        Ok(_) => String::from("no panic"),
        Err(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default(),
    };
    run("antpool on FreeRTOS (Posix simulator)", move |checks| {
        say!("FreeRTOS V11.2.0, Posix port, tick {TICK_HZ} Hz; {SPAWNER:?}");
        checks.check(
            "a signal made before the scheduler runs panics instead of hanging",
            early.is_err() && early_message.contains("running task"),
            early_message,
        );
        let baseline = task_count();
        BASELINE.store(baseline, Relaxed);
        let mut kit = antpool_portkit::Checks::new(FreeRtos::print);
        let findings = antpool_portkit::run(&POOLS, &mut kit);
        say!("kit findings: {findings:?}");
        checks.passed += kit.passed();
        checks.failed += kit.failed();
        aborted_wait_waits_out_its_time(checks);
        heap_pool_tasks_come_and_go(checks, baseline);
    })
}

unsafe extern "C" {
    fn xTaskGetCurrentTaskHandle() -> *mut std::ffi::c_void;
    fn xTaskAbortDelay(task: *mut std::ffi::c_void) -> std::ffi::c_long;
}

/// A handle that may travel to another task.
struct Handle(*mut std::ffi::c_void);
// SAFETY: a task handle names a kernel task; the kernel's calls take it from
// any task.
unsafe impl Send for Handle {}

/// `xTaskAbortDelay` ends a task's blocked wait early, without a token: a
/// pool signal's timed wait must wait out the rest (rule 2), not return
/// early as if the time were up.
fn aborted_wait_waits_out_its_time(checks: &mut Checks) {
    say!("an aborted wait");
    let signal = SPAWNER.signal();
    // SAFETY: the running task's own handle.
    let me = Handle(unsafe { xTaskGetCurrentTaskHandle() });
    let aborted = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&aborted);
    spawn_task(c"aborter", 3, 1024, move || {
        let me = me;
        delay(10);
        // SAFETY: the controller task, blocked in the wait below.
        let hit = unsafe { xTaskAbortDelay(me.0) };
        seen.store(hit as usize, Relaxed);
    });
    let start = ticks();
    let woken = signal.wait_timeout(Duration::from_millis(50));
    let slept = ticks() - start;
    checks.check(
        "a timed wait aborted by xTaskAbortDelay waits out its time",
        !woken && aborted.load(Relaxed) == 1 && slept >= 50,
        format!(
            "woken = {woken}, aborted = {}, slept {slept} ticks for 50 ms",
            aborted.load(Relaxed)
        ),
    );
}

/// A heap pool (`PoolWithFunc`, its engine behind an `Arc`): every job once
/// within its capacity, its workers FreeRTOS tasks that the kernel deletes
/// when they expire.
fn heap_pool_tasks_come_and_go(checks: &mut Checks, baseline: usize) {
    say!("{JOBS} jobs on at most {CAP} worker tasks");
    let ledger = Arc::new(Ledger::new(JOBS));
    let in_job = Arc::clone(&ledger);
    let pool = PoolWithFunc::builder_with(move |id: usize| in_job.job(id), CLOCK, SPAWNER)
        .queue::<WorkerRing<CAP>>()
        .capacity(CAP)
        .expiry(Duration::from_millis(EXPIRY_TICKS))
        .build()
        .expect("valid options");
    let start = ticks();
    let mut most_running = 0;
    let mut rejected = 0;
    for id in 0..JOBS {
        if pool.invoke(id).is_err() {
            rejected += 1;
        }
        most_running = most_running.max(pool.running());
    }
    pool.wait_idle();
    let taken = ticks() - start;
    let once = ledger.ran.iter().all(|n| n.load(Relaxed) == 1);
    let total: usize = ledger.ran.iter().map(|n| n.load(Relaxed) as usize).sum();
    checks.check(
        "every job ran exactly once",
        once && total == JOBS && rejected == 0,
        format!("{total} runs of {JOBS} jobs, {rejected} rejected, {taken} ticks"),
    );
    let most = ledger.most.load(Relaxed);
    checks.check(
        "capacity was never exceeded",
        most <= CAP && most_running <= CAP,
        format!("at most {most} jobs at once, running() at most {most_running}, cap {CAP}"),
    );
    let workers = pool.running();
    checks.check(
        "the workers are FreeRTOS tasks",
        workers >= 1 && task_count() == baseline + workers,
        format!(
            "{workers} workers, {} tasks now, {baseline} before",
            task_count()
        ),
    );

    // Idle workers expire on the tick clock: none before the expiry, all soon
    // after it. They went idle a few ticks before `idle_since` (the last jobs
    // ran out before `wait_idle` returned and the checks above ran), so the
    // last of them may go up to `SLACK` ticks short of the expiry by this count.
    const SLACK: u64 = EXPIRY_TICKS / 10;
    let idle_since = ticks();
    delay(EXPIRY_TICKS / 2);
    let halfway = pool.running();
    let gone = wait_until(3 * EXPIRY_TICKS, || pool.running() == 0);
    let after = ticks() - idle_since;
    checks.check(
        "idle workers expire on the tick clock",
        halfway == workers && gone.is_some() && (EXPIRY_TICKS - SLACK..3 * EXPIRY_TICKS).contains(&after),
        format!(
            "{halfway} of {workers} alive at {} ticks, none at {after} ticks (expiry {EXPIRY_TICKS})",
            EXPIRY_TICKS / 2
        ),
    );
    let cleaned = wait_until(100, || task_count() == baseline);
    checks.check(
        "expired workers' tasks are deleted",
        cleaned.is_some(),
        format!("{} tasks, {baseline} before", task_count()),
    );
    let stats = pool.stats();
    checks.check(
        "the pool counted every job and every worker",
        stats.completed == JOBS && stats.spawned == stats.retired && stats.spawned >= workers,
        format!(
            "completed {}, spawned {}, retired {}",
            stats.completed, stats.spawned, stats.retired
        ),
    );
}
