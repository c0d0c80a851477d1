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
//! * `wait`: spin for a moment, watching for `NOTIFIED`; consume it with
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
//! keeps (or grows) the budget to twice the time it needed; a wait that had to
//! park halves it. The budget is time (`MIN_SPIN` to `MAX_SPIN`), read from
//! the clock every few rounds: a `spin_loop` hint takes ~50 ns on the AMD EPYC
//! guest this was measured on and a few ns elsewhere, so a count of rounds says
//! little about how long a spin lasts.
//!
//! After its spin a wait yields at most `YIELDS` times — letting a thread
//! that shares its core run (a pool has more threads than cores: a submitter
//! and `cap` workers), and catching a token that comes while it does — and
//! then parks. It does not yield in a loop: the spin this replaced (up to
//! 2 048 rounds, ~100 µs on this guest, with a yield every 16 after the 64th:
//! up to ~120 yields a wait) kept parked threads warm, but beside a busy
//! process every yield hands a time slice to it.
//!
//! At most twice as many threads as the process has CPUs keep warm (spin or
//! yield) at once; the others park at once. A pool of a thousand workers
//! otherwise had hundreds of parking workers spinning and yielding together:
//! on 100 000 sleeps of 10 ms at capacity 1 000, workers took 92 % of all CPU
//! samples, a third of it in this spin and `sched_yield`, and the submitter
//! — the one thread every admission waits for — spent a third of its samples
//! waiting to be scheduled.
//!
//! What the change measured (2 vCPUs; paired interleaved runs, the median of
//! 5–7 per-round ratios new ÷ old; "busy": another process spins on one of the
//! two cores): the sleeps at capacity 1 000 0.71; tiny tasks, cap 4, hand-off
//! 1.00 / 1.09 (one / four submitters), busy 0.93 / 0.89; queue of 64 0.98,
//! busy 1.01 (one submitter). Caps of 1 and 2 warm threads (⌊CPUs / 2⌋, CPUs)
//! did as well on the sleeps and beside a busy process (0.56–0.72) but cost
//! the idle tiny cases 1.15–1.36 and a submitter blocked on a full queue
//! beside a busy process 1.5–2.1, whose wake-up a warm wait catches.

use ::std::thread::{self, Thread};
use ::std::time::Instant as StdInstant;
use core::hint::spin_loop;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use core::time::Duration;

use crate::spawner::Signal;

const EMPTY: u32 = 0;
const NOTIFIED: u32 = 1;
const PARKED: u32 = 2;

/// The least a signal spins before it parks, in nanoseconds.
const MIN_SPIN: u32 = 250;
/// A new signal's spin, in nanoseconds.
const INITIAL_SPIN: u32 = 4_000;
/// The most a signal spins before it parks, in nanoseconds: about what a park
/// and its wake-up cost.
const MAX_SPIN: u32 = 16_000;
/// How often the spin reads the clock, in rounds.
const CHECK_EVERY: u32 = 8;
/// How many times a wait yields, after its spin, before it parks.
const YIELDS: u32 = 4;

/// Threads of this process in the warm part of a wait (spinning or yielding).
static WARM: AtomicUsize = AtomicUsize::new(0);
/// How many may be: twice the CPUs, asked once (0 until then).
static MAX_WARM: AtomicUsize = AtomicUsize::new(0);

/// Twice the CPUs this process may run on: the most threads that keep warm.
fn max_warm() -> usize {
    match MAX_WARM.load(Ordering::Relaxed) {
        0 => {
            // Reads cgroup files and allocates: once per process (a race
            // only asks twice).
            let n = 2 * thread::available_parallelism().map_or(1, |n| n.get());
            MAX_WARM.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}
/// A park shorter than this means the spin gave up too early: a wake-up through
/// `park` costs ~10 µs here, so a token that came within ~20 µs was worth
/// spinning for.
const SHORT_PARK: Duration = Duration::from_micros(20);

/// The std [`Signal`]: a token word, an adaptive spin, then `thread::park`.
///
/// ```
/// use antpool::{Signal, StdSignal};
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
    /// let s = antpool::StdSignal::new();
    /// # drop(s);
    /// ```
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

    /// Spins, then yields a few times — if fewer than `2 × CPUs` threads of
    /// the process are doing so already; `true` if a token was consumed
    /// meanwhile.
    fn spin(&self) -> bool {
        if WARM.fetch_add(1, Ordering::Relaxed) >= max_warm() {
            WARM.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        let caught = self.spin_and_yield();
        WARM.fetch_sub(1, Ordering::Relaxed);
        caught
    }

    /// The warm part of a wait: the spin, then at most `YIELDS` yields.
    fn spin_and_yield(&self) -> bool {
        if self.spin_for_budget() {
            return true;
        }
        for _ in 0..YIELDS {
            thread::yield_now();
            if self.state.load(Ordering::Relaxed) == NOTIFIED && self.try_consume() {
                return true;
            }
        }
        false
    }

    /// Spins up to the budget (nanoseconds); `true` if a token was consumed.
    /// A catch keeps the budget at twice the time it needed (and lets an
    /// oversized budget shrink a little); a miss leaves it to the park to judge.
    fn spin_for_budget(&self) -> bool {
        let budget = self.spin.load(Ordering::Relaxed);
        let start = StdInstant::now();
        let mut round: u32 = 0;
        loop {
            if self.state.load(Ordering::Relaxed) == NOTIFIED && self.try_consume() {
                let took = u32::try_from(start.elapsed().as_nanos()).unwrap_or(u32::MAX);
                let next = if took.saturating_mul(4) < budget {
                    budget - budget / 16
                } else {
                    budget.max(took.saturating_mul(2))
                };
                self.spin
                    .store(next.clamp(MIN_SPIN, MAX_SPIN), Ordering::Relaxed);
                return true;
            }
            round = round.wrapping_add(1);
            if round % CHECK_EVERY == 0 && start.elapsed().as_nanos() >= u128::from(budget) {
                return false;
            }
            spin_loop();
        }
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
