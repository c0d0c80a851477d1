//! The lines of blocked submitters, one per level, and which level is served
//! next: the highest with waiters, but a lower one gets its turn after
//! `starvation_bound` grants in a row went above it.

use super::node::{Chain, NodeList};
use crate::priority::Priority;

/// The lines of blocked submitters: a FIFO per level (`Priority`); a pool
/// without levels uses `Normal`'s alone. Under the cold lock.
pub(super) struct Lines<T, Sig> {
    /// `High`, `Normal`, `Low` (`Priority::index`).
    lists: [NodeList<T, Sig>; 3],
    /// Grants in a row to a level above a waiting lower one (the starvation
    /// bound's count for grants).
    streak: u32,
}

impl<T, Sig> Lines<T, Sig> {
    pub(super) const fn new() -> Self {
        Lines {
            lists: [NodeList::new(), NodeList::new(), NodeList::new()],
            streak: 0,
        }
    }

    /// Waiters at every level.
    pub(super) fn len(&self) -> usize {
        self.lists.iter().map(NodeList::len).sum()
    }

    /// `level`'s line.
    pub(super) fn at(&mut self, level: Priority) -> &mut NodeList<T, Sig> {
        &mut self.lists[level.index()]
    }

    /// The level whose oldest waiter is next: the highest with waiters —
    /// unless `bound` (0: strict) grants in a row went to levels above a
    /// waiting lower one, which then has its turn. [`served`](Self::served)
    /// counts the grant once it is made.
    pub(super) fn next_level(&self, bound: u32) -> Option<Priority> {
        let top = self.highest_from(0)?;
        match self.highest_from(top.index() + 1) {
            Some(lower) if bound > 0 && self.streak >= bound => Some(lower),
            _ => Some(top),
        }
    }

    /// The highest level with waiters from the `index`-th of `Priority::ALL` down.
    fn highest_from(&self, index: usize) -> Option<Priority> {
        Priority::ALL
            .into_iter()
            .skip(index)
            .find(|l| self.lists[l.index()].len() > 0)
    }

    /// Counts a grant to `level`'s oldest (just unlinked) for the starvation
    /// bound: one more in a row if a lower level still waits, else none.
    pub(super) fn served(&mut self, level: Priority) {
        let lower_waits = self.highest_from(level.index() + 1).is_some();
        let above_top = self.highest_from(0).is_some_and(|top| top > level);
        self.streak = match (lower_waits, above_top) {
            // A lower level had its turn over a higher one: the bound's take.
            (_, true) => 0,
            (true, false) => self.streak + 1,
            (false, false) => 0,
        };
    }

    /// Unlinks every waiter, marked `TAKEN`: a chain per level.
    pub(super) fn take_all(&mut self) -> [Chain<T, Sig>; 3] {
        let [high, normal, low] = &mut self.lists;
        [high.take_all(), normal.take_all(), low.take_all()]
    }
}
