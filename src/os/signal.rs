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
//! A wake-up through `park` costs ~10 µs here; a hand-off to a spinning thread
//! well under 1 µs. But spinning burns a core that a busy thread could use, and a
//! long spin followed by a park is the worst of both. So each signal adapts its
//! budget to what its waits turned out to be: a wait satisfied while spinning
//! keeps (or grows) the budget to twice the rounds it needed; a wait that had to
//! park halves it. The spin is short: `FIRST_YIELD` rounds of `spin_loop`,
//! then **one** `yield_now` (so eight threads sharing two cores let the thread
//! that has the work run), then `AFTER_YIELD` rounds more, and it parks.
//!
//! At most three times as many threads as the process has CPUs spin at once
//! (the count is shared by every signal); the others park at once. A pool of a
//! thousand workers otherwise had hundreds of parking workers spinning and
//! yielding together: on 100 000 sleeps of 10 ms at capacity 1 000, workers
//! took 92 % of all CPU samples, a third of it in this spin and `sched_yield`,
//! and the submitter — the one thread every admission waits for — spent a
//! third of its samples waiting to be scheduled.
//!
//! Until 2026-11-26 a spin could run 2 048 rounds, yielding every 16 after
//! the first 64, and the cap was twice the CPUs. With four submitters and four
//! workers (cap 4) on two CPUs, eight threads wait in turn, and the cap was
//! what parked them: per 1 000 000 tiny tasks, ~2 000 waiting submitters and
//! ~3 000 parking workers found four others spinning and parked at once
//! (counted with temporary counters), while a spin that did run missed its
//! token 1–4 % of the time. Those parks were three quarters of the
//! hand-off's context switches there, twice `cb-bounded(cap)`'s.
//! Three times the CPUs lets them spin; one yield keeps each spin from
//! handing the CPU back and forth beside a busy process, where the long
//! spins' yields were the switches (given room to spin with the old spin,
//! workers parked ~700 times per 1 000 000 tasks there and the switches
//! still rose, to 45 000–105 000). Paired against the
//! old spin, `tiny` at cap 4 (new ÷ old, medians of 9 interleaved rounds,
//! seeds 701 and 709; 1 submitter / 4 / busy with 1 / busy with 4):
//!
//! | mode | time | context switches |
//! |---|---|---|
//! | hand-off | 0.98, 1.00 / **0.92**, **0.92** / **0.64**, **0.72** / 1.13, 1.00 | 0.88, 1.04 / **0.42**, **0.37** / 0.43, 0.52 / 1.10, 0.89 |
//! | queue of 64 | 0.97, 1.13 / 1.03, 1.01 / **0.69**, **0.70** / 1.03, 1.01 | 0.90, 0.96 / 0.60, 0.64 / 0.30, 0.37 / 1.12, 1.01 |
//! | unbounded queue | 1.04, 1.03 / 1.00, 1.04 / 1.06, 0.98 / 1.04, 1.08 | 1.07, 1.23 / 0.85, 1.09 / 1.25, 1.23 / 0.95, 0.95 |
//!
//! The hand-off beside a busy process with four submitters is the cost: over
//! nine runs (the two above, seeds 721 and 741 of the whole harness, five of
//! 7–9 rounds with a smaller one) it read 0.91–1.33, a median of ~1.06 —
//! more threads spinning on the one CPU left. Sleepy (capacity 10 000 and
//! 1 000) did not move (seeds 703, 721, 741: 0.99–1.03); latency's p50 read
//! 0.99–1.13 new ÷ old, the spread every pool shows there (in that workload
//! each park lasts ~25 µs, so both spins shrink to their 8-round floor).
//!
//! # What was tried and measured worse
//!
//! A spin bounded by time instead of rounds (0.25–16 µs, adaptive), with at
//! most four yields after it and no yield loop, measured before the engine
//! had lookers of its own (v1): the sleeps above as fast, but beside a busy
//! process one submitter blocked on a full queue took 1.77× the time, a
//! hand-off pool's one submitter 1.53×, and four submitters on a full queue
//! 1.31×. Capping the spinners at ⌊CPUs / 2⌋ or at the CPUs cost idle tiny
//! tasks 1.15–1.36×. On 2026-11-26, against the 2 048-round spin (paired
//! rounds, `tiny`, hand-off): no yield at all (64 rounds, then park) took
//! 1.09–1.40× on an idle machine with 1.7–4.9× the context switches; a cap
//! of its own for workers' signals (four, beside the submitters' four) cut
//! the switches with four submitters to 0.32–0.53× but took 1.25–1.46×
//! beside a busy process (four runs; 0.91 in a fifth, under heavy load from
//! outside); a spin that gives up after a yield that took over 50 µs changed
//! nothing with four submitters beside a busy process (1.20). And a cap by
//! class — three times the CPUs for a pool worker's signal, twice for a
//! blocked submitter's (a thread-local flag set by `StdSpawner`) — against
//! this spin (9 rounds, seed 731): the queue of 64 beside a busy process with
//! four submitters 0.94, but the hand-off with four submitters 1.12× the
//! time and 1.83× the context switches, beside a busy process 1.17.

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
/// A park shorter than this means the spin gave up too early: a wake-up through
/// `park` costs ~10 µs here, so a token that came within ~20 µs was worth
/// spinning for.
const SHORT_PARK: Duration = Duration::from_micros(20);

/// Whether a spin yields at `round`: once, at `FIRST_YIELD`. No yield in the
/// first rounds: a thread that yields and then parks is slower to wake
/// (measured: ~4 µs → ~13 µs at p50).
fn yields_at(round: u32) -> bool {
    round == FIRST_YIELD
}

/// Threads of this process spinning in a signal now.
static SPINNING: AtomicUsize = AtomicUsize::new(0);
/// How many may: three times the CPUs, asked once (0 until then).
static MAX_SPINNING: AtomicUsize = AtomicUsize::new(0);

/// Three times the CPUs this process may run on: the most threads that spin at
/// once.
fn max_spinning() -> usize {
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
