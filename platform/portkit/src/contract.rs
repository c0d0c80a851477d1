//! The port's `Signal` and `Lock` against their contracts, on the kernel,
//! before any pool uses them.

use core::time::Duration;

use antpool::port::lock_api::RawMutex;
use antpool::port::{Signal, Spawner};

use crate::Checks;
use crate::port::Port;
use crate::wait::ticks_in;

/// `Signal` rules 1 and 2: a notify before the wait is kept; a wait without
/// a token times out, never earlier than asked; two notifies leave one token.
pub(crate) fn signal<P: Port>(checks: &mut Checks) {
    let signal = P::SPAWNER.signal();
    // SAFETY: `signal` is alive for the whole call (and after it).
    unsafe { Signal::notify(&signal) };
    // `wait`, not a timed wait: a token that was not kept would hang here,
    // and the port's watchdog would say so.
    signal.wait();
    let kept = !signal.wait_timeout(Duration::ZERO);
    checks.check(
        "a notify before the wait is kept, and consumed once",
        kept,
        format_args!("wait() returned; nothing left after it: {kept}"),
    );

    let asked = Duration::from_millis(50);
    let least = ticks_in::<P>(asked);
    let start = P::ticks();
    let woken = signal.wait_timeout(asked);
    let slept = P::ticks() - start;
    checks.check(
        "a wait without a token times out, no earlier than asked",
        !woken && slept >= least && slept <= 2 * least + 10,
        format_args!("woken = {woken}, slept {slept} ticks for 50 ms ({least} ticks)"),
    );

    // SAFETY: as above.
    unsafe {
        Signal::notify(&signal);
        Signal::notify(&signal);
    }
    let first = signal.wait_timeout(Duration::ZERO);
    let second = signal.wait_timeout(Duration::ZERO);
    checks.check(
        "two notifies leave one token",
        first && !second,
        format_args!("first wait {first}, second {second}"),
    );
}

/// The port's lock has one holder at a time, its own thread included (a
/// kernel's critical sections nest; a lock must not).
pub(crate) fn lock<P: Port>(checks: &mut Checks) {
    let lock = <<P::Spawner as Spawner>::Lock as RawMutex>::INIT;
    lock.lock();
    let second = lock.try_lock();
    let held = lock.is_locked();
    // SAFETY: locked above by this thread, once (the failed try_lock took nothing).
    unsafe { lock.unlock() };
    let free = !lock.is_locked() && lock.try_lock();
    if free {
        // SAFETY: the successful try_lock just above.
        unsafe { lock.unlock() };
    }
    checks.check(
        "the lock refuses a second holder, and frees on unlock",
        !second && held && free,
        format_args!("second try_lock {second}, held after it {held}, free again {free}"),
    );
}
