//! The kit on std's threads: the smallest whole port, and the kit's own
//! test. Workers are OS threads (counted while they hold a pool's job), the
//! clock is std's monotonic clock read in milliseconds, and the "interrupt"
//! is a thread of its own that calls the kit's handler — std has no
//! interrupts, so this checks the kit's logic, not an interrupt path.

use std::cell::Cell;
use std::fmt::Arguments;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::thread;
use std::time::Duration;

use antpool::port::{Clock, Instant, Job, Spawner, StdLock, StdSignal};
use antpool_portkit::{Checks, Pools, Port};

/// Threads started and not yet ended.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// One OS thread per worker, counted in [`LIVE`].
struct Threads;

impl Spawner for Threads {
    type Signal = StdSignal;
    type Lock = StdLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        LIVE.fetch_add(1, SeqCst);
        thread::spawn(move || {
            job.run();
            LIVE.fetch_sub(1, SeqCst);
        });
        Ok(())
    }

    fn signal(&self) -> StdSignal {
        StdSignal::new()
    }
}

/// A spawner that never starts a thread.
struct NoThreads;

impl Spawner for NoThreads {
    type Signal = StdSignal;
    type Lock = StdLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        Err(job)
    }

    fn signal(&self) -> StdSignal {
        StdSignal::new()
    }
}

/// Milliseconds since the first reading.
struct Millis;

fn epoch() -> std::time::Instant {
    static EPOCH: OnceLock<std::time::Instant> = OnceLock::new();
    *EPOCH.get_or_init(std::time::Instant::now)
}

impl Clock for Millis {
    fn now(&self) -> Instant {
        Instant::from_ticks(epoch().elapsed().as_millis() as u64, 1_000)
    }
}

thread_local! {
    static IN_INTERRUPT: Cell<bool> = const { Cell::new(false) };
}
static INTERRUPTING: AtomicBool = AtomicBool::new(false);

struct Std;

impl Port for Std {
    type Clock = Millis;
    type Spawner = Threads;
    type Refusing = NoThreads;
    const NAME: &'static str = "std threads";
    const CLOCK: Millis = Millis;
    const SPAWNER: Threads = Threads;
    const REFUSING: NoThreads = NoThreads;

    fn print(line: Arguments<'_>) {
        println!("{line}");
    }

    fn sleep(ticks: u32) {
        thread::sleep(Duration::from_millis(ticks.into()));
    }

    fn ticks() -> u64 {
        epoch().elapsed().as_millis() as u64
    }

    fn tick_hz() -> u32 {
        1_000
    }

    fn worker_threads() -> usize {
        LIVE.load(SeqCst)
    }

    fn start_interrupts(hz: u32) -> Result<(), &'static str> {
        INTERRUPTING.store(true, SeqCst);
        let period = Duration::from_secs(1) / hz;
        thread::spawn(move || {
            IN_INTERRUPT.with(|i| i.set(true));
            while INTERRUPTING.load(SeqCst) && antpool_portkit::interrupt() {
                thread::sleep(period);
            }
        });
        Ok(())
    }

    fn stop_interrupts() {
        INTERRUPTING.store(false, SeqCst);
    }

    fn in_interrupt() -> bool {
        IN_INTERRUPT.with(Cell::get)
    }
}

static POOLS: Pools<Std> = Pools::new();

#[test]
fn the_kit_passes_on_std_threads() {
    let mut checks = Checks::new(Std::print);
    let findings = antpool_portkit::run(&POOLS, &mut checks);
    println!(
        "{} passed, {} failed; {findings:?}",
        checks.passed(),
        checks.failed()
    );
    assert!(checks.all_passed(), "{checks:?}");
}
