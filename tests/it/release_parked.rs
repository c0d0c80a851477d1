//! What `release` does with the workers parked in the pool: it wakes as many
//! as tasks wait in the queue, to run them, and retires the others at once.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use antpool::Pool;
use antpool::port::{Job, Signal, Spawner, StdLock};
use common::{Counter, Gate, TestSpawner, eventually, occupy};

/// Holds every worker that a token wakes from its park, while `holding`,
/// until `gate` opens: what the pool decided at the wake-up stays in its
/// counts for the test to read.
#[derive(Clone, Default)]
struct Hold {
    holding: Arc<AtomicBool>,
    gate: Gate,
}

impl Hold {
    fn pass(&self) {
        if self.holding.load(Ordering::SeqCst) {
            self.gate.wait();
        }
    }
}

/// A signal that passes the [`Hold`] after each token it consumes.
struct HeldSignal {
    inner: <TestSpawner as Spawner>::Signal,
    hold: Hold,
}

impl Signal for HeldSignal {
    fn wait(&self) {
        self.inner.wait();
        self.hold.pass();
    }

    fn wait_timeout(&self, timeout: Duration) -> bool {
        let woken = self.inner.wait_timeout(timeout);
        if woken {
            self.hold.pass();
        }
        woken
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: `this` is live per the caller; so is its field, for as long.
        unsafe { Signal::notify(&raw const (*this).inner) }
    }
}

/// A [`TestSpawner`] whose threads park on [`HeldSignal`]s.
#[derive(Clone)]
struct HoldingSpawner {
    inner: TestSpawner,
    hold: Hold,
}

impl Spawner for HoldingSpawner {
    type Signal = HeldSignal;
    type Lock = StdLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        self.inner.spawn(job)
    }

    fn signal(&self) -> HeldSignal {
        HeldSignal {
            inner: self.inner.signal(),
            hold: self.hold.clone(),
        }
    }

    fn parallelism(&self) -> usize {
        self.inner.parallelism()
    }
}

/// Releasing a pool keeps awake only as many of its parked workers as tasks
/// wait in its queue: one task, three idle workers, and the release leaves
/// one worker to run it — the other two retire at once, not after waking up
/// to find nothing to do.
///
/// (The pool is paused, so the task waits in the queue beside the idle
/// workers; the release ends the pause. The workers it wakes are held at
/// their wake-up, so the count read after it is what the release decided.)
#[test]
fn release_wakes_as_many_parked_workers_as_tasks_wait_and_retires_the_rest() {
    let spawner = HoldingSpawner {
        inner: TestSpawner::new(),
        hold: Hold::default(),
    };
    let pool = Pool::builder()
        .capacity(3)
        .max_queued_tasks(4)
        .disable_purge(true)
        .spawner(spawner.clone())
        .build()
        .unwrap();
    occupy(&pool, 3).open();
    assert!(eventually(|| pool.idle() == 3));
    pool.pause();
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit(move || r.add()).unwrap();
    assert_eq!((pool.queued(), pool.idle()), (1, 3));
    spawner.hold.holding.store(true, Ordering::SeqCst);
    pool.release();
    assert_eq!(
        pool.running(),
        1,
        "one worker kept for the one task queued, two retired"
    );
    spawner.hold.gate.open();
    assert!(ran.reaches(1), "the queued task ran");
    assert!(eventually(|| pool.running() == 0 && spawner.inner.live() == 0));
}
