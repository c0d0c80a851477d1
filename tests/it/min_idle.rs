//! Warm workers (`min_idle`): started at build, and never expired below the
//! floor; `tune` and release are not held back by it.

use crate::common;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use antpool::port::{ManualClock, StdClock, StdSpawner};
use antpool::{BuildError, MAX_CAPACITY, Options, Pool, PoolWithFunc, StaticPoolWithFunc};
use common::{Counter, ManualPool, PATIENCE, TestSpawner, eventually, occupy, on_manual_clock};

/// A pool of `cap` with `min_idle` warm workers on a manual clock, reaped
/// only by `purge` (so the counts it returns are exact).
fn warm_pool(cap: usize, min_idle: usize) -> (ManualPool, Arc<ManualClock>, TestSpawner) {
    on_manual_clock(
        Pool::builder()
            .capacity(cap)
            .min_idle(min_idle)
            .expiry(Duration::from_secs(10))
            .disable_purge(true),
    )
}

#[test]
fn build_starts_the_warm_workers_before_the_first_task() {
    let (pool, _clock, spawner) = warm_pool(4, 2);
    assert_eq!(pool.running(), 2, "started by build");
    assert_eq!(pool.stats().spawned, 2);
    assert!(eventually(|| pool.idle() == 2), "they park, waiting");
    // The first tasks find them: no new thread.
    let ran = Counter::new();
    for _ in 0..2 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap();
    }
    assert!(ran.reaches(2));
    assert_eq!(
        spawner.attempts.load(std::sync::atomic::Ordering::SeqCst),
        2
    );
    pool.release_timeout(PATIENCE).unwrap();
    // The spawner counts a thread ended just after the pool does.
    assert!(eventually(|| spawner.live() == 0));

    let func = PoolWithFunc::builder(|n: u32| assert!(n < 10))
        .capacity(3)
        .min_idle(3)
        .build()
        .unwrap();
    assert_eq!(func.running(), 3);
    func.invoke(1).unwrap();
    assert!(func.wait_idle_timeout(PATIENCE));
    assert_eq!(func.stats().spawned, 3);
    func.release_timeout(PATIENCE).unwrap();
}

#[test]
fn expiry_never_leaves_fewer_than_min_idle_idle() {
    let (pool, clock, spawner) = warm_pool(4, 2);
    occupy(&pool, 4).open();
    assert!(eventually(|| pool.idle() == 4));
    clock.advance(Duration::from_secs(10));
    assert_eq!(pool.purge(), 2, "the two oldest go; the floor keeps two");
    assert_eq!((pool.running(), pool.idle()), (2, 2));
    clock.advance(Duration::from_secs(60));
    assert_eq!(pool.purge(), 0, "at the floor: nobody goes");
    assert_eq!(pool.idle(), 2);
    assert!(eventually(|| spawner.live() == 2));
    assert_eq!(pool.stats().retired, 2);
    // The floor counts idle workers: busy ones above it still expire.
    let gate = occupy(&pool, 3);
    gate.open();
    // Three ran at once; a fourth may have started as a looker while woken
    // workers were slow to take their tasks (CI's loaded Miri run did).
    assert!(eventually(
        || pool.running() >= 3 && pool.idle() == pool.running()
    ));
    let above_floor = pool.running() - 2;
    clock.advance(Duration::from_secs(10));
    assert_eq!(pool.purge(), above_floor);
    pool.release_timeout(PATIENCE).unwrap();
    assert!(
        eventually(|| spawner.live() == 0),
        "release is not held back by the floor"
    );
}

#[test]
fn workers_expiring_on_their_own_timers_stop_at_the_floor() {
    let spawner = TestSpawner::new();
    let pool = Pool::builder()
        .capacity(4)
        .min_idle(1)
        .expiry(Duration::from_millis(20))
        .spawner(spawner.clone())
        .build()
        .unwrap();
    occupy(&pool, 4).open();
    // Every worker above the floor expires. (On a loaded machine — CI's Miri
    // step — a submit may start one more than the four held tasks need, as a
    // looker, while the others are slow to take theirs: count what started.)
    assert!(eventually(|| pool.running() == 1));
    let spawned = pool.stats().spawned;
    assert!(eventually(|| pool.stats().retired == spawned - 1));
    // Several expiries later the warm worker is still there, parked.
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!((pool.running(), pool.stats().retired), (1, spawned - 1));
    assert!(eventually(|| pool.idle() == 1));
    assert!(eventually(|| spawner.live() == 1));
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit(move || r.add()).unwrap();
    assert!(ran.reaches(1));
    assert_eq!(pool.stats().spawned, spawned, "the warm worker took it");
    pool.release_timeout(PATIENCE).unwrap();
    // The spawner counts a thread ended just after the pool does.
    assert!(eventually(|| spawner.live() == 0));
}

#[test]
fn tune_below_the_floor_wins() {
    let (pool, _clock, spawner) = warm_pool(4, 3);
    assert!(eventually(|| pool.idle() == 3));
    pool.tune(2);
    assert!(eventually(|| pool.running() == 2 && spawner.live() == 2));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_floor_above_the_capacity_is_a_build_error() {
    assert_eq!(
        Pool::builder().capacity(2).min_idle(3).build().unwrap_err(),
        BuildError::InvalidMinIdle
    );
    assert_eq!(
        Pool::builder()
            .unbounded()
            .min_idle(MAX_CAPACITY + 1)
            .build()
            .unwrap_err(),
        BuildError::InvalidMinIdle
    );
    assert_eq!(Options::new().capacity(2).min_idle(2).validate(), Ok(()));
    let static_pool = StaticPoolWithFunc::<u8, 2, _, _>::try_new(
        Options::new().capacity(2).min_idle(3),
        |_| (),
        StdClock::new(),
        StdSpawner::new(),
    );
    assert_eq!(static_pool.err(), Some(BuildError::InvalidMinIdle));
}

#[test]
fn a_spawner_that_cannot_start_them_fails_the_build_and_leaves_no_thread() {
    // The first warm worker starts, the second cannot.
    let spawner = TestSpawner::failing(|n| n == 1);
    let err = Pool::builder()
        .capacity(4)
        .min_idle(3)
        .spawner(spawner.clone())
        .build()
        .unwrap_err();
    assert_eq!(err, BuildError::SpawnFailed);
    assert!(
        eventually(|| spawner.live() == 0),
        "the started worker was released"
    );
    assert_eq!(spawner.started.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_static_pool_starts_its_floor_when_asked_and_keeps_it() {
    static CLOCK: ManualClock = ManualClock::new();
    // In a static, as such a pool lives (and so Miri sees it is not leaked).
    static POOL: OnceLock<StaticPoolWithFunc<u32, 4, &ManualClock, TestSpawner>> = OnceLock::new();
    let spawner = TestSpawner::new();
    let pool = POOL.get_or_init(|| {
        StaticPoolWithFunc::new(
            Options::new()
                .capacity(4)
                .min_idle(2)
                .expiry(Duration::from_secs(10))
                .disable_purge(true),
            |n| assert!(n < 100),
            &CLOCK,
            spawner.clone(),
        )
    });
    assert_eq!(pool.running(), 0, "a const initialiser starts nothing");
    pool.start_min_idle().unwrap();
    assert_eq!(pool.running(), 2);
    pool.start_min_idle().unwrap();
    assert_eq!(pool.stats().spawned, 2, "asked again: nothing missing");
    assert!(eventually(|| pool.idle() == 2));
    CLOCK.advance(Duration::from_secs(10));
    assert_eq!(pool.purge(), 0);
    pool.release_timeout(PATIENCE).unwrap();
    // The spawner counts a thread ended just after the pool does.
    assert!(eventually(|| spawner.live() == 0));
    // A released pool keeps no workers: asked again, it starts none, and
    // leaves no thread behind; rebooted, it warms up again.
    pool.start_min_idle().unwrap();
    assert_eq!(pool.running(), 0);
    assert_eq!(pool.stats().spawned, 2, "released: nothing started");
    assert_eq!(spawner.live(), 0);
    pool.reboot();
    pool.start_min_idle().unwrap();
    assert_eq!(pool.running(), 2);
    pool.release_timeout(PATIENCE).unwrap();
    assert!(eventually(|| spawner.live() == 0));
}
