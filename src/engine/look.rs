//! A looker's look: how long a worker that found the lane empty spins on it
//! before it parks ([`Spin`](super::spin::Spin) does the spinning).
//!
//! The look starts at [`LOOK_FOR`] and is learnt ([`next_look`]): when a looker
//! whose look ran out is woken soon after — later than the look, sooner than
//! [`LOOK_MAX`] — the next look lasts that gap and half again. A steady caller
//! whose round trip is longer than a look (an async task awaiting each result
//! in turn: the result's wake-up, its executor's poll, the next offload) then
//! finds a worker still looking, not one it must wake through the kernel. A gap
//! longer than [`LOOK_MAX`] is idleness, and brings the short look back: a pool
//! that idles between bursts spins no longer than before.
//!
//! Only the one looker of an idle pool — no task running, no other looker —
//! looks as learnt and learns: that is the shape of a caller that waits for
//! each result before it sends the next. A second looker, or one beside busy
//! workers, looks [`LOOK_FOR`]: a longer spin there only takes a CPU from the
//! submitters.
//!
//! The learnt look is one word for the pool (`Engine::look_us`, in µs), read by
//! every looker and written, relaxed, when a woken looker's gap changes it:
//! a hint, not a protocol — any value in range is a correct look, and a
//! lost write only delays learning by one wake-up. Under loom a look is one
//! round (`sync.rs`) and the models' clock stands still: a woken looker
//! learns the short look there.

use core::time::Duration;

use super::ctl::Word;
use super::{Engine, Flavor};
use crate::clock::{Clock, Instant};
use crate::sync::Ordering::Relaxed;

/// How long a looker watches the lane before it parks: what its former 512
/// rounds lasted on the machine it was tuned on. (A shorter look measured
/// worse on tiny tasks: idle workers park sooner, and more tasks then wait
/// for a wake-up through the kernel; `BENCHMARKS.md`, "What the engine's
/// constants rest on".) Whole microseconds: the learnt look is kept in them.
pub(crate) const LOOK_FOR: Duration = Duration::from_micros(25);

/// The longest a learnt look lasts ([`next_look`]): a gap longer than this
/// is idleness, and a wake-up through the kernel is then cheaper than
/// spinning through it. (A longer bound measured no better on async round
/// trips.)
pub(crate) const LOOK_MAX: Duration = Duration::from_micros(100);

/// How long the next look lasts, given the `gap` from the start of the last
/// look that ran out to the task that came after it: the gap and half again,
/// between [`LOOK_FOR`] and [`LOOK_MAX`]; [`LOOK_FOR`] again once a gap is
/// longer than [`LOOK_MAX`].
pub(crate) fn next_look(gap: Duration) -> Duration {
    match gap <= LOOK_MAX {
        true => (gap + gap / 2).clamp(LOOK_FOR, LOOK_MAX),
        false => LOOK_FOR,
    }
}

impl<F: Flavor> Engine<F> {
    /// How long a looker that reads the word `w` (itself counted among its
    /// lookers) looks, and whether the look teaches: `None` if enough others
    /// look already (`max_spinners`). The one looker of an idle pool (none
    /// busy, no other looker) looks as learnt and learns from the look;
    /// others look [`LOOK_FOR`]: a second spinner, or one beside busy
    /// workers, is not waiting out a caller's round trip but shares the CPUs
    /// with the submitters (with every looker learning, a blocking submitter of
    /// tiny tasks to a hand-off pool measured slower: `BENCHMARKS.md`,
    /// "What the engine's constants rest on").
    #[inline]
    pub(super) fn look_budget(&self, w: Word) -> Option<(Duration, bool)> {
        if w.lookers() > self.max_spinners() {
            return None;
        }
        if w.lookers() > 1 || w.busy() > 0 {
            return Some((LOOK_FOR, false));
        }
        Some((
            Duration::from_micros(self.look_us.load(Relaxed) as u64),
            true,
        ))
    }

    /// A looker whose look (begun at `began`) ran out was woken to look again:
    /// the next look lasts as long as the gap says ([`next_look`]).
    /// Woken soon after, the next caller would have found it looking had it
    /// looked that long; woken after long idleness, the short look is back.
    pub(super) fn learn_look(&self, began: Instant) {
        let gap = self.clock.now().saturating_duration_since(began);
        // (At most `LOOK_MAX`: 100, which any `usize` holds.)
        let us = next_look(gap).as_micros() as usize;
        if self.look_us.load(Relaxed) != us {
            self.look_us.store(us, Relaxed);
        }
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_task_that_came_soon_after_the_look_lengthens_it() {
        let us = Duration::from_micros;
        // Sooner than a look: the look stays as it is.
        assert_eq!(next_look(us(3)), LOOK_FOR);
        // A round trip of 40 µs: the next look lasts 60.
        assert_eq!(next_look(us(40)), us(60));
        // Never past the most.
        assert_eq!(next_look(us(90)), LOOK_MAX);
        assert_eq!(next_look(LOOK_MAX), LOOK_MAX);
        // Idleness: back to the short look.
        assert_eq!(next_look(LOOK_MAX + us(1)), LOOK_FOR);
        assert_eq!(next_look(Duration::from_secs(1)), LOOK_FOR);
    }
}
