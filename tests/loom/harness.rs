//! The loom platform the engine's models run on — a `Spawner`, `Signal`,
//! `Lock` and `Clock` written against the public port traits (which also
//! shows the traits are truly pluggable) — a gate for tasks to block on, and
//! the model runner. Shared by `tests/loom.rs` (the engine through its public
//! API) and the crate's own models of the mechanism under adversarial
//! policies (`src/engine/policy_loom.rs`): each names the port as
//! `crate::port` (the crate's own module, or a `use antpool::port` at the test
//! crate's root).

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::Relaxed as StdRelaxed};
use std::time::Duration;

use crate::port::lock_api::{GuardSend, RawMutex};
use crate::port::{Clock, Instant, Job, Signal, Spawner};
use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;

/// A binary semaphore for loom: a flag under a loom `Mutex`, waited for on a
/// loom `Condvar`, shared through an `Arc` so `notify` can keep it alive past the
/// moment its token becomes visible (rule 6). Blocking, not spinning: a lost
/// wake-up is a deadlock, which loom reports. (loom 0.7's `park`/`unpark` lose
/// the main thread's wake-ups, so they are not used.)
pub(crate) struct LoomSignal(pub(crate) Arc<(Mutex<bool>, Condvar)>);

impl Signal for LoomSignal {
    fn wait(&self) {
        let (token, cvar) = &*self.0;
        let mut token = token.lock().unwrap();
        while !*token {
            token = cvar.wait(token).unwrap();
        }
        *token = false;
    }

    /// There is no time in loom: a timeout "runs out" as soon as other threads
    /// have had a turn without leaving a token, which explores every race
    /// between a timeout and a notify. `Duration::MAX` waits for good.
    fn wait_timeout(&self, timeout: Duration) -> bool {
        if timeout == Duration::MAX {
            self.wait();
            return true;
        }
        let (token, _) = &*self.0;
        if std::mem::replace(&mut *token.lock().unwrap(), false) {
            return true;
        }
        thread::yield_now();
        std::mem::replace(&mut *token.lock().unwrap(), false)
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: `this` is live until the token is published; we take our own
        // `Arc` first and publish through it, touching nothing of `*this` after.
        let inner = unsafe { (*this).0.clone() };
        *inner.0.lock().unwrap() = true;
        inner.1.notify_one();
    }
}

/// A test-and-test-and-set spin lock that yields to loom while it waits. (A
/// plain swap loop would not do: every failed swap is a write, and loom then
/// never sees the waiter stand still, so it cannot tell it is spinning.)
pub(crate) struct LoomLock(AtomicBool);

impl Default for LoomLock {
    fn default() -> Self {
        LoomLock(AtomicBool::new(false))
    }
}

// SAFETY: `lock` returns only after this thread swapped `false` to `true`
// (Acquire), and `unlock` stores `false` (Release): one holder at a time.
unsafe impl RawMutex for LoomLock {
    #[allow(clippy::declare_interior_mutable_const)]
    // Never used: under loom the pool makes its lock with `Default` (loom's
    // atomics are not `const`).
    const INIT: Self = panic!("loom atomics are not const; LoomLock is made with Default");
    type GuardMarker = GuardSend;

    fn lock(&self) {
        loop {
            while self.0.load(Ordering::Relaxed) {
                thread::yield_now();
            }
            if self.try_lock() {
                return;
            }
        }
    }

    fn try_lock(&self) -> bool {
        self.0
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    unsafe fn unlock(&self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Starts each worker on a loom thread, reporting `cpus` CPUs (1 by default:
/// no spinning, no speculation; 2 lets the models reach the watch duty).
#[derive(Clone)]
pub(crate) struct LoomSpawner {
    pub(crate) cpus: usize,
}

/// The loom spawner of one CPU.
pub(crate) const ONE_CPU: LoomSpawner = LoomSpawner { cpus: 1 };

struct RawJob(*mut core::ffi::c_void);
// SAFETY: a `Job` (which is `Send`) in raw form, used once.
unsafe impl Send for RawJob {}
impl RawJob {
    fn run(self) {
        // SAFETY: from `Job::into_raw`, used once.
        unsafe { Job::from_raw(self.0) }.run()
    }
}

impl Spawner for LoomSpawner {
    type Signal = LoomSignal;
    type Lock = LoomLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        let raw = RawJob(job.into_raw());
        // Detached, like an OS thread; loom still checks it to completion.
        drop(thread::spawn(move || raw.run()));
        Ok(())
    }

    fn signal(&self) -> LoomSignal {
        LoomSignal(Arc::new((Mutex::new(false), Condvar::new())))
    }

    fn parallelism(&self) -> usize {
        self.cpus
    }
}

/// A clock the model advances by hand.
#[derive(Clone)]
pub(crate) struct LoomClock(pub(crate) Arc<AtomicU64>);

impl Clock for LoomClock {
    fn now(&self) -> Instant {
        Instant::from_nanos(self.0.load(Ordering::Acquire))
    }
}

/// Runs `model` under loom with the preemption bound, and reports how many
/// interleavings were explored.
pub(crate) fn check(name: &str, model: impl Fn() + Sync + Send + 'static) {
    check_bounded(name, 1, model);
}

/// [`check`] with another default preemption bound (`LOOM_MAX_PREEMPTIONS`
/// still overrides it).
pub(crate) fn check_bounded(
    name: &str,
    preemptions: usize,
    model: impl Fn() + Sync + Send + 'static,
) {
    static RUNS: StdAtomicUsize = StdAtomicUsize::new(0);
    let before = RUNS.load(StdRelaxed);
    let mut builder = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_BRANCHES").is_none() {
        builder.max_branches = 10_000;
    }
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(preemptions);
    }
    builder.check(move || {
        RUNS.fetch_add(1, StdRelaxed);
        model();
    });
    println!(
        "loom model `{name}`: {} interleavings explored",
        RUNS.load(StdRelaxed) - before
    );
}

/// A gate that stays open once opened: tasks block on it (loom sees a
/// blocked thread stand still; a spinning one it would explore forever).
#[derive(Clone)]
pub(crate) struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    pub(crate) fn new() -> Self {
        Gate(Arc::new((Mutex::new(false), Condvar::new())))
    }

    pub(crate) fn open(&self) {
        *self.0.0.lock().unwrap() = true;
        self.0.1.notify_all();
    }

    pub(crate) fn wait(&self) {
        let mut open = self.0.0.lock().unwrap();
        while !*open {
            open = self.0.1.wait(open).unwrap();
        }
    }
}
