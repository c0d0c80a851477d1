//! Submitting from an interrupt handler: the task goes to a parked worker,
//! woken for it, or comes back at once.
//!
//! An interrupt handler may not start a thread, wait, or leave its task behind
//! others, and on one core it must never wait for a thread it interrupted. So
//! the task goes only to a **parked** worker, claimed before anything else, and
//! this path, unlike [`submit`](Engine::submit):
//!
//! 1. **under the cold lock** (where workers park and leave the idle queue, so
//!    `parked` cannot move under it): if a worker is parked and the pool is not
//!    paused, admits with the same swap on the admission word as any submit (a
//!    refusal — closed, waiters, paused, at capacity — has nothing to undo
//!    yet); then claims a parked worker, making it a searcher (`S+1`) and
//!    detaching it from the idle queue, exactly as
//!    [`wake_one`](Engine::wake_one) does;
//! 2. **after the lock, pushes without waiting** (`Transport::push_now`): a
//!    slot that another thread has claimed and not released makes it give the
//!    task back rather than spin; it retries only while other pushers move
//!    `tail` on (lock-free);
//! 3. **wakes the claimed worker** (`WAKE`) whatever became of the push: it
//!    left the idle queue and must look (a failed push means the task queue
//!    holds tasks for it, or a worker is between its claim and its read: the
//!    woken one then parks again).
//!
//! It starts no worker, takes the pool's lock once, notifies one signal (two in
//! the rare undo below), never reads the clock (so never stamps a task for the
//! timings), allocates nothing and emits no tracing event (a subscriber is user
//! code). An interrupt handler may call it if the platform's `Lock` and
//! `Signal` may be used there (antpool-freertos's are, with its `isr` feature:
//! a `FROM_ISR` critical section and notify).
//!
//! A push that fails after admission gives the admission back, as a finished
//! task does (letting blocked submitters in). In a hand-off pool without a heap
//! — the only kind that offers this path — it is rare: the ring has a slot for
//! every task the pool admits, so the slot at `tail` is held only by a worker
//! preempted between its claim and its read while later pops finished. The
//! argument then goes back to the caller, as for a busy pool.
//!
//! loom: `submit from an interrupt` (`tests/loom/isr.rs`) — the call racing a
//! warm worker on its way to park and a thread that invokes; the argument runs
//! once if taken, never if handed back, no thread is started for it (fails, by
//! deadlock, without the wake).

use super::ctl::PAUSED;
use super::ctl::adm;
use super::node::{Node, state};
use super::{Engine, EngineRef, Flavor};
use crate::error::SubmitError;
use crate::sync::Ordering::Relaxed;

impl<F: Flavor> Engine<F> {
    /// Hands `task` to a parked worker, waking it; or returns it at once:
    /// `Overload` when no worker is parked (or the pool is paused, or full),
    /// `Closed` when the pool is released. See the module docs.
    pub(crate) fn submit_to_parked<H: EngineRef<Self>>(
        handle: &H,
        task: F::Task,
    ) -> Result<(), SubmitError<F::Task>> {
        let this = handle.engine();
        let result = this.hand_to_parked(handle, task);
        if result.is_err() {
            this.counters.rejected.fetch_add(1, Relaxed);
        }
        result
    }

    /// [`submit_to_parked`](Self::submit_to_parked), before the rejection is
    /// counted.
    fn hand_to_parked<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
    ) -> Result<(), SubmitError<F::Task>> {
        let mut cold = self.cold.lock();
        // Under the lock, `parked` moves only by our hand: workers park and
        // leave the idle queue under it.
        let w = self.ctl.load();
        let admitted = match w.parked() > 0 && !w.has(PAUSED) {
            true => self
                .gate
                .adm
                .enter(|a| self.refuses(a, crate::priority::Priority::Normal)),
            false => Err(self.gate.adm.load()),
        };
        if let Err(a) = admitted {
            drop(cold);
            return Err(match a & adm::CLOSED {
                0 => SubmitError::Overload(task),
                _ => SubmitError::Closed(task),
            });
        }
        let claimed = self
            .ctl
            .update(|w| (w.parked() > 0).then(|| w.add_lookers(1)))
            .is_ok();
        debug_assert!(claimed, "antpool: a parked worker left without the lock");
        let node = claimed.then(|| self.detach_parked(&mut cold));
        drop(cold);
        let pushed = match node {
            Some(_) => self.lane.push_now(task),
            None => Err(task),
        };
        if let Some(node) = node {
            // SAFETY: detached under the lock just now (see `detach_parked`).
            unsafe { Node::finish(node, state::WAKE) };
        }
        if !self.config.handoff() {
            // Out of the push window (handshake 2 in `engine/README.md`),
            // pushed or not.
            self.leave_admission();
        }
        pushed.map_err(|task| {
            if self.config.handoff() {
                // The task's admission, given back as a finished task's is.
                self.task_done(handle);
            }
            SubmitError::Overload(task)
        })
    }
}
