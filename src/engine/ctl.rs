//! The two control words. Every change of a worker's state is one
//! compare-and-swap on [`Ctl`]; every admission one on [`Adm`]. A decision
//! sees, and changes, all the counts it depends on at once; where a decision
//! spans a word and the lane (the transport), each side writes one and then
//! reads the other by a read-modify-write or after a `SeqCst` fence, so the
//! handshake holds in the C++ memory model and loom checks it as written
//! (`engine/README.md`, "Handshakes").
//!
//! [`Ctl`], the workers' word:
//!
//! | field | meaning |
//! |---|---|
//! | `threads` (T) | workers that serve, plus reservations for workers being started |
//! | `lookers` (S) | awake workers without a task, looking at the lane before they park |
//! | `busy` (K) | workers holding a task |
//! | `WATCH` | a parked worker is on watch duty (see `watch.rs`): submitters may leave a task to a busy worker |
//! | `IDLERS` | `wait_idle` or `pause` callers wait for the workers (see `quiet.rs`) |
//! | `PAUSED` | the pool is paused: no worker is woken or started for a task, none carries one |
//! | `CLOSED` | the pool is released: no new worker carries a task, and one started as a looker stays only for tasks in the lane |
//!
//! Parked workers are the rest: `parked = T - S - K`, which is the idle queue's
//! length whenever the cold lock is free (only lock holders park or unpark).
//! Each looker and each busy worker owns its unit: only the worker itself
//! moves between S and K (or out), except that a waker moves a parked worker
//! into S, and a spawner reserves a new one in T and S or K.
//!
//! [`Adm`], the admission word: a count, and the flags admission checks.
//!
//! | field | meaning |
//! |---|---|
//! | `count` (A) | hand-off pools: tasks admitted and not finished (at most the capacity); other pools: 0 (their lane closes on release instead: `ring.rs`, `list.rs`) |
//! | `CLOSED` | the pool is released: nothing is admitted |
//! | `WAITERS` | submitters wait in the cold lock's FIFO: no newcomer may pass them |
//! | `IDLERS` | `wait_idle` callers wait (a copy of `Ctl`'s flag, which a hand-off task's finish reads in its decrement) |
//! | `PAUSED` | the pool is paused: a hand-off pool admits nothing (a copy of `Ctl`'s flag) |
//! | `WAITERS_HIGH`, `WAITERS_LOW` | with levels: `High` / `Low` submitters wait (`WAITERS` is then `Normal`'s) |
//!
//! Widths: with 64-bit atomics each worker count has 16 bits (at most 65 535
//! workers; [`MAX_WORKERS`], 65 534, keeps one count of margin); with only
//! 32-bit atomics (microcontrollers), 9 (at most 510).

use crate::sync::{AtomicUsize, AtomicWord, Ordering, WordBits as Raw, fence};

/// The ordering of the load that starts a compare-and-swap loop on a word.
/// The swap decides on the value it replaces, so a stale first read only
/// costs the loop a retry; `Acquire` would do. `SeqCst` is the same
/// instruction on x86-64, AArch64 and ARMv7 (a fence more on RISC-V), and
/// under loom it reads the newest of the word's swaps (all `SeqCst`): the
/// models then spend no interleavings on stale first reads, and check the
/// code that ships.
const SEQ_CST_LOAD: Ordering = Ordering::SeqCst;

/// Bits per worker count: 16 in a 64-bit word, 9 in a 32-bit one.
const BITS: u32 = match Raw::BITS {
    64 => 16,
    _ => 9,
};

const THREAD_SHIFT: u32 = 0;
const LOOKER_SHIFT: u32 = BITS;
const BUSY_SHIFT: u32 = 2 * BITS;
const FLAG_SHIFT: u32 = 3 * BITS;
const _: () = assert!(FLAG_SHIFT + 4 <= Raw::BITS);

/// The most workers a pool runs at once (one below the field's limit, so a
/// reservation never overflows it).
pub(crate) const MAX_WORKERS: usize = (1 << BITS) - 2;

/// A flag of a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flag(usize);

/// A parked worker watches the lane for tasks left to busy workers.
pub(crate) const WATCH: Flag = Flag(1);
/// `wait_idle` callers wait for the pool to fall quiet, or `pause` callers for
/// the last task to finish.
pub(crate) const IDLERS: Flag = Flag(2);
/// The pool is paused: no task starts (see `quiet.rs`).
pub(crate) const PAUSED: Flag = Flag(4);
/// The pool is released (a copy of `Adm`'s flag, set before it; not in a
/// hand-off pool): a swap that reserves a worker sees it in the value it
/// replaces (see `lifecycle.rs`).
pub(crate) const CLOSED: Flag = Flag(8);

/// One value of the workers' word.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word(Raw);

impl Word {
    #[inline]
    fn field(self, shift: u32) -> usize {
        ((self.0 >> shift) & ((1 << BITS) - 1)) as usize
    }

    #[inline]
    fn plus(self, shift: u32, n: usize) -> Word {
        debug_assert!(self.field(shift) + n < (1 << BITS), "control word overflow");
        Word(self.0 + ((n as Raw) << shift))
    }

    #[inline]
    fn minus(self, shift: u32, n: usize) -> Word {
        debug_assert!(self.field(shift) >= n, "control word underflow");
        Word(self.0 - ((n as Raw) << shift))
    }

    #[inline]
    fn flag_bit(flag: Flag) -> Raw {
        (flag.0 as Raw) << FLAG_SHIFT
    }

    /// Workers that serve, plus reservations (T).
    #[inline]
    pub(crate) fn threads(self) -> usize {
        self.field(THREAD_SHIFT)
    }

    /// Awake workers without a task (S).
    #[inline]
    pub(crate) fn lookers(self) -> usize {
        self.field(LOOKER_SHIFT)
    }

    /// Workers holding a task (K).
    #[inline]
    pub(crate) fn busy(self) -> usize {
        self.field(BUSY_SHIFT)
    }

    /// Workers parked in the idle queue: `T - S - K`.
    #[inline]
    pub(crate) fn parked(self) -> usize {
        self.threads() - self.lookers() - self.busy()
    }

    /// Workers awake: lookers and busy. A looker may hold a task it has just
    /// popped and not yet counted in `busy`, so only `awake() == 0` says that
    /// no worker holds a task.
    #[inline]
    pub(crate) fn awake(self) -> usize {
        self.lookers() + self.busy()
    }

    #[inline]
    pub(crate) fn has(self, flag: Flag) -> bool {
        self.0 & Self::flag_bit(flag) != 0
    }

    #[inline]
    pub(crate) fn add_threads(self, n: usize) -> Word {
        self.plus(THREAD_SHIFT, n)
    }

    #[inline]
    pub(crate) fn sub_threads(self, n: usize) -> Word {
        self.minus(THREAD_SHIFT, n)
    }

    #[inline]
    pub(crate) fn add_lookers(self, n: usize) -> Word {
        self.plus(LOOKER_SHIFT, n)
    }

    #[inline]
    pub(crate) fn sub_lookers(self, n: usize) -> Word {
        self.minus(LOOKER_SHIFT, n)
    }

    #[inline]
    pub(crate) fn add_busy(self, n: usize) -> Word {
        self.plus(BUSY_SHIFT, n)
    }

    #[inline]
    pub(crate) fn sub_busy(self, n: usize) -> Word {
        self.minus(BUSY_SHIFT, n)
    }
}

impl core::fmt::Debug for Word {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Word")
            .field("threads", &self.threads())
            .field("lookers", &self.lookers())
            .field("busy", &self.busy())
            .field("watch", &self.has(WATCH))
            .field("idlers", &self.has(IDLERS))
            .field("paused", &self.has(PAUSED))
            .field("closed", &self.has(CLOSED))
            .finish()
    }
}

/// The workers' word.
pub(crate) struct Ctl(AtomicWord);

impl Ctl {
    maybe_const_fn! {
        pub(crate) fn new() -> Self {
            Ctl(AtomicWord::new(0))
        }
    }

    /// The current value (Acquire). For a decision that only reads.
    #[inline]
    pub(crate) fn load(&self) -> Word {
        Word(self.0.load(Ordering::Acquire))
    }

    /// The current value, read by a read-modify-write: the second half of a
    /// handshake with the lane (see the module docs).
    #[inline]
    pub(crate) fn read_rmw(&self) -> Word {
        Word(self.0.fetch_or(0, Ordering::SeqCst))
    }

    /// The current value, read after a `SeqCst` fence: a submitter's half of
    /// the push-vs-park handshake, whose worker half swaps the word and then
    /// fences before it reads the lane. Unlike [`read_rmw`](Self::read_rmw)
    /// it does not take the line exclusive, so submitters reading it at once
    /// share it (see "Handshakes" in `engine/README.md`).
    #[inline]
    pub(crate) fn read_fenced(&self) -> Word {
        fence(Ordering::SeqCst);
        Word(self.0.load(Ordering::Acquire))
    }

    /// Applies `f` to the current value until the swap succeeds: `Ok((old,
    /// new))`, or `Err` with the value `f` refused. The first read is a
    /// [`SEQ_CST_LOAD`].
    #[inline]
    pub(crate) fn update(
        &self,
        mut f: impl FnMut(Word) -> Option<Word>,
    ) -> Result<(Word, Word), Word> {
        let mut old = Word(self.0.load(SEQ_CST_LOAD));
        loop {
            let Some(new) = f(old) else {
                return Err(old);
            };
            match self
                .0
                .compare_exchange_weak(old.0, new.0, Ordering::SeqCst, Ordering::Acquire)
            {
                Ok(_) => return Ok((old, new)),
                Err(now) => old = Word(now),
            }
        }
    }

    /// `update` for a change that always applies.
    #[inline]
    pub(crate) fn apply(&self, mut f: impl FnMut(Word) -> Word) -> (Word, Word) {
        match self.update(|w| Some(f(w))) {
            Ok(swap) => swap,
            Err(_) => unreachable!("antpool: an unconditional update was refused"),
        }
    }

    /// Sets `flag`; returns the value before.
    #[inline]
    pub(crate) fn set(&self, flag: Flag) -> Word {
        Word(self.0.fetch_or(Word::flag_bit(flag), Ordering::SeqCst))
    }

    /// Clears `flag`; returns the value before.
    #[inline]
    pub(crate) fn clear(&self, flag: Flag) -> Word {
        Word(self.0.fetch_and(!Word::flag_bit(flag), Ordering::SeqCst))
    }
}

/// The admission flags (in the top bits of [`Adm`]).
pub(crate) mod adm {
    use crate::priority::Priority;

    /// The pool is released.
    pub(crate) const CLOSED: usize = 1 << (usize::BITS - 1);
    /// Submitters wait in the FIFO (of `Normal`, with levels; the only one
    /// without).
    pub(crate) const WAITERS: usize = 1 << (usize::BITS - 2);
    /// `wait_idle` callers wait (mirrors `Ctl`'s `IDLERS`, so that the
    /// hand-off task that brings the count to 0 learns it from its own RMW).
    pub(crate) const IDLERS: usize = 1 << (usize::BITS - 3);
    /// The pool is paused (mirrors `Ctl`'s `PAUSED`): a hand-off pool admits
    /// nothing, as at capacity.
    pub(crate) const PAUSED: usize = 1 << (usize::BITS - 4);
    /// `High` submitters wait in their FIFO (a pool with levels).
    pub(crate) const WAITERS_HIGH: usize = 1 << (usize::BITS - 5);
    /// `Low` submitters wait in their FIFO (a pool with levels).
    pub(crate) const WAITERS_LOW: usize = 1 << (usize::BITS - 6);
    /// Submitters wait, at any level.
    pub(crate) const ANY_WAITERS: usize = WAITERS_HIGH | WAITERS | WAITERS_LOW;
    /// The count's mask.
    pub(crate) const COUNT: usize = WAITERS_LOW - 1;

    /// The flag of `level`'s waiters.
    #[inline]
    pub(crate) const fn waiters(level: Priority) -> usize {
        match level {
            Priority::High => WAITERS_HIGH,
            Priority::Normal => WAITERS,
            Priority::Low => WAITERS_LOW,
        }
    }

    /// The flags of the waiters at `level` and above (those a newcomer at
    /// `level` may not pass in a hand-off pool).
    #[inline]
    pub(crate) const fn waiters_from(level: Priority) -> usize {
        match level {
            Priority::High => WAITERS_HIGH,
            Priority::Normal => WAITERS_HIGH | WAITERS,
            Priority::Low => ANY_WAITERS,
        }
    }
}

/// The admission word: a count and six flags (see the module docs).
pub(crate) struct Adm(AtomicUsize);

impl Adm {
    maybe_const_fn! {
        pub(crate) fn new() -> Self {
            Adm(AtomicUsize::new(0))
        }
    }

    #[inline]
    pub(crate) fn load(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }

    /// The current value, read by a read-modify-write (a handshake's second half).
    #[inline]
    pub(crate) fn read_rmw(&self) -> usize {
        self.0.fetch_or(0, Ordering::SeqCst)
    }

    /// Adds one to the count unless `refuse` says no on the current value
    /// (which it then returns). The first read is a
    /// [`SEQ_CST_LOAD`].
    #[inline]
    pub(crate) fn enter(&self, refuse: impl Fn(usize) -> bool) -> Result<usize, usize> {
        let mut old = self.0.load(SEQ_CST_LOAD);
        loop {
            if refuse(old) {
                return Err(old);
            }
            match self
                .0
                .compare_exchange_weak(old, old + 1, Ordering::SeqCst, Ordering::Acquire)
            {
                Ok(_) => return Ok(old),
                Err(now) => old = now,
            }
        }
    }

    /// Takes one from the count; returns the value before.
    #[inline]
    pub(crate) fn leave(&self) -> usize {
        let old = self.0.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(old & adm::COUNT > 0, "admission count underflow");
        old
    }

    /// Sets the flag bits `bits`; returns the value before.
    #[inline]
    pub(crate) fn set(&self, bits: usize) -> usize {
        self.0.fetch_or(bits, Ordering::SeqCst)
    }

    /// Clears the flag bits `bits`; returns the value before.
    #[inline]
    pub(crate) fn clear(&self, bits: usize) -> usize {
        self.0.fetch_and(!bits, Ordering::SeqCst)
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::*;

    fn word(threads: usize, lookers: usize, busy: usize) -> Word {
        Word(0)
            .add_threads(threads)
            .add_lookers(lookers)
            .add_busy(busy)
    }

    #[test]
    fn fields_do_not_spill_into_each_other() {
        let w = word(MAX_WORKERS, MAX_WORKERS, MAX_WORKERS);
        assert_eq!(
            (w.threads(), w.lookers(), w.busy()),
            (MAX_WORKERS, MAX_WORKERS, MAX_WORKERS)
        );
        assert!(!w.has(WATCH) && !w.has(IDLERS) && !w.has(PAUSED));
        let w = word(5, 2, 1);
        assert_eq!((w.parked(), w.awake()), (2, 3));
    }

    #[test]
    fn flags_are_independent_of_the_counts() {
        let ctl = Ctl::new();
        ctl.apply(|_| word(3, 1, 1));
        assert!(!ctl.set(WATCH).has(WATCH));
        assert!(ctl.set(IDLERS).has(WATCH));
        let w = ctl.load();
        assert!(w.has(WATCH) && w.has(IDLERS));
        assert_eq!((w.threads(), w.lookers(), w.busy()), (3, 1, 1));
        ctl.clear(WATCH);
        assert!(!ctl.read_rmw().has(WATCH));
        assert!(!ctl.set(PAUSED).has(PAUSED));
        let w = ctl.load();
        assert!(w.has(PAUSED) && w.has(IDLERS) && !w.has(WATCH));
        assert_eq!(w.awake(), 2);
    }

    #[test]
    fn update_retries_and_refuses() {
        let ctl = Ctl::new();
        assert_eq!(
            ctl.update(|w| Some(w.add_threads(1))).unwrap().1,
            word(1, 0, 0)
        );
        assert_eq!(ctl.update(|_| None).unwrap_err(), word(1, 0, 0));
    }

    #[test]
    fn each_admission_flag_is_one_bit_of_its_own_above_the_count() {
        let flags = [
            adm::CLOSED,
            adm::WAITERS,
            adm::IDLERS,
            adm::PAUSED,
            adm::WAITERS_HIGH,
            adm::WAITERS_LOW,
        ];
        for (i, &flag) in flags.iter().enumerate() {
            assert!(flag.is_power_of_two(), "flag {i}: {flag:#x}");
            assert_eq!(flag & adm::COUNT, 0, "flag {i} overlaps the count");
            for &other in &flags[i + 1..] {
                assert_eq!(flag & other, 0, "flag {i} overlaps another");
            }
        }
    }

    #[test]
    fn admission_counts_and_refuses() {
        let a = Adm::new();
        assert_eq!(a.enter(|v| v & adm::COUNT >= 2), Ok(0));
        assert_eq!(a.enter(|v| v & adm::COUNT >= 2), Ok(1));
        assert_eq!(a.enter(|v| v & adm::COUNT >= 2), Err(2));
        a.set(adm::CLOSED);
        assert_eq!(a.enter(|v| v & adm::CLOSED != 0), Err(2 | adm::CLOSED));
        assert_eq!(a.leave() & adm::COUNT, 2);
        a.clear(adm::CLOSED);
        assert_eq!(a.load(), 1);
    }
}
