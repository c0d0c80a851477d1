//! `wait_idle` beside a hand-off task whose worker could not be started: the
//! submitter gives back the worker's reservation, then the task's admission
//! (`unreserve`). A `wait_idle` that comes between the two finds the count
//! still up and waits; the decrement that brings it to 0 must wake it, which
//! it learns from `Adm`'s copy of `IDLERS` (without that copy loom finds the
//! deadlock; it takes two preemptions).

use std::time::Duration;

use antpool::port::{Job, Spawner};
use antpool::{IdleQueue, PoolWithFunc, SubmitError};
use loom::sync::Arc;
use loom::sync::atomic::AtomicU64;
use loom::thread;

use super::harness::{LoomLock, LoomSignal};
use super::{LoomClock, ONE_CPU, check_bounded};

/// A spawner that starts no thread: every spawn hands its job back.
#[derive(Clone)]
struct NoThreads;

impl Spawner for NoThreads {
    type Signal = LoomSignal;
    type Lock = LoomLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        Err(job)
    }

    fn signal(&self) -> LoomSignal {
        ONE_CPU.signal()
    }

    fn parallelism(&self) -> usize {
        1
    }
}

#[test]
fn wait_idle_returns_beside_a_hand_off_task_whose_start_failed() {
    check_bounded("wait_idle vs failed start", 2, || {
        let clock = LoomClock(Arc::new(AtomicU64::new(0)));
        let pool = PoolWithFunc::<u32, _, IdleQueue, _, _>::builder_with(
            |n: u32| panic!("task {n} ran on no thread"),
            clock,
            NoThreads,
        )
        .capacity(1)
        .disable_purge(true)
        .build()
        .unwrap();
        let pool = Arc::new(pool);
        let submitter = {
            let pool = pool.clone();
            thread::spawn(move || pool.invoke(1))
        };
        pool.wait_idle();
        assert!(matches!(
            submitter.join().unwrap(),
            Err(SubmitError::SpawnFailed(1))
        ));
        pool.release_timeout(Duration::MAX).unwrap();
    });
}
