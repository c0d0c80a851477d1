//! The FIFO of blocked submitters: a saturated submitter that may block joins
//! it under the cold lock and parks until it is served (its task pushed into
//! the lane, or a hand-off admission passed to it), granted a new worker, or
//! turned away (closed, timed out). Async submitters wait in the same line
//! (`wait_async.rs`), so arrival order holds across both; they join it
//! through the inbox, without the lock (`inbox.rs`), where the pool sets no
//! `max_blocking_tasks`.

use core::ptr::NonNull;

use super::ctl::adm;
use super::lines::Lines;
use super::node::{Chain, Node, state};
use super::policy::Policy;
use super::spin::Spin;
use super::submit::Attempt;
use super::timed::Stamp;
use super::{AbortOnUnwind, Engine, EngineRef, Flavor, Guard, NodeOf};
use crate::clock::{Clock, Instant};
use crate::error::SubmitError;
use crate::priority::Priority;
use crate::spawner::{Signal, Spawner};
use crate::sync::Ordering::Relaxed;

/// Waiters let in under the lock, to be finished once it is dropped.
#[must_use = "granted waiters must be finished, or their owners wait forever"]
pub(super) struct Grants<T, Sig> {
    /// Their task is in the lane: finished SERVED (those whose finish wakes
    /// nobody were finished under the lock already).
    served: Chain<T, Sig>,
    /// Whether a task went into the lane.
    pushed: bool,
    /// A new worker is reserved for their task (`T+1, K+1`): finished GRANTED,
    /// they start it themselves (and get `SpawnFailed` if it cannot start).
    granted: Chain<T, Sig>,
}

impl<T, Sig: Signal> Grants<T, Sig> {
    fn new() -> Self {
        Grants {
            served: Chain::new(),
            pushed: false,
            granted: Chain::new(),
        }
    }

    /// Whether a granted task went into the lane.
    pub(super) fn pushed(&self) -> bool {
        self.pushed
    }

    pub(super) fn finish(self) {
        self.served.finish_all(state::SERVED);
        self.granted.finish_all(state::GRANTED);
    }
}

pub(super) type GrantsOf<F> = Grants<<F as Flavor>::Task, super::SignalOf<F>>;

impl<F: Flavor> Engine<F> {
    /// Takes the lock and lets waiters in as room allows; makes sure a worker
    /// takes the tasks that went into the lane.
    pub(super) fn let_waiters_in<H: EngineRef<Self>>(&self, handle: &H) {
        let mut cold = self.cold.lock();
        let grants = self.grant_waiters(&mut cold);
        drop(cold);
        self.finish_grants(handle, grants);
    }

    /// Finishes the waiters a grant let in (after the lock is dropped) and makes
    /// sure a worker takes the tasks that went into the lane.
    pub(super) fn finish_grants<H: EngineRef<Self>>(&self, handle: &H, grants: GrantsOf<F>) {
        let pushed = grants.pushed();
        grants.finish();
        if pushed {
            self.ensure_taker(handle);
        }
    }

    /// Saturated and allowed to block: watches for room for a moment, then joins
    /// the FIFO of waiters and parks until a worker serves it, a new worker is
    /// granted, the pool closes, or — `deadline` — the time runs out: it then
    /// takes itself out of the FIFO under the lock (`Timeout`), unless someone
    /// took it out first, whose finish it waits for. `Saturated(task)` hands
    /// the task back to go round again (room appeared). `since`: when the
    /// submit found the pool saturated (feature `timings`); its node carries
    /// it, for whoever admits it to record the wait.
    pub(super) fn wait_for_room<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
        deadline: Option<Instant>,
        level: Priority,
        since: Stamp,
    ) -> Attempt<F::Task> {
        // How long to watch for room first is the policy's: the decision to
        // link is taken again under the lock below either way.
        if let Some(budget) = F::Policy::room_for(self.parallelism()) {
            let mut spin = Spin::new(&self.clock, budget);
            while spin.wait() {
                let a = self.gate.adm.load();
                if a & adm::CLOSED != 0 {
                    return Attempt::Done(Err(SubmitError::Closed(task)));
                }
                if self.has_room(a, level) {
                    return Attempt::Saturated(task);
                }
            }
        }
        let mut cold = self.cold.lock();
        let a = self.gate.adm.load();
        if a & adm::CLOSED != 0 {
            return Attempt::Done(Err(SubmitError::Closed(task)));
        }
        if !self.waiters_block(a, level) && !self.saturated_now(a, level) {
            return Attempt::Saturated(task);
        }
        let max = self.config.max_blocking;
        if max != 0 && self.waiters(&mut cold).len() >= max {
            return Attempt::Done(Err(SubmitError::Overload(task)));
        }
        let remaining = deadline.map(|d| d.saturating_duration_since(self.clock.now()));
        if remaining.is_some_and(|r| r.is_zero()) {
            return Attempt::Done(Err(SubmitError::Timeout(task)));
        }
        let node = Node::with_task(self.spawner.signal(), task, state::WAITING);
        // SAFETY: our node, not linked yet.
        unsafe { node.set_stamp(since) };
        let bomb = AbortOnUnwind;
        // SAFETY: `node` stays on this stack, unmoved, until it is finished and we
        // have consumed the finisher's token below.
        unsafe { self.join_waiters(&mut cold, (&node).into(), level, false) };
        // Room may have appeared before the flag was up, unseen: let in whom it
        // allows (perhaps us).
        let grants = self.grant_waiters(&mut cold);
        drop(cold);
        self.finish_grants(handle, grants);
        let finished = match remaining {
            None => {
                node.signal().wait();
                true
            }
            Some(remaining) => {
                node.signal().wait_timeout(remaining) || !self.leave_waiters(handle, &node, level)
            }
        };
        bomb.disarm();
        if !finished {
            // SAFETY: we unlinked our node ourselves: nobody else touches it.
            return Attempt::Done(Err(SubmitError::Timeout(unsafe { node.take_task() })));
        }
        Attempt::Done(match node.state() {
            // Our task is in the lane, admitted.
            state::SERVED => Ok(()),
            // SAFETY: whoever finished the node with CLOSED or GRANTED left the task
            // in it, and it is ours again.
            state::CLOSED => Err(SubmitError::Closed(unsafe { node.take_task() })),
            // A new worker is reserved for our task (`T+1, K+1`).
            // SAFETY: as for CLOSED.
            state::GRANTED => unsafe { self.start_granted(handle, &node, level, since) },
            other => unreachable!("antpool: waiter woken in state {other}"),
        })
    }

    /// A waiter whose time ran out takes its node out of the FIFO: `true` if
    /// it did (its task is its own again, and newcomers may pass once the
    /// FIFO is empty); `false` if someone took the node out first, in which
    /// case it has waited for their finish, as an untimed waiter does.
    fn leave_waiters<H: EngineRef<Self>>(
        &self,
        handle: &H,
        node: &NodeOf<F>,
        level: Priority,
    ) -> bool {
        let mut cold = self.cold.lock();
        if !self.waiters(&mut cold).at(level).remove(node.into()) {
            // Taken out under the lock just now; the finish is coming.
            drop(cold);
            node.signal().wait();
            return false;
        }
        let let_in = self.waiters_changed(&mut cold);
        drop(cold);
        if let_in {
            self.let_waiters_in(handle);
        }
        true
    }

    /// The lines of waiters, with every node the inbox holds moved in first
    /// (oldest first, behind those already linked): what a lock holder reads
    /// them through to find or count a node — to unlink its own, turn the
    /// line away, or link a blocked thread behind every async waiter before
    /// it. One swap of the inbox's head per level in use, even if it is empty
    /// (the drain's half of the inbox handshakes, `engine/README.md`).
    pub(super) fn waiters<'g>(
        &self,
        cold: &'g mut Guard<'_, F>,
    ) -> &'g mut Lines<F::Task, super::SignalOf<F>> {
        self.take_inbox(&mut cold.lines, true)
    }

    /// The lines of waiters as one that serves the oldest sees them: the
    /// inbox moved in at the levels whose line is empty. A linked node is
    /// older than any in the inbox (a thread links itself behind the inbox,
    /// an async waiter is pushed after every drain before it), so a line
    /// that holds one is served in order without the inbox — and without a
    /// swap of its head, which the submitters keep writing, per task.
    pub(super) fn waiters_to_serve<'g>(
        &self,
        cold: &'g mut Guard<'_, F>,
    ) -> &'g mut Lines<F::Task, super::SignalOf<F>> {
        self.take_inbox(&mut cold.lines, false)
    }

    /// Moves the inbox into `lines`: at every level in use (`all`), or only
    /// where the line is empty.
    fn take_inbox<'g>(
        &self,
        lines: &'g mut Lines<F::Task, super::SignalOf<F>>,
        all: bool,
    ) -> &'g mut Lines<F::Task, super::SignalOf<F>> {
        let mut moved = 0;
        for &level in self.levels() {
            let line = lines.at(level);
            if all || line.len() == 0 {
                // SAFETY: we hold the lock, and so the line; only nodes of
                // this level go into its inbox stack.
                moved += unsafe { self.inbox.drain_into(level, line) };
            }
        }
        if moved > 0 {
            self.counters.waiting.store(lines.len(), Relaxed);
            self.inbox.moved_in(moved);
        }
        lines
    }

    /// The levels a pool waits at: all three with levels, else `Normal`.
    fn levels(&self) -> &'static [Priority] {
        match self.config.priorities {
            true => &Priority::ALL,
            false => &[Priority::Normal],
        }
    }

    /// Links a waiter's node into `level`'s FIFO (at its back, or `first`)
    /// and raises that level's waiters flag: newcomers join the line rather
    /// than pass it.
    ///
    /// # Safety
    ///
    /// As for [`NodeList::push_back`](super::node::NodeList::push_back); the lock is
    /// held (`cold`).
    pub(super) unsafe fn join_waiters(
        &self,
        cold: &mut Guard<'_, F>,
        node: NonNull<NodeOf<F>>,
        level: Priority,
        first: bool,
    ) {
        // SAFETY: per the caller's contract.
        unsafe {
            match first {
                true => self.waiters(cold).at(level).push_front(node),
                false => self.waiters(cold).at(level).push_back(node),
            }
        }
        self.gate.adm.set(adm::waiters(level));
        self.counters.waiting.store(cold.lines.len(), Relaxed);
    }

    /// After waiters left the lines (under the lock): lowers the flag of each
    /// level whose line is empty, and updates the lock-free count.
    ///
    /// `true`: it put a level's flag back for an async waiter that pushed
    /// itself meanwhile, and the word then had room for that level's waiters.
    /// A hand-off worker that finished between the lowering and the raise saw
    /// no waiter and let nobody in, and the pusher may have seen no room: the
    /// caller lets them in once it has dropped the lock
    /// ([`let_waiters_in`](Self::let_waiters_in)).
    #[must_use = "waiters the room allows must be let in, or they may wait for good"]
    pub(super) fn waiters_changed(&self, cold: &mut Guard<'_, F>) -> bool {
        self.counters.waiting.store(cold.lines.len(), Relaxed);
        let mut empty = 0;
        for level in Priority::ALL {
            // (A level whose inbox holds pushed waiters keeps its flag: the
            // look again below is for pushes that race the lowering.)
            if cold.lines.at(level).len() == 0 && !self.inbox.holds(level) {
                empty |= adm::waiters(level);
            }
        }
        self.lower_flags(cold, empty)
    }

    /// [`waiters_changed`](Self::waiters_changed)'s lowering: clears the
    /// waiters' flags `empty` (levels whose line and inbox it found empty),
    /// then puts back those of levels an async waiter pushed itself at since
    /// that look; `true` if it put one back with room for its waiters. Under
    /// the lock (`_cold`).
    fn lower_flags(&self, _cold: &mut Guard<'_, F>, empty: usize) -> bool {
        let a = self.gate.adm.load();
        if a & empty != 0 {
            self.gate.adm.clear(empty);
            // An async waiter may have pushed its node since we moved the
            // inbox in, and raised its flag before our clear: its raise is
            // earlier in the word's order, so its push is visible now. Put
            // the flag back for it (it is in the line once the next lock
            // holder looks).
            let back = self
                .levels()
                .iter()
                .filter(|&&l| empty & adm::waiters(l) != 0 && self.inbox.holds(l))
                .fold(0, |bits, &l| bits | adm::waiters(l));
            if back != 0 {
                let a = self.gate.adm.set(back) | back;
                return self
                    .levels()
                    .iter()
                    .any(|&l| back & adm::waiters(l) != 0 && self.waiters_may_enter(a, l));
            }
        }
        false
    }

    /// The level a submit at `p` waits at: `p` in a pool with levels, else
    /// the one line (`Normal`).
    #[inline]
    pub(crate) fn level(&self, p: Priority) -> Priority {
        match self.config.priorities {
            true => p,
            false => Priority::Normal,
        }
    }

    /// Whether waiters on the admission word `a` keep a newcomer at `level`
    /// out: in a hand-off pool (one admission) waiters at its level or above;
    /// in a queue pool (a lane per level) waiters at its own level.
    #[inline]
    pub(super) fn waiters_block(&self, a: usize, level: Priority) -> bool {
        let mask = match self.config.handoff() {
            true => adm::waiters_from(level),
            false => adm::waiters(level),
        };
        a & mask != 0
    }

    /// Whether a submitter at `level` that found the pool saturated should
    /// still wait, by loads alone (what it watches before it tries again):
    /// the pool is open, and refuses, or is a bounded queue not yet drained
    /// past the hysteresis.
    pub(super) fn looks_saturated(&self, level: Priority) -> bool {
        let a = self.gate.adm.load();
        a & adm::CLOSED == 0 && !self.has_room(a, level)
    }

    /// Whether a submitter at `level` that found the pool saturated has room
    /// now, on the admission word `a`: a hand-off pool admits, or its bounded
    /// lane has drained past the hysteresis — as a parked waiter is let in,
    /// not at one free slot. Submitters then fill the queue in a burst while
    /// the workers drain it undisturbed, instead of fighting them for each
    /// slot (far faster on tiny tasks: `BENCHMARKS.md`,
    /// "What the engine's constants rest on").
    fn has_room(&self, a: usize, level: Priority) -> bool {
        !self.refuses(a, level) && (self.config.handoff() || self.lane_drained(level))
    }

    /// Whether the waiters at `level` may come in on the admission word `a`
    /// (flags aside): a hand-off pool below its limit for `level`, or
    /// `level`'s lane drained past the hysteresis — what an async waiter that
    /// joined without the lock looks at once its flag is up.
    pub(super) fn waiters_may_enter(&self, a: usize, level: Priority) -> bool {
        match self.config.handoff() {
            true => !self.handoff_full(a, level),
            false => self.lane_drained(level),
        }
    }

    /// Whether `level`'s bounded lane is full (a queue pool's saturation).
    fn lane_full(&self, level: Priority) -> bool {
        self.lane.len_at(level) >= self.config.queue_limit
    }

    /// Whether `level`'s full bounded lane has drained past the hysteresis
    /// (the mark below which its blocked submitters are let in).
    pub(super) fn lane_drained(&self, level: Priority) -> bool {
        self.lane.len_at(level) + self.config.hysteresis() < self.config.queue_limit
    }

    /// Whether a queue pool's waiters on the admission word `a` may come in:
    /// the lane of a level whose waiters' flag is up has drained past the
    /// hysteresis (a worker's cheap look, before it takes the lock).
    pub(super) fn queue_waiters_may_enter(&self, a: usize) -> bool {
        a & adm::ANY_WAITERS != 0
            && Priority::ALL
                .into_iter()
                .any(|l| a & adm::waiters(l) != 0 && self.lane_drained(l))
    }

    /// Whether the pool is saturated for `level` on the admission word `a`
    /// (flags aside): a hand-off pool at its limit for `level` or paused, or
    /// `level`'s bounded lane full.
    pub(super) fn saturated_now(&self, a: usize, level: Priority) -> bool {
        match self.config.handoff() {
            true => self.handoff_full(a, level),
            false => self.lane_full(level),
        }
    }

    /// As a looker parks with the lane empty (under the lock): a queue pool's
    /// blocked submitters, let in unless the pool is paused. `None`: nobody
    /// waits. The worker read `WAITERS` without the lock and may have missed
    /// a waiter that linked itself just before; the lock orders it after that
    /// one (loom: `inbox.rs`, a join as the last worker parks).
    #[inline]
    pub(super) fn grants_at_park(
        &self,
        cold: &mut Guard<'_, F>,
        paused: bool,
    ) -> Option<GrantsOf<F>> {
        (!paused && !self.config.handoff() && self.waiters_to_serve(cold).len() > 0)
            .then(|| self.grant_waiters(cold))
    }

    /// Lets waiters in, while there is room: in a hand-off pool the oldest of
    /// the highest level (or a lower one's turn under the starvation bound)
    /// while the count is below that level's limit; in a queue pool, if a
    /// level's lane has drained past the hysteresis, that level's oldest until
    /// the lane is full again (one grant per half queue, not one per task).
    /// A waiter's task gets a new worker of its own (GRANTED: the waiter
    /// starts it) or goes into the lane (SERVED). Lowers the waiters' flags
    /// with the last. The caller finishes the grants after the lock, and —
    /// for tasks pushed here — is a worker that will take from the lane, or
    /// calls [`ensure_taker`](Self::ensure_taker).
    pub(super) fn grant_waiters(&self, cold: &mut Guard<'_, F>) -> GrantsOf<F> {
        let mut grants = Grants::new();
        let handoff = self.config.handoff();
        // When the waiters let in were admitted (feature `timings`: read
        // once, at the first).
        let mut admitted = None;
        loop {
            for queue_level in Priority::ALL {
                // A queue pool's level: its waiters come in once its lane has
                // drained past the hysteresis, and then fill it.
                if !handoff && !self.lane_drained(queue_level) {
                    continue;
                }
                loop {
                    if self.gate.adm.load() & adm::CLOSED != 0 {
                        break;
                    }
                    // The inbox moved in where a line ran empty.
                    self.take_inbox(&mut cold.lines, false);
                    let level = match handoff {
                        // One admission for every level: the highest goes first.
                        true => match cold.lines.next_level(self.config.starvation_bound) {
                            Some(level) => level,
                            None => break,
                        },
                        // A lane per level: each its own room.
                        false => match cold.lines.at(queue_level).len() {
                            0 => break,
                            _ => queue_level,
                        },
                    };
                    if handoff {
                        // Admit it (the waiters' flags are ours to pass, under the
                        // lock), unless the pool is at its limit for the level or
                        // paused.
                        if self
                            .gate
                            .adm
                            .enter(|a| self.handoff_full(a, level))
                            .is_err()
                        {
                            break;
                        }
                    } else if self.lane_full(level) {
                        break;
                    }
                    // A blocked thread and an async submitter alike: the task waits
                    // in the node, and is moved from there (`wait_async.rs`).
                    let Some(waiter) = cold.lines.at(level).pop_front() else {
                        unreachable!(
                            "antpool: the waiters list was checked non-empty under the lock"
                        );
                    };
                    cold.lines.served(level);
                    let at: Stamp = *admitted.get_or_insert_with(|| self.stamp_now());
                    if handoff
                        && self
                            .ctl
                            .update(|w| self.spawn_for(w).then(|| w.add_threads(1).add_busy(1)))
                            .is_ok()
                    {
                        // SAFETY: we unlinked the waiter under the lock; the node is
                        // ours to finish (admitted now: the owner records its wait
                        // once its worker started).
                        unsafe { waiter.as_ref().set_stamp(at) };
                        // SAFETY: we unlinked the waiter under the lock; the node is
                        // ours to finish, and its task stays in it for the owner.
                        unsafe { grants.granted.push(waiter) };
                        continue;
                    }
                    // SAFETY: as above; the task is ours to move into the lane.
                    let task = unsafe { waiter.as_ref().take_task() };
                    // (A hand-off pool admitted it above: `push_admitted` waits
                    // for its slot.)
                    if let Err(task) = self.push_admitted(task, level, move |_, _| at) {
                        // A queue filled up meanwhile, or its slot at `tail` is a
                        // worker's between its claim and its read (that worker
                        // looks at the line once its pop is done): the waiter
                        // stays first in line.
                        // SAFETY: the node is still ours; its cell is empty again.
                        unsafe {
                            waiter.as_ref().put_back(task);
                            cold.lines.at(level).push_front(waiter);
                        }
                        break;
                    }
                    // SAFETY: as above (its stamp: when its submit found the pool
                    // saturated).
                    self.record_submit_wait(unsafe { waiter.as_ref().stamp() }, at);
                    grants.pushed = true;
                    // SAFETY: as above; a finish now is our last touch.
                    if !unsafe { Node::finish_unwoken(waiter) } {
                        // SAFETY: as above.
                        unsafe { grants.served.push(waiter) };
                    }
                }
                if handoff {
                    break; // one pass served every level
                }
            }
            // A flag put back with room: a waiter pushed itself meanwhile.
            if !self.waiters_changed(cold) {
                return grants;
            }
        }
    }
}

#[cfg(all(test, feature = "std", not(antpool_loom)))]
mod tests;
