//! `tune`: growing serves blocked submitters at once; shrinking retires surplus
//! workers (idle ones at once, busy ones when they finish); some pools ignore it.

use crate::common;

use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use antpool::Pool;
use common::{
    Counter, PATIENCE, TestSpawner, counted_pool, eventually, occupy, queue_pool, submit_counted,
};

#[test]
fn growing_starts_workers_for_blocked_submitters_at_once() {
    let (pool, _spawner) = counted_pool(1);
    let pool = Arc::new(pool);
    let gate = occupy(&pool, 1);
    let ran = Counter::new();
    let submitters: Vec<_> = (0..3)
        .map(|_| {
            let (pool, ran, gate) = (pool.clone(), ran.clone(), gate.clone());
            thread::spawn(move || {
                pool.submit(move || {
                    ran.add();
                    gate.wait();
                })
                .unwrap()
            })
        })
        .collect();
    assert!(eventually(|| pool.waiting() == 3));
    pool.tune(4);
    assert_eq!(pool.cap(), Some(4));
    // The first worker is still held: the three tasks run on three new workers.
    assert!(ran.reaches(3));
    assert_eq!(pool.waiting(), 0);
    assert_eq!(pool.running(), 4);
    for s in submitters {
        s.join().unwrap();
    }
    gate.open();
}

#[test]
fn growing_by_less_than_the_queue_serves_the_oldest_waiters() {
    let (pool, _spawner) = counted_pool(1);
    let pool = Arc::new(pool);
    let gate = occupy(&pool, 1);
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut submitters = Vec::new();
    for i in 0..3 {
        let (p, o, g) = (pool.clone(), order.clone(), gate.clone());
        submitters.push(thread::spawn(move || {
            p.submit(move || {
                o.lock().unwrap().push(i);
                g.wait();
            })
            .unwrap()
        }));
        assert!(eventually(|| pool.waiting() == i + 1));
    }
    pool.tune(2); // room for one more: the oldest waiter (0)
    assert!(eventually(|| order.lock().unwrap().len() == 1));
    assert_eq!(order.lock().unwrap()[0], 0);
    thread::sleep(Duration::from_millis(20));
    assert_eq!(
        order.lock().unwrap().len(),
        1,
        "only one more worker may run"
    );
    assert_eq!(pool.waiting(), 2);
    gate.open();
    for s in submitters {
        s.join().unwrap();
    }
}

#[test]
fn shrinking_retires_surplus_idle_workers_at_once() {
    let (pool, spawner) = counted_pool(4);
    occupy(&pool, 4).open();
    assert!(eventually(|| pool.idle() == 4));
    pool.tune(1);
    assert!(eventually(|| pool.running() == 1 && spawner.live() == 1));
    assert_eq!(pool.free(), Some(0));
}

#[test]
fn shrinking_retires_busy_workers_when_they_finish() {
    let (pool, spawner) = counted_pool(3);
    let gate = occupy(&pool, 3);
    pool.tune(1);
    assert_eq!(pool.running(), 3, "busy workers are not interrupted");
    assert_eq!(pool.free(), Some(0), "free never goes negative");
    gate.open();
    assert!(eventually(|| pool.running() == 1 && spawner.live() == 1));
    // And the cap holds from now on.
    let gate = occupy(&pool, 1);
    assert!(pool.try_submit(|| ()).unwrap_err().is_overload());
    gate.open();
}

#[test]
fn tune_is_ignored_for_zero_unbounded_and_prealloc_pools() {
    let pool = Pool::new(3).unwrap();
    pool.tune(0);
    assert_eq!(pool.cap(), Some(3));
    let unbounded = Pool::unbounded();
    unbounded.tune(5);
    assert_eq!(unbounded.cap(), None);
    let prealloc = Pool::builder().capacity(3).prealloc(true).build().unwrap();
    prealloc.tune(5);
    assert_eq!(prealloc.cap(), Some(3));
}

#[test]
fn tuning_up_and_down_under_load_loses_nothing() {
    let (pool, _spawner) = counted_pool(4);
    let pool = Arc::new(pool);
    let done = Counter::new();
    let tuner = {
        let pool = pool.clone();
        thread::spawn(move || {
            for i in 0..200 {
                pool.tune(1 + i % 6);
                thread::sleep(Duration::from_micros(200));
            }
        })
    };
    for _ in 0..20_000 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
    }
    tuner.join().unwrap();
    pool.release_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(done.get(), 20_000);
}

/// A spawner whose workers linger a while after every wake-up, so a worker told
/// to retire stays counted for that long: the window in which the other workers
/// must not mistake it for a surplus still to shed.
#[derive(Clone)]
struct LingeringSpawner(antpool::port::StdSpawner);

struct LingeringSignal(antpool::port::StdSignal);

impl antpool::port::Signal for LingeringSignal {
    fn wait(&self) {
        self.0.wait();
        thread::sleep(Duration::from_millis(2));
    }
    fn wait_timeout(&self, timeout: Duration) -> bool {
        let woken = self.0.wait_timeout(timeout);
        thread::sleep(Duration::from_millis(2));
        woken
    }
    unsafe fn notify(this: *const Self) {
        // SAFETY: `this` is live until the token is published (the caller's
        // contract), and the inner signal is the part that publishes it.
        unsafe { antpool::port::Signal::notify(core::ptr::addr_of!((*this).0)) }
    }
}

impl antpool::port::Spawner for LingeringSpawner {
    type Signal = LingeringSignal;
    type Lock = antpool::port::StdLock;
    fn spawn(&self, job: antpool::port::Job) -> Result<(), antpool::port::Job> {
        self.0.spawn(job)
    }
    fn signal(&self) -> LingeringSignal {
        LingeringSignal(self.0.signal())
    }
}

/// Found by running rust-threadpool's tests against antpool: `tune` down while
/// tasks queue must retire exactly the surplus. Counting workers already told to
/// retire (they stay counted until they exit) as surplus still to shed made
/// busy workers retire too, stranding queued tasks with too few workers (or
/// none) to run them.
#[test]
fn tuning_down_racing_queued_tasks_strands_none() {
    fn round(
        round: u64,
        pool: antpool::Pool<
            antpool::IdleQueue,
            antpool::port::StdClock,
            impl antpool::port::Spawner,
        >,
    ) {
        // Four workers: some finish at once and go idle, some are still busy
        // when the cap drops, depending on the round.
        for i in 0..4u64 {
            pool.submit(move || {
                let busy = if i < 2 { 0 } else { 20 + 40 * (round % 8) };
                let until = Instant::now() + Duration::from_micros(busy);
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
            })
            .unwrap();
        }
        pool.tune(2);
        // Two tasks that can only finish together: both need a worker of their own.
        let started = Counter::new();
        let gate = common::Gate::new();
        for _ in 0..2 {
            let (s, g) = (started.clone(), gate.clone());
            pool.submit(move || {
                s.add();
                g.wait();
            })
            .unwrap();
        }
        let both = started.reaches(2);
        gate.open();
        assert!(
            both,
            "round {round}: a queued task was stranded: {:?}",
            pool.stats()
        );
        assert!(
            pool.wait_idle_timeout(Duration::from_secs(10)),
            "round {round}"
        );
        assert!(pool.running() <= 2, "round {round}: {:?}", pool.stats());
        pool.release_timeout(Duration::from_secs(10)).unwrap();
    }
    // Under Miri (which checks the code, not the odds of the race) a tenth.
    let rounds = if cfg!(miri) { 10 } else { 100 };
    for r in 0..rounds {
        round(
            r,
            Pool::builder()
                .capacity(4)
                .unbounded_queue()
                .build()
                .unwrap(),
        );
        let lingering = LingeringSpawner(antpool::port::StdSpawner::new());
        round(
            r,
            Pool::builder_with(antpool::port::StdClock::new(), lingering)
                .capacity(4)
                .unbounded_queue()
                .build()
                .unwrap(),
        );
    }
}

/// Whether `cond` holds within `limit` (polled): for waits that only a wrong
/// engine runs out, kept well below the mutation run's 30 s per test so that
/// such an engine fails here rather than hangs.
fn within(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        thread::sleep(Duration::from_millis(1));
    }
    cond()
}

/// Growing a queue pool whose new threads cannot be started tries one start
/// and returns: the queued tasks wait for the worker the pool has, and run
/// once it is free.
#[test]
fn growing_when_no_thread_can_be_started_returns_and_the_queue_waits() {
    let spawner = TestSpawner::failing(|n| n >= 1);
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .max_queued_tasks(8)
            .spawner(spawner.clone())
            .build()
            .unwrap(),
    );
    let gate = occupy(&pool, 1);
    let done = submit_counted(&pool, 3);
    assert_eq!(pool.queued(), 3);
    let (tx, rx) = mpsc::channel();
    {
        let pool = Arc::clone(&pool);
        thread::spawn(move || {
            pool.tune(3);
            tx.send(()).unwrap();
        });
    }
    rx.recv_timeout(Duration::from_secs(15))
        .expect("tune returns though no thread can be started");
    assert_eq!(
        spawner.attempts.load(SeqCst),
        2,
        "one start tried for the queued tasks"
    );
    assert_eq!((pool.running(), pool.queued()), (1, 3));
    gate.open();
    assert!(done.reaches(3));
    pool.release_timeout(PATIENCE).unwrap();
}

/// Growing a released pool that still has queued tasks gives them new
/// workers: they run beside the busy ones, rather than wait for them.
#[test]
fn growing_a_released_pool_starts_workers_for_its_queued_tasks() {
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let done = submit_counted(&pool, 2);
    pool.release();
    assert!(pool.is_closed());
    pool.tune(2);
    assert!(
        within(Duration::from_secs(15), || done.get() == 2),
        "the queued tasks ran while the first worker was held"
    );
    gate.open();
    assert!(pool.wait_released_timeout(PATIENCE));
    assert_eq!(pool.running(), 0);
}

/// Tuned down while every worker is busy and the queue stays full, a surplus
/// worker retires after a few more tasks, not only once the queue runs
/// empty: under a steady stream of work the lower capacity holds within a
/// bounded number of tasks. (A queue of 64 tasks: a busy worker looks every
/// few tasks, 16 with the shipped policy.) The worker that drains it has run
/// dozens of tasks before: it looks all its life, not only in its first tasks.
#[test]
fn a_busy_surplus_worker_retires_before_the_queue_runs_empty() {
    // (Never expiring: the one worker must stay the one, however slow the
    // test thread between two tasks.)
    let pool = Pool::builder()
        .capacity(2)
        .max_queued_tasks(64)
        .disable_purge(true)
        .build()
        .unwrap();
    // One task at a time: the one worker started takes each (a parked worker
    // is reused before another starts).
    for _ in 0..40 {
        assert!(submit_counted(&pool, 1).reaches(1));
        assert!(pool.wait_idle_timeout(PATIENCE));
    }
    assert_eq!(pool.stats().spawned, 1);
    let first = occupy(&pool, 1);
    let second = occupy(&pool, 1);
    let done = submit_counted(&pool, 64);
    pool.tune(1);
    // The first worker drains the queue alone while the second is held.
    first.open();
    assert!(
        eventually(|| pool.running() == 1),
        "the surplus worker retires"
    );
    assert!(
        pool.queued() > 0,
        "it retired with tasks still queued, not after all {} ran",
        done.get()
    );
    second.open();
    assert!(done.reaches(64));
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(pool.running(), 1);
    pool.release_timeout(PATIENCE).unwrap();
}
