//! A port that runs nothing, for the crate's doc examples (hidden).

use core::fmt::Arguments;
use core::time::Duration;

use antpool::port::{Clock, Instant, Job, Signal, Spawner, SpinLock};

use crate::Port;

/// A signal that never blocks (doc examples only).
#[derive(Debug)]
pub struct NullSignal;

impl Signal for NullSignal {
    fn wait(&self) {}
    fn wait_timeout(&self, _: Duration) -> bool {
        true
    }
    unsafe fn notify(_: *const Self) {}
}

/// A spawner that starts no thread (doc examples only).
#[derive(Debug)]
pub struct NullSpawner;

impl Spawner for NullSpawner {
    type Signal = NullSignal;
    type Lock = SpinLock;
    fn spawn(&self, job: Job) -> Result<(), Job> {
        Err(job)
    }
    fn signal(&self) -> NullSignal {
        NullSignal
    }
}

/// A clock that stands still (doc examples only).
#[derive(Debug)]
pub struct NullClock;

impl Clock for NullClock {
    fn now(&self) -> Instant {
        Instant::from_ticks(0, 1_000)
    }
}

/// A port with no kernel (doc examples only).
#[derive(Debug)]
pub struct NullPort;

impl Port for NullPort {
    type Clock = NullClock;
    type Spawner = NullSpawner;
    type Refusing = NullSpawner;
    const NAME: &'static str = "no kernel";
    const CLOCK: NullClock = NullClock;
    const SPAWNER: NullSpawner = NullSpawner;
    const REFUSING: NullSpawner = NullSpawner;
    fn print(_: Arguments<'_>) {}
    fn sleep(_: u32) {}
    fn ticks() -> u64 {
        0
    }
    fn tick_hz() -> u32 {
        1_000
    }
    fn worker_threads() -> usize {
        0
    }
    fn start_interrupts(_: u32) -> Result<(), &'static str> {
        Err("no kernel")
    }
    fn stop_interrupts() {}
    fn in_interrupt() -> bool {
        false
    }
}
