//! Submitting to a saturated pool: `try_invoke` hands the argument back, a
//! blocking `invoke` waits until there is room, `tune` changes the room at
//! run time, and a spawn the port refuses hands the argument back.

use core::time::Duration;

use portable_atomic::{AtomicU8, Ordering};

use antpool::SubmitError;

use crate::Checks;
use crate::batch::{GATE, GATED, GATED_RAN, HELD};
use crate::pools::{CAP, Pools};
use crate::port::Port;
use crate::wait::wait_until;

/// What the helper's job did: not yet, blocked in `invoke`, or returned.
static HELPER: AtomicU8 = AtomicU8::new(IDLE);
const IDLE: u8 = 0;
const BLOCKING: u8 = 1;
const ADMITTED: u8 = 2;
const REFUSED: u8 = 3;

/// The gated job the helper submits: `GATED + 31` (it waits at the gate too).
const MARK: usize = 31;

/// What the helper pool's job gets: the address of the `'static Pools<P>`
/// it belongs to. (Not a `&'static Pools<P>`: a pool whose argument names
/// the type that holds the pool is a type that never ends.)
pub(crate) struct PoolsRef(*const ());

// SAFETY: it is only ever made from a `&'static Pools<P>`, and `Pools<P>` is
// `Sync` (it sits in a `static`): sharing the address is sharing the reference.
unsafe impl Send for PoolsRef {}

/// The helper pool's function: a second thread, made by the port's spawner,
/// that submits to the main pool and blocks there while it is full.
pub(crate) fn helper<P: Port>(pools: PoolsRef) {
    // SAFETY: `modes::<P>` made `pools` from a `&'static Pools<P>`, and only
    // the helper pool of that `Pools<P>` (whose function is `helper::<P>`)
    // receives it.
    let pools = unsafe { &*pools.0.cast::<Pools<P>>() };
    HELPER.store(BLOCKING, Ordering::Release);
    let done = match pools.main.invoke(GATED + MARK) {
        Ok(()) => ADMITTED,
        Err(_) => REFUSED,
    };
    HELPER.store(done, Ordering::Release);
}

/// Blocking and non-blocking submits on a full pool, and `tune` letting a
/// blocked submitter in.
pub(crate) fn modes<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) {
    let pool = &pools.main;
    GATE.store(false, Ordering::Release);
    GATED_RAN.clear();
    pool.tune(2);
    for k in 0..2 {
        if let Err(e) = pool.invoke(GATED + k) {
            checks.check("two gated jobs fill the pool", false, format_args!("{e:?}"));
            return;
        }
    }
    let full = wait_until::<P>(100, || pool.running() == 2);
    let refused = pool.try_invoke(GATED + 2);
    checks.check(
        "try_invoke on a full pool hands the argument back",
        full.is_some() && matches!(refused, Err(SubmitError::Overload(n)) if n == GATED + 2),
        format_args!("capacity 2, {} running: {refused:?}", pool.running()),
    );

    HELPER.store(IDLE, Ordering::Release);
    let helped = pools
        .helper
        .invoke(PoolsRef((pools as *const Pools<P>).cast()));
    let waiting = wait_until::<P>(200, || pool.waiting() == 1);
    P::sleep(20);
    let still = HELPER.load(Ordering::Acquire) == BLOCKING && pool.waiting() == 1;
    checks.check(
        "invoke on a full pool blocks the submitting thread",
        helped.is_ok() && waiting.is_some() && still,
        format_args!(
            "helper {helped:?}, waiting() = {}, still blocked 20 ticks later: {still}",
            pool.waiting()
        ),
    );

    // Room for one more: the blocked submitter gets in, its job starts,
    // and the gate is still shut.
    pool.tune(3);
    let admitted = wait_until::<P>(200, || {
        HELPER.load(Ordering::Acquire) == ADMITTED && pool.running() == 3
    });
    checks.check(
        "tune up lets a blocked submitter in at once",
        admitted.is_some() && pool.waiting() == 0 && GATED_RAN.count(0..32) == 0,
        format_args!(
            "admitted after {admitted:?} ticks; running() = {}, waiting() = {}",
            pool.running(),
            pool.waiting()
        ),
    );

    GATE.store(true, Ordering::Release);
    let idle = pool.wait_idle_timeout(Duration::from_secs(5));
    let once = GATED_RAN.has(0) && GATED_RAN.has(1) && GATED_RAN.has(MARK);
    checks.check(
        "every accepted job ran once; the one handed back never ran",
        idle && once && !GATED_RAN.has(2) && GATED_RAN.again() == 0,
        format_args!("{} gated jobs ran", GATED_RAN.count(0..32)),
    );
    pool.tune(CAP);
    let helper_gone = pools.helper.release_timeout(Duration::from_secs(5));
    // The helper's thread finishes retiring (a spawner over a fixed set of
    // threads gets it back only then).
    let settled = wait_until::<P>(100, || P::worker_threads() == pool.running());
    if helper_gone.is_err() || settled.is_none() {
        checks.check(
            "the helper pool ends, and its thread with it",
            false,
            format_args!(
                "{helper_gone:?}; {} worker threads, {} workers",
                P::worker_threads(),
                pool.running()
            ),
        );
    }
}

/// `tune` down retires surplus idle workers at once, not at their expiry.
pub(crate) fn tune_down<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) {
    let pool = &pools.main;
    GATE.store(false, Ordering::Release);
    for k in 0..CAP {
        if let Err(e) = pool.invoke(GATED + k) {
            checks.check("gated jobs fill the pool", false, format_args!("{e:?}"));
            return;
        }
    }
    GATE.store(true, Ordering::Release);
    pool.wait_idle();
    let idle = pool.running();
    pool.tune(1);
    // Well inside the 100 ms expiry: the workers go, and their threads.
    let shrunk = wait_until::<P>(30, || pool.running() == 1 && P::worker_threads() == 1);
    checks.check(
        "tune down retires surplus idle workers at once, and their threads go",
        idle == CAP && shrunk.is_some() && pool.cap() == Some(1),
        format_args!(
            "{idle} idle workers, {} after tune(1) ({} worker threads), in {shrunk:?} ticks",
            pool.running(),
            P::worker_threads()
        ),
    );
    pool.tune(CAP);
}

/// A spawn the port cannot make hands the argument back, from a blocking
/// `invoke` too, and counts no worker.
pub(crate) fn refused<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) {
    let pool = &pools.refusing;
    let tried = pool.try_invoke(HELD + 7);
    let blocked = pool.invoke(HELD + 8);
    checks.check(
        "a thread the port cannot start hands the argument back",
        matches!(tried, Err(SubmitError::SpawnFailed(n)) if n == HELD + 7)
            && matches!(blocked, Err(SubmitError::SpawnFailed(n)) if n == HELD + 8)
            && pool.running() == 0,
        format_args!(
            "try_invoke: {tried:?}; invoke: {blocked:?}; running() = {}",
            pool.running()
        ),
    );
}
