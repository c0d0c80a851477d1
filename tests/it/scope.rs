//! Scoped tasks: they borrow from the caller's stack, and the scope returns only
//! once every one of them is gone — run, handed back, cleared or drained — even
//! when its closure or a task panics. Runs under Miri in CI (the lifetimes are
//! erased to travel through the pool: Miri checks no borrow outlives the scope).

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use antpool::{Pool, Scope};
use common::PATIENCE;

/// A pool of one worker and a queue of 8.
fn one_worker_queue() -> Pool {
    Pool::builder()
        .capacity(1)
        .max_queued_tasks(8)
        .build()
        .unwrap()
}

/// Occupies a worker of the scope's pool until `gate` is passed by the caller.
fn hold<'scope>(s: &'scope Scope<'scope, '_>, gate: &'scope Barrier) {
    drop(
        s.spawn(|| {
            gate.wait();
        })
        .unwrap(),
    );
}

#[test]
fn tasks_borrow_the_callers_data_and_all_finish_before_the_scope_returns() {
    let pool = Pool::new(3).unwrap();
    let data: Vec<u64> = (1..=200).collect();
    let mut parts = [0u64; 8];
    let total = AtomicUsize::new(0);
    let lens = pool.scope(|s| {
        for (chunk, part) in data.chunks(25).zip(parts.iter_mut()) {
            // Detached: the handle is dropped, the scope still waits.
            drop(
                s.spawn(|| {
                    thread::sleep(Duration::from_millis(1));
                    *part = chunk.iter().sum();
                    total.fetch_add(1, SeqCst);
                })
                .unwrap(),
            );
        }
        let handles: Vec<_> = data
            .chunks(50)
            .map(|c| s.spawn(move || c.len()).unwrap())
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    assert_eq!(lens, [50, 50, 50, 50]);
    assert_eq!(total.load(SeqCst), 8, "every detached task finished");
    assert_eq!(parts.iter().sum::<u64>(), 200 * 201 / 2);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_panicking_closure_waits_for_its_tasks_then_panics_with_its_payload() {
    let pool = Pool::new(2).unwrap();
    let finished = AtomicUsize::new(0);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            for _ in 0..4 {
                drop(
                    s.spawn(|| {
                        thread::sleep(Duration::from_millis(5));
                        finished.fetch_add(1, SeqCst);
                    })
                    .unwrap(),
                );
            }
            panic!("closure");
        })
    }));
    assert_eq!(finished.load(SeqCst), 4, "the scope waited for its tasks");
    let payload = caught.unwrap_err();
    assert_eq!(antpool::panic_message(&*payload), Some("closure"));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn an_unjoined_panicking_task_makes_the_scope_panic_a_joined_one_does_not() {
    let pool = Pool::new(2).unwrap();
    // Joined: the panic is the handle's, the scope returns normally.
    let joined = pool.scope(|s| s.spawn(|| panic!("mine")).unwrap().join());
    assert_eq!(joined.unwrap_err().panic_message(), Some("mine"));
    // Detached: the scope panics once every task has finished.
    let after = AtomicUsize::new(0);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            drop(s.spawn(|| panic!("lost")).unwrap());
            drop(
                s.spawn(|| {
                    thread::sleep(Duration::from_millis(5));
                    after.fetch_add(1, SeqCst);
                })
                .unwrap(),
            );
        })
    }));
    let payload = caught.unwrap_err();
    assert_eq!(
        antpool::panic_message(&*payload),
        Some("antpool: a scoped task panicked and was not joined")
    );
    assert_eq!(after.load(SeqCst), 1);
    // The pool is none the worse, and counted both panics.
    assert_eq!(pool.spawn(|| 1).unwrap().join().unwrap(), 1);
    assert!(common::eventually(|| pool.stats().panicked == 2));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn an_unjoined_result_is_dropped_before_the_scope_returns() {
    struct Noisy<'a>(&'a AtomicUsize);
    impl Drop for Noisy<'_> {
        fn drop(&mut self) {
            thread::sleep(Duration::from_millis(1));
            self.0.fetch_add(1, SeqCst);
        }
    }
    let pool = Pool::new(2).unwrap();
    let dropped = AtomicUsize::new(0);
    pool.scope(|s| {
        for _ in 0..6 {
            // The handle goes first, so the worker drops the result.
            drop(
                s.spawn(|| {
                    thread::sleep(Duration::from_millis(2));
                    Noisy(&dropped)
                })
                .unwrap(),
            );
        }
    });
    assert_eq!(dropped.load(SeqCst), 6);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_released_pool_refuses_closed_and_drops_the_closure_in_the_scope() {
    let pool = Pool::new(1).unwrap();
    pool.release();
    let dropped = AtomicUsize::new(0);
    pool.scope(|s| {
        let guard = DropCount(&dropped);
        let err = s
            .spawn(move || {
                let _guard = &guard;
            })
            .unwrap_err();
        assert!(err.is_closed());
        // Dropped inside the scope, before the error came back.
        assert_eq!(dropped.load(SeqCst), 1);
    });
}

/// Counts its drops (a closure that captures it is dropped when it is).
struct DropCount<'a>(&'a AtomicUsize);

impl Drop for DropCount<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn a_scoped_spawns_error_passes_up_with_question_mark() {
    fn total(
        pool: &Pool,
        words: &[&str],
    ) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        pool.scope(|s| {
            let mut total = 0;
            for w in words {
                total += s.spawn(|| w.len())?.join()?;
            }
            Ok(total)
        })
    }
    let pool = Pool::new(2).unwrap();
    assert_eq!(total(&pool, &["ant", "pool"]).unwrap(), 7);
    pool.release();
    let err = total(&pool, &["ant"]).unwrap_err();
    assert_eq!(err.to_string(), "the pool has been released");
}

#[test]
fn try_spawn_is_overload_at_once_when_saturated() {
    let pool = Pool::new(1).unwrap();
    let gate = Barrier::new(2);
    pool.scope(|s| {
        hold(s, &gate);
        let err = s.try_spawn(|| 5).unwrap_err();
        assert!(err.is_overload());
        gate.wait();
    });
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn cleared_tasks_are_cancelled_and_the_scope_does_not_wait_for_them() {
    let pool = one_worker_queue();
    let gate = Barrier::new(2);
    let ran = AtomicUsize::new(0);
    pool.scope(|s| {
        hold(s, &gate);
        let queued: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    ran.fetch_add(1, SeqCst);
                })
                .unwrap()
            })
            .collect();
        assert_eq!(pool.clear_queue(), 4);
        for h in queued {
            assert!(h.join().unwrap_err().is_cancelled());
        }
        gate.wait();
    });
    assert_eq!(ran.load(SeqCst), 0);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn drained_tasks_keep_the_scope_until_they_are_run_or_dropped() {
    let pool = one_worker_queue();
    let gate = Barrier::new(2);
    let ran = AtomicUsize::new(0);
    pool.scope(|s| {
        hold(s, &gate);
        let hs: Vec<_> = (0..3)
            .map(|i| {
                let ran = &ran;
                s.spawn(move || {
                    ran.fetch_add(1, SeqCst);
                    i
                })
                .unwrap()
            })
            .collect();
        let drained = pool.release_drain();
        assert_eq!(drained.len(), 3);
        gate.wait();
        // The caller runs two of them and drops the third, inside the scope.
        let mut drained = drained.into_iter();
        drained.next().unwrap().run();
        drained.next().unwrap().run();
        drop(drained);
        let results: Vec<_> = hs.into_iter().map(|h| h.join()).collect();
        assert_eq!(results[0].as_ref().unwrap(), &0);
        assert_eq!(results[1].as_ref().unwrap(), &1);
        assert!(results[2].as_ref().unwrap_err().is_cancelled());
    });
    assert_eq!(ran.load(SeqCst), 2);
    assert!(pool.wait_idle_timeout(PATIENCE));
}

#[test]
fn a_task_may_spawn_into_its_own_scope() {
    let pool = Pool::builder()
        .capacity(2)
        .unbounded_queue()
        .build()
        .unwrap();
    let leaves = AtomicUsize::new(0);
    pool.scope(|s| {
        for _ in 0..3 {
            let leaves = &leaves;
            drop(
                s.spawn(move || {
                    for _ in 0..3 {
                        drop(
                            s.spawn(move || {
                                leaves.fetch_add(1, SeqCst);
                            })
                            .unwrap(),
                        );
                    }
                })
                .unwrap(),
            );
        }
    });
    assert_eq!(leaves.load(SeqCst), 9);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
#[cfg_attr(
    miri,
    ignore = "the default pool lives on past the test: Miri reports its threads"
)]
fn the_default_pool_scopes_too() {
    let word = String::from("scoped");
    let n = antpool::scope(|s| s.spawn(|| word.len()).unwrap().join().unwrap());
    assert_eq!(n, 6);
}
