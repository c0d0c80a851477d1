//! [`TaskRing`]: a bounded, lock-free, multi-producer multi-consumer FIFO — the
//! transport that carries tasks from submitters to workers.
//!
//! The algorithm is crossbeam's `ArrayQueue` (Dmitry Vyukov's bounded queue):
//! every slot has a *stamp* that says which lap of the ring may use it next,
//! so a push claims a slot with one compare-and-swap on `tail` and publishes
//! it with one store to the slot's stamp, and a pop does the same on `head`.
//! Submitters write `tail`, workers write `head`: two different cache lines,
//! and they meet only on the slot they hand over. Unlike `ArrayQueue`, neither
//! side waits for the other: a pop that finds the slot at `head` not yet
//! written (or not yet emptied by last lap's reader) finds nothing, and a push
//! that finds the slot at `tail` not yet emptied hands its value back (see
//! [`push`](TaskRing::push) for what waiting cost).
//!
//! Written here rather than taken from `crossbeam-queue` because the engine
//! needs it without a heap (the slots of a `static` pool live inline), on the
//! `portable-atomic` atomics of targets without compare-and-swap, and under
//! loom, which checks it through the engine's models and this file's own.
//!
//! A stamp is `lap + index` for the slot at `index`: equal to the `tail` that
//! may push into it, one more once it is full, and `head + one_lap` once it is
//! emptied for the next lap. Stamps are stored minus the slot's index, so every
//! slot starts from the same value, 0, and an array of them can be made in a
//! `const` context.
//!
//! A ring can be *closed* (crossbeam-channel's array flavour does the same):
//! [`close`](TaskRing::close) sets a mark bit in `tail`, between the index and the
//! lap, with one read-modify-write; a push fails from then on, because the
//! swap that would claim a slot expects a `tail` without the mark. So every
//! push either claimed its slot before the mark — and is counted by any later
//! read of `tail` — or fails and hands its value back. A queue pool closes its
//! lane on release, instead of counting its submitters in and out of a push
//! window (see `engine/README.md`, handshake 2).

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use crate::sync::{AtomicUsize, Cell, Ordering, spin_hint};

use super::padded::Padded;
use super::timed::{Stamp, StampAt, Stamped};

/// One slot of a ring: a stamp and room for a task, and the task's admission
/// time (its [`Stamp`]: written and read with the value, under the same stamp
/// protocol; without the feature `timings`, zero-sized).
pub(crate) struct Slot<T> {
    /// The stamp, minus the slot's index.
    stamp: AtomicUsize,
    value: Cell<MaybeUninit<T>>,
    at: Cell<Stamp>,
}

// SAFETY: a slot hands its value from one thread to another; the stamp
// protocol gives each value exactly one writer and then exactly one reader.
unsafe impl<T: Send> Send for Slot<T> {}
// SAFETY: as for `Send`: shared slots are only written by the thread that
// claimed them through `tail`, and read by the one that claimed them through
// `head`, in the order the stamps impose.
unsafe impl<T: Send> Sync for Slot<T> {}

impl<T> Slot<T> {
    maybe_const_fn! {
        /// An empty slot, ready for lap 0.
        pub(crate) fn new() -> Self {
            Slot {
                stamp: AtomicUsize::new(0),
                value: Cell::new(MaybeUninit::uninit()),
                at: Cell::new(Stamp::NONE),
            }
        }
    }

    #[inline]
    fn stamp(&self, index: usize) -> usize {
        self.stamp.load(Ordering::Acquire).wrapping_add(index)
    }

    #[inline]
    fn set_stamp(&self, index: usize, stamp: usize) {
        self.stamp
            .store(stamp.wrapping_sub(index), Ordering::Release);
    }
}

/// Where a ring keeps its slots: inline (`[Slot<T>; N]`, no heap) or boxed.
pub(crate) trait Slots<T>: Send + Sync + 'static {
    fn slots(&self) -> &[Slot<T>];
}

impl<T: Send + 'static, const N: usize> Slots<T> for [Slot<T>; N] {
    #[inline]
    fn slots(&self) -> &[Slot<T>] {
        self
    }
}

/// A bounded lock-free FIFO over the slots `S`.
pub(crate) struct TaskRing<T, S: Slots<T>> {
    head: Padded<AtomicUsize>,
    tail: Padded<AtomicUsize>,
    /// The capacity (the number of slots).
    cap: usize,
    /// A power of two above `cap`: the closed mark in `tail`; the bits below
    /// it are the index.
    mark: usize,
    /// Twice `mark`: the lap part of an index counts in units of it.
    one_lap: usize,
    slots: S,
    // `fn() -> T`: the ring is `Send`/`Sync` as its slots are (`T: Send`).
    _tasks: PhantomData<fn() -> T>,
}

impl<T, S: Slots<T>> TaskRing<T, S> {
    maybe_const_fn! {
        /// A ring over `slots`, which hold `cap` slots (at least one).
        pub(crate) fn new(slots: S, cap: usize) -> Self {
            assert!(cap > 0, "a ring needs at least one slot");
            TaskRing {
                head: Padded::new(AtomicUsize::new(0)),
                tail: Padded::new(AtomicUsize::new(0)),
                cap,
                mark: (cap + 1).next_power_of_two(),
                one_lap: (cap + 1).next_power_of_two() * 2,
                slots,
                _tasks: PhantomData,
            }
        }
    }

    /// The index that follows `at`: the next slot, or the first of the next lap.
    #[inline]
    fn next(&self, at: usize) -> usize {
        let index = at & (self.mark - 1);
        if index + 1 < self.cap {
            at + 1
        } else {
            (at & !(self.one_lap - 1)).wrapping_add(self.one_lap)
        }
    }

    #[inline]
    fn slot(&self, at: usize) -> (&Slot<T>, usize) {
        let index = at & (self.mark - 1);
        let slots = self.slots.slots();
        debug_assert_eq!(slots.len(), self.cap);
        (&slots[index], index)
    }

    /// The position of index `at` in the ring's order of slots since it was
    /// made (laps times slots, plus the slot): what sampling goes by.
    #[inline]
    fn seq(&self, at: usize) -> usize {
        (at >> self.one_lap.trailing_zeros())
            .wrapping_mul(self.cap)
            .wrapping_add(at & (self.mark - 1))
    }

    /// Claims the slot at `tail`, which its stamp says is free for this lap,
    /// by one swap on `tail`, and publishes `value` in it with its admission
    /// time `at`. If another pusher moved `tail` first (or the weak swap
    /// failed), hands `value` back with the `tail` it saw.
    #[inline]
    fn claim_and_write(&self, tail: usize, value: T, at: Stamp) -> Result<(), (T, usize)> {
        match self.tail.compare_exchange_weak(
            tail,
            self.next(tail),
            Ordering::SeqCst,
            Ordering::Relaxed,
        ) {
            Ok(_) => {
                let (slot, index) = self.slot(tail);
                // SAFETY: winning the swap on `tail` made this thread the
                // slot's only writer for this lap, and its reader waits for
                // the stamp below before it reads.
                slot.value.with_mut(|cell| unsafe { (*cell).write(value) });
                // SAFETY: as for the value.
                slot.at.with_mut(|cell| unsafe { *cell = at });
                slot.set_stamp(index, tail.wrapping_add(1));
                Ok(())
            }
            Err(now) => Err((value, now)),
        }
    }

    /// Appends `value`, or hands it back if the slot at `tail` is not free
    /// now — every slot is full, or the reader of the slot's last value has
    /// claimed it and not yet emptied it — or the ring is closed
    /// ([`is_closed`](Self::is_closed) tells which). With the stamp
    /// `stamp_at` gives for the position of the slot it is about to claim and
    /// the stamp of its last try (see `Engine::lane_stamp`), asked before each
    /// try: a clock read between the claim and the publish would keep poppers
    /// from the slot (they see it empty) that much longer.
    ///
    /// It never waits for another thread, and retries only when `tail` moved
    /// (another pusher got on), so it is lock-free. Crossbeam's `ArrayQueue`
    /// spins instead while the slot's reader is between its claim and its
    /// read: a reader preempted there (six threads on two cores) kept the
    /// submitter spinning for the rest of its time slice, in which no task
    /// moved (`benches/HISTORY.md`, "Stalls behind a preempted worker"). Handed back, the task waits as it does for a full queue,
    /// and whoever waits for room sees the slot freed.
    pub(crate) fn push(&self, mut value: T, stamp_at: impl StampAt) -> Result<(), T> {
        let mut tail = self.tail.load(Ordering::Relaxed);
        let mut at = Stamp::NONE;
        loop {
            if tail & self.mark != 0 {
                return Err(value);
            }
            let (slot, index) = self.slot(tail);
            if slot.stamp(index) == tail {
                // The slot is free for this lap: claim it.
                at = stamp_at(self.seq(tail), at);
                match self.claim_and_write(tail, value, at) {
                    Ok(()) => return Ok(()),
                    Err((back, now)) => {
                        (value, tail) = (back, now);
                        spin_hint();
                    }
                }
            } else {
                // Full, or last lap's reader (or, with `tail` stale, another
                // pusher) not done with the slot: unless `tail` moved
                // meanwhile, hand the value back now.
                let now = self.tail.load(Ordering::Relaxed);
                if now == tail {
                    return Err(value);
                }
                tail = now;
            }
        }
    }

    /// Whether every slot holds a value not yet claimed by a popper (as far
    /// as a fenced look can tell): a [`push`](Self::push) handed back for
    /// this, not for a popper between its claim and its read.
    pub(crate) fn is_full(&self) -> bool {
        crate::sync::fence(Ordering::SeqCst);
        let tail = self.tail.load(Ordering::Relaxed) & !self.mark;
        self.head.load(Ordering::Relaxed).wrapping_add(self.one_lap) == tail
    }

    /// [`push`](Self::push) for an interrupt handler, which must not wait for
    /// the thread it interrupted (on one core it would wait forever): `push`
    /// never waits, and this one records no admission time.
    pub(crate) fn push_now(&self, value: T) -> Result<(), T> {
        self.push(value, |_, _| Stamp::NONE)
    }

    /// Takes the oldest value with its stamp, or `None` if the ring is empty.
    pub(crate) fn pop(&self) -> Option<Stamped<T>> {
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            let (slot, index) = self.slot(head);
            let stamp = slot.stamp(index);
            if stamp == head.wrapping_add(1) {
                // The slot is full: claim it.
                match self.head.compare_exchange_weak(
                    head,
                    self.next(head),
                    Ordering::SeqCst,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        // SAFETY: winning the swap on `head` made this thread the
                        // slot's only reader for this lap; the Acquire load of the
                        // stamp saw the writer's Release store, so the value is
                        // there. The stamp below frees the slot for the next lap.
                        let value = slot
                            .value
                            .with_mut(|cell| unsafe { (*cell).assume_init_read() });
                        // SAFETY: as for the value.
                        let at = slot.at.with_mut(|cell| unsafe { *cell });
                        slot.set_stamp(index, head.wrapping_add(self.one_lap));
                        return Some((value, at));
                    }
                    Err(now) => {
                        head = now;
                        spin_hint();
                    }
                }
            } else if stamp == head {
                // The slot is empty: the ring is, or a pusher has claimed the
                // slot and not yet written it. Either way nothing is ready: we
                // do not wait for that pusher (crossbeam's `ArrayQueue` does).
                // With a thousand workers on two cores, a pusher preempted
                // inside its push had every looker spinning here on the CPU it
                // needed (sleepy, cap 1 000: 7–14 s instead of ~1.7 s). The
                // pusher wakes a worker itself once it has written the task
                // (see `has_ready` for the handshake).
                return None;
            } else {
                // Another popper moved on (catch up), or — `head` unchanged —
                // the slot still holds last lap's value, claimed by a popper
                // not yet done with it: nothing is ready here before a push
                // that has to wait for that popper, and whose pusher wakes a
                // worker itself once it wrote (as above). Waiting for the
                // popper instead had every worker that looked spinning on
                // the CPU a preempted popper needed.
                let now = self.head.load(Ordering::Relaxed);
                if now == head {
                    return None;
                }
                head = now;
            }
        }
    }

    /// Whether the ring looked empty a moment ago: two loads, no fence. For
    /// polling; a `pop` decides.
    #[inline]
    pub(crate) fn looks_empty(&self) -> bool {
        self.tail.load(Ordering::Relaxed) & !self.mark == self.head.load(Ordering::Relaxed)
    }

    /// Whether the ring holds a value (or a push has claimed a slot and is
    /// writing it), with `tail` read by a read-modify-write: the second half of
    /// a handshake whose other side pushed (a swap on `tail`) and then read the
    /// control word by a read-modify-write. One of the two sees the other.
    #[inline]
    pub(crate) fn has_tasks(&self) -> bool {
        let tail = self.tail.fetch_add(0, Ordering::SeqCst) & !self.mark;
        let head = self.head.load(Ordering::SeqCst);
        tail != head
    }

    /// Whether the value at the head is written and ready to pop, with `head`
    /// read by a read-modify-write (a stale head would point at a slot already
    /// taken). The second half of the push-vs-park handshake: a pusher writes
    /// its slot (the stamp, Release) and then reads the control word by a
    /// read-modify-write; a parker swaps the control word and then calls this.
    /// If the pusher's read came first in the word's order, the parker's swap
    /// comes after it in the same chain of read-modify-writes, which makes the
    /// pusher's stamp visible here; otherwise the pusher sees the parker gone
    /// and wakes a worker. A slot claimed and not yet written is not ready: its
    /// pusher has not read the word yet, and will.
    #[inline]
    pub(crate) fn has_ready(&self) -> bool {
        let head = self.head.fetch_add(0, Ordering::SeqCst);
        let (slot, index) = self.slot(head);
        slot.stamp(index) == head.wrapping_add(1)
    }

    /// How many values the ring holds (exact when nothing moves).
    pub(crate) fn len(&self) -> usize {
        loop {
            let tail = self.tail.load(Ordering::SeqCst);
            let head = self.head.load(Ordering::SeqCst);
            if self.tail.load(Ordering::SeqCst) != tail {
                continue;
            }
            let tail = tail & !self.mark;
            let hix = head & (self.mark - 1);
            let tix = tail & (self.mark - 1);
            return if hix < tix {
                tix - hix
            } else if hix > tix {
                self.cap - hix + tix
            } else if tail == head {
                0
            } else {
                self.cap
            };
        }
    }
}

impl<T, S: Slots<T>> TaskRing<T, S> {
    /// Closes the ring: every push from now on fails (see the module docs).
    /// `tail` is marked by a read-modify-write, so a later read of it — by
    /// [`has_tasks`](Self::has_tasks), or whoever the closer synchronizes
    /// with — counts every slot claimed before, written or not.
    pub(crate) fn close(&self) {
        self.tail.fetch_or(self.mark, Ordering::SeqCst);
    }

    /// Opens a closed ring again.
    pub(crate) fn reopen(&self) {
        self.tail.fetch_and(!self.mark, Ordering::SeqCst);
    }

    /// Whether the ring is closed (a push that failed on a closed ring was
    /// refused for that, not for want of room).
    #[inline]
    pub(crate) fn is_closed(&self) -> bool {
        self.tail.load(Ordering::Acquire) & self.mark != 0
    }
}

impl<T, S: Slots<T>> Drop for TaskRing<T, S> {
    fn drop(&mut self) {
        // Drop the values still in the ring (only tasks no worker was ever
        // started for: see `Transport`'s drop).
        let mut head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Relaxed) & !self.mark;
        while head != tail {
            let (slot, _) = self.slot(head);
            // SAFETY: `&mut self`: no other thread touches the ring, and every
            // slot from head to tail holds a value that was written and never read.
            slot.value
                .with_mut(|cell| unsafe { (*cell).assume_init_drop() });
            head = self.next(head);
        }
    }
}

/// What nobody may wait for: a reader between its claim and its read.
#[cfg(all(test, feature = "std", not(antpool_loom)))]
mod tests {
    use std::sync::{Arc, mpsc};
    use std::time::Duration;

    use super::super::plain::Plain;
    use super::*;

    type Two = TaskRing<u32, [Slot<u32>; 2]>;

    /// A pop's first half, its claim on `head`: where a reader preempted
    /// right after it leaves the ring.
    fn claim(ring: &Two) -> usize {
        let head = ring.head.load(Ordering::Relaxed);
        ring.head.store(ring.next(head), Ordering::Relaxed);
        head
    }

    /// The pop's second half: reads the value, empties the slot.
    fn finish(ring: &Two, head: usize) -> u32 {
        let (slot, index) = ring.slot(head);
        // SAFETY: `claim` made us the slot's only reader for this lap, and
        // its value was written by a push on this thread before the claim.
        let value = slot
            .value
            .with_mut(|cell| unsafe { (*cell).assume_init_read() });
        slot.set_stamp(index, head.wrapping_add(ring.one_lap));
        value
    }

    #[test]
    fn nobody_waits_for_a_reader_between_its_claim_and_its_read() {
        let ring: Arc<Two> = Arc::new(TaskRing::new([Slot::new(), Slot::new()], 2));
        ring.push_plain(1).unwrap();
        ring.push_plain(2).unwrap();
        let held = claim(&ring);
        assert_eq!(ring.pop_plain(), Some(2));
        // The slot at `tail` and at `head` is the one still held: a push or a
        // pop that waited for its reader would spin here for good.
        let (tx, rx) = mpsc::channel();
        let r = ring.clone();
        std::thread::spawn(move || tx.send((r.push_plain(3), r.pop_plain())));
        let seen = rx.recv_timeout(Duration::from_secs(30));
        assert_eq!(seen, Ok((Err(3), None)), "handed back, and nothing ready");
        assert_eq!(finish(&ring, held), 1);
        assert_eq!(ring.push_plain(3), Ok(()), "the slot emptied: taken");
        assert_eq!((ring.pop_plain(), ring.pop_plain()), (Some(3), None));
    }
}
