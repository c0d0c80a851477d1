//! Task groups (`Pool::group`, `antpool::group`): the
//! invariants of their contract. Every spawned task comes out of the joins
//! exactly once on every path — ran, panicked, aborted before it began,
//! drained then dropped or run, cleared — and a refused spawn hands its
//! closure back and changes nothing; `join_all` keeps spawn order; dropping
//! aborts what has not begun (`detach_all` opts out); `cancel_on_error` stops
//! what begins after the first failure and `try_join_all` returns only when
//! nothing runs; running tasks stop on their token; the group outlives its
//! pool. The async side (`join_next_async` under `select!`, `spawn_async`'s
//! drop) is in `tests/it/group_async.rs`.

use crate::common;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use antpool::{CancelToken, GroupError, JoinError, Pool, TaskGroup, TaskId};
use common::{Counter, Gate, PATIENCE, held_pool, occupy, queue_pool};

/// Counts what became of a group's closures: run, or dropped unrun.
#[derive(Clone, Default)]
struct Fates {
    ran: Counter,
    dropped: Counter,
}

/// A closure that records its fate: `ran` when it runs, `dropped` when it
/// is dropped (run or not).
struct Tracked {
    fates: Fates,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.fates.dropped.add();
    }
}

impl Fates {
    fn task(&self, value: u32) -> impl FnOnce() -> u32 + Send + 'static {
        let tracked = Tracked {
            fates: self.clone(),
        };
        move || {
            tracked.fates.ran.add();
            value
        }
    }
}

/// Joins everything; asserts each id comes out once and only spawned ids do.
fn join_each<T: Send + 'static>(
    group: &mut TaskGroup<T>,
    spawned: &[TaskId],
) -> Vec<(TaskId, Result<T, JoinError>)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    while !group.is_empty() {
        let (id, result) = group.join_next_with_id().expect("not empty");
        assert!(seen.insert(id), "{id:?} joined twice");
        assert!(spawned.contains(&id), "{id:?} was never spawned");
        out.push((id, result));
    }
    assert!(group.join_next().is_none());
    assert_eq!(seen.len(), spawned.len(), "a task never joined");
    out
}

#[test]
fn task_ids_are_copy_eq_hash_debug_and_the_types_are_send() {
    fn traits<T: Copy + Eq + std::hash::Hash + std::fmt::Debug>() {}
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    traits::<TaskId>();
    send::<TaskGroup<u32>>();
    send_sync::<CancelToken>();
    send_sync::<GroupError<std::io::Error>>();
}

#[test]
fn ran_and_panicked_tasks_join_once_each() {
    let pool = Pool::new(3).unwrap();
    let fates = Fates::default();
    let mut group = pool.group::<u32>();
    let mut ids = Vec::new();
    for i in 0..6 {
        ids.push(group.spawn(fates.task(i)).unwrap());
    }
    let bad = group.spawn(|| panic!("boom")).unwrap();
    ids.push(bad);
    assert_eq!(group.len(), 7);
    let out = join_each(&mut group, &ids);
    for (id, result) in out {
        match result {
            Ok(v) => assert!(v < 6 && id != bad),
            Err(e) => assert!(id == bad && e.is_panic()),
        }
    }
    assert_eq!((fates.ran.get(), fates.dropped.get()), (6, 6));
    pool.wait_idle();
    assert_eq!(pool.stats().panicked, 1);
}

#[test]
fn aborted_drained_and_cleared_tasks_join_once_each_as_cancelled_or_run() {
    // Every way a queued task can leave the pool unrun, and the drained task
    // its holder runs: each joins once, and each closure is dropped once.
    for path in [
        "abort_all",
        "clear_queue",
        "drain and drop",
        "drain and run",
    ] {
        let pool = queue_pool(1, 16);
        let gate = occupy(&pool, 1);
        let fates = Fates::default();
        let mut group = pool.group::<u32>();
        let ids: Vec<TaskId> = (0..5)
            .map(|i| group.spawn(fates.task(i)).unwrap())
            .collect();
        let mut drained = Vec::new();
        match path {
            "abort_all" => group.abort_all(),
            "clear_queue" => assert_eq!(pool.clear_queue(), 5),
            _ => drained = pool.release_drain(),
        }
        let ran = path == "drain and run";
        if ran {
            drained.into_iter().for_each(antpool::Task::run);
        } else {
            drop(drained);
        }
        // All out before the worker is free: none waits for it.
        let out = join_each(&mut group, &ids);
        for (_, result) in out {
            match result {
                Ok(v) => assert!(ran && v < 5, "{path}"),
                Err(e) => assert!(!ran && e.is_cancelled(), "{path}"),
            }
        }
        gate.open();
        pool.wait_idle();
        let ran_count = if ran { 5 } else { 0 };
        assert_eq!(fates.ran.get(), ran_count, "{path}");
        assert_eq!(fates.dropped.get(), 5, "{path}");
        assert_eq!(pool.stats().completed, 1, "{path}: only the gate task");
    }
}

#[test]
fn a_refused_spawn_hands_its_closure_back_and_changes_nothing() {
    let (pool, gate) = held_pool(Pool::builder().nonblocking(true));
    let fates = Fates::default();
    let mut group = pool.group::<u32>();
    let err = group.spawn(fates.task(7)).unwrap_err();
    assert!(err.is_overload());
    assert_eq!((group.len(), fates.dropped.get()), (0, 0));
    assert_eq!(err.into_closure()(), 7, "the same closure");
    assert_eq!((fates.ran.get(), fates.dropped.get()), (1, 1));
    assert!(group.try_spawn(fates.task(8)).unwrap_err().is_overload());
    gate.open();

    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let mut group = pool.group::<u32>();
    let err = group
        .spawn_timeout(fates.task(9), Duration::from_millis(5))
        .unwrap_err();
    assert!(err.is_timeout());
    assert_eq!(group.len(), 0);
    pool.release();
    let err = group.spawn(fates.task(10)).unwrap_err();
    assert!(err.is_closed());
    assert_eq!(err.into_closure()(), 10);
    assert!(group.is_empty() && group.join_next().is_none());
    gate.open();
}

#[test]
fn join_all_gives_spawn_order_whatever_the_completion_order() {
    let pool = Pool::new(4).unwrap();
    let mut group = pool.group::<u64>();
    for i in 0..4u64 {
        group
            .spawn(move || {
                thread::sleep(Duration::from_millis(5 * (4 - i)));
                i
            })
            .unwrap();
    }
    group.spawn(|| panic!("late")).unwrap();
    let results = group.join_all();
    assert_eq!(results.len(), 5);
    for (i, result) in results.iter().take(4).enumerate() {
        assert_eq!(*result.as_ref().unwrap(), i as u64);
    }
    assert!(
        results[4].as_ref().unwrap_err().is_panic(),
        "never panics itself"
    );
}

#[test]
fn dropping_the_group_aborts_what_has_not_begun_and_never_blocks() {
    for detach in [false, true] {
        let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(8));
        let fates = Fates::default();
        let mut group = pool.group::<u32>();
        let token = group.cancel_token();
        for i in 0..5 {
            group.spawn(fates.task(i)).unwrap();
        }
        if detach {
            group.detach_all();
            assert!(group.is_empty());
        }
        drop(group); // the worker is busy: a blocking drop would hang here
        assert_eq!(token.is_cancelled(), !detach);
        gate.open();
        pool.wait_idle();
        let ran = if detach { 5 } else { 0 };
        assert_eq!(fates.ran.get(), ran, "detach {detach}");
        assert_eq!(fates.dropped.get(), 5, "detach {detach}");
    }
}

#[test]
fn a_dropped_group_drops_the_results_of_its_running_tasks() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let started = Counter::new();
    let fates = Fates::default();
    let mut group = pool.group::<Tracked>();
    let (g, s, f) = (gate.clone(), started.clone(), fates.clone());
    group
        .spawn(move || {
            s.add();
            g.wait();
            Tracked { fates: f }
        })
        .unwrap();
    assert!(started.reaches(1));
    drop(group);
    gate.open();
    pool.wait_idle();
    assert_eq!(
        fates.dropped.get(),
        1,
        "the result of a forgotten task is dropped"
    );
}

/// A group of `Result`s whose fourth task fails; the tasks record whether
/// they ran, and their closures when they are dropped.
fn failing_group(pool: &Pool, fates: &Fates) -> TaskGroup<Result<u32, String>> {
    let mut group = pool.group::<Result<u32, String>>().cancel_on_error();
    for i in 0..8 {
        let task = fates.task(i);
        group
            .spawn(move || match task() {
                3 => Err("three".to_owned()),
                v => Ok(v),
            })
            .unwrap();
    }
    group
}

#[test]
fn cancel_on_error_stops_what_begins_after_the_failure() {
    // One worker, a queue: tasks begin in order on the worker that saw the
    // failure, so every task after it begins after its completion.
    let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(16));
    let fates = Fates::default();
    let group = failing_group(&pool, &fates);
    gate.open();
    match group.try_join_all() {
        Err(GroupError::Failed(e)) => assert_eq!(e, "three"),
        other => panic!("{:?}", other.map(|_| ())),
    }
    // When it returns nothing of the group runs: 0..=3 ran, the rest never will.
    assert_eq!(fates.ran.get(), 4);
    pool.wait_idle();
    assert_eq!((fates.ran.get(), fates.dropped.get()), (4, 8));
}

#[test]
fn cancel_on_error_reports_each_task_once_and_a_panic_as_a_failure() {
    let pool = Pool::new(4).unwrap();
    let fates = Fates::default();
    let results = failing_group(&pool, &fates).join_all();
    assert_eq!(results.len(), 8);
    for (i, result) in results.iter().enumerate() {
        match result {
            Ok(Ok(v)) => assert_eq!(*v as usize, i),
            Ok(Err(_)) => assert_eq!(i, 3),
            Err(e) => assert!(e.is_cancelled()),
        }
    }

    let mut group = pool.group::<Result<u8, String>>().cancel_on_error();
    let token = group.cancel_token();
    group.spawn(|| panic!("boom")).unwrap();
    match group.try_join_all() {
        Err(GroupError::Panicked(e)) => assert_eq!(e.panic_message(), Some("boom")),
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(token.is_cancelled());

    // Without `cancel_on_error` a failure cancels nothing.
    let mut group = pool.group::<Result<u8, String>>();
    let token = group.cancel_token();
    group.spawn(|| Err("no".to_owned())).unwrap();
    group.spawn(|| Ok(1)).unwrap();
    let failed = (0..2).filter(|_| group.join_next().unwrap().unwrap().is_err());
    assert_eq!(failed.count(), 1);
    assert!(!token.is_cancelled());
    drop(group); // as errgroup's `Wait` returning, the end of the group cancels its token
    assert!(token.is_cancelled());
}

#[test]
fn try_join_all_returns_the_first_error_to_complete() {
    // One worker: the tasks complete in the order they were spawned.
    let pool = queue_pool(1, 8);
    let mut group = pool.group::<Result<u8, &str>>();
    group.spawn(|| Ok(1)).unwrap();
    group.spawn(|| Err("first")).unwrap();
    group.spawn(|| Err("second")).unwrap();
    assert_eq!(
        group.try_join_all().unwrap_err().into_failed(),
        Some("first")
    );
    let mut group = pool.group::<Result<u8, &str>>();
    group.spawn(|| panic!("boom")).unwrap();
    let panicked = group.try_join_all().unwrap_err();
    assert!(matches!(panicked, GroupError::Panicked(_)));
    assert_eq!(panicked.into_failed(), None);
}

#[test]
fn try_join_next_hands_out_a_completed_task_without_waiting() {
    let pool = queue_pool(1, 8);
    let mut group = pool.group::<u8>();
    group.spawn(|| 7).unwrap();
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(group.try_join_next().map(Result::unwrap), Some(7));
    assert!(group.try_join_next().is_none(), "each result once");
    assert!(group.is_empty());
}

#[test]
fn try_join_all_is_cancelled_when_nothing_failed_but_something_was_aborted() {
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let mut group = pool.group::<Result<u8, String>>();
    group.spawn(|| Ok(1)).unwrap();
    group.abort_all();
    assert!(matches!(group.try_join_all(), Err(GroupError::Cancelled)));
    gate.open();
    let mut group = pool.group::<Result<u8, String>>();
    group.spawn(|| Ok(1)).unwrap();
    group.spawn(|| Ok(2)).unwrap();
    assert_eq!(group.try_join_all().unwrap(), [1, 2]);
}

#[test]
fn a_running_task_stops_on_its_token_and_joins_with_its_value() {
    let pool = Pool::new(2).unwrap();
    let mut group = pool.group::<u32>();
    let started = Counter::new();
    let (token, s) = (group.cancel_token(), started.clone());
    group
        .spawn(move || {
            s.add();
            let mut rounds = 0;
            while !token.is_cancelled() {
                rounds += 1;
                thread::yield_now();
            }
            rounds
        })
        .unwrap();
    assert!(started.reaches(1));
    group.abort_all();
    let (_, result) = group.join_next_with_id().unwrap();
    assert!(result.is_ok(), "it began: its value, not Cancelled");
    // A new generation: tasks spawned after the abort run, with a new token.
    let token = group.cancel_token();
    assert!(!token.is_cancelled());
    group.spawn(|| 5).unwrap();
    assert_eq!(group.join_next().unwrap().unwrap(), 5);
}

#[test]
fn a_token_cancelled_elsewhere_wakes_the_joiner_which_cancels_the_queued_tasks() {
    let pool = queue_pool(1, 8);
    let gate = occupy(&pool, 1);
    let fates = Fates::default();
    let mut group = pool.group::<u32>();
    for i in 0..3 {
        group.spawn(fates.task(i)).unwrap();
    }
    let token = group.cancel_token();
    let canceller = thread::spawn(move || {
        thread::sleep(Duration::from_millis(10));
        token.cancel();
    });
    // Blocked in `join_next` while the only worker is held: the cancel wakes
    // it, and the queued tasks come out cancelled without the worker.
    for _ in 0..3 {
        assert!(group.join_next().unwrap().unwrap_err().is_cancelled());
    }
    canceller.join().unwrap();
    // Spawned into the cancelled generation: cancelled at once.
    group.spawn(fates.task(3)).unwrap();
    assert!(group.join_next().unwrap().unwrap_err().is_cancelled());
    gate.open();
    pool.wait_idle();
    assert_eq!((fates.ran.get(), fates.dropped.get()), (0, 4));
}

#[test]
fn the_group_outlives_its_pool() {
    let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(8));
    let fates = Fates::default();
    let mut group = pool.group::<u32>();
    let ids: Vec<TaskId> = (0..4)
        .map(|i| group.spawn(fates.task(i)).unwrap())
        .collect();
    drop(pool); // the last handle: the pool is released; its queue still runs
    assert!(group.spawn(fates.task(9)).unwrap_err().is_closed());
    gate.open();
    let out = join_each(&mut group, &ids);
    assert!(out.iter().all(|(_, r)| r.is_ok()));
    assert_eq!(fates.ran.get(), 4);
}

#[test]
fn join_next_timeout_times_out_and_keeps_the_task() {
    let pool = Pool::new(1).unwrap();
    let gate = Gate::new();
    let mut group = pool.group::<u8>();
    let g = gate.clone();
    group
        .spawn(move || {
            g.wait();
            4
        })
        .unwrap();
    assert!(group.join_next_timeout(Duration::from_millis(5)).is_err());
    assert!(group.try_join_next().is_none());
    assert_eq!(group.len(), 1);
    gate.open();
    let got = group.join_next_timeout(PATIENCE).unwrap();
    assert_eq!(got.unwrap().unwrap(), 4);
    assert_eq!(group.join_next_timeout(PATIENCE).unwrap().map(|_| ()), None);
}

#[test]
fn many_tasks_from_a_pool_and_the_default_pool_join_once_each() {
    let pool = Pool::new(2).unwrap();
    let count = if cfg!(miri) { 20 } else { 500 };
    let mut group = pool.group::<usize>();
    let ids: Vec<TaskId> = (0..count)
        .map(|i| group.spawn(move || i).unwrap())
        .collect();
    let sum: usize = join_each(&mut group, &ids)
        .into_iter()
        .map(|(_, r)| r.unwrap())
        .sum();
    assert_eq!(sum, count * (count - 1) / 2);
    pool.release_timeout(PATIENCE).unwrap();
    if cfg!(miri) {
        // The default pool is never released: its idle workers would outlive
        // the test's main thread, which Miri reports.
        return;
    }
    let mut group = antpool::group::<usize>();
    let ids: Vec<TaskId> = (0..count)
        .map(|i| group.spawn(move || i).unwrap())
        .collect();
    assert_eq!(join_each(&mut group, &ids).len(), count);
}

#[test]
fn abort_all_racing_the_workers_gives_one_completion_per_task() {
    // Tasks start while the group aborts them: each runs or is cancelled,
    // never both, and comes out once.
    let rounds = if cfg!(miri) { 2 } else { 50 };
    let pool = queue_pool(2, 64);
    for _ in 0..rounds {
        let ran = Arc::new(AtomicUsize::new(0));
        let mut group = pool.group::<()>();
        let ids: Vec<TaskId> = (0..16)
            .map(|_| {
                let ran = ran.clone();
                group
                    .spawn(move || {
                        ran.fetch_add(1, SeqCst);
                    })
                    .unwrap()
            })
            .collect();
        group.abort_all();
        let out = join_each(&mut group, &ids);
        let ok = out.iter().filter(|(_, r)| r.is_ok()).count();
        pool.wait_idle();
        assert_eq!(ok, ran.load(SeqCst), "ran exactly the ones that joined Ok");
    }
}

#[test]
fn every_error_passes_on_with_question_mark_whatever_the_closure_captures() {
    fn run(pool: &Pool) -> anyhow::Result<Vec<u32>> {
        let (tx, rx) = std::sync::mpsc::channel::<u32>(); // Send, not Sync
        tx.send(1)?;
        let mut group = pool.group::<Result<u32, anyhow::Error>>().cancel_on_error();
        group.spawn(move || Ok(rx.recv()?))?;
        group.spawn(|| Err(anyhow::anyhow!("refused")))?;
        Ok(group.try_join_all()?)
    }
    fn boxed(pool: &Pool) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let mut group = pool.group::<u8>();
        group.spawn(|| 1)?;
        assert!(group.join_next_timeout(PATIENCE)?.is_some());
        Ok(())
    }
    let pool = Pool::new(1).unwrap();
    let err = run(&pool).unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
    boxed(&pool).unwrap();
    pool.release();
    assert!(run(&pool).unwrap_err().to_string().contains("released"));
}

/// A task whose group was cancelled through its token (not by the group's own
/// `abort_all`, so nothing swept it) is skipped by the worker that takes it,
/// and its error names the group's cancel as the cause, not a drop.
#[test]
fn a_task_of_a_token_cancelled_group_skipped_by_its_worker_names_the_cancel() {
    let (pool, gate) = common::held_pool(Pool::builder().max_queued_tasks(4));
    let mut group = pool.group::<u8>();
    let token = group.cancel_token();
    group.spawn(|| 1).unwrap(); // queued behind the held worker
    token.cancel();
    gate.open();
    pool.wait_idle(); // the worker took it and skipped it
    let err = group.join_next().unwrap().unwrap_err();
    assert!(err.is_cancelled());
    assert_eq!(
        err.to_string(),
        "the task's group was cancelled before it ran"
    );
    assert!(group.join_next().is_none());
}
