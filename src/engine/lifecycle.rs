//! The cold paths of a pool's life: `tune`, expiry and `purge`, `release` (and
//! its drain), `reboot`, and the park of a thread that waits on the workers
//! (`wait_idle`, `pause`, a releaser). Waiting for a release to end is
//! `drain.rs`.

use core::time::Duration;

use super::ctl::{CLOSED, adm};
use super::drain::Releasers;
use super::node::{Chain, Node, state};
use super::{AbortOnUnwind, ChainOf, Cold, Engine, EngineRef, Flavor, Guard, ListOf, NodeOf};
use crate::clock::{Clock, Instant};
use crate::queue::{IdleWorker, WorkerId, WorkerQueue};
use crate::spawner::{Signal, Spawner};
use crate::sync::Ordering::Relaxed;
use crate::trace::trace_event;

impl<F: Flavor> Engine<F> {
    /// Changes the capacity. Ignored for 0, unbounded and prealloc pools.
    /// Growing lets blocked submitters in and starts workers for tasks waiting
    /// in the lane; shrinking retires surplus parked workers at once (busy ones
    /// and lookers retire as they notice the pool is over capacity).
    pub(crate) fn tune<H: EngineRef<Self>>(handle: &H, capacity: usize) {
        let this = handle.engine();
        if capacity == 0 || this.config.capacity.is_none() || this.config.prealloc {
            return;
        }
        let mut cold = this.cold.lock();
        let old = this.gate.cap.swap(capacity, Relaxed);
        if capacity < old {
            let limit = this.limit();
            let mut retired: ChainOf<F> = Chain::new();
            if let Ok((old, new)) = this.ctl.update(|w| {
                let surplus = w.threads().saturating_sub(limit).min(w.parked());
                (surplus > 0).then(|| w.sub_threads(surplus))
            }) {
                for _ in 0..old.threads() - new.threads() {
                    let Some(w) = cold.idle.detach() else {
                        unreachable!(
                            "antpool: the control word counts parked workers the idle queue lacks"
                        );
                    };
                    this.retire_into(&mut cold, &mut retired, w);
                }
            }
            drop(cold);
            retired.finish_all(state::RETIRE);
            this.after_retiring(handle);
            return;
        }
        let grants = this.grant_waiters(&mut cold);
        drop(cold);
        grants.finish();
        // Tasks in the lane may now get workers of their own.
        this.ensure_taker(handle);
    }

    /// Removes the workers idle since `cutoff` or earlier from the idle queue
    /// (under the lock), takes them out of the workers' word, and chains them to
    /// be retired after the lock — except `me`, the caller, reported instead.
    ///
    /// The warm floor (`min_idle`) holds: no more go than leave `min_idle`
    /// idle. The oldest expired go; the rest of the expired are put back as
    /// idle from now (a worker among them finds its stamp moved up when its
    /// timer fires, and waits a full expiry again).
    pub(super) fn reap(
        &self,
        cold: &mut Guard<'_, F>,
        cutoff: Instant,
        me: Option<WorkerId>,
    ) -> (ChainOf<F>, bool) {
        let watcher = cold.watcher;
        let mut retired: ChainOf<F> = Chain::new();
        // A paused pool keeps one worker for the tasks that wait (see
        // `ensure_taker`); the pause changes only under this lock.
        let floor = match self.is_paused() {
            true => self.config.min_idle.max(1),
            false => self.config.min_idle,
        };
        let may_go = cold.idle.len().saturating_sub(floor);
        if may_go == 0 {
            return (retired, false);
        }
        let mut kept: ChainOf<F> = Chain::new();
        let (mut gone, mut me_too, mut watcher_gone) = (0, false, false);
        cold.idle.refresh(cutoff, |w| {
            if gone == may_go {
                // SAFETY: removed from the idle queue under the lock just now,
                // so its id names the live mailbox of a worker parked on it
                // (IDLE: it waits for a token only a lock holder that detaches
                // it gives); its link is ours until it is back in the queue,
                // below, before the lock is dropped.
                unsafe { kept.push(w.id.as_ptr()) };
                return;
            }
            gone += 1;
            watcher_gone |= Some(w.id) == watcher;
            if Some(w.id) == me {
                me_too = true;
            } else {
                // SAFETY: see `retire_marked`.
                unsafe { retire_marked(&mut retired, w) };
            }
        });
        let now = self.clock.now();
        while let Some(node) = kept.pop() {
            let id = WorkerId::from_ptr(node);
            if cold.idle.insert(IdleWorker { id, since: now }).is_err() {
                unreachable!(
                    "antpool: no room in the idle queue for a worker just taken out of it"
                );
            }
        }
        if watcher_gone {
            self.end_watch(cold);
        }
        if gone > 0 {
            // Parked workers are counted in the word's `parked` and nowhere else,
            // and only lock holders change that: the ones gone are there to take.
            self.ctl.apply(|w| w.sub_threads(gone));
        }
        (retired, me_too)
    }

    /// Starts workers (lookers, which find nothing to do and park) until the
    /// pool has its `min_idle`, or its capacity. `false` if the spawner could
    /// not start one (the pool is as it was before that one). A released pool
    /// keeps no workers: none is started there (one started as a release
    /// comes in retires as the others do).
    pub(crate) fn warm<H: EngineRef<Self>>(handle: &H) -> bool {
        let this = handle.engine();
        let floor = this.config.min_idle.min(this.limit());
        while this.gate.adm.load() & adm::CLOSED == 0
            && this
                .ctl
                .update(|w| (w.threads() < floor).then(|| w.add_threads(1).add_lookers(1)))
                .is_ok()
        {
            if !this.start_looker(handle) {
                return false;
            }
        }
        true
    }

    /// Marks a worker just removed from the idle queue (under the lock) as
    /// retiring, ending the watch if it was the watcher.
    fn retire_into(&self, cold: &mut Guard<'_, F>, chain: &mut ChainOf<F>, worker: IdleWorker) {
        if cold.watcher == Some(worker.id) {
            self.end_watch(cold);
        }
        // SAFETY: see `retire_marked`: the worker was just removed under the lock.
        unsafe { retire_marked(chain, worker) };
    }

    /// Retires every worker that has been idle for the expiry or longer, now,
    /// and sees tasks left in the lane get a taker (the watcher may be among
    /// the retired). Returns how many.
    pub(crate) fn purge<H: EngineRef<Self>>(handle: &H) -> usize {
        let this = handle.engine();
        // Before the clock has run for one expiry, nobody can have expired.
        let Some(cutoff) = this.clock.now().checked_sub(this.config.expiry) else {
            return 0;
        };
        let mut cold = this.cold.lock();
        let (retired, _) = this.reap(&mut cold, cutoff, None);
        drop(cold);
        let n = retired.len();
        if n > 0 {
            trace_event!(debug, count = n, "idle workers expired");
        }
        retired.finish_all(state::RETIRE);
        this.after_retiring(handle);
        n
    }

    /// Closes the pool: admission stops, a pause ends, blocked submitters get
    /// their task back, parked workers retire — but for as many as tasks wait
    /// in the lane, which wake as lookers to run them — and busy workers and
    /// lookers drain the lane and retire. `false` if it was already closed.
    pub(crate) fn release(&self) -> bool {
        self.close().is_some()
    }

    /// [`release`](Self::release), returning how many times the pool had been
    /// reopened when it closed — what a releaser waits with (`drain.rs`)
    /// — or `None` if it was closed already. Releasers that waited on the
    /// open pool (`wait_released`) are finished `DONE` here if nothing is
    /// left to wait for (no worker thread at all); else a thread's end does.
    pub(crate) fn close(&self) -> Option<usize> {
        let mut cold = self.cold.lock();
        // A pool other than a hand-off one is closed from the inside out, each by a
        // read-modify-write after the one before: the lane (no push lands
        // after this), the workers' word (no worker is reserved for a task
        // after this), then admission. A worker that reads `Adm` closed and
        // then the lane by RMW counts every push that will ever land
        // (handshake 2). A hand-off pool counts its tasks in `Adm`. (The two
        // marks change nothing if the pool was closed already.)
        if self.config.lane_closes() {
            self.lane.close();
            self.ctl.set(CLOSED);
        }
        if self.gate.adm.set(adm::CLOSED) & adm::CLOSED != 0 {
            return None;
        }
        // A closed pool runs what it holds and ends: paused, it never could.
        // (Cleared before the parked workers are woken: they see it clear.)
        let pausers = match self.is_paused() {
            true => self.end_pause(&mut cold),
            false => Chain::new(),
        };
        let (woken, retired) = self.dismiss_parked(&mut cold);
        let turned_away = self.waiters(&mut cold).take_all();
        self.gate.adm.clear(adm::ANY_WAITERS);
        self.counters.waiting.store(0, Relaxed);
        let releasers = self.take_drains_if_drained(&mut cold);
        let reboots = cold.reboots;
        drop(cold);
        woken.finish_all(state::WAKE);
        retired.finish_all(state::RETIRE);
        for line in turned_away {
            line.finish_all(state::CLOSED);
        }
        pausers.finish_all(state::DONE);
        releasers.finish(state::DONE);
        Some(reboots)
    }

    /// No task can come any more to a closed pool: a hand-off pool's admission
    /// count fell to 0, or `clear_queue` or `release_drain` took tasks from a
    /// closed lane. The last worker may have stayed parked for one (handshake
    /// 2: it saw the lane holding a task, and by the time it looked whether
    /// one was ready another thread had popped it): wakes as many parked
    /// workers as tasks wait in the lane, retires the rest, then wakes the
    /// releasers if that was all. No worker is touched if a `reboot` reopened
    /// the pool meanwhile (it reopens under the lock, where we look).
    pub(super) fn settle_closed(&self) {
        let mut cold = self.cold.lock();
        let (woken, retired) = match self.gate.adm.load() & adm::CLOSED {
            0 => (Chain::new(), Chain::new()),
            _ => self.dismiss_parked(&mut cold),
        };
        drop(cold);
        woken.finish_all(state::WAKE);
        retired.finish_all(state::RETIRE);
        self.wake_drains();
    }

    /// Takes every parked worker of a closed pool (under the lock): as many as
    /// tasks wait in the lane are woken as lookers, the rest retire. The chains
    /// are finished once the lock is dropped.
    fn dismiss_parked(&self, cold: &mut super::Guard<'_, F>) -> (ChainOf<F>, ChainOf<F>) {
        let mut woken: ChainOf<F> = Chain::new();
        let mut retired: ChainOf<F> = Chain::new();
        let mut wanted = self.lane.len();
        while let Some(w) = cold.idle.detach() {
            match wanted {
                0 => {
                    self.ctl.apply(|w| w.sub_threads(1));
                    self.retire_into(cold, &mut retired, w);
                }
                _ => {
                    wanted -= 1;
                    self.ctl.apply(|w| w.add_lookers(1));
                    let node = self.take_parked(cold, w);
                    // SAFETY: `take_parked` marked it under the lock: ours to
                    // finish (WAKE, by the caller).
                    unsafe { woken.push(node) };
                }
            }
        }
        (woken, retired)
    }

    /// Drops every task still waiting in the lane (admitted, not started);
    /// returns how many. The pool stays open; tasks a worker took already run.
    /// A hand-off pool's dropped tasks give their admission back (letting
    /// waiters in); a queue pool lets its waiters into the room made. Each
    /// task is dropped here, outside the lock (a `JoinHandle` of one reports
    /// cancelled). The pops are `release_drain`'s, racing the workers' the
    /// same way (loom: `clear_queue vs worker`).
    pub(crate) fn clear_queue<H: EngineRef<Self>>(handle: &H) -> usize {
        let this = handle.engine();
        let mut cleared = 0;
        while let Some((task, _)) = this.lane.pop() {
            cleared += 1;
            if this.config.handoff() {
                // Never to start: its admission goes now.
                this.task_done(handle);
            }
            drop(task);
        }
        // Read by RMW: a waiter sets WAITERS (RMW) and then looks at the lane;
        // of the two, at least one sees the other (see "Handshakes" in
        // `engine/README.md`: with a plain load, Miri's weak memory showed
        // this clear missing a waiter that in turn saw the lane still full).
        // A release's RMW on the word after ours reads from it, so a worker
        // that sees the pool closed sees our pops too.
        let a = match cleared > 0 && this.config.lane_closes() {
            true => this.gate.adm.read_rmw(),
            false => 0,
        };
        if a & adm::ANY_WAITERS != 0 {
            this.let_waiters_in(handle);
        }
        this.maybe_quiet();
        if a & adm::CLOSED != 0 {
            // Released meanwhile: its last worker may have stayed, parked, for
            // a task we took (handshake 2); and a releaser may wait for the
            // lane to empty (`drained`).
            this.settle_closed();
        }
        cleared
    }

    /// Parks on a node in the list `pick` selects until `done` (checked under the
    /// lock, first) holds and whoever makes it hold finishes the node. With
    /// `idlers`, the `IDLERS` flag that tells workers to look is raised while
    /// the node is linked, and lowered with the last one.
    pub(super) fn park_until(
        &self,
        pick: fn(&mut Cold<F>) -> &mut ListOf<F>,
        done: fn(&Self) -> bool,
        idlers: bool,
        timeout: Option<Duration>,
    ) -> bool {
        let node: NodeOf<F> = Node::new(self.spawner.signal(), state::WAITING);
        let mut cold = self.cold.lock();
        if self.holds_or_flag(&mut cold, done, idlers) {
            return true;
        }
        let unlinked = |cold: &mut Guard<'_, F>| {
            if idlers {
                self.lower_idlers_flag(cold);
            }
        };
        self.park_on(cold, &node, pick, timeout, unlinked).is_some()
    }

    /// Links `node` (a thread's, made by the caller, `WAITING` and in no
    /// list) at the back of the list `pick` selects, drops the lock, and
    /// parks until whoever unlinks it finishes it: returns the state it was
    /// finished with. With a `timeout`, `None` if the time ran out first and
    /// we unlinked the node ourselves (`unlinked` then runs, under the lock).
    /// Either way the node is in no list, nor held by a finisher, when this
    /// returns.
    pub(super) fn park_on(
        &self,
        mut cold: Guard<'_, F>,
        node: &NodeOf<F>,
        pick: fn(&mut Cold<F>) -> &mut ListOf<F>,
        timeout: Option<Duration>,
        unlinked: impl FnOnce(&mut Guard<'_, F>),
    ) -> Option<u8> {
        let bomb = AbortOnUnwind;
        // SAFETY: `node` is borrowed for this whole call, so it stays where it
        // is; we return only once it is unlinked by us below, or finished by
        // someone else and we consumed the token.
        unsafe { pick(&mut cold).push_back(node.into()) };
        drop(cold);
        let finished = match timeout {
            None => {
                node.signal().wait();
                true
            }
            Some(timeout) => {
                node.signal().wait_timeout(timeout) || {
                    let mut cold = self.cold.lock();
                    if pick(&mut cold).remove(node.into()) {
                        unlinked(&mut cold);
                        false
                    } else {
                        // Finished just now; its notify is coming.
                        drop(cold);
                        node.signal().wait();
                        true
                    }
                }
            }
        };
        bomb.disarm();
        finished.then(|| node.state())
    }

    /// Reopens a released pool. Workers still finishing their last task before the
    /// release go on serving. Releasers still waiting for the workers to exit
    /// are finished `REOPENED`: nothing would end their wait now. A pool that
    /// is open is left as it is.
    pub(crate) fn reboot(&self) {
        let mut cold = self.cold.lock();
        if self.gate.adm.load() & adm::CLOSED == 0 {
            return;
        }
        // Opened with `Adm` last: a submitter that sees `Adm` open finds
        // the workers' word and the lane open too.
        if self.config.lane_closes() {
            self.ctl.clear(CLOSED);
            self.lane.reopen();
        }
        self.gate.adm.clear(adm::CLOSED);
        cold.reboots = cold.reboots.wrapping_add(1);
        let releasers = Releasers::take(&mut cold);
        drop(cold);
        releasers.finish(state::REOPENED);
    }
}

/// Marks an idle worker taken out of the queue under the lock as retiring, and
/// adds it to `chain` to be woken once the lock is dropped.
///
/// # Safety
///
/// Called with the lock held, on a worker just removed from the idle queue: its
/// id names the live mailbox of a worker parked on it, and removing it gave the
/// caller the right to finish it.
unsafe fn retire_marked<T, Sig: Signal>(chain: &mut Chain<T, Sig>, worker: IdleWorker) {
    let node = worker.id.as_ptr::<Node<T, Sig>>();
    // SAFETY: per the function's contract.
    unsafe {
        node.as_ref().set_state(state::RETIRE);
        chain.push(node);
    }
}
