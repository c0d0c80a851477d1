//! `StaticPoolWithFunc::try_invoke_from_isr`: to a parked worker, or back at
//! once; never a new thread, never a wait, never a queue behind others.

use crate::common;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

use antpool::port::StdClock;
use antpool::{Options, StaticPoolWithFunc, SubmitError};
use common::{PATIENCE, TestSpawner, eventually};

type Static<const N: usize> = StaticPoolWithFunc<usize, N, StdClock, TestSpawner>;

/// A pool of `cap` over `f`, kept reachable from `cell` (Miri's leak check).
fn pool<const N: usize>(
    cell: &'static OnceLock<Static<N>>,
    options: Options,
    f: fn(usize),
) -> (&'static Static<N>, TestSpawner) {
    let spawner = TestSpawner::new();
    let pool =
        cell.get_or_init(|| StaticPoolWithFunc::new(options, f, StdClock::new(), spawner.clone()));
    (pool, spawner)
}

fn spawns(spawner: &TestSpawner) -> usize {
    spawner.attempts.load(SeqCst)
}

#[test]
fn with_no_worker_parked_it_starts_none_and_hands_the_argument_back() {
    static POOL: OnceLock<Static<2>> = OnceLock::new();
    let (pool, spawner) = pool(&POOL, Options::new().capacity(2), |_| ());
    assert!(matches!(
        pool.try_invoke_from_isr(5),
        Err(SubmitError::Overload(5))
    ));
    assert_eq!(spawns(&spawner), 0, "no thread is started for it");
    assert_eq!(pool.stats().rejected, 1);
    assert_eq!(pool.running(), 0);
    pool.release_timeout(PATIENCE).unwrap();
}

static SUM: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_parked_worker_is_woken_with_the_argument() {
    static POOL: OnceLock<Static<2>> = OnceLock::new();
    let (pool, spawner) = pool(&POOL, Options::new().capacity(2).min_idle(2), |n| {
        SUM.fetch_add(n, SeqCst);
    });
    pool.start_min_idle().unwrap();
    assert!(eventually(|| pool.idle() == 2));
    pool.try_invoke_from_isr(7).unwrap();
    assert!(eventually(|| SUM.load(SeqCst) == 7));
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert!(eventually(|| pool.idle() == 2), "it parks again");
    pool.try_invoke_from_isr(8).unwrap();
    assert!(eventually(|| SUM.load(SeqCst) == 15));
    assert_eq!(spawns(&spawner), 2, "only the warm workers were started");
    // A task counts as completed just after its function returns.
    assert!(eventually(|| pool.stats().completed == 2));
    assert_eq!(pool.stats().rejected, 0);
    pool.release_timeout(PATIENCE).unwrap();
}

static HOLD: AtomicBool = AtomicBool::new(false);
static HELD_STARTED: AtomicUsize = AtomicUsize::new(0);
static HELD_RAN: AtomicUsize = AtomicUsize::new(0);

fn held(_: usize) {
    HELD_STARTED.fetch_add(1, SeqCst);
    while HOLD.load(SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
    HELD_RAN.fetch_add(1, SeqCst);
}

#[test]
fn busy_workers_leave_nobody_to_hand_to() {
    static POOL: OnceLock<Static<2>> = OnceLock::new();
    let (pool, spawner) = pool(&POOL, Options::new().capacity(2).min_idle(1), held);
    pool.start_min_idle().unwrap();
    assert!(eventually(|| pool.idle() == 1));
    HOLD.store(true, SeqCst);
    pool.try_invoke_from_isr(1).unwrap();
    assert!(eventually(|| HELD_STARTED.load(SeqCst) == 1));
    // The capacity has room, but only a new thread could take it: refused,
    // and nothing queued.
    assert!(matches!(
        pool.try_invoke_from_isr(2),
        Err(SubmitError::Overload(2))
    ));
    assert_eq!(pool.queued(), 0);
    assert_eq!(spawns(&spawner), 1);
    HOLD.store(false, SeqCst);
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(HELD_RAN.load(SeqCst), 1, "the refused one never ran");
    assert!(eventually(|| pool.idle() == 1));
    pool.try_invoke_from_isr(3).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert!(eventually(|| HELD_RAN.load(SeqCst) == 2));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_paused_or_released_pool_hands_it_back() {
    static POOL: OnceLock<Static<2>> = OnceLock::new();
    let pool = pool(&POOL, Options::new().capacity(2).min_idle(2), |_| ()).0;
    pool.start_min_idle().unwrap();
    assert!(eventually(|| pool.idle() == 2));
    pool.pause();
    assert!(matches!(
        pool.try_invoke_from_isr(1),
        Err(SubmitError::Overload(1))
    ));
    pool.resume();
    pool.try_invoke_from_isr(2).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    pool.release_timeout(PATIENCE).unwrap();
    assert!(matches!(
        pool.try_invoke_from_isr(3),
        Err(SubmitError::Closed(3))
    ));
    let stats = pool.stats();
    assert_eq!((stats.completed, stats.rejected), (1, 2));
}

const RACED: usize = if cfg!(miri) { 60 } else { 3_000 };
static RAN: [AtomicU8; 2 * RACED] = [const { AtomicU8::new(0) }; 2 * RACED];

/// Many "interrupts" (a thread calling it in a loop) race a thread that
/// invokes on the same pool: every accepted argument runs once, every refused
/// one never, and the invoking thread's all run once.
#[test]
fn racing_invokes_every_accepted_argument_runs_once_and_no_refused_one_runs() {
    static POOL: OnceLock<Static<4>> = OnceLock::new();
    let options = Options::new()
        .capacity(4)
        .min_idle(4)
        .expiry(Duration::from_secs(600));
    let (pool, spawner) = pool(&POOL, options, |n| {
        RAN[n].fetch_add(1, SeqCst);
    });
    pool.start_min_idle().unwrap();
    assert!(eventually(|| pool.idle() == 4));
    let accepted: Vec<bool> = std::thread::scope(|s| {
        let isr = s.spawn(|| {
            (0..RACED)
                .map(|n| {
                    let ok = match pool.try_invoke_from_isr(n) {
                        Ok(()) => true,
                        Err(SubmitError::Overload(back)) => {
                            assert_eq!(back, n);
                            false
                        }
                        Err(e) => panic!("{e:?}"),
                    };
                    std::thread::yield_now();
                    ok
                })
                .collect()
        });
        for n in RACED..2 * RACED {
            pool.invoke(n).unwrap();
        }
        isr.join().unwrap()
    });
    assert!(pool.wait_idle_timeout(PATIENCE));
    for (n, ok) in accepted.iter().enumerate() {
        assert_eq!(RAN[n].load(SeqCst), u8::from(*ok), "argument {n}");
    }
    assert!((RACED..2 * RACED).all(|n| RAN[n].load(SeqCst) == 1));
    let taken = accepted.iter().filter(|ok| **ok).count();
    assert!(taken > 0, "some reached a parked worker");
    assert_eq!(spawns(&spawner), 4, "the warm workers took it all");
    assert_eq!(pool.stats().completed, RACED + taken);
    pool.release_timeout(PATIENCE).unwrap();
}
