//! [`run`]: every check of the kit, in order, on one port.

use crate::Checks;
use crate::batch::{self, STACK_LEFT};
use crate::pools::Pools;
use crate::port::Port;
use crate::wait::wait_until;
use crate::{contract, interrupts, results, submit};

/// What a run measured, beside its checks: for the port's own report.
///
/// ```
/// let findings = antpool_portkit::Findings::default();
/// assert_eq!(findings.worker_stack_unused, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Findings {
    /// Ticks the batch of [`JOBS`](crate::JOBS) jobs took.
    pub batch_ticks: u64,
    /// The least stack, in bytes, a worker had left while it ran a batch
    /// job, as [`Port::stack_unused`] tells (`None` if it cannot).
    pub worker_stack_unused: Option<usize>,
}

/// Runs every check of the kit on port `P`, over `pools`, recording each in
/// `checks`; call it from a thread of the kernel (the "controlling thread"),
/// once the scheduler runs. In order:
///
/// 1. the signal contract (a notify before the wait is kept; a timed wait
///    never ends early; tokens do not add up) and the lock (one holder);
/// 2. a batch of [`JOBS`](crate::JOBS) jobs: each exactly once, the capacity
///    holds, workers overlap, each worker a thread of the port;
/// 3. expiry: idle workers retire on the port's clock, and their threads go;
/// 4. a full pool: `try_invoke` hands the argument back, `invoke` blocks the
///    submitting thread (a worker of a second pool), `tune` up lets it in,
///    `tune` down retires idle workers at once;
/// 5. `release_timeout` waits for busy workers and leaves no thread; the
///    released pool hands arguments back;
/// 6. a spawn the port refuses hands the argument back;
/// 7. interrupts hand jobs to parked workers with `try_invoke_from_isr`,
///    alone and beside a thread's invokes;
/// 8. a small executor awaits results computed on the workers;
/// 9. in the end no thread holds a pool's job.
///
/// Every pool is a [`StaticPoolWithFunc`](antpool::StaticPoolWithFunc) in
/// `pools`: the kit allocates nothing. A run takes a few seconds of the
/// kernel's clock; run it once per program (the pools stay released).
///
/// ```no_run
/// # use antpool_portkit::doc_support::NullPort as MyRtos;
/// use antpool_portkit::{Checks, Pools};
///
/// static POOLS: Pools<MyRtos> = Pools::new();
///
/// // On the controlling thread, once the kernel runs:
/// let mut checks = Checks::new(|line| println!("{line}"));
/// let findings = antpool_portkit::run(&POOLS, &mut checks);
/// println!("{} passed, {} failed; {findings:?}", checks.passed(), checks.failed());
/// ```
pub fn run<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) -> Findings {
    checks.say(format_args!(
        "antpool port kit on {}: tick {} Hz",
        P::NAME,
        P::tick_hz()
    ));
    contract::signal::<P>(checks);
    contract::lock::<P>(checks);
    let batch = batch::run(pools, checks);
    batch::expiry(pools, checks, batch.workers);
    submit::modes(pools, checks);
    submit::tune_down(pools, checks);
    batch::release(pools, checks);
    submit::refused(pools, checks);
    interrupts::check(pools, checks);
    results::check(pools, checks);
    let gone = wait_until::<P>(200, || P::worker_threads() == 0);
    checks.check(
        "no thread holds a pool's job at the end",
        gone.is_some(),
        format_args!("{} worker threads", P::worker_threads()),
    );
    Findings {
        batch_ticks: batch.ticks,
        worker_stack_unused: STACK_LEFT.get(),
    }
}
