//! antpool on the real FreeRTOS kernel (V11.2.0, Posix simulator port): the
//! pool's workers are FreeRTOS tasks made by `FreeRtosSpawner`, parked on task
//! notifications, timed by the tick counter, locked by critical sections.
//!
//! The scheduler owns the process, so this is a `harness = false` test: one
//! controlling task runs every check, prints `N passed, N failed`, and ends the
//! process with the result.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use antpool::port::{Signal, Spawner};
use antpool::{Options, PoolWithFunc, StaticPoolWithFunc, SubmitError, WorkerRing};
use antpool_freertos::{CriticalSection, FreeRtosSpawner, TickClock};
use antpool_freertos_sim::{Checks, delay, run, say, spawn_task, task_count, ticks, wait_until};

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

/// What the jobs of the main pool record.
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
        signal_contract(checks);
        critical_section_has_one_holder(checks);
        every_job_once_within_capacity_then_expiry(checks, baseline);
        release_timeout_ends_every_worker_task(checks, baseline);
        blocked_submitter_is_woken(checks, baseline);
        spawn_failure_hands_the_argument_back(checks);
        static_pool_without_heap(checks, baseline);
    })
}

/// The pool's lock on FreeRTOS has one holder at a time, its own task included
/// (kernel critical sections nest; the lock must not).
fn critical_section_has_one_holder(checks: &mut Checks) {
    use antpool::port::lock_api::RawMutex;
    say!("critical section");
    let lock = CriticalSection::INIT;
    lock.lock();
    let second = lock.try_lock();
    let still_held = lock.is_locked();
    // SAFETY: locked above by this task, once (the failed try_lock took nothing).
    unsafe { lock.unlock() };
    let free_again = !lock.is_locked() && lock.try_lock();
    // SAFETY: the successful try_lock just above.
    unsafe { lock.unlock() };
    checks.check(
        "a held CriticalSection refuses a second holder, and frees on unlock",
        !second && still_held && free_again,
        format!(
            "second try_lock = {second}, held after it = {still_held}, free again = {free_again}"
        ),
    );
}

/// The port's `Signal` keeps the antpool contract on the kernel.
fn signal_contract(checks: &mut Checks) {
    say!("signal");
    let signal = SPAWNER.signal();
    // SAFETY: `signal` is alive for the whole call.
    unsafe { Signal::notify(&signal) };
    checks.check(
        "a notify before the wait is kept",
        signal.wait_timeout(Duration::ZERO),
        "",
    );
    let start = ticks();
    let woken = signal.wait_timeout(Duration::from_millis(50));
    let slept = ticks() - start;
    checks.check(
        "a wait without a token times out, no earlier than asked",
        // 50 ms at 1 kHz from part-way through a tick: 51 tick boundaries.
        !woken && (51..70).contains(&slept),
        format!("woken = {woken}, slept {slept} ticks for 50 ms"),
    );
    // SAFETY: as above.
    unsafe {
        Signal::notify(&signal);
        Signal::notify(&signal);
    }
    let first = signal.wait_timeout(Duration::ZERO);
    let second = signal.wait_timeout(Duration::ZERO);
    checks.check(
        "two notifies leave one token",
        first && !second,
        format!("{first}, {second}"),
    );
}

fn every_job_once_within_capacity_then_expiry(checks: &mut Checks, baseline: usize) {
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
    // after it (the last one went idle just before `start`).
    let idle_since = ticks();
    delay(EXPIRY_TICKS / 2);
    let halfway = pool.running();
    let gone = wait_until(3 * EXPIRY_TICKS, || pool.running() == 0);
    let after = ticks() - idle_since;
    checks.check(
        "idle workers expire on the tick clock",
        halfway == workers && gone.is_some() && (EXPIRY_TICKS..3 * EXPIRY_TICKS).contains(&after),
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

fn release_timeout_ends_every_worker_task(checks: &mut Checks, baseline: usize) {
    say!("release_timeout");
    let done = Arc::new(AtomicUsize::new(0));
    let in_job = Arc::clone(&done);
    let pool = PoolWithFunc::builder_with(
        move |_: u32| {
            delay(2);
            in_job.fetch_add(1, Relaxed);
        },
        CLOCK,
        SPAWNER,
    )
    .queue::<WorkerRing<CAP>>()
    .capacity(CAP)
    .expiry(Duration::from_secs(60))
    .build()
    .expect("valid options");
    for n in 0..200 {
        pool.invoke(n).expect("open pool");
    }
    let workers = pool.running();
    let with_workers = task_count();
    let start = ticks();
    let released = pool.release_timeout(Duration::from_secs(2));
    let taken = ticks() - start;
    checks.check(
        "release_timeout waits for every worker",
        released.is_ok() && pool.running() == 0 && done.load(Relaxed) == 200,
        format!(
            "{released:?} after {taken} ticks, {} jobs done, {workers} workers",
            done.load(Relaxed)
        ),
    );
    let cleaned = wait_until(100, || task_count() == baseline);
    checks.check(
        "and every worker task is deleted",
        workers == CAP && with_workers == baseline + CAP && cleaned.is_some(),
        format!(
            "{with_workers} tasks with workers, {} after, {baseline} before",
            task_count()
        ),
    );
    checks.check(
        "a released pool turns tasks away",
        matches!(pool.invoke(1), Err(SubmitError::Closed(1))),
        "",
    );
}

fn blocked_submitter_is_woken(checks: &mut Checks, baseline: usize) {
    say!("blocked submitter");
    const GATED: u32 = 1;
    const LAST: u32 = 2;
    let gate = Arc::new(AtomicBool::new(false));
    let last_ran = Arc::new(AtomicBool::new(false));
    let (g, l) = (Arc::clone(&gate), Arc::clone(&last_ran));
    let pool = Arc::new(
        PoolWithFunc::builder_with(
            move |job: u32| match job {
                GATED => {
                    while !g.load(Relaxed) {
                        delay(1);
                    }
                }
                _ => l.store(true, Relaxed),
            },
            CLOCK,
            SPAWNER,
        )
        .queue::<WorkerRing<2>>()
        .capacity(2)
        .build()
        .expect("valid options"),
    );
    pool.invoke(GATED).expect("first worker");
    pool.invoke(GATED).expect("second worker");
    let submitted = Arc::new(AtomicBool::new(false));
    let (p, s) = (Arc::clone(&pool), Arc::clone(&submitted));
    spawn_task(c"submitter", 2, 1024, move || {
        let r = p.invoke(LAST);
        s.store(r.is_ok(), Relaxed);
    });
    let blocked = wait_until(200, || pool.waiting() == 1);
    delay(20);
    let still_blocked = !submitted.load(Relaxed) && pool.waiting() == 1;
    checks.check(
        "a submitter to a full pool blocks",
        blocked.is_some() && still_blocked,
        format!("waiting() = {}", pool.waiting()),
    );
    let opened = ticks();
    gate.store(true, Relaxed);
    let woken = wait_until(200, || submitted.load(Relaxed) && last_ran.load(Relaxed));
    checks.check(
        "a worker that finishes wakes it and runs its task",
        woken.is_some() && pool.waiting() == 0,
        format!("woken {} ticks after the gate opened", ticks() - opened),
    );
    let released = pool.release_timeout(Duration::from_secs(2));
    let cleaned = wait_until(100, || task_count() == baseline);
    checks.check(
        "the submitter's and the workers' tasks are all gone",
        released.is_ok() && cleaned.is_some(),
        format!("{} tasks, {baseline} before", task_count()),
    );
}

fn spawn_failure_hands_the_argument_back(checks: &mut Checks) {
    say!("spawn failure");
    // A stack far larger than the kernel's 4 MiB heap: xTaskCreate fails.
    let greedy = SPAWNER.stack_words(1 << 24);
    let pool = PoolWithFunc::builder_with(|_: u32| (), CLOCK, greedy)
        .queue::<WorkerRing<1>>()
        .capacity(1)
        .build()
        .expect("valid options");
    let r = pool.try_invoke(7);
    checks.check(
        "a task the kernel cannot make hands the argument back",
        matches!(r, Err(SubmitError::SpawnFailed(7))) && pool.running() == 0,
        format!("{r:?}, running() = {}", pool.running()),
    );
}

/// The no-heap shape: a pool in a `static`, const-built, whose new workers take
/// their first argument from the submitter's stack.
fn static_pool_without_heap(checks: &mut Checks, baseline: usize) {
    say!("static pool");
    static SUM: AtomicUsize = AtomicUsize::new(0);
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    fn add(n: usize) {
        SUM.fetch_add(n, Relaxed);
        RUNS.fetch_add(1, Relaxed);
        if n % 8 == 0 {
            delay(1);
        }
    }
    static POOL: StaticPoolWithFunc<usize, 3, TickClock, FreeRtosSpawner> = StaticPoolWithFunc::new(
        Options::new().capacity(3).expiry(Duration::from_millis(50)),
        add,
        CLOCK,
        SPAWNER,
    );
    const N: usize = 1_000;
    let start = ticks();
    for n in 1..=N {
        POOL.invoke(n).expect("open pool");
    }
    POOL.wait_idle();
    let taken = ticks() - start;
    let sum = SUM.load(Relaxed);
    checks.check(
        "a static pool runs every argument once",
        sum == N * (N + 1) / 2 && RUNS.load(Relaxed) == N,
        format!(
            "{} runs, sum {sum}, {taken} ticks, {} workers",
            RUNS.load(Relaxed),
            POOL.running()
        ),
    );
    let released = POOL.release_timeout(Duration::from_secs(2));
    let cleaned = wait_until(100, || task_count() == baseline);
    checks.check(
        "and ends its worker tasks on release",
        released.is_ok() && cleaned.is_some(),
        format!("{released:?}, {} tasks, {baseline} before", task_count()),
    );
}
