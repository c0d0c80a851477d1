//! Abandonable release: `release_async` closes the pool when it is called
//! (not when polled) and its future only waits for the workers to exit;
//! dropping it abandons the wait and nothing else; `wait_released_async` and
//! `wait_released_timeout` wait again (or, on an open pool, for a release);
//! a `reboot` during any of these waits ends it `Reopened` (`release_timeout`
//! too, at once). On hand-polled futures, futures' `block_on` and tokio.
//! Runs under Miri in CI (but the tokio tests). The multi-pools, the static
//! pool and the default pool are in `release_faces.rs`.

use crate::common;

use std::pin::pin;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, mpsc};
use std::task::Poll;
use std::thread;
use std::time::{Duration, Instant};

use antpool::{Pool, PoolWithFunc, Release, ReleaseError};
use common::{Counter, Gate, PATIENCE, TestSpawner, counting_waker, eventually, occupy, poll_once};
use futures_executor::block_on;

/// A pool of `capacity` with a queue of `queue` (0: a hand-off pool) whose
/// workers count their stop hooks, on a counting spawner.
fn hooked_pool(
    capacity: usize,
    queue: usize,
) -> (
    Pool<antpool::IdleQueue, antpool::port::StdClock, TestSpawner>,
    Counter,
) {
    let stops = Counter::new();
    let s = stops.clone();
    let builder = Pool::builder()
        .capacity(capacity)
        .spawner(TestSpawner::new())
        .on_worker_stop(move || {
            // A stop hook that takes a moment: the release waits for it.
            thread::sleep(Duration::from_millis(1));
            s.add();
        });
    let builder = match queue {
        0 => builder,
        n => builder.max_queued_tasks(n),
    };
    (builder.build().unwrap(), stops)
}

#[test]
fn dropped_unpolled_it_leaves_the_pool_closed_and_its_tasks_running() {
    for (name, builder) in common::bounded_modes(1, 8) {
        let pool = builder.build().unwrap();
        let gate = occupy(&pool, 1);
        let queued = if name == "hand-off" { 0 } else { 3 };
        let ran = common::submit_counted(&pool, queued);
        drop(pool.release_async());
        assert!(pool.is_closed(), "{name}: closed by the call, unpolled");
        let back = pool.submit(|| unreachable!("submitted after the release"));
        assert!(back.unwrap_err().is_closed(), "{name}");
        gate.open();
        assert!(pool.wait_idle_timeout(PATIENCE), "{name}");
        assert_eq!(ran.get(), queued, "{name}: the queued tasks ran");
        assert!(pool.wait_released_timeout(PATIENCE), "{name}");
        assert_eq!(pool.running(), 0, "{name}");
    }
}

#[test]
fn awaited_it_resolves_once_every_task_ran_and_every_stop_hook_returned() {
    let (pool, stops) = hooked_pool(3, 5);
    let gate = Gate::new();
    let ran = Counter::new();
    for _ in 0..3 {
        let (gate, ran) = (gate.clone(), ran.clone());
        pool.submit(move || {
            gate.wait();
            ran.add();
        })
        .unwrap();
    }
    assert!(eventually(|| pool.running() == 3));
    for _ in 0..5 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap();
    }
    let mut release = Box::pin(pool.release_async());
    let (waker, _) = counting_waker();
    assert!(poll_once(release.as_mut(), &waker).is_pending());
    let opener = {
        let gate = gate.clone();
        thread::spawn(move || gate.open())
    };
    assert_eq!(block_on(release), Ok(()));
    opener.join().unwrap();
    assert_eq!(ran.get(), 8, "every task ran before Ok");
    assert_eq!(
        stops.get(),
        pool.stats().spawned,
        "every stop hook returned before Ok"
    );
    assert_eq!(pool.running(), 0);
}

#[test]
fn abandoned_the_pool_stays_closed_drains_and_wait_released_resumes() {
    let pool = common::queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let ran = common::submit_counted(&pool, 2);
    let (waker, woken) = counting_waker();
    {
        // Awaited a moment, then given up (a `select!` whose timer won).
        let mut release = pin!(pool.release_async());
        assert!(poll_once(release.as_mut(), &waker).is_pending());
    }
    assert!(pool.is_closed(), "abandoning the wait does not reopen");
    assert!(pool.submit(|| ()).unwrap_err().is_closed());
    assert_eq!(
        pool.release_drain().len(),
        2,
        "the unstarted tasks come back"
    );
    gate.open();
    assert_eq!(block_on(pool.wait_released_async()), Ok(()));
    assert_eq!(pool.running(), 0);
    assert_eq!(ran.get(), 0, "drained tasks never ran");
    assert_eq!(woken.0.load(SeqCst), 0, "the dropped future is never woken");
}

#[test]
fn a_second_release_is_closed_at_the_first_poll_without_waiting() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let first = pool.release_async();
    let (waker, woken) = counting_waker();
    let mut second = pin!(pool.release_async());
    assert_eq!(
        poll_once(second.as_mut(), &waker),
        Poll::Ready(Err(ReleaseError::Closed))
    );
    let mut third = pin!(pool.release_async());
    assert_eq!(
        poll_once(third.as_mut(), &waker),
        Poll::Ready(Err(ReleaseError::Closed))
    );
    assert_eq!(
        pool.release_timeout(Duration::ZERO),
        Err(ReleaseError::Closed)
    );
    assert_eq!(woken.0.load(SeqCst), 0);
    gate.open();
    assert_eq!(block_on(first), Ok(()), "the first one waits and ends Ok");
}

#[test]
fn blocked_submitters_get_their_task_back_before_release_async_returns() {
    for queue in [0, 1] {
        let pool = Arc::new(match queue {
            0 => Pool::new(1).unwrap(),
            n => Pool::builder()
                .capacity(1)
                .max_queued_tasks(n)
                .build()
                .unwrap(),
        });
        let gate = occupy(&pool, 1);
        if queue == 1 {
            pool.submit(|| ()).unwrap(); // the queue is full
        }
        let p = pool.clone();
        let blocked = thread::spawn(move || p.submit(|| unreachable!("turned away")));
        assert!(eventually(|| pool.waiting() == 1));
        let (waker, _) = counting_waker();
        let mut submit = Box::pin(pool.submit_async(|| unreachable!("turned away")));
        let deadline = Instant::now() + PATIENCE;
        while pool.waiting() < 2 {
            assert!(poll_once(submit.as_mut(), &waker).is_pending());
            assert!(
                Instant::now() < deadline,
                "the async submit never joined the line"
            );
            thread::yield_now();
        }
        let release = pool.release_async();
        // Not polled yet: both are turned away already.
        let back = blocked.join().unwrap().unwrap_err();
        assert!(back.is_closed(), "queue {queue}: {back:?}");
        match poll_once(submit.as_mut(), &waker) {
            Poll::Ready(Err(e)) => assert!(e.is_closed(), "queue {queue}: {e:?}"),
            other => panic!("queue {queue}: {other:?}"),
        }
        assert_eq!(pool.waiting(), 0);
        gate.open();
        assert_eq!(block_on(release), Ok(()));
    }
}

#[test]
fn a_reboot_during_the_wait_ends_it_reopened() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let (waker, woken) = counting_waker();
    let mut release = pin!(pool.release_async());
    assert!(poll_once(release.as_mut(), &waker).is_pending());
    pool.reboot();
    assert_eq!(
        woken.0.load(SeqCst),
        1,
        "the reboot wakes the waiting release"
    );
    assert_eq!(
        poll_once(release.as_mut(), &waker),
        Poll::Ready(Err(ReleaseError::Reopened))
    );
    assert!(!pool.is_closed());
    // Reopened: the pool serves (its busy worker included, once free).
    gate.open();
    let (tx, rx) = mpsc::channel();
    pool.submit(move || tx.send(7).unwrap()).unwrap();
    assert_eq!(rx.recv_timeout(PATIENCE), Ok(7));
    assert_eq!(block_on(pool.release_async()), Ok(()));
}

#[test]
fn a_release_polled_first_after_a_reboot_is_reopened_unless_it_had_ended() {
    // Still draining when the pool was reopened: Reopened at the first poll.
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let release = pool.release_async();
    pool.reboot();
    assert_eq!(block_on(release), Err(ReleaseError::Reopened));
    gate.open();
    assert_eq!(block_on(pool.release_async()), Ok(()));
    // Drained before the reboot: that release ended, Ok.
    let pool = Pool::new(1).unwrap();
    pool.submit(|| ()).unwrap();
    let release = pool.release_async();
    assert!(pool.wait_released_timeout(PATIENCE));
    pool.reboot();
    assert_eq!(block_on(release), Ok(()));
}

#[test]
fn release_timeout_and_wait_released_timeout_end_at_a_reboot() {
    // Before, a `release_timeout` racing a `reboot` sat out its timeout
    // (`Err(Timeout)`, after `PATIENCE`).
    let pool = Arc::new(Pool::new(1).unwrap());
    let gate = occupy(&pool, 1);
    let p = pool.clone();
    let releaser = thread::spawn(move || p.release_timeout(PATIENCE));
    assert!(eventually(|| pool.is_closed()));
    pool.reboot(); // linked or not yet: its release was reopened
    assert_eq!(releaser.join().unwrap(), Err(ReleaseError::Reopened));
    // On the open pool a waiter waits for a release; a reboot ends that too
    // (the busy worker keeps every release from draining).
    let p = pool.clone();
    let waiter = thread::spawn(move || p.wait_released_timeout(PATIENCE));
    while !waiter.is_finished() {
        pool.release();
        pool.reboot();
        thread::sleep(Duration::from_millis(1));
    }
    assert!(!waiter.join().unwrap(), "reopened: not released");
    gate.open();
    assert_eq!(pool.release_timeout(PATIENCE), Ok(()));
}

#[test]
fn on_an_open_pool_the_wait_is_for_a_release_not_for_idle_workers_to_expire() {
    let (pool, clock, spawner) = common::on_manual_clock(Pool::builder().capacity(2));
    pool.submit(|| ()).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert!(!pool.wait_released_timeout(Duration::ZERO), "open");
    let (waker, woken) = counting_waker();
    let mut wait = Box::pin(pool.wait_released_async());
    assert!(poll_once(wait.as_mut(), &waker).is_pending());
    // The only worker expires and exits: the pool is open, so that is no
    // release's end.
    clock.advance(Duration::from_secs(5));
    assert_eq!(pool.purge(), 1);
    assert!(eventually(|| spawner.live() == 0));
    pool.reboot(); // on an open pool: nothing to end either
    assert!(poll_once(wait.as_mut(), &waker).is_pending());
    assert_eq!(woken.0.load(SeqCst), 0);
    // Released with no thread left: the release itself ends the wait.
    pool.release();
    assert_eq!(woken.0.load(SeqCst), 1);
    assert_eq!(poll_once(wait.as_mut(), &waker), Poll::Ready(Ok(())));
    assert!(
        pool.wait_released_timeout(Duration::ZERO),
        "released and drained"
    );
    // A new wait on the released, drained pool ends at once.
    let mut wait = pin!(pool.wait_released_async());
    assert_eq!(poll_once(wait.as_mut(), &waker), Poll::Ready(Ok(())));
}

#[test]
fn wait_released_async_on_an_open_pool_ends_at_the_release_and_drain() {
    let pool = Arc::new(Pool::new(2).unwrap());
    let gate = occupy(&pool, 2);
    let (waker, woken) = counting_waker();
    let mut wait = Box::pin(pool.wait_released_async());
    assert!(poll_once(wait.as_mut(), &waker).is_pending());
    let p = pool.clone();
    let releaser = thread::spawn(move || p.release());
    releaser.join().unwrap();
    assert!(
        poll_once(wait.as_mut(), &waker).is_pending(),
        "still draining"
    );
    gate.open();
    assert_eq!(block_on(wait), Ok(()));
    assert!(woken.0.load(SeqCst) <= 1);
    assert_eq!(pool.running(), 0);
}

#[test]
fn a_future_dropped_while_waiting_leaves_nothing_for_the_last_worker() {
    // Two releasers wait; one is dropped while linked. The last worker's end
    // finishes the other (and touches nothing of the dropped one: Miri).
    let pool = Arc::new(Pool::new(2).unwrap());
    let gate = occupy(&pool, 2);
    let (waker, woken) = counting_waker();
    let mut dropped = Box::pin(pool.release_async());
    assert!(poll_once(dropped.as_mut(), &waker).is_pending());
    let mut kept = Box::pin(pool.wait_released_async());
    assert!(poll_once(kept.as_mut(), &waker).is_pending());
    let p = pool.clone();
    let blocked = thread::spawn(move || p.wait_released_timeout(PATIENCE));
    drop(dropped);
    gate.open();
    assert_eq!(block_on(kept), Ok(()));
    assert!(blocked.join().unwrap());
    assert!(woken.0.load(SeqCst) <= 1, "the dropped one was never woken");
    assert_eq!(pool.running(), 0);
}

#[test]
fn a_pool_with_func_releases_the_same_way() {
    let gate = Gate::new();
    let started = Counter::new();
    let (g, s) = (gate.clone(), started.clone());
    let pool = PoolWithFunc::new(2, move |wait: bool| {
        s.add();
        if wait {
            g.wait();
        }
    })
    .unwrap();
    pool.invoke(true).unwrap();
    pool.invoke(false).unwrap();
    assert!(started.reaches(2));
    let (waker, _) = counting_waker();
    let mut release = pin!(pool.release_async());
    assert!(pool.invoke(false).unwrap_err().is_closed());
    assert!(poll_once(release.as_mut(), &waker).is_pending());
    gate.open();
    assert_eq!(block_on(release), Ok(()));
    assert_eq!(block_on(pool.release_async()), Err(ReleaseError::Closed));
    assert_eq!(block_on(pool.wait_released_async()), Ok(()));
}

#[test]
fn the_futures_are_send_borrow_the_pool_and_are_not_unpin() {
    fn send<T: Send>(_: &T) {}
    // Compiles only if `T` is not `Unpin` (the impls are ambiguous otherwise).
    trait AmbiguousIfUnpin<A> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfUnpin<()> for T {}
    impl<T: ?Sized + Unpin> AmbiguousIfUnpin<u8> for T {}
    <Release<'_> as AmbiguousIfUnpin<_>>::check();

    let pool = Pool::new(1).unwrap();
    let release: Release<'_> = pool.release_async();
    send(&release);
    let wait: Release<'_> = pool.wait_released_async();
    send(&wait);
    assert_eq!(format!("{release:?}"), "Release { .. }");
    assert_eq!(
        block_on(async { (release.await, wait.await) }),
        (Ok(()), Ok(()))
    );
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime is slow under Miri; futures' block_on covers it"
)]
fn under_tokio_select_a_timer_abandons_the_wait_and_wait_released_resumes_it() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let pool = common::queue_pool(1, 4);
    let gate = occupy(&pool, 1);
    let ran = common::submit_counted(&pool, 3);
    rt.block_on(async {
        tokio::select! {
            r = pool.release_async() => panic!("the gate is shut: {r:?}"),
            () = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
    });
    assert!(pool.is_closed());
    assert!(pool.submit(|| ()).unwrap_err().is_closed());
    let drained = pool.release_drain();
    assert_eq!(drained.len(), 3);
    let opener = {
        let gate = gate.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(10));
            gate.open();
        })
    };
    assert_eq!(rt.block_on(pool.wait_released_async()), Ok(()));
    opener.join().unwrap();
    assert_eq!(pool.running(), 0);
    drained.into_iter().for_each(antpool::Task::run);
    assert_eq!(ran.get(), 3, "the drained tasks are the caller's to run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime is slow under Miri; futures' block_on covers it"
)]
async fn under_tokio_a_spawned_release_waits_for_every_task_and_stop_hook() {
    let (pool, stops) = hooked_pool(2, 8);
    let pool = Arc::new(pool);
    let gate = Gate::new();
    let ran = Counter::new();
    for _ in 0..6 {
        let (gate, ran) = (gate.clone(), ran.clone());
        pool.submit(move || {
            gate.wait();
            ran.add();
        })
        .unwrap();
    }
    // The future borrows the pool: a spawned task owns what it borrows from.
    let p = pool.clone();
    let release = tokio::spawn(async move { p.release_async().await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(!release.is_finished());
    gate.open();
    assert_eq!(release.await.unwrap(), Ok(()));
    assert_eq!(ran.get(), 6);
    assert_eq!(stops.get(), pool.stats().spawned);
}

#[tokio::test]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime is slow under Miri; futures' block_on covers it"
)]
async fn under_tokio_a_reboot_ends_the_wait_reopened() {
    let pool = Arc::new(Pool::new(1).unwrap());
    let gate = occupy(&pool, 1);
    let p = pool.clone();
    let release = tokio::spawn(async move { p.release_async().await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    pool.reboot();
    let ended = tokio::time::timeout(PATIENCE, release).await;
    assert_eq!(ended.unwrap().unwrap(), Err(ReleaseError::Reopened));
    gate.open();
    assert_eq!(pool.release_async().await, Ok(()));
}

/// A waker whose `wake` counts itself, then blocks until its gate opens.
struct HeldWake {
    entered: Counter,
    gate: Gate,
}

impl std::task::Wake for HeldWake {
    fn wake(self: Arc<Self>) {
        self.entered.add();
        self.gate.wait();
    }
}

/// A releaser future dropped while the pool is ending its wait (taken out of
/// the waiting list, not yet told) does not finish dropping until the pool
/// is done with it: the pool never writes to a future that is gone.
#[test]
fn a_future_dropped_while_its_end_is_on_its_way_waits_for_it() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let held = Arc::new(HeldWake {
        entered: Counter::new(),
        gate: Gate::new(),
    });
    let mut first = Box::pin(pool.release_async());
    let first_waker = std::task::Waker::from(held.clone());
    assert!(poll_once(first.as_mut(), &first_waker).is_pending());
    let (waker, _) = counting_waker();
    let mut second = Box::pin(pool.wait_released_async());
    assert!(poll_once(second.as_mut(), &waker).is_pending());
    gate.open();
    // The last worker's end takes both releasers and tells them in turn: it
    // is held in the first one's wake-up, the second's still to come.
    assert!(held.entered.reaches(1));
    thread::scope(|s| {
        let dropper = s.spawn(move || drop(second));
        // A moment for a drop that does not wait to return.
        thread::sleep(Duration::from_millis(50));
        assert!(
            !dropper.is_finished(),
            "the drop waits for the pool to be done with the future"
        );
        held.gate.open();
        dropper.join().unwrap();
    });
    assert_eq!(block_on(first), Ok(()));
    assert_eq!(pool.running(), 0);
}
