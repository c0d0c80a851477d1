//! Waiting on the port's clock.

use core::time::Duration;

use crate::port::Port;

/// Waits (a tick at a time) until `done()` holds, for at most `limit` ticks.
/// Returns the ticks it took, or `None` if the limit passed first.
pub(crate) fn wait_until<P: Port>(limit: u64, mut done: impl FnMut() -> bool) -> Option<u64> {
    let start = P::ticks();
    loop {
        if done() {
            return Some(P::ticks() - start);
        }
        if P::ticks() - start > limit {
            return None;
        }
        P::sleep(1);
    }
}

/// `d` in the port's ticks, rounded up.
pub(crate) fn ticks_in<P: Port>(d: Duration) -> u64 {
    (d.as_millis() as u64 * u64::from(P::tick_hz())).div_ceil(1_000)
}
