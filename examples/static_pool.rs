//! A pool with no heap at all: a `StaticPoolWithFunc` over a fixed `WorkerRing`,
//! living in a `static`, on a platform supplied through the `Spawner`, `Signal`
//! and `Clock` traits.
//!
//! This is the shape of an embedded build (no `alloc`): the pool, its idle ring
//! and its configuration are all `const`-initialised in the `static`; each task
//! is a plain `u32` passed by value. To run on a desktop, the "platform" here is
//! std threads with spinning signals — an RTOS port supplies task creation,
//! task notifications and its tick counter instead (see the `Spawner` docs).
//!
//! ```text
//! cargo run --release --example static_pool
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use antpool::port::{Clock, Instant, Job, Signal, Spawner, SpinLock};
use antpool::{Options, StaticPoolWithFunc};

/// The platform's signal: a flag to spin on (an RTOS would block on a
/// notification). `notify` stores the flag and touches nothing afterwards.
struct SpinSignal(AtomicBool);

impl Signal for SpinSignal {
    fn wait(&self) {
        while !self.0.swap(false, Ordering::Acquire) {
            std::thread::yield_now();
        }
    }

    fn wait_timeout(&self, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        while !self.0.swap(false, Ordering::Acquire) {
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: `this` is live until this store publishes the token, and the only
        // reference made is to the atomic itself.
        unsafe { (*this).0.store(true, Ordering::Release) };
    }
}

/// The platform's way to start a thread of execution (an RTOS: `xTaskCreate`).
struct Platform;

struct Entry(*mut core::ffi::c_void);
// SAFETY: the pointer is a `Job` (which is `Send`) in raw form, used once.
unsafe impl Send for Entry {}

impl Spawner for Platform {
    type Signal = SpinSignal;
    type Lock = SpinLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        let entry = Entry(job.into_raw());
        std::thread::spawn(move || {
            let entry = entry;
            // SAFETY: the pointer came from `Job::into_raw` and is used once.
            unsafe { Job::from_raw(entry.0) }.run();
        });
        Ok(())
    }

    fn signal(&self) -> SpinSignal {
        SpinSignal(AtomicBool::new(false))
    }
}

/// The platform's tick counter (an RTOS: `xTaskGetTickCount` at 1 kHz).
struct Ticks;

impl Clock for Ticks {
    fn now(&self) -> Instant {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let ms = START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_millis();
        Instant::from_ticks(ms as u64, 1_000)
    }
}

static CHECKSUM: AtomicU64 = AtomicU64::new(0);

/// The one function every worker runs.
fn blink(led: u32) {
    CHECKSUM.fetch_add(u64::from(led), Ordering::Relaxed);
}

/// The pool: four workers at most, four idle slots, all in static memory.
static POOL: StaticPoolWithFunc<u32, 4, Ticks, Platform> = StaticPoolWithFunc::new(
    Options::new()
        .capacity(4)
        .expiry(Duration::from_millis(500)),
    blink,
    Ticks,
    Platform,
);

fn main() {
    for led in 1..=1_000 {
        POOL.invoke(led).expect("the pool is open and blocking");
    }
    println!(
        "invoked 1000 tasks; {} workers running, {} idle",
        POOL.running(),
        POOL.idle()
    );
    POOL.release_timeout(Duration::from_secs(5))
        .expect("every worker exits");
    let sum = CHECKSUM.load(Ordering::Relaxed);
    println!(
        "checksum {sum} (expected {}); workers left: {}",
        1000 * 1001 / 2,
        POOL.running()
    );
    assert_eq!(sum, 500_500);
}
