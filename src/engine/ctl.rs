//! The control word: every admission and every change of a worker's state is
//! one compare-and-swap on it, so each decision sees — and changes — all the
//! counts it depends on at once. No decision rests on two separate atomics,
//! so there is no store-then-load handshake (Dekker) to get wrong, and loom
//! checks every one of them (`engine/README.md`, "The control word").
//!
//! Three counts and three flags share one word:
//!
//! | field | meaning |
//! |---|---|
//! | `tasks` (B) | tasks admitted and not yet finished: running, on their way to a worker in the transport, or queued |
//! | `threads` (T) | workers that serve, plus reservations for workers being started |
//! | `lookers` (S) | awake workers without a task that no submitter has claimed yet |
//! | `CLOSED` | the pool is released: nothing is admitted |
//! | `WAITERS` | submitters wait in the cold lock's FIFO: no newcomer may pass them |
//! | `IDLERS` | `wait_idle` callers wait for `tasks` to reach 0 |
//!
//! Derived: a worker is *busy* (it runs a task, or a task is on its way to it)
//! unless it is a looker or parked, so `parked = T - S - B` and
//! `queued = B - (T - S)`, whichever is positive. The engine keeps the
//! invariant that tasks queue only while no worker is idle (`queued > 0` only
//! if `S = 0` and `parked = 0`), which makes both formulas exact.
//!
//! Widths: with 64-bit atomics, 30 bits of tasks and 15 of each worker count
//! (at most 32 767 workers, about a billion tasks in flight); on targets with
//! only 32-bit atomics (microcontrollers), 14 and 7 (127 workers, 16 383 tasks).

use crate::sync::{AtomicWord, Ordering};

#[cfg(any(antpool_loom, target_has_atomic = "64"))]
type Raw = u64;
#[cfg(all(not(antpool_loom), not(target_has_atomic = "64")))]
type Raw = u32;

#[cfg(any(antpool_loom, target_has_atomic = "64"))]
const TASK_BITS: u32 = 30;
#[cfg(any(antpool_loom, target_has_atomic = "64"))]
const WORKER_BITS: u32 = 15;
#[cfg(all(not(antpool_loom), not(target_has_atomic = "64")))]
const TASK_BITS: u32 = 14;
#[cfg(all(not(antpool_loom), not(target_has_atomic = "64")))]
const WORKER_BITS: u32 = 7;

const TASK_SHIFT: u32 = 0;
const THREAD_SHIFT: u32 = TASK_BITS;
const LOOKER_SHIFT: u32 = TASK_BITS + WORKER_BITS;
const FLAG_SHIFT: u32 = TASK_BITS + 2 * WORKER_BITS;
const _: () = assert!(FLAG_SHIFT + 3 <= Raw::BITS);

/// The most tasks a pool holds in flight (running, on their way, or queued).
pub(crate) const MAX_TASKS: usize = (1 << TASK_BITS) - 1;
/// The most workers a pool runs at once.
pub(crate) const MAX_WORKERS: usize = (1 << WORKER_BITS) - 1;

/// The flags.
pub(crate) mod flag {
    use super::{FLAG_SHIFT, Raw};

    /// A flag of the control word.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Flag(pub(super) Raw);

    /// The pool is released: nothing is admitted.
    pub(crate) const CLOSED: Flag = Flag(1 << FLAG_SHIFT);
    /// Submitters wait in the FIFO: newcomers join it rather than pass them.
    pub(crate) const WAITERS: Flag = Flag(1 << (FLAG_SHIFT + 1));
    /// `wait_idle` callers wait for `tasks` to reach 0.
    pub(crate) const IDLERS: Flag = Flag(1 << (FLAG_SHIFT + 2));
}

use flag::Flag;

/// One value of the control word.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word(Raw);

impl Word {
    #[inline]
    fn field(self, shift: u32, bits: u32) -> usize {
        ((self.0 >> shift) & ((1 << bits) - 1)) as usize
    }

    #[inline]
    fn plus(self, shift: u32, bits: u32, n: usize) -> Word {
        debug_assert!(
            self.field(shift, bits) + n < (1 << bits),
            "control word overflow"
        );
        Word(self.0 + ((n as Raw) << shift))
    }

    #[inline]
    fn minus(self, shift: u32, bits: u32, n: usize) -> Word {
        debug_assert!(self.field(shift, bits) >= n, "control word underflow");
        Word(self.0 - ((n as Raw) << shift))
    }

    /// Tasks admitted and not finished (B).
    #[inline]
    pub(crate) fn tasks(self) -> usize {
        self.field(TASK_SHIFT, TASK_BITS)
    }

    /// Workers that serve, plus reservations (T).
    #[inline]
    pub(crate) fn threads(self) -> usize {
        self.field(THREAD_SHIFT, WORKER_BITS)
    }

    /// Awake workers without a task that no submitter has claimed (S).
    #[inline]
    pub(crate) fn lookers(self) -> usize {
        self.field(LOOKER_SHIFT, WORKER_BITS)
    }

    /// Workers parked in the idle queue, not yet claimed by a waker.
    #[inline]
    pub(crate) fn parked(self) -> usize {
        self.threads()
            .saturating_sub(self.lookers())
            .saturating_sub(self.tasks())
    }

    /// Admitted tasks that no worker is running or about to run.
    #[inline]
    pub(crate) fn queued(self) -> usize {
        self.tasks()
            .saturating_sub(self.threads().saturating_sub(self.lookers()))
    }

    /// Workers without a task: lookers and parked.
    #[inline]
    pub(crate) fn idle(self) -> usize {
        self.lookers() + self.parked()
    }

    #[inline]
    pub(crate) fn has(self, flag: Flag) -> bool {
        self.0 & flag.0 != 0
    }

    #[inline]
    pub(crate) fn with(self, flag: Flag) -> Word {
        Word(self.0 | flag.0)
    }

    #[inline]
    pub(crate) fn without(self, flag: Flag) -> Word {
        Word(self.0 & !flag.0)
    }

    #[inline]
    pub(crate) fn add_tasks(self, n: usize) -> Word {
        self.plus(TASK_SHIFT, TASK_BITS, n)
    }

    #[inline]
    pub(crate) fn sub_tasks(self, n: usize) -> Word {
        self.minus(TASK_SHIFT, TASK_BITS, n)
    }

    #[inline]
    pub(crate) fn add_threads(self, n: usize) -> Word {
        self.plus(THREAD_SHIFT, WORKER_BITS, n)
    }

    #[inline]
    pub(crate) fn sub_threads(self, n: usize) -> Word {
        self.minus(THREAD_SHIFT, WORKER_BITS, n)
    }

    #[inline]
    pub(crate) fn add_lookers(self, n: usize) -> Word {
        self.plus(LOOKER_SHIFT, WORKER_BITS, n)
    }

    #[inline]
    pub(crate) fn sub_lookers(self, n: usize) -> Word {
        self.minus(LOOKER_SHIFT, WORKER_BITS, n)
    }
}

impl core::fmt::Debug for Word {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Word")
            .field("tasks", &self.tasks())
            .field("threads", &self.threads())
            .field("lookers", &self.lookers())
            .field("closed", &self.has(flag::CLOSED))
            .field("waiters", &self.has(flag::WAITERS))
            .field("idlers", &self.has(flag::IDLERS))
            .finish()
    }
}

/// The control word itself.
pub(crate) struct Ctl(AtomicWord);

impl Ctl {
    maybe_const_fn! {
        pub(crate) fn new() -> Self {
            Ctl(AtomicWord::new(0))
        }
    }

    /// The current value. Acquire: a decision taken on it sees what the
    /// thread that wrote it did before.
    #[inline]
    pub(crate) fn load(&self) -> Word {
        Word(self.0.load(Ordering::Acquire))
    }

    /// Replaces `old` by `new`; on failure returns the value found instead.
    #[inline]
    pub(crate) fn cas(&self, old: Word, new: Word) -> Result<Word, Word> {
        self.0
            .compare_exchange(old.0, new.0, Ordering::AcqRel, Ordering::Acquire)
            .map(Word)
            .map_err(Word)
    }

    /// Applies `f` to the current value until the swap succeeds; `Err` with
    /// the value `f` refused. `Ok((old, new))` otherwise.
    #[inline]
    pub(crate) fn update(
        &self,
        mut f: impl FnMut(Word) -> Option<Word>,
    ) -> Result<(Word, Word), Word> {
        let mut old = self.load();
        loop {
            let Some(new) = f(old) else {
                return Err(old);
            };
            match self.cas(old, new) {
                Ok(_) => return Ok((old, new)),
                Err(now) => old = now,
            }
        }
    }

    /// Sets `flag`; returns the value before.
    #[inline]
    pub(crate) fn set(&self, flag: Flag) -> Word {
        Word(self.0.fetch_or(flag.0, Ordering::AcqRel))
    }

    /// Clears `flag`; returns the value before.
    #[inline]
    pub(crate) fn clear(&self, flag: Flag) -> Word {
        Word(self.0.fetch_and(!flag.0, Ordering::AcqRel))
    }
}

#[cfg(all(test, not(antpool_loom)))]
mod tests {
    use super::flag::{CLOSED, IDLERS, WAITERS};
    use super::*;

    fn word(tasks: usize, threads: usize, lookers: usize) -> Word {
        Word(0)
            .add_tasks(tasks)
            .add_threads(threads)
            .add_lookers(lookers)
    }

    #[test]
    fn fields_do_not_spill_into_each_other() {
        let w = word(MAX_TASKS, MAX_WORKERS, MAX_WORKERS);
        assert_eq!(w.tasks(), MAX_TASKS);
        assert_eq!(w.threads(), MAX_WORKERS);
        assert_eq!(w.lookers(), MAX_WORKERS);
        assert!(!w.has(CLOSED) && !w.has(WAITERS) && !w.has(IDLERS));
        let w = w.sub_tasks(MAX_TASKS).sub_lookers(1);
        assert_eq!(
            (w.tasks(), w.threads(), w.lookers()),
            (0, MAX_WORKERS, MAX_WORKERS - 1)
        );
    }

    #[test]
    fn flags_are_independent_of_the_counts() {
        let ctl = Ctl::new();
        ctl.cas(ctl.load(), word(3, 2, 1)).unwrap();
        assert!(!ctl.set(WAITERS).has(WAITERS));
        assert!(ctl.set(CLOSED).has(WAITERS));
        let w = ctl.load();
        assert!(w.has(CLOSED) && w.has(WAITERS) && !w.has(IDLERS));
        assert_eq!((w.tasks(), w.threads(), w.lookers()), (3, 2, 1));
        ctl.clear(WAITERS);
        assert!(!ctl.load().has(WAITERS));
        assert_eq!(ctl.load().without(CLOSED), word(3, 2, 1));
    }

    #[test]
    fn derived_counts() {
        // Four workers: one looking, one parked, two busy; two tasks.
        let w = word(2, 4, 1);
        assert_eq!((w.parked(), w.queued(), w.idle()), (1, 0, 2));
        // Every worker busy, three more tasks queued.
        let w = word(7, 4, 0);
        assert_eq!((w.parked(), w.queued(), w.idle()), (0, 3, 0));
        // A task claimed a looker: it counts as busy before it is picked up.
        let w = word(1, 1, 0);
        assert_eq!((w.parked(), w.queued(), w.idle()), (0, 0, 0));
        assert_eq!(word(0, 0, 0).idle(), 0);
    }

    #[test]
    fn update_retries_and_refuses() {
        let ctl = Ctl::new();
        assert_eq!(
            ctl.update(|w| Some(w.add_tasks(1))).unwrap(),
            (word(0, 0, 0), word(1, 0, 0))
        );
        assert_eq!(ctl.update(|_| None).unwrap_err(), word(1, 0, 0));
    }
}
