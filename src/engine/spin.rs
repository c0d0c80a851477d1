//! [`Spin`]: a busy-wait bounded by time, not by a count of rounds.
//!
//! A spin is worth it only while it is cheaper than parking; how long that is
//! is a time (a looker's look, a saturated submitter's watch for room: the
//! policy's, `policy/`), not a count of rounds:
//! how long one `spin_loop` hint takes differs by an order of magnitude between
//! processors, so the same count spins far longer on one machine than on
//! another (`BENCHMARKS.md`, "What the engine's constants rest on"). The pool's
//! clock says; it is read once every [`CHECK_EVERY`] rounds (with std a vDSO
//! call, cheap beside the rounds between). A spinner that is preempted stops as
//! soon as it runs again, instead of spinning on through a budget that has
//! already passed.
//!
//! A clock that does not move (a `ManualClock` in a test, a coarse tick)
//! never ends a spin by time; [`MAX_SPIN_ROUNDS`] ends it then. Under loom
//! every spin is one round (`sync.rs`): the model checker must see every
//! retry loop give way.
//!
//! These spins never yield: a looker or a saturated submitter holds a count in
//! a control word that others decide on.

use core::time::Duration;

use crate::clock::{Clock, Instant};
use crate::sync::{MAX_SPIN_ROUNDS, spin_hint};

/// How often a spin reads the clock (rounds).
const CHECK_EVERY: u32 = 16;

/// A spin of at most some time (see the module docs).
pub(crate) struct Spin<'a, C: Clock> {
    clock: &'a C,
    /// When the spin began.
    began: Instant,
    until: Option<Instant>,
    round: u32,
}

impl<'a, C: Clock> Spin<'a, C> {
    /// A spin of at most `budget` on `clock`.
    #[inline]
    pub(crate) fn new(clock: &'a C, budget: Duration) -> Self {
        let began = clock.now();
        let until = began.checked_add(budget);
        Spin {
            clock,
            began,
            until,
            round: 0,
        }
    }

    /// When the spin began, as the clock read it.
    #[inline]
    pub(crate) fn began(&self) -> Instant {
        self.began
    }

    /// Waits one round (a spin hint); `false` once the budget is spent.
    #[inline]
    pub(crate) fn wait(&mut self) -> bool {
        self.round += 1;
        if self.round >= MAX_SPIN_ROUNDS {
            return false;
        }
        if self.round % CHECK_EVERY == 0 {
            if let Some(until) = self.until {
                if self.clock.now() >= until {
                    return false;
                }
            }
        }
        spin_hint();
        true
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    #[test]
    fn a_still_clock_ends_the_spin_after_the_most_rounds() {
        let clock = ManualClock::new();
        let mut spin = Spin::new(&clock, Duration::from_micros(6));
        let mut rounds = 1;
        while spin.wait() {
            rounds += 1;
        }
        assert_eq!(rounds, MAX_SPIN_ROUNDS);
    }

    #[test]
    fn the_spin_ends_once_its_time_has_passed() {
        let clock = ManualClock::new();
        let mut spin = Spin::new(&clock, Duration::from_micros(5));
        for _ in 0..CHECK_EVERY * 3 {
            assert!(spin.wait());
        }
        clock.advance(Duration::from_micros(5));
        let mut more = 0;
        while spin.wait() {
            more += 1;
        }
        assert!(more < CHECK_EVERY, "stopped within one check: {more}");
    }

    #[test]
    fn the_spin_knows_when_it_began() {
        let clock = ManualClock::new();
        clock.advance(Duration::from_micros(7));
        let spin = Spin::new(&clock, Duration::from_micros(6));
        assert_eq!(spin.began(), clock.now());
    }
}
