//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod poll;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use antpool::port::{Job, ManualClock, Spawner, StdSpawner};

/// How long a test waits for something that should happen promptly.
///
/// Only a failing test ever waits this long, so it is generous: under Miri a
/// panic that prints its backtrace takes seconds of real time, and CI's Miri
/// step once ran a hook test's 5 s wait out on a loaded machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Holds every other test of this binary off while one runs: for the tests
/// of `tests/process/`, which count or change something process-wide.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Polls `cond` until it holds or `PATIENCE` runs out; returns whether it held.
pub fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    cond()
}

/// A gate that tasks block on until the test opens it.
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn wait(&self) {
        let (open, cvar) = &*self.0;
        let mut open = open.lock().unwrap();
        while !*open {
            open = cvar.wait(open).unwrap();
        }
    }

    pub fn open(&self) {
        let (open, cvar) = &*self.0;
        *open.lock().unwrap() = true;
        cvar.notify_all();
    }
}

/// Counts how many tasks have started, and lets a test wait for a number of them.
#[derive(Clone, Default)]
pub struct Counter(Arc<AtomicUsize>);

impl Counter {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn add(&self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
    pub fn get(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
    pub fn reaches(&self, n: usize) -> bool {
        eventually(|| self.get() >= n)
    }
}

/// OS threads of this process (Linux: entries of /proc/self/task).
pub fn os_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task (these tests run on Linux)")
        .count()
}

/// The threads of this process whose name starts as the std spawner names
/// its workers (`antpool-worker-N`; the kernel keeps 15 bytes of a name):
/// what a pool started, whatever else the test harness runs beside it.
pub fn worker_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task (these tests run on Linux)")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("antpool-worker"))
        .count()
}

/// A `StdSpawner` that counts the worker threads it started and that have ended,
/// and the threads parked on its signals, and fails the spawns that `fail`
/// picks (by 0-based spawn number).
#[derive(Clone)]
pub struct TestSpawner {
    inner: StdSpawner,
    pub attempts: Arc<AtomicUsize>,
    pub started: Arc<AtomicUsize>,
    pub ended: Arc<AtomicUsize>,
    parked: Arc<AtomicUsize>,
    fail: Arc<dyn Fn(usize) -> bool + Send + Sync>,
    cpus: Option<usize>,
    held: Option<(usize, Gate)>,
    timeless: bool,
}

impl TestSpawner {
    pub fn new() -> Self {
        Self::failing(|_| false)
    }

    pub fn failing(fail: impl Fn(usize) -> bool + Send + Sync + 'static) -> Self {
        TestSpawner {
            inner: StdSpawner::new().name("test-worker"),
            attempts: Arc::default(),
            started: Arc::default(),
            ended: Arc::default(),
            parked: Arc::default(),
            fail: Arc::new(fail),
            cpus: None,
            held: None,
            timeless: false,
        }
    }

    /// The same, telling the pool it runs on `cpus` CPUs (1: no spinning,
    /// no watch, nothing left to a busy worker; wake-ups chain past two busy
    /// workers).
    pub fn on_cpus(self, cpus: usize) -> Self {
        TestSpawner {
            cpus: Some(cpus),
            ..self
        }
    }

    /// The same, with the thread of spawn number `n` (0-based) held until
    /// `gate` opens before it runs its job: that worker stays counted in the
    /// pool (a looker, or busy with the task it carries), not yet running.
    pub fn holding(self, n: usize, gate: &Gate) -> Self {
        TestSpawner {
            held: Some((n, gate.clone())),
            ..self
        }
    }

    /// The same, with waits whose timeout never runs out: a parked worker
    /// wakes only when notified (no expiry of its own, no look on watch), so
    /// a test decides when anything happens. Every timed wait on its signals
    /// waits for good, `release_timeout`'s and a blocked submit's too.
    pub fn timeless(self) -> Self {
        TestSpawner {
            timeless: true,
            ..self
        }
    }

    pub fn live(&self) -> usize {
        self.started.load(Ordering::SeqCst) - self.ended.load(Ordering::SeqCst)
    }

    /// Threads in a wait on one of its signals now: parked workers (a
    /// watcher between two looks is not counted) and blocked submitters.
    pub fn parked(&self) -> usize {
        self.parked.load(Ordering::SeqCst)
    }
}

/// A `StdSignal` that counts the threads waiting on it in its spawner's
/// `parked`.
pub struct CountedSignal {
    inner: antpool::port::StdSignal,
    parked: Arc<AtomicUsize>,
    timeless: bool,
}

impl antpool::port::Signal for CountedSignal {
    fn wait(&self) {
        self.parked.fetch_add(1, Ordering::SeqCst);
        self.inner.wait();
        self.parked.fetch_sub(1, Ordering::SeqCst);
    }
    fn wait_timeout(&self, timeout: Duration) -> bool {
        self.parked.fetch_add(1, Ordering::SeqCst);
        let woken = match self.timeless {
            true => {
                self.inner.wait();
                true
            }
            false => self.inner.wait_timeout(timeout),
        };
        self.parked.fetch_sub(1, Ordering::SeqCst);
        woken
    }
    unsafe fn notify(this: *const Self) {
        // SAFETY: `this` is live until the token is published (the caller's
        // contract), and the inner signal is the part that publishes it.
        unsafe { antpool::port::Signal::notify(std::ptr::addr_of!((*this).inner)) }
    }
}

impl Spawner for TestSpawner {
    type Signal = CountedSignal;
    type Lock = antpool::port::StdLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        let n = self.attempts.fetch_add(1, Ordering::SeqCst);
        if (self.fail)(n) {
            return Err(job);
        }
        let (started, ended) = (self.started.clone(), self.ended.clone());
        started.fetch_add(1, Ordering::SeqCst);
        let raw = job.into_raw();
        let carried = RawJob(raw);
        let held = self.held.clone().filter(|(k, _)| *k == n);
        std::thread::Builder::new()
            .name(format!("test-worker-{n}"))
            .spawn(move || {
                if let Some((_, gate)) = held {
                    gate.wait();
                }
                carried.run();
                ended.fetch_add(1, Ordering::SeqCst);
            })
            .map(drop)
            .map_err(|_| {
                started.fetch_sub(1, Ordering::SeqCst);
                // SAFETY: the closure never ran; the job is ours again.
                unsafe { Job::from_raw(raw) }
            })
    }

    fn signal(&self) -> CountedSignal {
        CountedSignal {
            inner: self.inner.signal(),
            parked: self.parked.clone(),
            timeless: self.timeless,
        }
    }

    // As the std spawner (unless `on_cpus`): the pool sees the machine's
    // CPUs, so a test on this spawner runs what a std pool runs (spinning,
    // the watch, tasks left to a busy worker), not the single-CPU default's
    // policy.
    fn parallelism(&self) -> usize {
        self.cpus.unwrap_or_else(|| self.inner.parallelism())
    }
}

/// A job in raw form, carried into a thread.
struct RawJob(*mut core::ffi::c_void);

// SAFETY: a `Job` is `Send`; this is one in raw form, owned by one side.
unsafe impl Send for RawJob {}

impl RawJob {
    fn run(self) {
        // SAFETY: the pointer came from `Job::into_raw` and is used once.
        unsafe { Job::from_raw(self.0) }.run()
    }
}

/// A pool of `cap` on a counting spawner.
pub type TestPool = antpool::Pool<antpool::IdleQueue, antpool::port::StdClock, TestSpawner>;

pub fn counted_pool(cap: usize) -> (TestPool, TestSpawner) {
    let spawner = TestSpawner::new();
    let pool = antpool::Pool::builder()
        .capacity(cap)
        .spawner(spawner.clone())
        .build()
        .unwrap();
    (pool, spawner)
}

/// A pool of one worker from `builder`, held busy until the returned gate opens.
pub fn held_pool(builder: antpool::PoolBuilder) -> (Arc<antpool::Pool>, Gate) {
    let pool = Arc::new(builder.capacity(1).build().unwrap());
    let gate = occupy(&pool, 1);
    (pool, gate)
}

/// A shared pool of `capacity` workers with a queue of `queue` tasks.
pub fn queue_pool(capacity: usize, queue: usize) -> Arc<antpool::Pool> {
    Arc::new(
        antpool::Pool::builder()
            .capacity(capacity)
            .max_queued_tasks(queue)
            .build()
            .unwrap(),
    )
}

/// Occupies `n` workers with tasks that wait on the returned gate, and returns
/// once all `n` have started.
pub fn occupy<Q, C, S>(pool: &antpool::Pool<Q, C, S>, n: usize) -> Gate
where
    Q: antpool::port::WorkerQueue,
    C: antpool::port::Clock,
    S: antpool::port::Spawner,
{
    let gate = Gate::new();
    let started = Counter::new();
    for _ in 0..n {
        let (gate, started) = (gate.clone(), started.clone());
        pool.submit(move || {
            started.add();
            gate.wait();
        })
        .unwrap();
    }
    assert!(started.reaches(n), "{n} tasks should run at once");
    gate
}

/// Submits `n` tasks that count themselves; returns the counter.
pub fn submit_counted<Q, C, S>(pool: &antpool::Pool<Q, C, S>, n: usize) -> Counter
where
    Q: antpool::port::WorkerQueue,
    C: antpool::port::Clock,
    S: antpool::port::Spawner,
{
    let done = Counter::new();
    for _ in 0..n {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
    }
    done
}

/// A pool of `capacity` in each mode that bounds its workers: the hand-off, a
/// queue of `queue` tasks, and the unbounded queue, each with its name.
#[allow(dead_code)] // not every test binary uses every helper
pub fn bounded_modes(capacity: usize, queue: usize) -> [(String, antpool::PoolBuilder); 3] {
    let pool = || antpool::Pool::builder().capacity(capacity);
    [
        ("hand-off".to_owned(), pool()),
        (format!("queue of {queue}"), pool().max_queued_tasks(queue)),
        ("unbounded queue".to_owned(), pool().unbounded_queue()),
    ]
}

/// A pool of a manual clock and a counting spawner, built from `builder`.
pub type ManualPool = antpool::Pool<antpool::IdleQueue, Arc<ManualClock>, TestSpawner>;

/// Builds `builder` on a new manual clock and a counting spawner; returns the
/// pool, the clock and the spawner.
pub fn on_manual_clock(
    builder: antpool::PoolBuilder,
) -> (ManualPool, Arc<ManualClock>, TestSpawner) {
    let clock = Arc::new(ManualClock::new());
    let spawner = TestSpawner::new();
    let pool = builder
        .clock(clock.clone())
        .spawner(spawner.clone())
        .build()
        .unwrap();
    (pool, clock, spawner)
}

/// A waker that counts its wake-ups.
pub struct WakeCount(pub AtomicUsize);

impl std::task::Wake for WakeCount {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A waker, and the count of its wake-ups.
pub fn counting_waker() -> (std::task::Waker, Arc<WakeCount>) {
    let count = Arc::new(WakeCount(AtomicUsize::new(0)));
    (std::task::Waker::from(count.clone()), count)
}

/// Polls `fut` once with `waker`.
pub fn poll_once<F: std::future::Future + ?Sized>(
    fut: std::pin::Pin<&mut F>,
    waker: &std::task::Waker,
) -> std::task::Poll<F::Output> {
    fut.poll(&mut std::task::Context::from_waker(waker))
}
