//! [`StdSignal`]: spin a little, then park the thread.
//!
//! # Protocol
//!
//! One atomic word holds the token: `EMPTY`, `NOTIFIED` (a token is there), or
//! `PARKED` (the owner is parked, or about to park, and needs an unpark).
//!
//! * `notify`: `EMPTY → NOTIFIED` by compare-and-swap, and that is all — no
//!   syscall when the owner is still spinning. `PARKED → NOTIFIED`: clone the
//!   thread handle *first*, then swap, then `unpark` the clone. The clone is what
//!   keeps rule 6 of [`Signal`]: once `NOTIFIED` is visible the owner may free this
//!   signal, and the unpark touches only the (reference-counted) handle.
//! * `wait`: spin, yielding now and then, watching for `NOTIFIED`; consume it with
//!   `NOTIFIED → EMPTY` (Acquire, pairing with notify's Release). Out of spins:
//!   `EMPTY → PARKED`, then `thread::park` until the word is `NOTIFIED`.
//! * `wait_timeout` on timeout: `PARKED → EMPTY`; if that fails the word is
//!   `NOTIFIED`, so the token is consumed and it reports `true`.
//!
//! A `PARKED` owner never frees the signal without a token unless its wait timed
//! out, and the pool only notifies a timed-out owner that it knows will wait again
//! (see `engine/README.md`), so the clone in `notify` always reads a live handle.
//!
//! # Why not crossbeam's `Parker`
//!
//! Its `unpark` locks and signals a condvar *after* publishing the token, through
//! the `Unparker`'s own memory. The pool's signals live on the waiting thread's
//! stack and die as soon as the token is consumed, so that would need an `Arc`
//! clone per hand-off. Here the hand-off to a spinning worker is one CAS.
//!
//! # Spinning
//!
//! A wake-up through `park` costs a system call on each side and a context
//! switch; a hand-off to a spinning thread costs neither. But spinning burns a
//! core that a busy thread could use, and a long spin followed by a park is the
//! worst of both. So each signal adapts its budget to what its waits turned
//! out to be: a wait satisfied while spinning keeps (or grows) the budget to
//! twice the rounds it needed; a wait that had to park halves it. The spin is
//! short: `FIRST_YIELD` rounds of `spin_loop`, then **one** `yield_now` (so
//! eight threads sharing two cores let the thread that has the work run), then
//! `AFTER_YIELD` rounds more, and it parks.
//!
//! At most three times as many threads as the process has CPUs spin at once
//! (the count is shared by every signal); the others park at once. Without a
//! cap, a pool of a thousand workers had hundreds of parking workers spinning
//! and yielding together while the submitter — the one thread every admission
//! waits for — waited to be scheduled. With a cap of twice the CPUs, four
//! submitters and four workers on two CPUs (eight threads waiting in turn)
//! found the cap full and parked, and those parks were most of the hand-off's
//! context switches; three times lets them spin, and the one yield keeps each
//! spin from handing the CPU back and forth beside a busy process. The
//! measurements behind these choices, and the spins tried and measured worse
//! (bounded by time, no yield, a cap per class of thread), are in
//! `benches/HISTORY.md`, "`StdSignal`'s spin".

use ::std::thread::{self, Thread};
use ::std::time::Instant as StdInstant;
use core::hint::spin_loop;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use core::time::Duration;

use crate::spawner::Signal;

const EMPTY: u32 = 0;
const NOTIFIED: u32 = 1;
const PARKED: u32 = 2;

/// Spin budget bounds, in rounds (a round is one check plus a `spin_loop` hint,
/// or, once, a `yield_now` at round `FIRST_YIELD`: see [`yields_at`]).
const MIN_SPIN: u32 = 8;
const FIRST_YIELD: u32 = 64;
/// Rounds spun after the one yield.
const AFTER_YIELD: u32 = 16;
/// At most one yield: the spin ends `AFTER_YIELD` rounds after it (see
/// "Spinning" above).
const MAX_SPIN: u32 = FIRST_YIELD + AFTER_YIELD;
const INITIAL_SPIN: u32 = MAX_SPIN;
/// A park shorter than this means the spin gave up too early: a token that
/// came within about twice a wake-up's cost through `park` was worth spinning
/// for (the figure: `BENCHMARKS.md`, "What the engine's constants rest on").
const SHORT_PARK: Duration = Duration::from_micros(20);

/// Whether a spin yields at `round`: once, at `FIRST_YIELD`. No yield in the
/// first rounds: a thread that yields and then parks is slower to wake (see
/// `BENCHMARKS.md`, "What the engine's constants rest on").
fn yields_at(round: u32) -> bool {
    round == FIRST_YIELD
}

/// Threads of this process spinning in a signal now.
static SPINNING: AtomicUsize = AtomicUsize::new(0);
/// How many may: three times the CPUs, asked once (0 until then).
static MAX_SPINNING: AtomicUsize = AtomicUsize::new(0);

/// Three times the CPUs this process may run on: the most threads that spin at
/// once. Asked first when a worker thread is started (`StdSpawner::spawn`,
/// which allocates anyway), so that a worker's first park does not allocate.
pub(crate) fn max_spinning() -> usize {
    match MAX_SPINNING.load(Ordering::Relaxed) {
        0 => {
            // Reads cgroup files and allocates: once per process (a race only
            // asks twice).
            let n = 3 * thread::available_parallelism().map_or(1, |n| n.get());
            MAX_SPINNING.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// The std [`Signal`]: a token word, an adaptive spin, then `thread::park`.
///
/// ```
/// use antpool::port::{Signal, StdSignal};
/// use std::time::Duration;
///
/// let s = StdSignal::new();
/// // SAFETY: `s` is live for the whole call.
/// unsafe { Signal::notify(&s) }; // a token before the wait is kept
/// s.wait();                   // ...and consumed here
/// assert!(!s.wait_timeout(Duration::from_millis(1)));
/// ```
#[derive(Debug)]
pub struct StdSignal {
    state: AtomicU32,
    /// The spin budget, adapted by the owner (only the owner touches it).
    spin: AtomicU32,
    owner: Thread,
}

impl StdSignal {
    /// A signal for the calling thread to wait on.
    ///
    /// ```
    /// let s = antpool::port::StdSignal::new();
    /// # drop(s);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        StdSignal {
            state: AtomicU32::new(EMPTY),
            spin: AtomicU32::new(INITIAL_SPIN),
            owner: thread::current(),
        }
    }

    fn try_consume(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Spins up to the budget, if fewer than three times the CPUs' worth of threads
    /// spin already; `true` if a token was consumed.
    fn spin(&self) -> bool {
        if SPINNING.fetch_add(1, Ordering::Relaxed) >= max_spinning() {
            SPINNING.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        let caught = self.spin_for_budget();
        SPINNING.fetch_sub(1, Ordering::Relaxed);
        caught
    }

    /// Spins up to the budget; `true` if a token was consumed. A catch keeps
    /// the budget at twice the rounds it needed (and lets an oversized budget
    /// shrink a little); a miss leaves it to the park to judge.
    fn spin_for_budget(&self) -> bool {
        let budget = self.spin.load(Ordering::Relaxed);
        for round in 0..budget {
            if self.state.load(Ordering::Relaxed) == NOTIFIED && self.try_consume() {
                let next = if round.saturating_mul(4) < budget {
                    budget - budget / 16
                } else {
                    budget.max(round.saturating_mul(2))
                };
                self.spin
                    .store(next.clamp(MIN_SPIN, MAX_SPIN), Ordering::Relaxed);
                return true;
            }
            if yields_at(round) {
                thread::yield_now();
            } else {
                spin_loop();
            }
        }
        false
    }

    /// Learns from a park that lasted `parked`: a short one means the token came
    /// just after the spin gave up (spin longer next time); a long one means
    /// spinning would not have helped (spin less).
    fn learn(&self, parked: Duration) {
        let budget = self.spin.load(Ordering::Relaxed);
        let next = match parked < SHORT_PARK {
            true => budget.saturating_mul(2),
            false => budget / 2,
        };
        self.spin
            .store(next.clamp(MIN_SPIN, MAX_SPIN), Ordering::Relaxed);
    }

    /// Moves the word to PARKED; `false` if a token arrived first (consumed).
    fn prepare_park(&self) -> bool {
        match self
            .state
            .compare_exchange(EMPTY, PARKED, Ordering::Relaxed, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(_) => {
                // NOTIFIED: only notify writes it, only we clear it.
                self.state.store(EMPTY, Ordering::Relaxed);
                false
            }
        }
    }
}

impl Default for StdSignal {
    fn default() -> Self {
        Self::new()
    }
}

impl Signal for StdSignal {
    fn wait(&self) {
        if self.try_consume() || self.spin() || !self.prepare_park() {
            return;
        }
        let parked = StdInstant::now();
        loop {
            thread::park();
            if self.try_consume() {
                self.learn(parked.elapsed());
                return;
            }
        }
    }

    fn wait_timeout(&self, timeout: Duration) -> bool {
        if self.try_consume() {
            return true;
        }
        let deadline = StdInstant::now().checked_add(timeout);
        if self.spin() || !self.prepare_park() {
            return true;
        }
        let parked = StdInstant::now();
        loop {
            match deadline {
                None => thread::park(),
                Some(deadline) => {
                    let now = StdInstant::now();
                    if now >= deadline {
                        break;
                    }
                    thread::park_timeout(deadline - now);
                }
            }
            if self.try_consume() {
                self.learn(parked.elapsed());
                return true;
            }
        }
        self.learn(parked.elapsed());
        match self
            .state
            .compare_exchange(PARKED, EMPTY, Ordering::Relaxed, Ordering::Acquire)
        {
            Ok(_) => false,
            Err(_) => {
                // NOTIFIED arrived just in time: consume it.
                self.state.store(EMPTY, Ordering::Relaxed);
                true
            }
        }
    }

    unsafe fn notify(this: *const Self) {
        // How this keeps rule 6: `this` is live until our CAS publishes the token
        // (the caller's contract). Before it we read only through short-lived
        // references; the CAS itself borrows only the atomic (as `Arc::drop` does);
        // after it we use our own handle and nothing of `*this`.
        // SAFETY: `this` is live (no token published yet); this borrow covers only
        // the atomic and is not used after the token is published.
        let state = unsafe { &(*this).state };
        let mut current = state.load(Ordering::Relaxed);
        loop {
            match current {
                NOTIFIED => return,
                EMPTY => match state.compare_exchange_weak(
                    EMPTY,
                    NOTIFIED,
                    Ordering::Release,
                    Ordering::Relaxed,
                ) {
                    // The owner may free `*this` from here on: touch nothing.
                    Ok(_) => return,
                    Err(now) => current = now,
                },
                _ => {
                    // PARKED: take our own handle before the token is visible.
                    // SAFETY: no token is published yet, so `*this` is live; the
                    // borrow ends with the clone.
                    let owner = unsafe { (*this).owner.clone() };
                    match state.compare_exchange(
                        PARKED,
                        NOTIFIED,
                        Ordering::Release,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => {
                            owner.unpark();
                            return;
                        }
                        Err(now) => current = now,
                    }
                }
            }
        }
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_spin_yields_once_at_most_whatever_its_waits_taught_it() {
        let s = StdSignal::new();
        // Parks that ended within SHORT_PARK grow the budget as far as it goes.
        for _ in 0..32 {
            s.learn(Duration::from_micros(1));
        }
        let budget = s.spin.load(Ordering::Relaxed);
        assert_eq!(budget, MAX_SPIN);
        assert_eq!((0..budget).filter(|&r| yields_at(r)).count(), 1);
        // Long parks shrink it to the floor, which spins without a yield.
        for _ in 0..32 {
            s.learn(Duration::from_millis(1));
        }
        let budget = s.spin.load(Ordering::Relaxed);
        assert_eq!(budget, MIN_SPIN);
        assert_eq!((0..budget).filter(|&r| yields_at(r)).count(), 0);
    }

    #[test]
    fn a_wait_without_a_token_gives_up_its_spin_and_times_out() {
        let s = StdSignal::new();
        let start = StdInstant::now();
        assert!(!s.wait_timeout(Duration::from_millis(2)));
        assert!(start.elapsed() >= Duration::from_millis(2));
        // The word is back to EMPTY: a token now is kept for the next wait.
        // SAFETY: `s` is live for the whole call.
        unsafe { Signal::notify(&s) };
        assert!(s.wait_timeout(Duration::ZERO));
    }
}
