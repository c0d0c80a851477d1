//! A release that catches a submit half way: admitted before the release, its
//! task not yet in the queue. The submitter is held there by the pool's clock,
//! which it reads to stamp its task (feature `timings`, every task sampled)
//! just before it takes its slot in the queue. Likewise a release that
//! catches a worker half way to its park, held at the clock read that
//! begins it.

use crate::common;

use std::pin::pin;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::thread::{self, ThreadId};

use antpool::port::{Clock, Instant, StdClock};
use antpool::{Pool, Sampling};
use common::{Counter, Gate, PATIENCE, TestSpawner, counting_waker, eventually, occupy, poll_once};

/// The std clock with a trap: the next read by the thread that set it holds
/// that thread until the test lets it go.
struct TrapClock {
    inner: StdClock,
    set_by: Mutex<Option<ThreadId>>,
    caught: AtomicBool,
    go: Gate,
}

impl TrapClock {
    fn new() -> Arc<Self> {
        Arc::new(TrapClock {
            inner: StdClock::new(),
            set_by: Mutex::new(None),
            caught: AtomicBool::new(false),
            go: Gate::new(),
        })
    }

    /// Sets the trap for the calling thread's next read.
    fn set_for_me(&self) {
        *self.set_by.lock().unwrap() = Some(thread::current().id());
    }

    /// Whether a thread is held in the trap (or was).
    fn caught(&self) -> bool {
        self.caught.load(SeqCst)
    }

    fn let_go(&self) {
        self.go.open();
    }
}

impl Clock for TrapClock {
    fn now(&self) -> Instant {
        let me = thread::current().id();
        let trapped = self
            .set_by
            .lock()
            .unwrap()
            .take_if(|id| *id == me)
            .is_some();
        if trapped {
            self.caught.store(true, SeqCst);
            self.go.wait();
        }
        self.inner.now()
    }
}

/// A pool on the trap clock and a counting spawner.
type TrapPool = Pool<antpool::IdleQueue, Arc<TrapClock>, TestSpawner>;

/// A pool built from `builder` on a trap clock (every task timed, so every
/// submit reads the clock) and `spawner`, with one worker started by a first
/// task and parked again: the next submit pushes its task into the queue
/// (for that worker to take) rather than start a thread that carries it.
fn trapped(
    builder: antpool::PoolBuilder,
    spawner: &TestSpawner,
) -> (Arc<TrapPool>, Arc<TrapClock>) {
    let clock = TrapClock::new();
    let pool = builder
        .timings(Sampling::Every)
        .clock(Arc::clone(&clock))
        .spawner(spawner.clone())
        .build()
        .unwrap();
    pool.submit(|| ()).unwrap();
    pool.wait_idle();
    assert!(eventually(|| pool.idle() == 1), "the worker parks");
    (Arc::new(pool), clock)
}

/// A submit that a release catches half way in a queue pool is refused
/// `Closed`, and its task never runs: once `release_timeout` has returned,
/// the pool takes no task and starts no thread.
#[test]
fn a_submit_caught_half_way_by_a_release_is_refused() {
    let spawner = TestSpawner::new();
    let (pool, clock) = trapped(Pool::builder().capacity(2).max_queued_tasks(4), &spawner);
    let ran = Counter::new();
    let submitter = {
        let (pool, clock, ran) = (Arc::clone(&pool), Arc::clone(&clock), ran.clone());
        thread::spawn(move || {
            clock.set_for_me();
            pool.submit(move || ran.add())
        })
    };
    assert!(eventually(|| clock.caught()), "the submit stamps its task");
    pool.release_timeout(PATIENCE).unwrap();
    let started = spawner.started.load(SeqCst);
    clock.let_go();
    let result = submitter.join().unwrap();
    assert!(result.is_err_and(|e| e.is_closed()), "refused Closed");
    assert_eq!(
        spawner.started.load(SeqCst),
        started,
        "no thread started after the release"
    );
    assert_eq!(ran.get(), 0);
}

/// A released hand-off pool whose last task sits in the queue with no
/// worker — caught half way by the release, it was admitted, and no thread
/// could be started for it — ends its release when that task is cleared
/// from the queue: whoever waits for the release is woken.
#[test]
fn clearing_the_last_task_of_a_released_hand_off_pool_ends_the_release() {
    let spawner = TestSpawner::failing(|n| n >= 1);
    let (pool, clock) = trapped(Pool::builder().capacity(1), &spawner);
    let submitter = {
        let (pool, clock) = (Arc::clone(&pool), Arc::clone(&clock));
        thread::spawn(move || {
            clock.set_for_me();
            pool.submit(|| ()).is_ok()
        })
    };
    assert!(eventually(|| clock.caught()), "the submit stamps its task");
    let mut release = pin!(pool.release_async());
    let (waker, wakes) = counting_waker();
    assert!(poll_once(release.as_mut(), &waker).is_pending());
    assert!(
        eventually(|| spawner.live() == 0),
        "the parked worker retired"
    );
    clock.let_go();
    assert!(submitter.join().unwrap(), "admitted before the release");
    assert_eq!(pool.queued(), 1, "no thread could be started for it");
    assert!(poll_once(release.as_mut(), &waker).is_pending());
    let before = wakes.0.load(SeqCst);
    assert_eq!(pool.clear_queue(), 1);
    assert!(
        wakes.0.load(SeqCst) > before,
        "the release's waiter is woken"
    );
    assert!(matches!(
        poll_once(release.as_mut(), &waker),
        Poll::Ready(Ok(()))
    ));
    assert_eq!(spawner.attempts.load(SeqCst), 2);
}

/// A release that catches a submit half way in a hand-off pool whose last
/// worker is busy keeps that worker for the late task: the worker, done with
/// its own task in the released pool, stays rather than retire, and runs the
/// task once it comes — no new thread is needed for it (here none could
/// start), and the release ends once it ran.
#[test]
fn a_released_hand_off_pool_keeps_its_busy_worker_for_a_task_caught_half_way() {
    let spawner = TestSpawner::failing(|n| n >= 2);
    // (No expiry: the parked worker stays until the release retires it.)
    let builder = Pool::builder().capacity(2).disable_purge(true);
    let (pool, clock) = trapped(builder, &spawner);
    // Two workers: one busy, one parked (so the late submit pushes its task
    // into the queue rather than start a thread that carries it).
    let busy = occupy(&*pool, 1);
    occupy(&*pool, 1).open();
    assert!(eventually(|| pool.idle() == 1), "the second worker parks");
    let ran = Counter::new();
    let submitter = {
        let (pool, clock, ran) = (Arc::clone(&pool), Arc::clone(&clock), ran.clone());
        thread::spawn(move || {
            clock.set_for_me();
            pool.submit(move || ran.add()).is_ok()
        })
    };
    assert!(eventually(|| clock.caught()), "the submit stamps its task");
    pool.release();
    assert!(
        eventually(|| spawner.live() == 1),
        "the parked worker retired"
    );
    busy.open();
    assert!(
        eventually(|| pool.idle() == 1 || spawner.live() == 0),
        "the busy worker finished its task"
    );
    assert_eq!(spawner.live(), 1, "the worker stays for the admitted task");
    clock.let_go();
    assert!(submitter.join().unwrap(), "admitted before the release");
    assert!(ran.reaches(1), "the late task ran");
    assert!(pool.wait_released_timeout(PATIENCE));
    assert_eq!(
        spawner.attempts.load(SeqCst),
        2,
        "on the worker the pool had"
    );
}

/// A task already in the queue when the pool is released runs on a worker
/// the pool has: the release starts no thread for it, even when the one
/// worker free to take it is caught on its way to park (having found the
/// queue empty just before) while the other is busy.
///
/// (One CPU, so the worker looks once and goes to park without spinning;
/// the clock's trap holds it at the read that begins its park, set by its
/// last task. Timings are off, so nothing else on that worker reads it.)
#[test]
fn a_release_starts_no_thread_for_a_task_a_parking_worker_can_take() {
    let spawner = TestSpawner::new().on_cpus(1);
    let clock = TrapClock::new();
    let pool = Arc::new(
        Pool::builder()
            .capacity(2)
            .unbounded_queue()
            .clock(Arc::clone(&clock))
            .spawner(spawner.clone())
            .build()
            .unwrap(),
    );
    let busy = occupy(&*pool, 1);
    pool.submit(|| ()).unwrap();
    assert!(eventually(|| pool.idle() == 1), "the second worker parks");
    // Woken for this task, the second worker springs the trap on its way
    // back to park.
    let c = Arc::clone(&clock);
    pool.submit(move || c.set_for_me()).unwrap();
    assert!(eventually(|| clock.caught()), "the worker goes to park");
    let ran = Counter::new();
    let r = ran.clone();
    pool.submit(move || r.add()).unwrap();
    assert_eq!(pool.queued(), 1, "at the capacity: queued");
    let releaser = {
        let pool = Arc::clone(&pool);
        thread::spawn(move || pool.release_timeout(PATIENCE))
    };
    assert!(eventually(|| pool.is_closed()));
    clock.let_go();
    assert!(ran.reaches(1), "the queued task ran");
    busy.open();
    releaser.join().unwrap().unwrap();
    assert_eq!(
        spawner.attempts.load(SeqCst),
        2,
        "no thread started for the queued task"
    );
}
