//! Submitting from an interrupt handler: the task goes to a parked worker,
//! woken for it, or comes back at once.
//!
//! An interrupt handler may not start a thread, wait, or leave its task
//! behind others, and on one core it must never wait for a thread it
//! interrupted. So this path, unlike [`submit`](Engine::submit):
//!
//! * **starts no worker**: it claims a *parked* worker (under the cold lock,
//!   where workers park, so the count it reads cannot change under it) by
//!   making it a looker (`S+1`) and detaching it from the idle queue, exactly
//!   as [`wake_one`](Engine::wake_one) does;
//! * **admits only then**, with the same swap on the admission word as any
//!   submit (closed, submitters waiting, a hand-off pool at capacity or
//!   paused: refused), still under the lock, so a refusal has nothing to undo;
//! * **pushes without waiting** ([`Transport::push_now`]): a slot that another
//!   thread has claimed and not released makes it give up rather than spin;
//! * **wakes the claimed worker** after the lock, whatever became of the push:
//!   it left the idle queue and must look (a failed push means the lane holds
//!   tasks for it, or a worker is between its claim and its read: the woken
//!   one then parks again).
//!
//! It takes the pool's lock once and notifies at most one signal (two, in the
//! rare undo below): an interrupt handler may call it if the platform's
//! `Lock` and `Signal` may be used there (antpool-freertos's are, with its
//! `isr` feature). It never reads the clock.
//!
//! A push that fails after admission (the lane was full, or a push or pop of
//! another thread was half done) gives the admission back: a queue pool's
//! push window simply closes; a hand-off pool's admission is a task slot, and
//! giving it back lets blocked submitters in, as a finished task does (a grant
//! in a hand-off pool only passes admissions on: it starts no worker and
//! pushes nothing). In a hand-off pool without a heap — the only kind that
//! offers this path — it is rare: its ring has a slot for every task it
//! admits (at most its capacity, at most the ring's size), so the slot at
//! `tail` is held only by a worker between its claim and its read that was
//! preempted there while later pops finished; `push_now` retries only while
//! other pushers move `tail` on.

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
