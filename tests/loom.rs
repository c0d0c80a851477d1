//! Model checks of the hand-off protocol with [loom]: the real engine, driven
//! through a loom `Spawner`, `Signal`, `Lock` and `Clock` written against the
//! public traits (`loom/harness.rs`, which the crate's own models of the
//! mechanism under adversarial policies share). Loom runs each
//! model under every interleaving of the atomics, locks and thread switches (up to
//! a preemption bound), and fails on a deadlock, a lost wake-up or a failed
//! assertion.
//!
//! ```text
//! RUSTFLAGS="--cfg antpool_loom" cargo test --release --test loom
//! ```
//!
//! Set `LOOM_MAX_PREEMPTIONS` to explore more (the default bound here is 1).
//!
//! [loom]: https://docs.rs/loom
#![cfg(antpool_loom)]

use std::time::Duration;

use antpool::port;
use antpool::port::{Signal, Spawner};
use antpool::{IdleQueue, PoolWithFunc, SubmitError};
use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use loom::thread;

#[path = "loom/harness.rs"]
mod harness;
use harness::{Gate, LoomClock, LoomLock, LoomSpawner, ONE_CPU, check, check_bounded};

#[path = "loom/abort.rs"]
mod abort;
#[path = "loom/async_waiters.rs"]
mod async_waiters;
#[path = "loom/cancel.rs"]
mod cancel;
#[path = "loom/group.rs"]
mod group;
#[path = "loom/inbox.rs"]
mod inbox;
#[path = "loom/isr.rs"]
mod isr;
#[path = "loom/join.rs"]
mod join;
#[path = "loom/oneshot.rs"]
mod oneshot;
#[path = "loom/pause.rs"]
mod pause;
#[path = "loom/priorities.rs"]
mod priorities;
#[path = "loom/quiet.rs"]
mod quiet;
#[path = "loom/release.rs"]
mod release;
#[path = "loom/scope.rs"]
mod scope;

type LoomPool<F> = PoolWithFunc<u32, F, IdleQueue, LoomClock, LoomSpawner>;

/// A pool of `cap` whose function adds its argument to `sum`.
fn pool(
    cap: usize,
    purge: bool,
    sum: Arc<AtomicUsize>,
) -> (
    LoomPool<impl Fn(u32) + Clone + Send + Sync + 'static>,
    LoomClock,
) {
    pool_with_queue(cap, purge, 0, sum)
}

/// Like [`pool`], in queue mode with room for `queue` tasks (`usize::MAX`:
/// unbounded; 0: no queue).
fn pool_with_queue(
    cap: usize,
    purge: bool,
    queue: usize,
    sum: Arc<AtomicUsize>,
) -> (
    LoomPool<impl Fn(u32) + Clone + Send + Sync + 'static>,
    LoomClock,
) {
    pool_built(cap, purge, queue, false, sum)
}

/// Like [`pool_with_queue`], with a queue and a line per level
/// (`priorities(true)`).
fn pool_with_levels(
    cap: usize,
    queue: usize,
    sum: Arc<AtomicUsize>,
) -> LoomPool<impl Fn(u32) + Clone + Send + Sync + 'static> {
    pool_built(cap, false, queue, true, sum).0
}

fn pool_built(
    cap: usize,
    purge: bool,
    queue: usize,
    levels: bool,
    sum: Arc<AtomicUsize>,
) -> (
    LoomPool<impl Fn(u32) + Clone + Send + Sync + 'static>,
    LoomClock,
) {
    let clock = LoomClock(Arc::new(AtomicU64::new(0)));
    let builder = PoolWithFunc::builder_with(
        move |n: u32| {
            sum.fetch_add(n as usize, Ordering::Relaxed);
        },
        clock.clone(),
        ONE_CPU,
    )
    .capacity(cap)
    .expiry(Duration::from_nanos(10))
    .disable_purge(!purge)
    .priorities(levels);
    let builder = match queue {
        0 => builder,
        usize::MAX => builder.unbounded_queue(),
        n => builder.max_queued_tasks(n),
    };
    (builder.build().unwrap(), clock)
}

/// A `Pool` (boxed closures: `spawn_async`, `submit`) of `cap` on one CPU,
/// with a queue of `queue` tasks (0: a hand-off pool), never expiring.
fn std_pool(cap: usize, queue: usize) -> antpool::Pool<IdleQueue, LoomClock, LoomSpawner> {
    let clock = LoomClock(Arc::new(AtomicU64::new(0)));
    let builder = antpool::Pool::builder_with(clock, ONE_CPU)
        .capacity(cap)
        .disable_purge(true);
    let builder = match queue {
        0 => builder,
        n => builder.max_queued_tasks(n),
    };
    builder.build().unwrap()
}

#[test]
fn hand_off_to_an_idle_or_busy_worker_runs_each_task_once() {
    check("hand-off", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(1, false, sum.clone());
        pool.invoke(1).unwrap(); // starts the worker
        pool.invoke(2).unwrap(); // to it when idle, or served by it from the waiters
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
        assert_eq!(pool.running(), 0);
    });
}

#[test]
fn a_blocked_submitter_is_served_by_the_finishing_worker() {
    check("waiter served", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(1, false, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap();
        let p = pool.clone();
        let other = thread::spawn(move || p.invoke(2).unwrap());
        pool.invoke(4).unwrap();
        other.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 7);
    });
}

#[test]
fn tune_racing_a_worker_going_idle_serves_the_waiter_once() {
    check("tune vs revert", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(1, false, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap();
        let p = pool.clone();
        let other = thread::spawn(move || p.invoke(2).unwrap());
        pool.tune(2); // may grant the waiter a slot, or find it already served
        other.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
        assert!(pool.stats().spawned <= 2);
    });
}

#[test]
fn tune_down_racing_queued_tasks_retires_only_the_surplus() {
    // Two workers, each busy, finishing or idle when the cap drops to one; then
    // a third task, handed to an idle worker or queued behind busy ones. Either
    // way a worker must be left to run it (`wait_idle` deadlocks otherwise),
    // and only the surplus worker may retire.
    check("tune vs queue", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(2, false, usize::MAX, sum.clone());
        pool.invoke(1).unwrap();
        pool.invoke(2).unwrap();
        pool.tune(1);
        pool.invoke(4).unwrap();
        pool.wait_idle();
        assert_eq!(sum.load(Ordering::Relaxed), 7);
        assert!(
            pool.running() <= 1,
            "only the surplus retires: {:?}",
            pool.stats()
        );
        pool.release_timeout(Duration::MAX).unwrap();
    });
}

#[test]
fn expiry_racing_a_hand_off_never_hands_to_a_retired_worker() {
    check("expiry vs hand-off", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, clock) = pool(1, true, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap();
        let p = pool.clone();
        let other = thread::spawn(move || p.invoke(2).unwrap());
        // Time passes: the idle worker may reap itself, or be purged, or be
        // handed the task first.
        clock.0.store(1_000, Ordering::Release);
        pool.purge();
        other.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
        assert_eq!(pool.running(), 0);
    });
}

#[test]
fn wait_idle_returns_once_every_task_is_done() {
    check("wait_idle", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(2, false, sum.clone());
        pool.invoke(1).unwrap();
        pool.invoke(2).unwrap();
        pool.wait_idle();
        assert_eq!(sum.load(Ordering::Relaxed), 3);
        pool.release_timeout(Duration::MAX).unwrap();
    });
}

#[test]
fn the_loom_signal_keeps_a_token_sent_before_the_wait() {
    check("signal", || {
        let s = Arc::new(ONE_CPU.signal());
        let s2 = s.clone();
        // SAFETY: `s2` keeps the signal alive for the whole call.
        let t = thread::spawn(move || unsafe { Signal::notify(&*s2) });
        s.wait();
        t.join().unwrap();
    });
}

#[test]
fn a_full_queue_lets_its_waiter_in_once_it_drained() {
    // One worker, a queue of one: the third task's submitter blocks until the
    // worker has drained the queue (half of one is none), then its task runs.
    // The worker may find the lane empty just before the waiter links itself:
    // it then lets the waiter in when it parks, under the lock.
    check("queue waiter", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 1, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap(); // a worker carries it
        pool.invoke(2).unwrap(); // the queue is full
        let p = pool.clone();
        let other = thread::spawn(move || p.invoke(4).unwrap());
        other.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap(); // runs what was admitted
        assert_eq!(sum.load(Ordering::Relaxed), 7);
    });
}

#[test]
fn the_watcher_rescues_a_task_left_behind_a_stuck_worker() {
    // Two CPUs: tasks that run for one clock nanosecond teach the pool they are
    // tiny, and a worker that parks while another is busy takes up the watch.
    // A task then left to the busy worker — which is stuck until that very
    // task has run — must be taken by the watcher (or a worker it wakes).
    //
    // The test waits for the second worker's task before it submits the
    // third, so that worker is on its way to park (and to the watch) rather
    // than busy: submitted at once, the third task found the pool full and
    // was served by that worker, and the watch was never needed. Tasks and
    // test wait on `Gate`s, not in spins: loom need not explore every turn of
    // a spin, and a task left behind for good is a deadlock (or a watcher
    // looking forever), which loom reports; `stuck` forced false in
    // `watch_tick` fails this model. Preemption bound 0: four threads, two of
    // them workers.
    check_bounded("watch rescues", 0, || {
        let clock = LoomClock(Arc::new(AtomicU64::new(0)));
        let ran = Arc::new(AtomicUsize::new(0));
        let (second_ran, all_ran) = (Gate::new(), Gate::new());
        let (c, r, g2, g3) = (
            clock.clone(),
            ran.clone(),
            second_ran.clone(),
            all_ran.clone(),
        );
        let pool = PoolWithFunc::builder_with(
            move |n: u32| {
                if n == 0 {
                    // Stuck until the last task has run.
                    g3.wait();
                } else {
                    c.0.fetch_add(1, Ordering::AcqRel);
                    match r.fetch_add(1, Ordering::AcqRel) + 1 {
                        2 => g2.open(),
                        3 => g3.open(),
                        _ => {}
                    }
                }
            },
            clock.clone(),
            LoomSpawner { cpus: 2 },
        )
        .capacity(2)
        .disable_purge(true)
        .build()
        .unwrap();
        pool.invoke(1).unwrap(); // learns: tiny
        pool.wait_idle();
        pool.invoke(0).unwrap(); // a worker gets stuck
        pool.invoke(1).unwrap(); // a second worker, which then parks: on watch
        second_ran.wait();
        pool.invoke(1).unwrap(); // left to the stuck one, or to a looker
        all_ran.wait();
        assert_eq!(ran.load(Ordering::Acquire), 3);
        pool.release_timeout(Duration::MAX).unwrap();
    });
}

/// One CPU, a queue pool of `cap`: a worker runs task 1 and parks; task 0
/// wakes it as a looker, and task 4 finds that looker up and is left to it
/// (under loom wake-ups chain whenever tasks are not tiny). The looker takes
/// task 0 and — the last looker — finds task 4 a taker. `stuck`: task 0
/// blocks until task 4 has run, so the looker cannot run task 4 afterwards:
/// only the chain's link (a second worker, started by the looker) does;
/// otherwise (cap 1, no room for one) the looker runs it after task 0.
/// Nothing else wakes a worker here, so a task left stranded is a deadlock,
/// which loom reports; without the link in `take_as_looker` the `stuck` model
/// deadlocks. Preemption bound 0: the worker that opens `ran_1` runs on until
/// it parks.
fn burst_left_to_a_looker(cap: usize, stuck: bool) {
    let sum = Arc::new(AtomicUsize::new(0));
    let (ran_4, ran_1) = (Gate::new(), Gate::new());
    let (s, g4, g1) = (sum.clone(), ran_4.clone(), ran_1.clone());
    let pool = PoolWithFunc::builder_with(
        move |n: u32| {
            if n == 0 && stuck {
                g4.wait();
            }
            s.fetch_add(n as usize, Ordering::AcqRel);
            match n {
                1 => g1.open(),
                4 => g4.open(),
                _ => {}
            }
        },
        LoomClock(Arc::new(AtomicU64::new(0))),
        ONE_CPU,
    )
    .capacity(cap)
    .disable_purge(true)
    .unbounded_queue()
    .build()
    .unwrap();
    pool.invoke(1).unwrap(); // a worker runs it, then parks
    ran_1.wait();
    pool.invoke(0).unwrap(); // wakes it as a looker
    pool.invoke(4).unwrap(); // left to the looker
    ran_4.wait();
    pool.release_timeout(Duration::MAX).unwrap();
    assert_eq!(sum.load(Ordering::Relaxed), 5);
}

#[test]
fn a_burst_left_to_a_looker_runs_every_task() {
    check_bounded("chain, no room for a worker", 0, || {
        burst_left_to_a_looker(1, false)
    });
}

#[test]
fn a_burst_left_to_a_looker_chains_to_a_new_worker() {
    check_bounded("chain to a new worker", 0, || {
        burst_left_to_a_looker(2, true)
    });
}

/// The result of an `invoke_timeout`: 0 if it got in, else the argument it
/// got back (which must be for `Timeout`).
fn got_back(result: Result<(), SubmitError<u32>>) -> usize {
    match result {
        Ok(()) => 0,
        Err(SubmitError::Timeout(n)) => n as usize,
        Err(e) => panic!("unexpected {e:?}"),
    }
}

#[test]
fn a_timed_out_waiter_racing_the_finishing_worker_gets_in_or_its_task_back() {
    // Hand-off, one worker: the finishing worker serves the waiter (takes its
    // task under the lock) while the waiter's time runs out and it takes
    // itself out of the FIFO under the lock. Exactly one of them wins: the
    // task runs once, or comes back and never runs; no waiter is left.
    check("timeout vs serve", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(1, false, sum.clone());
        pool.invoke(1).unwrap();
        let back = got_back(pool.invoke_timeout(2, Duration::from_nanos(1)));
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed) + back, 3);
        assert_eq!(pool.waiting(), 0);
    });
}

#[test]
fn a_timed_out_waiter_racing_the_queue_draining_gets_in_or_its_task_back() {
    // A queue of one, full: the worker that drains it lets the waiter in while
    // the waiter's time runs out.
    check("timeout vs queue drain", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 1, sum.clone());
        pool.invoke(1).unwrap(); // a worker carries it
        pool.invoke(2).unwrap(); // the queue is full
        let back = got_back(pool.invoke_timeout(4, Duration::from_nanos(1)));
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed) + back, 7);
        assert_eq!(pool.waiting(), 0);
    });
}
