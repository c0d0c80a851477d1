//! What `release` does with the workers parked in the pool: it wakes as many
//! as tasks wait in the queue, to run them, and retires the others at once —
//! and only while the pool stays closed.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use antpool::Pool;
use antpool::port::{Job, Signal, Spawner, StdLock};
use common::{Counter, Gate, TestSpawner, eventually, occupy};

/// A step run on the thread that wakes a waiter, before the wake-up.
type Hook = Box<dyn FnOnce() + Send>;

/// Holds every thread that a token wakes from its park, while `holding`,
/// until `gate` opens: what the pool decided at the wake-up stays in its
/// counts for the test to read. The next signal made takes `next_hook`, and
/// raises `hooked_waits` once its thread waits on it.
#[derive(Clone, Default)]
struct Hold {
    holding: Arc<AtomicBool>,
    gate: Gate,
    next_hook: Arc<Mutex<Option<Hook>>>,
    hooked_waits: Arc<AtomicBool>,
}

impl Hold {
    fn pass(&self) {
        if self.holding.load(Ordering::SeqCst) {
            self.gate.wait();
        }
    }
}

/// A signal that passes the [`Hold`] after each token it consumes, and runs
/// its hook (if it took one) as it is notified.
struct HeldSignal {
    inner: <TestSpawner as Spawner>::Signal,
    hold: Hold,
    hook: Mutex<Option<Hook>>,
}

impl Signal for HeldSignal {
    fn wait(&self) {
        if self.hook.lock().unwrap().is_some() {
            self.hold.hooked_waits.store(true, Ordering::SeqCst);
        }
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
        // SAFETY: `this` is live per the caller until the token is left, so
        // the hook runs on a live signal; so is its field, for as long.
        unsafe {
            let hook = (*this).hook.lock().unwrap().take();
            if let Some(hook) = hook {
                hook();
            }
            Signal::notify(&raw const (*this).inner)
        }
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
            hook: Mutex::new(self.hold.next_hook.lock().unwrap().take()),
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
    assert!(eventually(
        || pool.running() == 0 && spawner.inner.live() == 0
    ));
}

/// A pool reopened while its release is still settling keeps the worker it
/// has parked since: the release's last look at the closed pool's parked
/// workers, which retires them, does not reach the reopened pool's.
///
/// (The reopening is made to come at that moment: a `wait_idle` caller is
/// woken by the release just before that look, and the test's signal runs
/// the reboot, and a task whose worker parks, on the releasing thread as
/// it wakes the caller.)
#[test]
fn a_pool_reopened_as_its_release_settles_keeps_its_new_idle_worker() {
    let spawner = HoldingSpawner {
        inner: TestSpawner::new(),
        hold: Hold::default(),
    };
    let pool = Arc::new(
        Pool::builder()
            .capacity(2)
            .max_queued_tasks(4)
            .disable_purge(true)
            .spawner(spawner.clone())
            .build()
            .unwrap(),
    );
    occupy(&*pool, 1).open();
    assert!(eventually(|| pool.idle() == 1));
    // Paused with a task queued: not idle, so `wait_idle` waits.
    pool.pause();
    pool.submit(|| ()).unwrap();
    let reopen = {
        let pool = Arc::clone(&pool);
        move || {
            pool.reboot();
            assert!(!pool.is_closed());
            pool.submit(|| ()).unwrap();
            assert!(eventually(|| pool.idle() == 1), "its worker parks");
        }
    };
    *spawner.hold.next_hook.lock().unwrap() = Some(Box::new(reopen));
    let idler = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || pool.wait_idle())
    };
    assert!(eventually(|| spawner
        .hold
        .hooked_waits
        .load(Ordering::SeqCst)));
    // The worker the release retires stays at its wake-up meanwhile.
    spawner.hold.holding.store(true, Ordering::SeqCst);
    let drained = pool.release_drain();
    assert_eq!(drained.len(), 1, "the queued task came back");
    assert!(!pool.is_closed(), "reopened");
    assert_eq!(
        (pool.running(), pool.idle()),
        (1, 1),
        "the reopened pool's parked worker stays"
    );
    spawner.hold.gate.open();
    idler.join().unwrap();
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit(move || r.add()).unwrap();
    assert!(ran.reaches(1));
    pool.release_timeout(common::PATIENCE).unwrap();
    assert!(eventually(|| spawner.inner.live() == 0));
}
