//! Worker hooks: `on_worker_start` / `on_worker_stop` run on the worker's own
//! thread, once each per worker, around its whole life; a panicking hook goes
//! to the panic handler and loses no task.

use crate::common;

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use antpool::{Pool, PoolWithFunc};
use common::{Counter, Gate, PATIENCE, eventually};

thread_local! {
    /// Set by the start hook on the thread it runs on.
    static STARTED_HERE: Cell<bool> = const { Cell::new(false) };
}

/// Counts hook calls, and remembers the threads they ran on.
#[derive(Clone, Default)]
struct Calls {
    starts: Arc<AtomicUsize>,
    stops: Arc<AtomicUsize>,
    threads: Arc<Mutex<Vec<String>>>,
}

impl Calls {
    fn pool(&self, capacity: usize) -> antpool::PoolBuilder {
        let (on_start, on_stop) = (self.clone(), self.clone());
        Pool::builder()
            .capacity(capacity)
            .thread_name("hooked")
            .on_worker_start(move || {
                STARTED_HERE.set(true);
                on_start.starts.fetch_add(1, Ordering::SeqCst);
                on_start.note_thread();
            })
            .on_worker_stop(move || {
                on_stop.stops.fetch_add(1, Ordering::SeqCst);
                on_stop.note_thread();
            })
    }

    fn note_thread(&self) {
        let name = std::thread::current().name().unwrap_or("?").to_owned();
        self.threads.lock().unwrap().push(name);
    }

    fn starts(&self) -> usize {
        self.starts.load(Ordering::SeqCst)
    }

    fn stops(&self) -> usize {
        self.stops.load(Ordering::SeqCst)
    }
}

#[test]
fn every_worker_runs_its_start_hook_before_its_first_task_and_its_stop_hook_last() {
    let calls = Calls::default();
    // No worker may expire before the release (under Miri beside another
    // test, a worker once sat idle past the default second and stopped).
    let pool = calls.pool(4).expiry(PATIENCE).build().unwrap();
    let handles: Vec<_> = (0..32)
        .map(|_| {
            pool.spawn(|| {
                std::thread::sleep(Duration::from_millis(1));
                STARTED_HERE.get()
            })
            .unwrap()
        })
        .collect();
    for handle in handles {
        assert!(
            handle.join().unwrap(),
            "a task ran on a worker whose start hook had not run"
        );
    }
    assert_eq!(calls.starts(), pool.stats().spawned);
    assert_eq!(calls.stops(), 0, "no worker has stopped yet");

    pool.release_timeout(PATIENCE).unwrap();
    // `Ok` means every stop hook has run, not merely been started.
    let stats = pool.stats();
    assert_eq!(calls.stops(), stats.spawned);
    assert_eq!(calls.starts(), stats.spawned);
    assert_eq!(stats.retired, stats.spawned);
    let threads = calls.threads.lock().unwrap();
    assert_eq!(threads.len(), 2 * stats.spawned);
    assert!(
        threads.iter().all(|t| t.starts_with("hooked-")),
        "every hook ran on a worker thread: {threads:?}"
    );
}

#[test]
fn a_worker_that_expires_or_is_tuned_away_runs_its_stop_hook() {
    let calls = Calls::default();
    let pool = calls
        .pool(3)
        .expiry(Duration::from_millis(20))
        .build()
        .unwrap();
    // Three workers, held together so that three start.
    let gate = Gate::new();
    for _ in 0..3 {
        let g = gate.clone();
        pool.submit(move || g.wait()).unwrap();
    }
    assert!(eventually(|| calls.starts() == 3));
    gate.open();
    assert!(pool.wait_idle_timeout(PATIENCE));
    // Tuned down to one: surplus idle workers retire now.
    pool.tune(1);
    assert!(eventually(|| calls.stops() >= 2), "tuned-away workers stop");
    // The last one expires.
    assert!(eventually(|| calls.stops() == 3), "an expired worker stops");
    assert!(!pool.is_closed());
    assert_eq!(pool.running(), 0);
    // A new worker starts again, with its hook.
    pool.spawn(|| ()).unwrap().join().unwrap();
    assert_eq!(calls.starts(), 4, "its hook ran before its task");
    pool.release_timeout(PATIENCE).unwrap();
    assert_eq!(calls.stops(), 4);
}

#[test]
fn a_panicking_hook_goes_to_the_panic_handler_and_loses_no_task() {
    let reported = Arc::new(Mutex::new(Vec::<String>::new()));
    let r = reported.clone();
    let ran = Counter::new();
    let pool = Pool::builder()
        .capacity(2)
        .on_worker_start(|| panic!("start hook"))
        .on_worker_stop(|| panic!("stop hook"))
        .panic_handler(move |payload| {
            let msg = antpool::panic_message(&*payload).unwrap_or("?").to_owned();
            r.lock().unwrap().push(msg);
        })
        .build()
        .unwrap();
    // The first task travels with the new worker: the hook's panic must not
    // take it down.
    for _ in 0..10 {
        let ran = ran.clone();
        pool.submit(move || ran.add()).unwrap();
    }
    assert_eq!(pool.spawn(|| 7).unwrap().join().unwrap(), 7);
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(ran.get(), 10);
    pool.release_timeout(PATIENCE).unwrap();
    let stats = pool.stats();
    assert_eq!(stats.panicked, 0, "a hook's panic is not a task's");
    assert_eq!(stats.completed, 11);
    let reported = reported.lock().unwrap();
    let starts = reported.iter().filter(|m| *m == "start hook").count();
    let stops = reported.iter().filter(|m| *m == "stop hook").count();
    assert_eq!(
        (starts, stops),
        (stats.spawned, stats.spawned),
        "{reported:?}"
    );
}

#[test]
fn function_pools_and_multi_pools_take_the_same_hooks() {
    let starts = Counter::new();
    let s = starts.clone();
    let pool = PoolWithFunc::builder(|n: u64| assert!(n < 10))
        .capacity(2)
        .on_worker_start(move || s.add())
        .build()
        .unwrap();
    pool.invoke(3).unwrap();
    pool.release_timeout(PATIENCE).unwrap();
    assert_eq!(starts.get(), pool.stats().spawned);

    let starts = Counter::new();
    let s = starts.clone();
    let mp = antpool::MultiPool::from_builder(
        3,
        antpool::LoadBalancing::RoundRobin,
        Pool::builder().capacity(1).on_worker_start(move || s.add()),
    )
    .unwrap();
    for _ in 0..3 {
        mp.submit(|| ()).unwrap(); // round robin: one task to each pool
    }
    mp.release_timeout(PATIENCE).unwrap();
    assert_eq!(starts.get(), 3, "one hook, shared by the pools");
}

/// A static pool's hooks are plain functions (no heap): each runs once per
/// worker on its own thread; a panicking start hook loses no task.
#[test]
fn a_static_pool_runs_function_hooks_on_its_workers() {
    use antpool::StaticPoolWithFunc;
    use antpool::port::{StdClock, StdSpawner};

    static STARTS: AtomicUsize = AtomicUsize::new(0);
    static STOPS: AtomicUsize = AtomicUsize::new(0);
    static RAN_ON_STARTED: AtomicUsize = AtomicUsize::new(0);
    fn start() {
        STARTED_HERE.set(true);
        STARTS.fetch_add(1, Ordering::SeqCst);
    }
    fn stop() {
        assert!(
            STARTED_HERE.get(),
            "the stop hook runs on the started thread"
        );
        STOPS.fetch_add(1, Ordering::SeqCst);
    }
    fn work(_: u8) {
        if STARTED_HERE.get() {
            RAN_ON_STARTED.fetch_add(1, Ordering::SeqCst);
        }
    }
    type Static = StaticPoolWithFunc<u8, 2, StdClock, StdSpawner>;
    let options = antpool::Options::new().capacity(2);
    // Leaked, and kept reachable from a static (Miri's leak check).
    static HOOKED: OnceLock<&'static Static> = OnceLock::new();
    let pool = *HOOKED.get_or_init(|| {
        Box::leak(Box::new(
            Static::new(options, work, StdClock::new(), StdSpawner::new())
                .on_worker_start(start)
                .on_worker_stop(stop),
        ))
    });
    for n in 0..10 {
        pool.invoke(n).unwrap();
    }
    pool.release_timeout(PATIENCE).unwrap();
    let workers = pool.stats().spawned;
    assert_eq!(STARTS.load(Ordering::SeqCst), workers);
    assert_eq!(
        STOPS.load(Ordering::SeqCst),
        workers,
        "every stop hook ran before release returned"
    );
    assert_eq!(RAN_ON_STARTED.load(Ordering::SeqCst), 10);

    static DONE: AtomicUsize = AtomicUsize::new(0);
    fn boom() {
        panic!("start hook");
    }
    fn count(_: u8) {
        DONE.fetch_add(1, Ordering::SeqCst);
    }
    static PANICKY: OnceLock<&'static Static> = OnceLock::new();
    let pool = *PANICKY.get_or_init(|| {
        Box::leak(Box::new(
            Static::new(options, count, StdClock::new(), StdSpawner::new()).on_worker_start(boom),
        ))
    });
    pool.invoke(1).unwrap();
    pool.release_timeout(PATIENCE).unwrap();
    assert_eq!(
        DONE.load(Ordering::SeqCst),
        1,
        "the task ran despite the hook's panic"
    );
}

#[test]
fn hooks_and_tasks_know_their_workers_number_which_names_its_thread() {
    type Seen = Arc<Mutex<Vec<(&'static str, usize, String)>>>;
    let seen: Seen = Arc::default();
    let (start, stop) = (seen.clone(), seen.clone());
    let record = |what, seen: &Seen| {
        let index = antpool::current_worker_index().expect("on a worker");
        let name = std::thread::current().name().unwrap().to_owned();
        seen.lock().unwrap().push((what, index, name));
    };
    let pool = Pool::builder()
        .capacity(3)
        .thread_name_with(|i| format!("n{i}"))
        .on_worker_start(move || record("start", &start))
        .on_worker_stop(move || record("stop", &stop))
        .min_idle(3)
        .build()
        .unwrap();
    assert_eq!(
        antpool::current_worker_index(),
        None,
        "the test's thread is no worker"
    );
    pool.release_timeout(PATIENCE).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 6);
    for (what, index, name) in seen.iter() {
        assert_eq!(name, &format!("n{index}"), "{what}");
    }
    let mut started: Vec<usize> = seen
        .iter()
        .filter(|s| s.0 == "start")
        .map(|s| s.1)
        .collect();
    started.sort();
    assert_eq!(started, [0, 1, 2]);
}
