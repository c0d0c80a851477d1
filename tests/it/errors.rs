//! Bad input gets a clear, typed error, and nothing is lost: build errors, the
//! task handed back in every `SubmitError`, and thread-spawn failures.

use crate::common;

use std::collections::HashSet;
use std::error::Error;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use antpool::port::{Job, Spawner};
use antpool::{BuildError, Options, Pool, PoolWithFunc, ReleaseError, SubmitError};
use common::{Counter, Gate, TestSpawner, eventually};

#[test]
fn build_errors_name_the_bad_option() {
    assert_eq!(Pool::new(0).unwrap_err(), BuildError::InvalidCapacity);
    assert_eq!(
        Pool::builder().build().unwrap_err(),
        BuildError::MissingCapacity
    );
    assert_eq!(
        Pool::builder()
            .capacity(4)
            .expiry(Duration::ZERO)
            .build()
            .unwrap_err(),
        BuildError::InvalidExpiry
    );
    // Whatever the capacity, a zero expiry is reported as such.
    assert_eq!(
        Pool::builder()
            .unbounded()
            .expiry(Duration::ZERO)
            .build()
            .unwrap_err(),
        BuildError::InvalidExpiry
    );
    assert_eq!(
        Pool::builder()
            .capacity(0)
            .expiry(Duration::ZERO)
            .build()
            .unwrap_err(),
        BuildError::InvalidExpiry
    );
    assert_eq!(
        Pool::builder()
            .unbounded()
            .prealloc(true)
            .build()
            .unwrap_err(),
        BuildError::InvalidPreAllocSize
    );
    assert_eq!(
        PoolWithFunc::new(0, |_: u8| ()).unwrap_err(),
        BuildError::InvalidCapacity
    );
    assert_eq!(
        PoolWithFunc::builder(|_: u8| ())
            .unbounded()
            .prealloc(true)
            .build()
            .unwrap_err(),
        BuildError::InvalidPreAllocSize
    );
    assert_eq!(
        Options::new().capacity(0).validate(),
        Err(BuildError::InvalidCapacity)
    );
}

#[test]
fn every_error_has_its_own_message_and_is_an_error() {
    let messages: Vec<String> = [
        BuildError::InvalidCapacity,
        BuildError::MissingCapacity,
        BuildError::InvalidExpiry,
        BuildError::InvalidPreAllocSize,
        BuildError::InvalidMultiPoolSize,
        BuildError::QueueUnsupported,
        BuildError::CapacityTooLarge,
        BuildError::DefaultPoolExists,
        BuildError::InvalidMinIdle,
        BuildError::SpawnFailed,
    ]
    .iter()
    .map(|e| e.to_string())
    .chain(
        [ReleaseError::Timeout, ReleaseError::Closed]
            .iter()
            .map(|e| e.to_string()),
    )
    .chain(
        [
            SubmitError::Overload(()),
            SubmitError::Closed(()),
            SubmitError::SpawnFailed(()),
        ]
        .iter()
        .map(|e| e.to_string()),
    )
    .chain([antpool::TimedOut.to_string()])
    .collect();
    let distinct: HashSet<_> = messages.iter().collect();
    assert_eq!(distinct.len(), messages.len(), "{messages:#?}");
    assert!(messages.iter().all(|m| !m.is_empty()));
    let boxed: Box<dyn Error> = Box::new(BuildError::InvalidCapacity);
    assert!(boxed.to_string().contains("capacity"));
    let boxed: Box<dyn Error + Send + Sync> = Box::new(SubmitError::Closed(5_u32));
    assert_eq!(boxed.to_string(), "the pool has been released");
}

#[test]
fn submit_error_debug_does_not_need_the_task_to_be_debug() {
    struct Opaque;
    let err = SubmitError::Overload(Opaque);
    assert_eq!(format!("{err:?}"), "Overload(..)");
    let err: SubmitError<antpool::Task> = SubmitError::SpawnFailed(antpool::Task::new(|| ()));
    assert_eq!(format!("{err:?}"), "SpawnFailed(..)");
}

#[test]
fn a_failed_spawn_hands_the_task_back_and_restores_running() {
    let spawner = TestSpawner::failing(|_| true);
    let pool = Pool::builder()
        .capacity(4)
        .spawner(spawner.clone())
        .build()
        .unwrap();
    let ran = Counter::new();
    let r = ran.clone();
    let err = pool.submit(move || r.add()).unwrap_err();
    assert!(err.is_spawn_failed());
    assert_eq!(pool.running(), 0);
    assert_eq!(pool.free(), Some(4));
    err.into_inner().run();
    assert_eq!(ran.get(), 1, "the task came back intact");
}

#[test]
fn spawn_failures_in_between_successes_lose_nothing() {
    // Every third spawn fails.
    let spawner = TestSpawner::failing(|n| n % 3 == 2);
    let pool = Pool::builder()
        .capacity(8)
        .expiry(Duration::from_millis(1))
        .spawner(spawner.clone())
        .build()
        .unwrap();
    let (ran, returned) = (Counter::new(), Counter::new());
    for _ in 0..500 {
        let r = ran.clone();
        match pool.submit(move || {
            thread::sleep(Duration::from_micros(50));
            r.add();
        }) {
            Ok(()) => {}
            Err(SubmitError::SpawnFailed(task)) => {
                returned.add();
                task.run();
            }
            Err(other) => panic!("unexpected {other}"),
        }
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(
        ran.get(),
        500,
        "every task ran, in the pool or by the caller"
    );
    assert!(returned.get() > 0, "some spawns did fail");
    assert!(eventually(|| spawner.live() == 0));
}

#[test]
fn a_waiter_granted_a_slot_whose_spawn_fails_gets_its_task_back() {
    // The first spawn works, every later one fails.
    let spawner = TestSpawner::failing(|n| n > 0);
    let pool = Arc::new(
        Pool::builder()
            .capacity(1)
            .spawner(spawner)
            .build()
            .unwrap(),
    );
    let gate = Gate::new();
    let g = gate.clone();
    pool.submit(move || g.wait()).unwrap();
    let p = pool.clone();
    let blocked = thread::spawn(move || p.submit(|| ()));
    assert!(eventually(|| pool.waiting() == 1));
    pool.tune(2); // grants the waiter a slot; its spawn fails
    let result = blocked.join().unwrap();
    assert!(result.unwrap_err().is_spawn_failed());
    assert_eq!(pool.running(), 1);
    gate.open();
}

/// A spawner that drops every job: a port bug the pool must survive without
/// leaking its count of workers.
struct DroppingSpawner;

impl Spawner for DroppingSpawner {
    type Signal = antpool::port::StdSignal;
    type Lock = antpool::port::StdLock;
    fn spawn(&self, job: Job) -> Result<(), Job> {
        drop(job);
        Ok(())
    }
    fn signal(&self) -> antpool::port::StdSignal {
        antpool::port::StdSignal::new()
    }
}

#[test]
fn a_dropped_job_gives_its_worker_slot_back() {
    let pool = Pool::builder()
        .capacity(1)
        .spawner(DroppingSpawner)
        .build()
        .unwrap();
    for _ in 0..3 {
        pool.submit(|| ()).unwrap();
        assert_eq!(pool.running(), 0, "the reservation was returned");
    }
    pool.release_timeout(Duration::from_secs(1)).unwrap();
}

#[test]
fn tune_zero_is_ignored() {
    let pool = Pool::new(2).unwrap();
    pool.tune(0);
    assert_eq!(pool.cap(), Some(2));
    pool.submit(|| ()).unwrap();
}
