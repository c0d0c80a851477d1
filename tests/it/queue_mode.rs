//! Queue mode: a saturated pool queues tasks instead of blocking; workers drain
//! the queue (oldest first) before going idle; nothing queued is ever lost.

use crate::common;

use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use antpool::port::{StdClock, StdSpawner};
use antpool::{BuildError, Options, Pool, PoolWithFunc, StaticPoolWithFunc, SubmitError};
use common::{Counter, Gate, eventually, occupy};

fn queued_pool(cap: usize, queue: usize) -> Pool {
    Pool::builder()
        .capacity(cap)
        .max_queued_tasks(queue)
        .build()
        .unwrap()
}

#[test]
fn a_saturated_pool_queues_instead_of_blocking() {
    let pool = queued_pool(1, 10);
    let gate = occupy(&pool, 1);
    let done = Counter::new();
    for _ in 0..10 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap(); // returns at once
    }
    assert_eq!(pool.queued(), 10);
    assert_eq!(pool.waiting(), 0);
    assert_eq!(pool.running(), 1, "queueing starts no thread");
    gate.open();
    assert!(done.reaches(10));
    assert_eq!(pool.queued(), 0);
}

#[test]
fn queued_tasks_run_oldest_first() {
    let pool = queued_pool(1, 100);
    let gate = occupy(&pool, 1);
    let order = Arc::new(Mutex::new(Vec::new()));
    for i in 0..50 {
        let o = order.clone();
        pool.submit(move || o.lock().unwrap().push(i)).unwrap();
    }
    gate.open();
    pool.wait_idle();
    assert_eq!(*order.lock().unwrap(), (0..50).collect::<Vec<_>>());
}

#[test]
fn a_full_queue_falls_back_to_blocking_and_nonblocking_rules() {
    let pool = Arc::new(queued_pool(1, 2));
    let gate = occupy(&pool, 1);
    pool.submit(|| ()).unwrap();
    pool.submit(|| ()).unwrap();
    assert_eq!(pool.queued(), 2);
    assert!(pool.try_submit(|| ()).unwrap_err().is_overload());
    // A blocking submit now waits; when the queue has room its task moves in.
    let order = Arc::new(Mutex::new(Vec::new()));
    let (p, o) = (pool.clone(), order.clone());
    let blocked = thread::spawn(move || p.submit(move || o.lock().unwrap().push("late")).unwrap());
    assert!(eventually(|| pool.waiting() == 1));
    gate.open();
    blocked.join().unwrap();
    pool.wait_idle();
    assert_eq!(*order.lock().unwrap(), ["late"]);

    let eager = Pool::builder()
        .capacity(1)
        .max_queued_tasks(1)
        .nonblocking(true)
        .build()
        .unwrap();
    let gate = occupy(&eager, 1);
    eager.submit(|| ()).unwrap();
    assert!(eager.submit(|| ()).unwrap_err().is_overload());
    gate.open();
}

#[test]
fn a_waiter_whose_task_moves_into_the_queue_keeps_its_place() {
    let pool = Arc::new(queued_pool(1, 1));
    let gate = occupy(&pool, 1);
    let order = Arc::new(Mutex::new(Vec::new()));
    let o = order.clone();
    pool.submit(move || o.lock().unwrap().push(0)).unwrap(); // queued
    let mut blocked = Vec::new();
    for i in 1..=3 {
        let (p, o) = (pool.clone(), order.clone());
        blocked.push(thread::spawn(move || {
            p.submit(move || o.lock().unwrap().push(i)).unwrap()
        }));
        assert!(eventually(|| pool.waiting() == i));
    }
    gate.open();
    for b in blocked {
        b.join().unwrap();
    }
    pool.wait_idle();
    assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3]);
}

#[test]
fn release_lets_workers_finish_the_queue() {
    let pool = queued_pool(2, 100);
    let gate = occupy(&pool, 2);
    let done = Counter::new();
    for _ in 0..40 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
    }
    pool.release();
    assert!(pool.submit(|| ()).unwrap_err().is_closed());
    gate.open();
    assert!(done.reaches(40), "accepted tasks run even after release");
    assert!(eventually(|| pool.running() == 0));
}

#[test]
fn release_timeout_waits_for_the_queue_to_finish() {
    let pool = queued_pool(2, 100);
    let done = Counter::new();
    for _ in 0..40 {
        let d = done.clone();
        pool.submit(move || {
            thread::sleep(Duration::from_millis(1));
            d.add();
        })
        .unwrap();
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(done.get(), 40);
}

#[test]
fn release_drain_hands_queued_tasks_back_in_order() {
    let pool = queued_pool(1, 10);
    let gate = occupy(&pool, 1);
    let order = Arc::new(Mutex::new(Vec::new()));
    for i in 0..5 {
        let o = order.clone();
        pool.submit(move || o.lock().unwrap().push(i)).unwrap();
    }
    let back = pool.release_drain();
    assert_eq!(back.len(), 5);
    assert_eq!(pool.queued(), 0);
    assert!(pool.is_closed());
    gate.open();
    pool.wait_idle();
    assert!(
        order.lock().unwrap().is_empty(),
        "drained tasks did not run"
    );
    for task in back {
        task.run();
    }
    assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3, 4]);
}

#[test]
fn release_drain_after_release_takes_back_what_has_not_started() {
    let pool = queued_pool(1, 10);
    let gate = occupy(&pool, 1);
    let done = Counter::new();
    for _ in 0..3 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
    }
    pool.release();
    let back = pool.release_drain();
    assert_eq!(back.len(), 3);
    gate.open();
    assert!(eventually(|| pool.running() == 0));
    assert_eq!(done.get(), 0);
}

#[test]
fn pool_with_func_queues_and_drains_arguments() {
    let gate = common::Gate::new();
    let g = gate.clone();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let pool = PoolWithFunc::builder(move |n: u32| {
        if n == 0 {
            g.wait();
        } else {
            s.lock().unwrap().push(n);
        }
    })
    .capacity(1)
    .unbounded_queue()
    .build()
    .unwrap();
    pool.invoke(0).unwrap();
    assert!(eventually(|| pool.running() == 1));
    for n in 1..=5 {
        pool.invoke(n).unwrap();
    }
    assert!(eventually(|| pool.queued() == 5));
    assert_eq!(pool.release_drain(), [1, 2, 3, 4, 5]);
    gate.open();
}

#[test]
fn growing_the_pool_starts_workers_for_queued_tasks() {
    let pool = queued_pool(1, 10);
    let gate = occupy(&pool, 1);
    let started = Counter::new();
    for _ in 0..3 {
        let (s, g) = (started.clone(), gate.clone());
        pool.submit(move || {
            s.add();
            g.wait();
        })
        .unwrap();
    }
    assert_eq!(pool.queued(), 3);
    pool.tune(4);
    assert!(
        started.reaches(3),
        "three new workers took the queued tasks"
    );
    assert_eq!(pool.queued(), 0);
    assert_eq!(pool.running(), 4);
    gate.open();
}

#[test]
fn queue_mode_is_rejected_where_there_is_no_heap_for_it() {
    let pool = StaticPoolWithFunc::<u8, 2, StdClock, StdSpawner>::try_new(
        Options::new().capacity(2).max_queued_tasks(8),
        |_| (),
        StdClock::new(),
        StdSpawner::new(),
    );
    assert_eq!(pool.err(), Some(BuildError::QueueUnsupported));
}

#[test]
fn a_queued_task_is_not_lost_when_the_submitter_is_many_threads() {
    let pool = Arc::new(queued_pool(2, 64));
    let done = Counter::new();
    // Under Miri, which checks the code rather than the odds, a tenth.
    let each = if cfg!(miri) { 200 } else { 2_000 };
    let submitters: Vec<_> = (0..4)
        .map(|_| {
            let (pool, done) = (pool.clone(), done.clone());
            thread::spawn(move || {
                for _ in 0..each {
                    let d = done.clone();
                    match pool.submit(move || d.add()) {
                        Ok(()) => {}
                        Err(SubmitError::Overload(_)) => unreachable!("blocking pool"),
                        Err(e) => panic!("{e}"),
                    }
                }
            })
        })
        .collect();
    for s in submitters {
        s.join().unwrap();
    }
    pool.wait_idle();
    assert_eq!(done.get(), 4 * each);
}

/// How long a test gives a blocked submitter to get in while the queued task
/// that holds the worker waits: only a wrong engine runs it out, and it stays
/// well below the mutation run's limit for a test, so such an engine fails
/// here rather than hangs.
const LET_IN: Duration = Duration::from_secs(10);

/// Spawns a thread that submits a quick task to `pool` (blocking on a full
/// queue) and says on the returned channel when its submit returned.
fn blocked_submit(pool: &Arc<Pool>) -> (thread::JoinHandle<()>, mpsc::Receiver<()>) {
    let (tx, rx) = mpsc::channel();
    let pool = Arc::clone(pool);
    let submitter = thread::spawn(move || {
        pool.submit(|| ()).unwrap();
        tx.send(()).unwrap();
    });
    (submitter, rx)
}

/// A submitter blocked on a full queue gets in once the queue has drained
/// past half, while the worker is still busy with the rest: a busy worker
/// looks at the line every few tasks, not only when the queue runs empty.
/// (A queue of 64 tasks: 16 with the shipped policy.)
#[test]
fn busy_workers_let_a_blocked_submitter_in_before_the_queue_runs_empty() {
    let pool = Arc::new(queued_pool(1, 64));
    let gate = occupy(&pool, 1);
    let done = Counter::new();
    for _ in 0..63 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
    }
    // The last queued task holds the worker until the test has looked.
    let last = Gate::new();
    let l = last.clone();
    pool.submit(move || l.wait()).unwrap();
    assert_eq!(pool.queued(), 64);
    let (submitter, got_in) = blocked_submit(&pool);
    assert!(eventually(|| pool.waiting() == 1));
    gate.open();
    let before_the_end = got_in.recv_timeout(LET_IN).is_ok();
    last.open();
    submitter.join().unwrap();
    assert!(
        before_the_end,
        "let in only once the queue ran empty ({} quick tasks ran)",
        done.get()
    );
    pool.wait_idle();
}

/// A submitter blocked on a full queue gets in as soon as a worker woken for
/// the queued task takes it, not once that task has run: the worker that
/// made the room lets the submitter in before it starts a long task. (The
/// pause keeps the one worker parked while the queue fills.)
#[test]
fn a_woken_worker_lets_a_blocked_submitter_in_as_it_takes_the_task() {
    let pool = Arc::new(queued_pool(1, 1));
    pool.submit(|| ()).unwrap();
    assert!(eventually(|| pool.idle() == 1), "the worker parks");
    pool.pause();
    let gate = Gate::new();
    let g = gate.clone();
    pool.submit(move || g.wait()).unwrap();
    assert_eq!(pool.queued(), 1);
    let (submitter, got_in) = blocked_submit(&pool);
    assert!(eventually(|| pool.waiting() == 1));
    pool.resume();
    let while_it_runs = got_in.recv_timeout(LET_IN).is_ok();
    gate.open();
    submitter.join().unwrap();
    assert!(while_it_runs, "let in only once the long task ended");
    pool.wait_idle();
}
