//! `release_async`, `wait_released_async` and `wait_released_timeout` on the
//! other pool types: the multi-pools (every pool closed at once, the future
//! pending until the last pool's workers are gone, each pool's failure by
//! index), the static pool (no heap: the same futures), and the default
//! pool. `release_async.rs` has the contract itself, on `Pool`. Runs under
//! Miri in CI (but the default pool's and the tokio test).

use crate::common;

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::{Arc, LazyLock};
use std::task::{Poll, Waker};
use std::time::Duration;

use antpool::port::{StdClock, StdSpawner};
use antpool::{
    LoadBalancing, MultiPool, MultiPoolWithFunc, Options, ReleaseError, StaticPoolWithFunc,
};
use common::{Counter, Gate, PATIENCE, eventually};
use futures_executor::block_on;

/// Polls `fut` once; nothing is woken.
fn poll_once<F: Future + ?Sized>(fut: Pin<&mut F>) -> Poll<F::Output> {
    common::poll_once(fut, Waker::noop())
}

/// A multi-pool of two pools of one worker whose first pool's worker is
/// held until the gate opens; the second pool ran a task and is idle.
fn multi_with_one_pool_held() -> (MultiPool, Gate) {
    let mp = MultiPool::new(2, 1, LoadBalancing::RoundRobin).unwrap();
    let gate = Gate::new();
    let started = Counter::new();
    let (g, s) = (gate.clone(), started.clone());
    mp.submit(move || {
        s.add();
        g.wait();
    })
    .unwrap(); // pool 0
    mp.submit(|| ()).unwrap(); // pool 1
    assert!(started.reaches(1));
    (mp, gate)
}

#[test]
fn a_multi_pool_release_is_pending_until_its_last_pool_drained() {
    let (mp, gate) = multi_with_one_pool_held();
    let mut release = Box::pin(mp.release_async());
    assert!(mp.is_closed(), "every pool closed at the call");
    for _ in 0..4 {
        assert!(
            mp.submit(|| unreachable!("after the release"))
                .unwrap_err()
                .is_closed()
        );
    }
    assert!(
        eventually(|| mp.running_by_index(1) == Some(0)),
        "pool 1 drains"
    );
    assert!(
        poll_once(release.as_mut()).is_pending(),
        "pool 0's task still runs"
    );
    assert!(!mp.wait_released_timeout(Duration::ZERO));
    gate.open();
    assert_eq!(block_on(release), Ok(()));
    assert_eq!(mp.running(), 0);
    assert_eq!(block_on(mp.release_async()), Err(ReleaseError::Closed));
    assert_eq!(
        mp.release_timeout(Duration::ZERO),
        Err(ReleaseError::Closed)
    );
    assert_eq!(block_on(mp.wait_released_async()), Ok(()));
    assert!(mp.wait_released_timeout(Duration::ZERO));
}

#[test]
fn a_multi_pool_reboot_reports_each_pool_still_draining_by_index() {
    let (mp, gate) = multi_with_one_pool_held();
    let mut release = pin!(mp.release_async());
    // Pool 1's worker has exited (only it can retire): its wait ends Ok.
    assert!(eventually(|| mp.stats().retired == 1));
    assert!(poll_once(release.as_mut()).is_pending());
    mp.reboot();
    let ended = poll_once(release.as_mut());
    assert_eq!(
        ended,
        Poll::Ready(Err(ReleaseError::Pools(vec![(0, ReleaseError::Reopened)])))
    );
    assert!(!mp.is_closed());
    gate.open();
    assert_eq!(mp.release_timeout(PATIENCE), Ok(()));
}

#[test]
fn a_multi_pool_abandoned_wait_is_resumed_and_a_wait_on_it_open_needs_a_release() {
    let (mp, gate) = multi_with_one_pool_held();
    let mut early = pin!(mp.wait_released_async());
    assert!(
        poll_once(early.as_mut()).is_pending(),
        "open: waits for a release"
    );
    {
        let mut release = pin!(mp.release_async());
        assert!(poll_once(release.as_mut()).is_pending());
    } // abandoned
    assert!(mp.is_closed());
    gate.open();
    assert_eq!(block_on(early), Ok(()));
    assert_eq!(block_on(mp.wait_released_async()), Ok(()));
}

#[test]
fn a_multi_pool_with_func_releases_the_same_way() {
    let gate = Gate::new();
    let g = gate.clone();
    let mf = MultiPoolWithFunc::new(2, 1, LoadBalancing::RoundRobin, move |wait: bool| {
        if wait {
            g.wait();
        }
    })
    .unwrap();
    mf.invoke(true).unwrap();
    mf.invoke(false).unwrap();
    let mut release = pin!(mf.release_async());
    assert!(mf.invoke(false).unwrap_err().is_closed());
    assert!(poll_once(release.as_mut()).is_pending());
    gate.open();
    assert_eq!(block_on(release), Ok(()));
    assert_eq!(mf.running(), 0);
}

type Held = StaticPoolWithFunc<Gate, 2, StdClock, StdSpawner>;

#[test]
fn a_static_pool_releases_without_a_heap_of_its_own() {
    // A `fn(Gate)`: each task waits on the gate it is given.
    static POOL: LazyLock<Held> = LazyLock::new(|| {
        StaticPoolWithFunc::new(
            Options::new().capacity(2),
            |g: Gate| g.wait(),
            StdClock::new(),
            StdSpawner::new(),
        )
    });
    let gate = Gate::new();
    POOL.invoke(gate.clone()).unwrap();
    let mut release = pin!(POOL.release_async());
    assert!(POOL.invoke(Gate::new()).unwrap_err().is_closed());
    assert!(poll_once(release.as_mut()).is_pending());
    POOL.reboot();
    assert_eq!(
        poll_once(release.as_mut()),
        Poll::Ready(Err(ReleaseError::Reopened))
    );
    gate.open();
    assert_eq!(block_on(POOL.release_async()), Ok(()));
    assert_eq!(POOL.running(), 0);
    assert!(POOL.wait_released_timeout(Duration::ZERO));
    assert_eq!(block_on(POOL.wait_released_async()), Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime is slow under Miri; futures' block_on covers it"
)]
async fn under_tokio_a_multi_pool_release_times_out_in_select_then_resumes() {
    let (mp, gate) = multi_with_one_pool_held();
    let mp = Arc::new(mp);
    tokio::select! {
        r = mp.release_async() => panic!("pool 0 is held: {r:?}"),
        () = tokio::time::sleep(Duration::from_millis(10)) => {}
    }
    assert!(mp.is_closed());
    let m = mp.clone();
    let resumed = tokio::spawn(async move { m.wait_released_async().await });
    gate.open();
    assert_eq!(resumed.await.unwrap(), Ok(()));
    assert_eq!(mp.running(), 0);
}
