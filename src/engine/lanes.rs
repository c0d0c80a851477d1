//! [`Lanes`]: the task queue (a *lane* in the code's words), where admitted
//! tasks wait for a worker — one [`Transport`], or, in a heap pool with
//! `priorities(true)`, one per level (`Priority`): the `Normal` lane is the one
//! a pool without levels has, and `High` and `Low` sit beside it, allocated at
//! build.
//!
//! A worker takes from the highest level that holds a task, oldest first
//! within it (a lane is a FIFO); with a starvation bound, a worker that took
//! `k` tasks in a row from above a waiting lower level takes that level's
//! oldest next ([`pop_fair`](Lanes::pop_fair)). Every read a handshake makes
//! covers every lane: one `SeqCst` fence, then each lane's reads by RMW
//! (`has_tasks`, `has_ready`; "Handshakes" in `engine/README.md`). So a push
//! into any lane, racing a worker that parks, is seen by one side or the
//! other, as with one lane. A pool without levels has no extra lanes: each
//! call costs it one branch on a field that never changes.
//!
//! # Priorities: the rules
//!
//! Without `priorities(true)` every `Priority` maps to `Normal` at the entry
//! (`Engine::level`). With it:
//!
//! * **Taking** (above): the starvation count is in the worker's own mailbox
//!   (no shared write), and the looks that decide are loads (a stale one moves
//!   a single take). Never preemptive: a task carried by a new worker starts
//!   at once, whatever its level.
//! * **Handshakes.** `release` closes every lane, `Normal` first (a push
//!   another lane refused finds `Normal` closed, so `is_closed` tells `Closed`
//!   from full), and the last worker's `has_tasks` counts every claimed slot
//!   of every lane. `looks_empty` (polling, the watch) and `len` sum the lanes.
//! * **Admission.** `Adm` has a waiters' flag per level (`WAITERS_HIGH`,
//!   `WAITERS`, `WAITERS_LOW`). A newcomer at level `p` is refused by the
//!   waiters it may not pass: in a hand-off pool (one admission for every
//!   level) those at `p` or above; in a queue pool (a lane per level) those at
//!   `p` only. Still one load and a mask.
//! * **Lines.** The line is a FIFO per level, under the cold lock. A finishing
//!   hand-off worker serves the highest level's oldest waiter; a grant lets in
//!   the highest level's oldest while its limit allows (hand-off), or each
//!   level's oldest while its lane has room past the hysteresis (queue); the
//!   starvation bound applies to grants too, counted under the lock.
//! * **Reserve** (`reserve_for_high(r)`, hand-off only): the limit is the
//!   capacity for `High` and `cap − min(r, cap − 1)` for the others, checked
//!   in the CAS that admits; a finishing worker passes its admission to a
//!   lower level's waiter only within that level's limit.
//! * Static pools keep their one ring: levels order their lines and the
//!   reserve, not their queue. An interrupt's submit is `Normal`.
//!
//! loom (`tests/loom/priorities.rs`): `push vs park, two lanes` (fails with
//! `has_ready` blind to the `High` lane), `high waiter served first` (a
//! finishing worker racing a `Low` and a `High` submitter), `release vs
//! per-level push` (fails with `has_tasks` blind to the `High` lane).
//! `tests/it/priorities.rs` holds the order, room, passing, reserve and bound
//! rules; `tests/stress.rs` the exact count across a `release_drain`.

use super::heap::LevelSlots;
use super::ring::Slots;
use super::timed::{StampAt, Stamped};
use super::transport::{Growth, Transport};
use crate::boxed::Boxed;
use crate::priority::Priority;
use crate::sync::{Ordering, fence};

/// The `High` and `Low` lanes of a pool with levels (only a heap pool has
/// them: without one, `Boxed` is uninhabited).
struct Extra<T: Send + 'static> {
    high: Transport<T, LevelSlots<T>>,
    low: Transport<T, LevelSlots<T>>,
}

/// The lanes of a pool (see the module docs).
pub(crate) struct Lanes<T: Send + 'static, S: Slots<T>> {
    normal: Transport<T, S>,
    /// Added at build by [`add_levels`](Self::add_levels).
    extra: Option<Boxed<Extra<T>>>,
}

impl<T: Send + 'static, S: Slots<T>> Lanes<T, S> {
    maybe_const_fn! {
        /// One lane over `slots` (see [`Transport::new`]); levels are added by
        /// [`add_levels`](Self::add_levels).
        pub(crate) fn new(slots: S, cap: usize, growth: Growth) -> Self {
            Lanes {
                normal: Transport::new(slots, cap, growth),
                extra: None,
            }
        }
    }

    /// Adds a `High` and a `Low` lane like the `Normal` one: `cap` slots,
    /// growing as `growth` says (a bounded queue: each level its own `cap`).
    #[cfg(feature = "alloc")]
    pub(crate) fn add_levels(&mut self, cap: usize, growth: Growth) {
        use super::heap::boxed_slots;
        use crate::boxed::boxed;
        self.extra = boxed(Extra {
            high: Transport::new(boxed_slots(cap), cap, growth),
            low: Transport::new(boxed_slots(cap), cap, growth),
        });
    }

    /// Adds a task at `level` (the `Normal` lane without levels); hands it
    /// back when that bounded lane is full, or the lanes are closed
    /// ([`is_closed`](Self::is_closed) tells which). With the stamp
    /// `stamp_at` gives for the position it takes in its lane (see
    /// [`Transport::push`]), which the `High` and `Low` lanes mark with their
    /// level ([`Stamp::at_level`](super::timed::Stamp::at_level): the worker
    /// records the task's queue wait there; an unmarked stamp is `Normal`'s).
    /// Only a pool with levels takes that branch; for it, the mark is an `or`
    /// on each push (a retry's stamp, marked already, stays as it is).
    // Inlined into the hot paths: a task passed by value through a call is
    // copied through memory (engine README, cost model).
    #[inline(always)]
    pub(crate) fn push(&self, task: T, level: Priority, stamp_at: impl StampAt) -> Result<(), T> {
        if let Some(extra) = &self.extra {
            match level {
                Priority::High => {
                    return extra.high.push(task, move |at, last| {
                        stamp_at(at, last).at_level(Priority::High)
                    });
                }
                Priority::Low => {
                    return extra.low.push(task, move |at, last| {
                        stamp_at(at, last).at_level(Priority::Low)
                    });
                }
                Priority::Normal => {}
            }
        }
        self.normal.push(task, stamp_at)
    }

    /// An interrupt's push (see [`Transport::push_now`]): always `Normal`.
    #[inline]
    pub(crate) fn push_now(&self, task: T) -> Result<(), T> {
        self.normal.push_now(task)
    }

    /// Takes the oldest task of the highest level that has one. The `High`
    /// and `Low` lanes are looked at (loads) before they are popped: a pop
    /// of an empty spill queue costs a `SeqCst` fence, which every take of a
    /// `Normal` task would pay for the empty `High` lane above it. A push
    /// the look misses is one racing this pop (it is taken next, or found by
    /// the handshake before the worker parks: `has_ready` reads every lane).
    // Inlined into the hot paths: a task passed by value through a call is
    // copied through memory (engine README, cost model).
    #[inline(always)]
    pub(crate) fn pop(&self) -> Option<Stamped<T>> {
        if let Some(extra) = &self.extra {
            return pop_seen(&extra.high)
                .or_else(|| self.normal.pop())
                .or_else(|| pop_seen(&extra.low));
        }
        self.normal.pop()
    }

    /// [`pop`](Self::pop) with a starvation bound `bound` (0: strict) and
    /// the taking worker's own count of takes in a row from above a waiting
    /// lower level (`streak`): at `bound` such takes, the next comes from the
    /// highest waiting level below the one it would take from.
    // Inlined into the hot paths: a task passed by value through a call is
    // copied through memory (engine README, cost model).
    #[inline(always)]
    pub(crate) fn pop_fair(&self, bound: u32, streak: &mut u32) -> Option<Stamped<T>> {
        if let Some(extra) = &self.extra {
            if bound > 0 {
                return self.pop_bounded(extra, bound, streak);
            }
        }
        self.pop()
    }

    fn pop_bounded(&self, extra: &Extra<T>, bound: u32, streak: &mut u32) -> Option<Stamped<T>> {
        let lanes: [&dyn Lane<T>; 3] = [&extra.high, &self.normal, &extra.low];
        // The level a strict pop would take from, and whether one below it
        // waits (looks: a stale answer only moves one take).
        let Some(top) = lanes.iter().position(|l| !l.looks_empty()) else {
            return self.pop(); // nothing seen: take whatever there is
        };
        let lower = (top + 1..lanes.len()).find(|&i| !lanes[i].looks_empty());
        if let Some(lower) = lower {
            if *streak >= bound {
                if let Some(task) = lanes[lower].pop_one() {
                    *streak = 0;
                    return Some(task);
                }
            }
        }
        for (i, lane) in lanes.iter().enumerate().skip(top) {
            if let Some(task) = lane.pop_one() {
                // A take from above a waiting lower level counts toward the
                // bound; one from the lowest waiting level ends the streak.
                match lower {
                    Some(lower) if i < lower => *streak += 1,
                    _ => *streak = 0,
                }
                return Some(task);
            }
        }
        self.pop()
    }

    /// Whether every lane looked empty a moment ago (loads: for polling).
    // Inlined into the hot paths: a task passed by value through a call is
    // copied through memory (engine README, cost model).
    #[inline(always)]
    pub(crate) fn looks_empty(&self) -> bool {
        if let Some(extra) = &self.extra {
            return extra.high.looks_empty()
                && self.normal.looks_empty()
                && extra.low.looks_empty();
        }
        self.normal.looks_empty()
    }

    /// Whether any lane holds a task, read as a handshake needs (one `SeqCst`
    /// fence, then each lane's reads by RMW; see [`Transport::has_tasks`]).
    #[inline]
    pub(crate) fn has_tasks(&self) -> bool {
        fence(Ordering::SeqCst);
        if let Some(extra) = &self.extra {
            return extra.high.has_tasks_fenced()
                || self.normal.has_tasks_fenced()
                || extra.low.has_tasks_fenced();
        }
        self.normal.has_tasks_fenced()
    }

    /// Whether a task is ready to pop in any lane, read as the push-vs-park
    /// handshake needs (see [`Transport::has_ready`]).
    #[inline]
    pub(crate) fn has_ready(&self) -> bool {
        fence(Ordering::SeqCst);
        if let Some(extra) = &self.extra {
            return extra.high.has_ready_fenced()
                || self.normal.has_ready_fenced()
                || extra.low.has_ready_fenced();
        }
        self.normal.has_ready_fenced()
    }

    /// Closes every lane, `Normal` first: a push refused by another lane
    /// finds the `Normal` lane closed too ([`is_closed`](Self::is_closed)).
    pub(crate) fn close(&self) {
        self.normal.close();
        if let Some(extra) = &self.extra {
            extra.high.close();
            extra.low.close();
        }
    }

    /// Opens closed lanes again, `Normal` last (see [`close`](Self::close)).
    pub(crate) fn reopen(&self) {
        if let Some(extra) = &self.extra {
            extra.high.reopen();
            extra.low.reopen();
        }
        self.normal.reopen();
    }

    /// Whether the lanes are closed: a push one refused was refused for that.
    #[inline]
    pub(crate) fn is_closed(&self) -> bool {
        self.normal.is_closed()
    }

    /// About how many tasks wait, in all lanes.
    pub(crate) fn len(&self) -> usize {
        if let Some(extra) = &self.extra {
            return extra.high.len() + self.normal.len() + extra.low.len();
        }
        self.normal.len()
    }

    /// About how many tasks wait at `level` (all of them, without levels).
    pub(crate) fn len_at(&self, level: Priority) -> usize {
        if let Some(extra) = &self.extra {
            return match level {
                Priority::High => extra.high.len(),
                Priority::Normal => self.normal.len(),
                Priority::Low => extra.low.len(),
            };
        }
        self.normal.len()
    }
}

/// Pops `lane` if it does not look empty (see [`Lanes::pop`]).
#[inline(always)]
fn pop_seen<T: Send + 'static, S: Slots<T>>(lane: &Transport<T, S>) -> Option<Stamped<T>> {
    match lane.looks_empty() {
        true => None,
        false => lane.pop(),
    }
}

/// One lane, whatever its slots: what the bounded pop asks of each.
trait Lane<T> {
    fn looks_empty(&self) -> bool;
    fn pop_one(&self) -> Option<Stamped<T>>;
}

impl<T: Send + 'static, S: Slots<T>> Lane<T> for Transport<T, S> {
    #[inline]
    fn looks_empty(&self) -> bool {
        Transport::looks_empty(self)
    }
    #[inline]
    fn pop_one(&self) -> Option<Stamped<T>> {
        Transport::pop(self)
    }
}
