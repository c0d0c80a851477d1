//! Scoped task groups (`Scope::group`): tasks that borrow from the caller's
//! stack, joined as a `TaskGroup` joins them — in completion order, cancelled
//! together, the first failure cancelling the rest — and all of them ended
//! when the scope returns. Runs under Miri in CI (the closures' lifetimes are
//! erased to travel through the pool: Miri checks no borrow outlives the
//! scope). The tasks wait on barriers, never on time, to force an order.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

use antpool::{Pool, TaskId};

use crate::common::PATIENCE;

/// A pool of one worker and a queue of 16: tasks run one at a time, in the
/// order they were spawned.
fn one_worker_queue() -> Pool {
    Pool::builder()
        .capacity(1)
        .max_queued_tasks(16)
        .build()
        .unwrap()
}

/// Counts its drops (a closure that captures it is dropped when it is). It
/// yields first: a drop the scope does not wait for would be counted late.
struct DropCount<'a>(&'a AtomicUsize);

impl Drop for DropCount<'_> {
    fn drop(&mut self) {
        for _ in 0..20 {
            std::thread::yield_now();
        }
        self.0.fetch_add(1, SeqCst);
    }
}

#[test]
fn tasks_borrow_the_callers_data_and_have_ended_when_the_scope_returns() {
    let pool = Pool::new(4).unwrap();
    let mut data: Vec<u64> = (1..=64).collect();
    let mut sums = [0u64; 4];
    let started = Barrier::new(5);
    let total = pool.scope(|s| {
        // Shared borrows, joined in the scope.
        let mut group = s.group::<u64>();
        for chunk in data.chunks(16) {
            group.spawn(move || chunk.iter().sum()).unwrap();
        }
        let mut total = 0;
        while let Some(sum) = group.join_next() {
            total += sum.unwrap();
        }
        // Mutable borrows, never joined: the group goes with the closure,
        // once all four have begun (so none is aborted), and the scope waits
        // for them.
        let mut writers = s.group::<()>();
        for (chunk, sum) in data.chunks(16).zip(&mut sums) {
            let started = &started;
            writers
                .spawn(move || {
                    started.wait();
                    *sum = chunk.iter().sum();
                })
                .unwrap();
        }
        started.wait();
        total
    });
    assert_eq!(total, 64 * 65 / 2);
    assert_eq!(sums.iter().sum::<u64>(), total, "every writer ended");
    // The borrows are over: the data is the caller's again.
    data.push(65);
    assert_eq!(data.len(), 65);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn join_next_gives_results_in_the_order_the_tasks_completed() {
    let pool = Pool::new(3).unwrap();
    let gates = [Barrier::new(2), Barrier::new(2), Barrier::new(2)];
    pool.scope(|s| {
        let mut group = s.group::<usize>();
        let ids: Vec<TaskId> = gates
            .iter()
            .enumerate()
            .map(|(i, gate)| {
                group
                    .spawn(move || {
                        gate.wait();
                        i
                    })
                    .unwrap()
            })
            .collect();
        // Let them finish in the order 2, 0, 1: each join waits for the one
        // just let through, the others still held at their gates.
        for i in [2, 0, 1] {
            gates[i].wait();
            let (id, value) = group.join_next_with_id().unwrap();
            assert_eq!((id, value.unwrap()), (ids[i], i));
        }
        assert!(group.join_next().is_none());
    });
    pool.release_timeout(PATIENCE).unwrap();
}

/// A task's id and its join, for a group of fallible tasks.
type Joined = (TaskId, Result<Result<u32, String>, antpool::JoinError>);

/// Spawns `head` (which holds the only worker at `gate` until the caller
/// passes it twice), then `fail`, then four tasks that count themselves in
/// `ran`: all queued behind `head`. Lets `head` go, joins everything, and
/// returns the joins by spawn order.
fn first_failure_run<'scope>(
    s: &'scope antpool::Scope<'scope, '_>,
    gate: &'scope Barrier,
    ran: &'scope AtomicUsize,
    fail: impl FnOnce() -> Result<u32, String> + Send + 'scope,
) -> (Vec<Joined>, bool) {
    let mut group = s.group::<Result<u32, String>>().cancel_on_error();
    let token = group.cancel_token();
    group
        .spawn(move || {
            gate.wait();
            gate.wait();
            Ok(0)
        })
        .unwrap();
    gate.wait(); // `head` runs
    group.spawn(fail).unwrap();
    for n in 2..6 {
        group
            .spawn(move || {
                ran.fetch_add(1, SeqCst);
                Ok(n)
            })
            .unwrap();
    }
    assert!(!token.is_cancelled());
    gate.wait(); // `head` returns; `fail` runs next
    let mut joins = BTreeMap::new();
    while let Some((id, result)) = group.join_next_with_id() {
        joins.insert(id, result);
    }
    (joins.into_iter().collect(), token.is_cancelled())
}

#[test]
fn cancel_on_error_cancels_the_tasks_not_begun_and_their_joins_say_cancelled() {
    let pool = one_worker_queue();
    let gate = Barrier::new(2);
    let ran = AtomicUsize::new(0);
    let (joins, cancelled) =
        pool.scope(|s| first_failure_run(s, &gate, &ran, || Err("bad input".to_string())));
    assert_eq!(joins.len(), 6, "every task joins once");
    assert_eq!(joins[0].1.as_ref().unwrap(), &Ok(0));
    assert_eq!(joins[1].1.as_ref().unwrap(), &Err("bad input".to_string()));
    // Which never ran: the four behind the failure, each joined as cancelled.
    for (_, result) in &joins[2..] {
        assert!(result.as_ref().unwrap_err().is_cancelled());
    }
    assert_eq!(ran.load(SeqCst), 0, "none of them ran");
    assert!(cancelled, "the group's token is cancelled by the failure");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_panic_under_cancel_on_error_cancels_the_rest_and_joins_as_the_panic() {
    let pool = one_worker_queue();
    let gate = Barrier::new(2);
    let ran = AtomicUsize::new(0);
    // Joined: the scope returns normally.
    let (joins, cancelled) = pool.scope(|s| first_failure_run(s, &gate, &ran, || panic!("boom")));
    assert_eq!(joins[0].1.as_ref().unwrap(), &Ok(0));
    let panic = joins[1].1.as_ref().unwrap_err();
    assert!(panic.is_panic());
    assert_eq!(panic.panic_message(), Some("boom"));
    for (_, result) in &joins[2..] {
        assert!(result.as_ref().unwrap_err().is_cancelled());
    }
    assert_eq!(ran.load(SeqCst), 0);
    assert!(cancelled);
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_group_dropped_in_the_scope_aborts_what_has_not_begun_and_the_scope_waits_for_the_rest() {
    let pool = one_worker_queue();
    let gate = Barrier::new(2);
    let ran = AtomicUsize::new(0);
    let dropped = AtomicUsize::new(0);
    let closure_returned = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    pool.scope(|s| {
        let mut group = s.group::<()>();
        let token = group.cancel_token();
        group
            .spawn(|| {
                gate.wait();
                gate.wait();
                // Still borrowing after the scope's closure returned: the
                // scope must wait for this.
                while !closure_returned.load(SeqCst) {
                    std::hint::spin_loop();
                }
                finished.store(true, SeqCst);
            })
            .unwrap();
        gate.wait(); // it runs
        let ran = &ran;
        for _ in 0..4 {
            let guard = DropCount(&dropped);
            group
                .spawn(move || {
                    let _guard = &guard;
                    ran.fetch_add(1, SeqCst);
                })
                .unwrap();
        }
        drop(group);
        assert!(token.is_cancelled(), "dropping the group cancels its token");
        gate.wait();
        closure_returned.store(true, SeqCst);
    });
    assert!(
        finished.load(SeqCst),
        "the scope waited for the running task"
    );
    assert_eq!(ran.load(SeqCst), 0, "the queued tasks never ran");
    assert_eq!(dropped.load(SeqCst), 4, "and their closures were dropped");
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_panic_nobody_joined_makes_the_scope_panic_once_every_task_has_ended() {
    let pool = one_worker_queue();
    // A panic that is in when the group is dropped.
    let gate = Barrier::new(2);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            let mut group = s.group::<()>();
            group.spawn(|| panic!("lost")).unwrap();
            group
                .spawn(|| {
                    gate.wait();
                })
                .unwrap();
            // One worker: the panic was queued to the group before this ran.
            gate.wait();
        })
    }));
    let payload = caught.unwrap_err();
    assert_eq!(
        antpool::panic_message(&*payload),
        Some("antpool: a scoped task panicked and was not joined")
    );
    // A panic that comes after the group was dropped: the scope joins it.
    let gate = Barrier::new(2);
    let caught = catch_unwind(AssertUnwindSafe(|| {
        pool.scope(|s| {
            let mut group = s.group::<()>();
            group
                .spawn(|| {
                    gate.wait();
                    gate.wait();
                    panic!("later");
                })
                .unwrap();
            gate.wait(); // it runs
            drop(group);
            gate.wait();
        })
    }));
    let payload = caught.unwrap_err();
    assert_eq!(
        antpool::panic_message(&*payload),
        Some("antpool: a scoped task panicked and was not joined")
    );
    // Joined, a panic is the join's: the scope returns.
    let joined = pool.scope(|s| {
        let mut group = s.group::<()>();
        group.spawn(|| panic!("mine")).unwrap();
        group.join_next().unwrap()
    });
    assert_eq!(joined.unwrap_err().panic_message(), Some("mine"));
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_refused_spawn_drops_the_closure_in_the_scope_and_its_error_passes_up() {
    fn lengths(
        pool: &Pool,
        words: &[&str],
        dropped: &AtomicUsize,
    ) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
        pool.scope(|s| {
            let mut group = s.group::<usize>();
            for w in words {
                let guard = DropCount(dropped);
                group.spawn(move || {
                    let _guard = &guard;
                    w.len()
                })?;
            }
            let mut total = 0;
            while let Some(len) = group.join_next() {
                total += len?;
            }
            Ok(total)
        })
    }
    let pool = Pool::new(2).unwrap();
    let dropped = AtomicUsize::new(0);
    assert_eq!(lengths(&pool, &["ant", "pool"], &dropped).unwrap(), 7);
    pool.release();
    let before = dropped.load(SeqCst);
    let err = lengths(&pool, &["ant"], &dropped).unwrap_err();
    assert_eq!(err.to_string(), "the pool has been released");
    assert_eq!(
        dropped.load(SeqCst),
        before + 1,
        "the refused closure was dropped"
    );
}

#[test]
fn try_spawn_is_refused_at_once_when_saturated_and_the_group_is_unchanged() {
    let pool = Pool::new(1).unwrap();
    let gate = Barrier::new(2);
    pool.scope(|s| {
        let mut group = s.group::<u8>();
        group
            .spawn(|| {
                gate.wait();
                1
            })
            .unwrap();
        assert!(group.try_spawn(|| 2).unwrap_err().is_overload());
        gate.wait();
        assert_eq!(
            group
                .join_all()
                .into_iter()
                .map(Result::unwrap)
                .collect::<Vec<_>>(),
            [1]
        );
    });
    pool.release_timeout(PATIENCE).unwrap();
}

#[test]
fn a_running_task_of_a_scoped_group_sees_its_group_cancelled() {
    // The cancel token of any group's task, scoped or not: a task that has
    // begun polls `CancelToken::current()` and stops when the group cancels.
    let pool = Pool::new(2).unwrap();
    let borrowed = AtomicUsize::new(0);
    let started = Barrier::new(3);
    pool.scope(|s| {
        let mut group = s.group::<bool>();
        for _ in 0..2 {
            group
                .spawn(|| {
                    let token = antpool::CancelToken::current();
                    started.wait();
                    let stopped = crate::common::eventually(|| token.is_cancelled());
                    borrowed.fetch_add(1, SeqCst);
                    stopped
                })
                .unwrap();
        }
        started.wait();
        group.abort_all();
        for result in group.join_all() {
            assert!(result.unwrap(), "each saw the cancel and stopped");
        }
    });
    assert_eq!(borrowed.load(SeqCst), 2);
}
