//! What the kit's jobs record: which ran (a bit each, and how many came a
//! second time), how many ran at once, and how deep their stacks went.
//!
//! A bit per job, not a byte: the kit runs on a 16 KiB Cortex-M0 too, and
//! 2 000 jobs take 250 bytes this way. The atomics are portable-atomic's, so
//! the read-modify-writes work on cores without compare-and-swap (in a
//! critical section there, with its `critical-section` feature).

use portable_atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

/// A set of `32 * W` ids, each marked when its job runs.
pub(crate) struct Ledger<const W: usize> {
    bits: [AtomicU32; W],
    /// Marks of an id that was already marked: a job that ran twice.
    again: AtomicUsize,
}

impl<const W: usize> Ledger<W> {
    pub(crate) const fn new() -> Self {
        Ledger {
            bits: [const { AtomicU32::new(0) }; W],
            again: AtomicUsize::new(0),
        }
    }

    /// Marks `id` (which must be below `32 * W`).
    pub(crate) fn mark(&self, id: usize) {
        let bit = 1 << (id % 32);
        if self.bits[id / 32].fetch_or(bit, Relaxed) & bit != 0 {
            self.again.fetch_add(1, Relaxed);
        }
    }

    /// Whether `id` was marked.
    pub(crate) fn has(&self, id: usize) -> bool {
        self.bits[id / 32].load(Relaxed) & (1 << (id % 32)) != 0
    }

    /// How many of `ids` were marked.
    pub(crate) fn count(&self, ids: core::ops::Range<usize>) -> usize {
        ids.filter(|&id| self.has(id)).count()
    }

    /// Marks that came a second time (or more), for any id.
    pub(crate) fn again(&self) -> usize {
        self.again.load(Relaxed)
    }

    /// Forgets every mark.
    pub(crate) fn clear(&self) {
        for word in &self.bits {
            word.store(0, Relaxed);
        }
        self.again.store(0, Relaxed);
    }
}

/// How many jobs run at once, and the most seen.
pub(crate) struct Meter {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Meter {
    pub(crate) const fn new() -> Self {
        Meter {
            now: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
        }
    }

    pub(crate) fn enter(&self) {
        let now = self.now.fetch_add(1, Relaxed) + 1;
        self.most.fetch_max(now, Relaxed);
    }

    pub(crate) fn leave(&self) {
        self.now.fetch_sub(1, Relaxed);
    }

    pub(crate) fn most(&self) -> usize {
        self.most.load(Relaxed)
    }

    pub(crate) fn reset(&self) {
        self.most.store(0, Relaxed);
    }
}

/// The smallest of the values recorded (a stack's unused bytes).
pub(crate) struct Low(AtomicUsize);

impl Low {
    pub(crate) const fn new() -> Self {
        Low(AtomicUsize::new(usize::MAX))
    }

    pub(crate) fn record(&self, value: usize) {
        self.0.fetch_min(value, Relaxed);
    }

    pub(crate) fn get(&self) -> Option<usize> {
        match self.0.load(Relaxed) {
            usize::MAX => None,
            low => Some(low),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_counts_ids_once_and_repeats_apart() {
        let ledger = Ledger::<2>::new();
        ledger.mark(0);
        ledger.mark(33);
        ledger.mark(33);
        assert!(ledger.has(0) && ledger.has(33) && !ledger.has(1));
        assert_eq!(ledger.count(0..64), 2);
        assert_eq!(ledger.again(), 1);
        ledger.clear();
        assert_eq!((ledger.count(0..64), ledger.again()), (0, 0));
    }

    #[test]
    fn a_meter_keeps_the_most() {
        let meter = Meter::new();
        meter.enter();
        meter.enter();
        meter.leave();
        meter.enter();
        assert_eq!(meter.most(), 2);
        let low = Low::new();
        assert_eq!(low.get(), None);
        low.record(300);
        low.record(200);
        low.record(250);
        assert_eq!(low.get(), Some(200));
    }
}
