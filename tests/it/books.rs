//! The books (`Stats`, "The books"): every submission ends in exactly one
//! place — a worker reached it (`completed`, `panicked`, `skipped`), the pool
//! never took it (`rejected`, `withdrawn`), `clear_queue` dropped it — or is
//! still in flight.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::thread;
use std::time::Duration;

use antpool::{Pool, Stats};
use common::poll::{counting_waker, join_line, poll_once};
use common::{bounded_modes, eventually, held_pool};

/// What the books say left the pool: every place but "in flight".
fn settled(s: &Stats, cleared: usize) -> usize {
    s.completed + s.panicked + s.skipped + s.rejected + s.withdrawn + cleared
}

#[test]
fn an_async_submit_dropped_before_the_pool_took_it_is_withdrawn() {
    let builder = Pool::builder();
    #[cfg(feature = "timings")]
    let builder = builder.timings(antpool::Sampling::Every);
    let (pool, gate) = held_pool(builder);
    let (waker, _) = counting_waker();

    // Never polled: the task never reached the pool.
    drop(pool.submit_async(|| ()));
    assert_eq!(pool.stats().withdrawn, 1);

    // In the line, then dropped: unlinked, its task dropped unrun.
    let mut waiting = Box::pin(pool.submit_async(|| panic!("a withdrawn task must not run")));
    join_line(&mut waiting, &waker, &pool);
    drop(waiting);
    assert_eq!(pool.waiting(), 0);
    assert_eq!(pool.stats().withdrawn, 2);

    // The same for a spawn.
    let mut spawn = Box::pin(pool.spawn_async(|| -> u32 { panic!("must not run") }));
    join_line(&mut spawn, &waker, &pool);
    drop(spawn);
    assert_eq!(pool.stats().withdrawn, 3);

    // One that got in is not withdrawn, even if dropped after: its task runs.
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let mut served = Box::pin(pool.submit_async(move || {
        r.fetch_add(1, Relaxed);
    }));
    join_line(&mut served, &waker, &pool);
    gate.open();
    assert!(eventually(|| pool.waiting() == 0));
    drop(served);
    pool.wait_idle();
    assert_eq!(ran.load(Relaxed), 1);

    let stats = pool.stats();
    assert_eq!((stats.withdrawn, stats.rejected, stats.skipped), (3, 0, 0));
    // The held task, and the one served.
    assert_eq!(stats.completed, 2);
    #[cfg(feature = "timings")]
    {
        let t = pool.timings();
        // The two that waited in the line and gave up; the one that got in.
        assert_eq!(t.withdrawn_wait.count, 2);
        assert_eq!(t.submit_wait.count, 1);
    }
}

#[test]
fn a_dropped_poll_that_was_never_answered_is_not_a_rejection() {
    // Closed while waiting, dropped before it saw the answer: withdrawn
    // (nobody was handed the task back), not rejected.
    let (pool, gate) = held_pool(Pool::builder());
    let (waker, _) = counting_waker();
    let mut waiting = Box::pin(pool.submit_async(|| panic!("must not run")));
    join_line(&mut waiting, &waker, &pool);
    let p = pool.clone();
    let releaser = thread::spawn(move || p.release_timeout(Duration::from_secs(10)));
    assert!(eventually(|| pool.waiting() == 0));
    drop(waiting);
    gate.open();
    releaser.join().unwrap().unwrap();
    let stats = pool.stats();
    assert_eq!((stats.withdrawn, stats.rejected), (1, 0));
    assert_eq!(settled(&stats, 0), 2);

    // Polled to the end instead, the same closed pool hands it back: rejected.
    assert!(poll_once(&mut Box::pin(pool.submit_async(|| ())), &waker).is_ready());
    assert_eq!(pool.stats().rejected, 1);
}

/// Submissions of every kind from several threads and tasks, a third of them
/// given up on (timeouts around async ones, aborted handles, dropped guards),
/// some panicking, a queue cleared midway: once the pool is quiet, every
/// submission is in exactly one place of the books.
#[test]
fn the_books_balance_after_a_storm_of_timeouts_aborts_and_drops() {
    for (mode, builder) in bounded_modes(2, 4) {
        let pool = Arc::new(builder.panic_handler(|_| ()).build().unwrap());
        let submitted = Arc::new(AtomicUsize::new(0));
        let cleared = Arc::new(AtomicUsize::new(0));
        let work = |i: usize| {
            move || {
                if i % 17 == 0 {
                    panic!("counted, not fatal");
                }
                thread::sleep(Duration::from_micros((i % 5) as u64 * 100));
            }
        };

        if mode != "hand-off" {
            // One task certainly aborted before it begins (queued behind
            // both workers, held), whatever the storm's timing does.
            let gate = common::occupy(&*pool, 2);
            let aborted = pool.spawn(work(1)).unwrap();
            assert!(aborted.abort());
            submitted.fetch_add(3, Relaxed);
            gate.open();
            // Taken and skipped before the storm's `clear_queue` could
            // clear it instead.
            assert!(eventually(|| pool.stats().skipped == 1), "{mode}");
        }

        let rt = common::poll::runtime();
        let mut threads = Vec::new();
        for t in 0..2 {
            let (pool, submitted) = (pool.clone(), submitted.clone());
            threads.push(thread::spawn(move || {
                for i in 0..150 {
                    let i = t * 1000 + i;
                    submitted.fetch_add(1, Relaxed);
                    match i % 4 {
                        0 => drop(pool.submit_timeout(work(i), Duration::from_micros(300))),
                        1 => drop(pool.try_submit(work(i))),
                        2 => match pool.spawn(work(i)) {
                            Ok(h) if i % 3 == 0 => drop(h.abort()),
                            Ok(h) => drop(h.abort_on_drop()),
                            Err(_) => {}
                        },
                        _ => drop(pool.submit(work(i))),
                    }
                }
            }));
        }
        rt.block_on(async {
            let mut tasks = Vec::new();
            for i in 0..200 {
                let p = pool.clone();
                submitted.fetch_add(1, Relaxed);
                let f = work(i);
                tasks.push(tokio::spawn(async move {
                    let pool = p;
                    let patience = Duration::from_micros((i % 7) as u64 * 150);
                    if i % 2 == 0 {
                        drop(tokio::time::timeout(patience, pool.submit_async(f)).await);
                    } else {
                        drop(tokio::time::timeout(patience, pool.spawn_async(f)).await);
                    }
                }));
                if i == 100 {
                    cleared.fetch_add(pool.clear_queue(), Relaxed);
                }
            }
            for t in tasks {
                t.await.unwrap();
            }
        });
        for t in threads {
            t.join().unwrap();
        }
        pool.wait_idle();
        assert!(eventually(|| pool.waiting() == 0 && pool.stats().busy == 0));

        let stats = pool.stats();
        let submitted = submitted.load(Relaxed);
        assert_eq!(
            settled(&stats, cleared.load(Relaxed)),
            submitted,
            "{mode}: {submitted} submitted, books {stats:?}"
        );
        assert_eq!(stats.queued, 0, "{mode}");
        // The storm did what it says: some of each (an unbounded queue
        // never saturates: it turns nothing away, and nobody waits).
        assert!(stats.panicked > 0 && stats.skipped > 0, "{mode}: {stats:?}");
        if !mode.contains("unbounded") {
            assert!(stats.withdrawn > 0, "{mode}: nothing withdrawn: {stats:?}");
            assert!(stats.rejected > 0, "{mode}: nothing rejected: {stats:?}");
        }
        pool.release_timeout(Duration::from_secs(10)).unwrap();
    }
}
