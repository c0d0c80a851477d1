//! The chain of wake-ups: a burst of tasks left to one awake looker (busy
//! workers crowding the CPUs, tasks not tiny) still gets a worker for each
//! task, passed on from worker to worker, while the busy workers stay stuck.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use antpool::Pool;
use antpool::port::{Job, Spawner, StdSpawner};
use common::{Counter, Gate, PATIENCE, occupy};

/// A spawner of one CPU (the trait's default `parallelism`) whose thread
/// for the spawn numbered `held` (0-based) waits on `gate` before it runs
/// its job: that worker stays counted in the pool's word, not yet running.
#[derive(Clone)]
struct HeldSpawner {
    inner: StdSpawner,
    spawns: Arc<AtomicUsize>,
    held: usize,
    gate: Gate,
}

impl Spawner for HeldSpawner {
    type Signal = antpool::port::StdSignal;
    type Lock = antpool::port::StdLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        let n = self.spawns.fetch_add(1, Ordering::SeqCst);
        let gate = (n == self.held).then(|| self.gate.clone());
        std::thread::Builder::new()
            .name(format!("held-worker-{n}"))
            .spawn(move || {
                if let Some(gate) = gate {
                    gate.wait();
                }
                job.run();
            })
            .expect("the test's threads start");
        Ok(())
    }

    fn signal(&self) -> antpool::port::StdSignal {
        self.inner.signal()
    }
}

/// Three workers stuck on one CPU (twice the CPUs over: wake-ups chain) and
/// one looker counted awake: a burst submitted then is left to that looker
/// alone, with no wake-up per task. Once it runs, every task of the burst
/// gets a worker — the looker that takes one while more wait brings the
/// next — up to the capacity, without waiting for the stuck workers.
#[test]
fn a_burst_left_to_one_looker_gets_a_worker_for_each_task() {
    let start = Gate::new();
    let spawner = HeldSpawner {
        inner: StdSpawner::new(),
        spawns: Arc::default(),
        // The fourth thread: the looker that `tune` starts below.
        held: 3,
        gate: start.clone(),
    };
    let pool = Pool::builder()
        .capacity(3)
        .unbounded_queue()
        .spawner(spawner.clone())
        .build()
        .unwrap();
    let stuck = occupy(&pool, 3);
    let (ran, burst) = (Counter::new(), Gate::new());
    let submit = || {
        let (ran, burst) = (ran.clone(), burst.clone());
        pool.submit(move || {
            ran.add();
            burst.wait();
        })
        .unwrap();
    };
    // At the capacity: the first task waits in the queue. Room for three
    // more: `tune` starts a looker for it, held before it runs.
    submit();
    pool.tune(6);
    assert_eq!(spawner.spawns.load(Ordering::SeqCst), 4);
    // Two more, with a looker awake and the busy workers crowding the one
    // CPU: left to the looker (no thread started for them).
    submit();
    submit();
    assert_eq!(
        spawner.spawns.load(Ordering::SeqCst),
        4,
        "left to the looker"
    );
    start.open();
    assert!(
        ran.reaches(3),
        "{} of the burst's 3 tasks ran beside the stuck workers",
        ran.get()
    );
    burst.open();
    stuck.open();
    pool.release_timeout(PATIENCE).unwrap();
}
