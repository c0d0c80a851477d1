//! Panics: a task that panics is caught, its payload goes to the panic handler
//! (default: `log::error!`), and the worker keeps serving.

use crate::common;

use std::any::Any;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

use antpool::{Pool, PoolWithFunc};
use common::{Counter, eventually};

/// Captures `log` records so the default handler can be checked.
struct Capture(Mutex<Vec<(log::Level, String)>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }
    fn log(&self, record: &log::Record) {
        self.0
            .lock()
            .unwrap()
            .push((record.level(), record.args().to_string()));
    }
    fn flush(&self) {}
}

static LOGS: Capture = Capture(Mutex::new(Vec::new()));

fn quiet_panics() {
    // The std panic hook would print every expected panic; keep the output clean.
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn the_handler_gets_the_payload_and_the_worker_survives() {
    quiet_panics();
    let payloads = Arc::new(Mutex::new(Vec::<String>::new()));
    let p = payloads.clone();
    let pool = Pool::builder()
        .capacity(1)
        .panic_handler(move |payload: Box<dyn Any + Send>| {
            p.lock()
                .unwrap()
                .push(payload.downcast_ref::<&str>().unwrap().to_string());
        })
        .build()
        .unwrap();
    let threads = Arc::new(Mutex::new(Vec::<ThreadId>::new()));
    for i in 0..3 {
        let t = threads.clone();
        pool.submit(move || {
            t.lock().unwrap().push(thread::current().id());
            if i < 2 {
                panic!("boom");
            }
        })
        .unwrap();
    }
    pool.release_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(*payloads.lock().unwrap(), ["boom", "boom"]);
    let threads = threads.lock().unwrap();
    assert_eq!(threads.len(), 3);
    assert!(
        threads.iter().all(|t| *t == threads[0]),
        "one worker ran all three"
    );
}

#[test]
fn without_a_handler_the_panic_is_logged_as_an_error() {
    quiet_panics();
    log::set_logger(&LOGS).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    let pool = Pool::new(1).unwrap();
    pool.submit(|| panic!("logged {}", 42)).unwrap();
    let done = Counter::new();
    let d = done.clone();
    pool.submit(move || d.add()).unwrap();
    assert!(done.reaches(1), "the worker kept serving");
    assert!(eventually(|| {
        LOGS.0
            .lock()
            .unwrap()
            .iter()
            .any(|(level, msg)| *level == log::Level::Error && msg.contains("logged 42"))
    }));
}

#[test]
fn a_panicking_handler_does_not_kill_the_worker() {
    quiet_panics();
    let pool = Pool::builder()
        .capacity(1)
        .panic_handler(|_| panic!("the handler panics too"))
        .build()
        .unwrap();
    pool.submit(|| panic!("first")).unwrap();
    let done = Counter::new();
    let d = done.clone();
    pool.submit(move || d.add()).unwrap();
    assert!(done.reaches(1));
    assert_eq!(pool.running(), 1);
}

#[test]
fn pool_with_func_catches_panics_too() {
    quiet_panics();
    let caught = Counter::new();
    let c = caught.clone();
    let pool = PoolWithFunc::builder(|n: u32| assert!(n % 2 == 0, "odd {n}"))
        .capacity(2)
        .panic_handler(move |_| c.add())
        .build()
        .unwrap();
    for n in 0..10 {
        pool.invoke(n).unwrap();
    }
    pool.release_timeout(Duration::from_secs(5)).unwrap();
    assert_eq!(caught.get(), 5);
}

#[test]
fn a_spawned_tasks_panic_goes_to_the_handler_once_its_handle_is_dropped() {
    quiet_panics();
    let payloads = Arc::new(Mutex::new(Vec::<String>::new()));
    let p = payloads.clone();
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .panic_handler(move |payload: Box<dyn Any + Send>| {
            let msg = antpool::panic_message(&*payload).unwrap_or("?").to_string();
            p.lock().unwrap().push(msg);
        })
        .build()
        .unwrap();
    let gate = common::occupy(&pool, 1);
    // Dropped before its task ran: the panic reaches the handler.
    drop(pool.spawn(|| panic!("nobody joins me")).unwrap());
    // The same for a spawn_async future dropped after the pool took its task.
    let fut = pool.spawn_async(|| panic!("detached async"));
    let mut fut = Box::pin(fut);
    let waker = std::task::Waker::noop();
    assert!(
        fut.as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
            .is_pending()
    );
    drop(fut); // queued: the pool has it; it runs, unjoined
    // Kept: the handle gets the payload, the handler does not.
    let kept = pool.spawn(|| panic!("joined")).unwrap();
    gate.open();
    assert!(kept.join().unwrap_err().is_panic());
    assert!(pool.wait_idle_timeout(common::PATIENCE));
    assert_eq!(
        *payloads.lock().unwrap(),
        ["nobody joins me", "detached async"]
    );
    assert_eq!(pool.stats().panicked, 3);
    pool.release_timeout(Duration::from_secs(5)).unwrap();
}

#[test]
fn a_drained_spawn_run_by_its_holder_panics_in_the_holders_call() {
    quiet_panics();
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    let gate = common::occupy(&pool, 1);
    drop(pool.spawn(|| panic!("mine")).unwrap());
    let mut drained = pool.release_drain();
    assert_eq!(drained.len(), 1);
    let task = drained.pop().unwrap();
    // No handle, no worker: the panic is the caller's, as a closure's own.
    let payload =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| task.run())).unwrap_err();
    assert_eq!(antpool::panic_message(&*payload), Some("mine"));
    gate.open();
    assert!(pool.wait_idle_timeout(common::PATIENCE));
}

/// The std clock, which panics once, on the first read by a worker thread
/// (of `TestSpawner`'s) after the trap is armed.
#[cfg(feature = "timings")]
#[derive(Default)]
struct TrapClock {
    clock: antpool::port::StdClock,
    armed: std::sync::atomic::AtomicBool,
}

#[cfg(feature = "timings")]
impl antpool::port::Clock for TrapClock {
    fn now(&self) -> antpool::port::Instant {
        let on_worker = thread::current()
            .name()
            .is_some_and(|name| name.starts_with("test-worker"));
        if on_worker && self.armed.swap(false, std::sync::atomic::Ordering::SeqCst) {
            panic!("the clock failed");
        }
        self.clock.now()
    }
}

/// A panic that no task catches — the pool's clock, read by a worker as it
/// times the task it just ran — ends that worker's thread. Its place goes
/// back (counted as panicked), and the task queued behind gets a worker.
#[cfg(feature = "timings")]
#[test]
fn a_worker_ended_by_a_panicking_clock_gives_its_place_back_to_the_queue() {
    let clock = Arc::new(TrapClock::default());
    let pool = Pool::builder_with(clock.clone(), common::TestSpawner::new())
        .capacity(1)
        .unbounded_queue()
        .timings(antpool::Sampling::Every)
        .build()
        .unwrap();
    let gate = common::Gate::new();
    let (g, c) = (gate.clone(), clock.clone());
    pool.submit(move || {
        g.wait();
        // The worker reads the clock next, to time this task.
        c.armed.store(true, std::sync::atomic::Ordering::SeqCst);
    })
    .unwrap();
    let behind = Counter::new();
    let b = behind.clone();
    pool.submit(move || b.add()).unwrap();
    gate.open();
    assert!(behind.reaches(1), "the task queued behind was stranded");
    assert!(eventually(|| pool.stats().panicked == 1));
    // (Counted once the start returns, perhaps after the task ran.)
    assert!(
        eventually(|| pool.stats().spawned == 2),
        "a new worker took the queue"
    );
    // (The ended thread is still counted live by the test spawner, which
    // counts a thread out only when its job returns.)
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(pool.running(), 0, "a worker outlived the release");
}
