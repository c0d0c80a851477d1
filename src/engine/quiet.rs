//! Callers that wait on the workers, and the pause: `wait_idle` waits until no
//! task is running, in the task queue (`lane`), or on its way there; `pause`
//! stops every task from starting and waits until none runs. Both wait in the
//! cold lock's lists (`idlers`, `pausers`) behind one flag, `IDLERS`, which
//! tells whoever ends a stage of a task's travel to look (handshake 3 in
//! `engine/README.md`).
//!
//! # Pause
//!
//! `pause` returns only once no task runs, and after that no task starts
//! until `resume`, on any path a task starts by: a worker popping the queue
//! (after a task, or searching), a hand-off worker serving a waiter, a new
//! worker carrying its first task (a submit's `place`, a hand-off grant). The
//! flag lives where each decision is made:
//!
//! * `Ctl`'s `PAUSED` guards every decision that wakes a worker or gives it a
//!   task without the queue: `spawn_for` refuses a worker carrying a task in
//!   the CAS that would reserve it, and `ensure_taker` (the only path that
//!   wakes or starts workers for the queue while the pool is open) reads it
//!   and stops. A task submitted while paused waits in the queue.
//! * The engine's `paused` copy, on a read-mostly line, is what an awake
//!   worker checks before it takes a task (`next_task`, `find_task`): one load
//!   a task. Paused, a busy worker gives its admission back instead of
//!   serving a waiter, and parks; `park` decides on `Ctl`'s flag in the value
//!   of its own swap, so it does not go back to searching (else it would
//!   loop).
//! * `Adm`'s `PAUSED` makes a hand-off pool refuse admission as at capacity
//!   (`try_submit` is `Overload` with idle workers). Queue pools ignore it:
//!   their submissions queue until the queue is full.
//!
//! `pause` raises them (copy, `Adm`, `Ctl`, under the cold lock) and waits,
//! behind `IDLERS` as `wait_idle` does, until no worker is awake (`S + K = 0`).
//! That is enough: a worker awake at `pause`'s swap on `Ctl` is waited for,
//! whatever it takes meanwhile; one that becomes awake later does so by an
//! RMW on `Ctl` later in its order (a wake-up, a reservation), so it sees
//! `PAUSED` and the copy written before, and every such path checks one of
//! them before a task. The worker that brings `S + K` to 0 sees `IDLERS` in
//! its swap and wakes the `pause` callers (`left_work`).
//!
//! `resume` clears them (copy, `Ctl`, `Adm`, under the lock), finishes the
//! `pause` callers still waiting, lets waiters in, and calls `ensure_taker`:
//! a submitter that found `PAUSED` left its task to exactly that. A worker
//! parking meanwhile decides under the same lock, so either its swap saw the
//! flag clear or `resume`'s `ensure_taker` finds it parked.
//!
//! `release` ends a pause (paused, a closed pool would never end) before it
//! wakes parked workers for the queue. It has no handle to start workers
//! with, so a paused pool keeps one worker for the tasks that wait:
//! `ensure_taker` starts a searcher (which parks) when it finds `PAUSED` and
//! no thread, and expiry leaves a paused pool one parked worker (decided
//! under the lock). `release_drain` on a paused pool pops the queue before the
//! release ends the pause, so it returns every queued task.
//!
//! loom (`tests/loom/pause.rs`): `pause vs submit (hand-off)` and `pause vs
//! submit (queue)` fail if a task starts between `pause`'s return and
//! `resume` (with a `park` that searches again while paused, the queue model
//! loops to loom's branch limit); `release ends pause` checks that the release
//! runs the task and leaves no worker. Single layers of the guard (the copy's
//! check in `next_task`, `spawn_for`'s flag) are each caught by
//! `tests/it/pause.rs`; loom cannot tell them apart, since the layer behind
//! each also stops the task.

use core::time::Duration;

use super::ctl::{IDLERS, PAUSED, Word, adm};
use super::node::{Chain, state};
use super::{ChainOf, Engine, EngineRef, Flavor, Guard};
use crate::sync::Ordering::{Acquire, SeqCst};

impl<F: Flavor> Engine<F> {
    /// Waits until no task is running, in the lane, or on its way there (`None`:
    /// no time limit). `false` if the time ran out first.
    pub(crate) fn wait_idle(&self, timeout: Option<Duration>) -> bool {
        self.park_until(|c| &mut c.idlers, |e| e.is_quiet(), true, timeout)
    }

    /// Whether no task is running, in the lane, or on its way there. Read in
    /// the order a task moves through them (admission window, lane, a worker
    /// counted awake from before its pop until it finishes), each by RMW, so a
    /// task that moves on between two reads is still seen by the later one.
    pub(super) fn is_quiet(&self) -> bool {
        self.gate.adm.read_rmw() & adm::COUNT == 0
            && !self.lane.has_tasks()
            && self.ctl.read_rmw().awake() == 0
    }

    /// Whether the pool is paused. (The workers' copy of the flag, on a
    /// read-mostly line: a worker checks it before each task it takes.)
    #[inline]
    pub(crate) fn is_paused(&self) -> bool {
        self.paused.load(Acquire) != 0
    }

    /// Pauses the pool — no task starts until [`resume`](Self::resume) — and
    /// waits up to `timeout` (`None`: no limit) for the tasks running to
    /// finish. `true` once none runs while the pool is paused; `false` if the
    /// time ran out first (the pool stays paused), if the pause ended before
    /// (`resume`, `release`), or if the pool is released (which ends a pause,
    /// so a released pool is never paused).
    pub(crate) fn pause(&self, timeout: Option<Duration>) -> bool {
        self.pause_begin() && self.pause_wait(timeout)
    }

    /// The first half of [`pause`](Self::pause): raises the flags (under the
    /// cold lock, where `release` ends a pause). `false` on a released pool.
    pub(crate) fn pause_begin(&self) -> bool {
        let _cold = self.cold.lock();
        if self.gate.adm.load() & adm::CLOSED != 0 {
            return false;
        }
        if !self.is_paused() {
            // The copy first: a worker woken or started after the swap on
            // `Ctl` below synchronizes with it, so it sees the copy set.
            self.paused.store(1, SeqCst);
            self.gate.adm.set(adm::PAUSED);
            self.ctl.set(PAUSED);
        }
        true
    }

    /// The second half of [`pause`](Self::pause): waits for the running
    /// tasks to finish.
    pub(crate) fn pause_wait(&self, timeout: Option<Duration>) -> bool {
        self.park_until(|c| &mut c.pausers, |e| e.pause_holds(), true, timeout) && self.is_paused()
    }

    /// What a `pause` caller waits for: no worker awake (a worker holding a
    /// task is counted awake from before it took it until it is done), or the
    /// pause is over.
    fn pause_holds(&self) -> bool {
        let w = self.ctl.read_rmw();
        !w.has(PAUSED) || w.awake() == 0
    }

    /// Ends a pause: blocked submitters are let in as room allows, the tasks
    /// queued meanwhile get workers, and `pause` callers still waiting return.
    pub(crate) fn resume<H: EngineRef<Self>>(handle: &H) {
        let this = handle.engine();
        let mut cold = this.cold.lock();
        if !this.is_paused() {
            return;
        }
        let pausers = this.end_pause(&mut cold);
        let grants = this.grant_waiters(&mut cold);
        drop(cold);
        pausers.finish_all(state::DONE);
        grants.finish();
        // Whoever found the pool paused left its task in the lane to us.
        this.ensure_taker(handle);
    }

    /// Clears the pause (under the cold lock) and takes the `pause` callers,
    /// to be finished (`DONE`) once the lock is dropped. Nobody can wait for
    /// the paused workers any more: they park, and whoever wakes or starts one
    /// finds the flag clear.
    pub(super) fn end_pause(&self, cold: &mut Guard<'_, F>) -> ChainOf<F> {
        self.paused.store(0, SeqCst);
        self.ctl.clear(PAUSED);
        self.gate.adm.clear(adm::PAUSED);
        let pausers = cold.pausers.take_all();
        self.lower_idlers_flag(cold);
        pausers
    }

    /// If the pool fell quiet, or no worker is awake, while `wait_idle` or
    /// `pause` callers wait: wakes those whose wait is over.
    pub(super) fn maybe_quiet(&self) {
        let w = self.ctl.read_rmw();
        if w.has(IDLERS) && (w.awake() == 0 || self.is_quiet()) {
            self.wake_idlers();
        }
    }

    /// After a swap of `Ctl` to `new`: if it left no worker awake while
    /// `wait_idle` or `pause` callers wait, sees whether their wait is over.
    /// Not under the cold lock (waking them takes it).
    #[inline]
    pub(super) fn left_work(&self, new: Word) {
        if new.awake() == 0 && new.has(IDLERS) {
            self.maybe_quiet();
        }
    }

    /// Raises or lowers the `IDLERS` flags (in `Ctl` for the workers, in `Adm`
    /// for a queue pool's submitters), under the cold lock.
    pub(super) fn idlers_flag(&self, up: bool) {
        match up {
            true => {
                self.ctl.set(IDLERS);
                self.gate.adm.set(adm::IDLERS);
            }
            false => {
                self.ctl.clear(IDLERS);
                self.gate.adm.clear(adm::IDLERS);
            }
        }
    }

    /// Lowers the `IDLERS` flags if nobody waits behind them any more (under
    /// the cold lock).
    pub(super) fn lower_idlers_flag(&self, cold: &mut Guard<'_, F>) {
        if cold.idlers.len() == 0 && cold.pausers.len() == 0 {
            self.idlers_flag(false);
        }
    }

    /// Wakes the `wait_idle` callers if the pool is quiet, and the `pause`
    /// callers if no worker is awake (each checked under the lock: whoever
    /// still waits keeps the flag up, so the next stage's end looks again).
    pub(super) fn wake_idlers(&self) {
        let mut cold = self.cold.lock();
        let idlers = match cold.idlers.len() > 0 && self.is_quiet() {
            true => cold.idlers.take_all(),
            false => Chain::new(),
        };
        let pausers = match cold.pausers.len() > 0 && self.pause_holds() {
            true => cold.pausers.take_all(),
            false => Chain::new(),
        };
        self.lower_idlers_flag(&mut cold);
        drop(cold);
        idlers.finish_all(state::DONE);
        pausers.finish_all(state::DONE);
    }

    /// Under the lock, before a waiter links into its list: whether `done`
    /// holds already. With `idlers`, raises the `IDLERS` flag
    /// first if it does not, and looks once more (it may have come to hold
    /// before the flag was up, unseen), lowering the flag again if it holds
    /// now and nobody else waits. (`wait_idle`, `wait_idle_async`, `pause`.)
    pub(super) fn holds_or_flag(
        &self,
        cold: &mut Guard<'_, F>,
        done: fn(&Self) -> bool,
        idlers: bool,
    ) -> bool {
        if done(self) {
            return true;
        }
        if !idlers {
            return false;
        }
        self.idlers_flag(true);
        if !done(self) {
            return false;
        }
        self.lower_idlers_flag(cold);
        true
    }
}

#[cfg(all(test, feature = "std", not(antpool_loom)))]
mod tests {
    use std::sync::Arc;
    use std::thread;
    use std::time::{Duration, Instant};

    use super::super::tests::hold_one;

    /// Waits (polling, up to a generous limit) until `cond` holds.
    fn eventually(mut cond: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !cond() {
            if Instant::now() > deadline {
                return false;
            }
            thread::yield_now();
        }
        true
    }

    /// `pause` returns only once no task runs, even when whoever looks on
    /// the callers' behalf read the pool idle a moment before a task started
    /// (a worker whose last task ended, `clear_queue`, `release_drain`): the
    /// look checks again under the lock, and lets a `pause` caller go only if
    /// no worker is awake by then.
    #[test]
    fn a_stale_look_lets_no_pause_caller_go_while_a_task_runs() {
        let pool = Arc::new(crate::Pool::new(2).unwrap());
        let finish = hold_one(&*pool);
        let pauser = {
            let pool = Arc::clone(&pool);
            thread::spawn(move || pool.engine().pause(None))
        };
        let engine = pool.engine();
        assert!(
            eventually(|| engine.cold.lock().pausers.len() == 1),
            "the pause caller waits for the running task"
        );
        // What a worker does when its read found no worker awake (stale by
        // now: the task above runs).
        engine.wake_idlers();
        assert_eq!(
            engine.cold.lock().pausers.len(),
            1,
            "the pause caller still waits while the task runs"
        );
        assert!(!pauser.is_finished(), "pause returned while a task runs");
        finish.send(()).unwrap();
        assert!(pauser.join().unwrap(), "the pause holds once the task ends");
        pool.resume();
    }
}
