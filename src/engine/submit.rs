//! Submitting: admission, the push into the lane, and seeing that a worker
//! will take the task.
//!
//! 1. **Admit** (one swap on the admission word): refused if the pool is
//!    closed, if submitters wait (none may be passed), or — in a hand-off pool —
//!    if `capacity` tasks are in flight. Other pools only load the word: their
//!    lane refuses a push once the pool is released (the ring's and the list's
//!    marks), so no count of submitters on their way is needed.
//! 2. **Place**: a new worker carrying the task, if none is idle, no busy one
//!    may be left it, and the pool has room for another; otherwise push it into
//!    the lane (a full bounded queue refuses: saturated).
//! 3. **Ensure a taker**: read the workers' word after a fence (the
//!    handshake with a worker about to park) and, unless a looker or — a
//!    watcher on duty — a busy worker will take the task, wake a parked
//!    worker as a looker or start a new one.
//!
//! Where the policy decides (`policy/`): whether a task gets a worker of
//! its own in step 2, and whom the tasks are left to in step 3; the checks
//! around each call are the mechanism's, and hold whatever it answers.
//!
//! Saturated and allowed to block, a submitter watches the admission word (or
//! retries the push) for a moment, then joins the FIFO of waiters under the
//! cold lock and parks until it is served, granted a new worker, or the pool
//! closes.

use core::ptr::NonNull;

use super::ctl::{CLOSED, PAUSED, WATCH, Word, adm};
use super::node::{Node, state};
use super::policy::{Policy, Taker};
use super::timed::{Stamp, StampAt};
use super::{Engine, EngineRef, Flavor, Guard, Mode, NodeOf, launch};
use crate::clock::{Clock, Instant};
use crate::error::SubmitError;
use crate::priority::Priority;
use crate::queue::{IdleWorker, WorkerQueue};

use crate::sync::Ordering::Relaxed;
use crate::sync::{Backoff, spin_hint};

/// What became of an attempt.
pub(super) enum Attempt<T> {
    Done(Result<(), SubmitError<T>>),
    /// Saturated: the task, to reject or to wait with.
    Saturated(T),
}

/// What a submit refused on the admission word `a` gets: its task back, as
/// `Closed` if the pool is released, or to wait for room.
#[inline]
fn refused<T>(a: usize, task: T) -> Attempt<T> {
    match a & adm::CLOSED {
        0 => Attempt::Saturated(task),
        _ => Attempt::Done(Err(SubmitError::Closed(task))),
    }
}

impl<F: Flavor> Engine<F> {
    /// Hands `task` to the pool at `priority`: see the module docs.
    pub(crate) fn submit<H: EngineRef<Self>>(
        handle: &H,
        task: F::Task,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<F::Task>> {
        // `Normal`, what every plain submit passes, as a constant: the level
        // checks below fold away, and a pool without levels runs the code it
        // always ran.
        let result = match priority {
            Priority::Normal => Self::submit_or_hand_back(handle, task, mode, Priority::Normal),
            other => Self::submit_or_hand_back(handle, task, mode, other),
        };
        if let Err(_e) = &result {
            handle.engine().counters.rejected.fetch_add(1, Relaxed);
            #[cfg(feature = "tracing")]
            match _e {
                SubmitError::SpawnFailed(_) => {
                    tracing::warn!(target: "antpool", reason = "spawn failed", "task rejected");
                }
                e => tracing::debug!(target: "antpool", reason = e.reason(), "task rejected"),
            }
        }
        result
    }

    /// The deadline `timeout` from now on the pool's clock (`None`: too far
    /// to represent). Out of line and cold: inlined, the compiler hoisted the
    /// timeout's conversion to nanoseconds out of `submit`'s loop and every
    /// submit paid it, timed or not (`BENCHMARKS.md`, "What the engine's
    /// constants rest on").
    #[cold]
    #[inline(never)]
    fn deadline_after(&self, timeout: core::time::Duration) -> Option<Instant> {
        self.clock.now().checked_add(timeout)
    }

    /// [`submit`](Self::submit), before the rejection is counted.
    // Inlined into `submit`: a task passed down by value is copied at each
    // call (four words, through memory), and those copies showed in `perf`.
    #[inline(always)]
    fn submit_or_hand_back<H: EngineRef<Self>>(
        handle: &H,
        mut task: F::Task,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<F::Task>> {
        let this = handle.engine();
        let level = this.level(priority);
        // `Within`: the deadline, on the pool's clock, from the first time the
        // pool was found saturated (`None` inside: too far to represent).
        let mut deadline: Option<Option<Instant>> = None;
        // When the pool was first found saturated (feature `timings`).
        let mut since = Stamp::NONE;
        // Room seen and the push refused again: the slot at the queue's tail
        // is still a worker's, between its claim and its read (`TaskRing::push`).
        // Back off before the next try, as the push no longer waits itself.
        let mut backoff = Backoff::new();
        loop {
            task = match this.attempt(handle, task, level) {
                Attempt::Done(result) => {
                    if result.is_ok() {
                        this.admitted_after_wait(since);
                    }
                    return result;
                }
                Attempt::Saturated(task) => {
                    if mode == Mode::Try || this.config.nonblocking {
                        return Err(SubmitError::Overload(task));
                    }
                    if since == Stamp::NONE {
                        since = this.stamp_now();
                    }
                    if let Mode::Within(timeout) = mode {
                        deadline.get_or_insert_with(|| this.deadline_after(timeout));
                    }
                    match this.wait_for_room(handle, task, deadline.flatten(), level, since) {
                        Attempt::Done(result) => return result,
                        Attempt::Saturated(task) => {
                            // Room appeared: go round.
                            backoff.snooze();
                            task
                        }
                    }
                }
            };
        }
    }

    /// Whether the admission word `a` refuses a newcomer at `level`: closed,
    /// submitters wait that it may not pass (`waiters_block`), or — a hand-off
    /// pool — paused or at the level's limit.
    #[inline]
    pub(super) fn refuses(&self, a: usize, level: Priority) -> bool {
        a & adm::CLOSED != 0
            || self.waiters_block(a, level)
            || (self.config.handoff() && self.handoff_full(a, level))
    }

    /// Whether a hand-off pool admits nobody at `level` on the admission word
    /// `a`: paused, or as many tasks in flight as `level` may join — the
    /// capacity for `High`, less the reserve (`reserve_for_high`, at most the
    /// capacity less one) for the others (the newcomer's check, a grant's, and
    /// a waiter's look at whether it is still saturated).
    #[inline]
    pub(super) fn handoff_full(&self, a: usize, level: Priority) -> bool {
        a & adm::PAUSED != 0 || a & adm::COUNT >= self.handoff_limit(level)
    }

    /// How many tasks in flight a hand-off pool admits a task at `level` below.
    #[inline]
    pub(super) fn handoff_limit(&self, level: Priority) -> usize {
        let cap = self.gate.cap.load(Relaxed);
        let reserve = self.config.reserve_for_high;
        if reserve == 0 || level == Priority::High {
            return cap;
        }
        cap - reserve.min(cap.saturating_sub(1))
    }

    /// One try: admit, place, ensure a taker.
    // Inlined into `submit`, like `submit_or_hand_back`.
    #[inline(always)]
    pub(super) fn attempt<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
        level: Priority,
    ) -> Attempt<F::Task> {
        if self.config.lane_closes() {
            // Not a hand-off pool: the lane itself refuses a push once the pool
            // is released, so the submitter is not counted in a push window. The
            // flags are read by a load (a submitter that passes a waiter
            // linking itself at this moment is one the CAS could pass too).
            let a = self.gate.adm.load();
            if self.refuses(a, level) {
                return refused(a, task);
            }
            return self.place(handle, task, level);
        }
        if let Err(a) = self.gate.adm.enter(|a| self.refuses(a, level)) {
            return refused(a, task);
        }
        // A hand-off pool: the admission is the task's until it finishes.
        self.place(handle, task, level)
    }

    /// Places an admitted task: a new worker carrying it, or the lane.
    // Inlined into `submit`, like `submit_or_hand_back`.
    #[inline(always)]
    pub(super) fn place<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
        level: Priority,
    ) -> Attempt<F::Task> {
        if self
            .ctl
            .update(|w| self.spawn_for(w).then(|| w.add_threads(1).add_busy(1)))
            .is_ok()
        {
            return Attempt::Done(self.start_with(handle, task, self.carried_stamp(level)));
        }
        match self.push_admitted(task, level, self.lane_stamper()) {
            Ok(()) => {
                self.ensure_taker(handle);
                Attempt::Done(Ok(()))
            }
            // A bounded queue is full — or the lane closed, if it refused for
            // that. A lane that cannot be full was closed when it refused, even
            // if a `reboot` has reopened it since. (A bounded queue's refusal
            // by a release a reboot has undone reads as full: the pool is open
            // again, and a blocking submit goes round.)
            Err(back) => match self.lane.is_closed() || !self.config.lane_fills() {
                true => Attempt::Done(Err(SubmitError::Closed(back))),
                false => Attempt::Saturated(back),
            },
        }
    }

    /// Pushes `task` into `level`'s lane. A hand-off pool admitted it, and its
    /// lane holds every task it admits: refused only while a worker holds the
    /// slot at `tail` between its claim and its read (a ring without a heap,
    /// with nowhere to spill), which this waits for. A queue pool's refusal
    /// (full, that same slot, or closed) comes back. `stamp_at`: the task's
    /// stamp for the position it takes (see `TaskRing::push`).
    #[inline(always)]
    pub(super) fn push_admitted(
        &self,
        mut task: F::Task,
        level: Priority,
        stamp_at: impl StampAt,
    ) -> Result<(), F::Task> {
        loop {
            match self.lane.push(task, level, stamp_at) {
                Err(back) if self.config.handoff() && !self.lane.is_closed() => {
                    task = back;
                    spin_hint();
                }
                result => return result,
            }
        }
    }

    /// Whether a task, on the word `w`, gets a new worker of its own. The
    /// mechanism's part: the pool is not paused (a paused pool's tasks wait
    /// in the lane) nor released (a release may have seen no thread and
    /// returned: the task goes to the lane, which a released queue pool's
    /// refuses), nobody is parked (a parked worker is reused before a thread
    /// starts), and there is room for another worker. Then the policy's
    /// ([`Policy::place`]): any other answer than `Own` pushes the task, and
    /// `ensure_taker` sees it taken. (Deciding before the push is what lets a
    /// failed start hand the task back.)
    #[inline]
    pub(super) fn spawn_for(&self, w: Word) -> bool {
        !w.has(PAUSED)
            && !w.has(CLOSED)
            && w.parked() == 0
            && w.threads() < self.limit()
            && F::Policy::place(&self.sight(w)) == Taker::Own
    }

    /// After a push: reads the workers' word after a `SeqCst` fence (handshake
    /// 1: a worker that parks after it sees the task, and one that parked
    /// before is seen here) and, unless someone awake will take the task, wakes
    /// a parked worker as a looker or starts a new one. Whom the tasks are left
    /// to is the policy's answer ([`Policy::ensure`]), taken only where it is
    /// safe: lookers while one is awake (it takes a task or parks, and
    /// handshake 1 sends it back; the last to take one while more wait calls
    /// this again: `take_as_looker`), a busy worker while one is and a
    /// watcher is on duty (the watch takes a task that waits behind a stuck
    /// worker, and whoever ends the watch comes here again).
    pub(super) fn ensure_taker<H: EngineRef<Self>>(&self, handle: &H) {
        loop {
            let w = self.ctl.read_fenced();
            if w.has(PAUSED) {
                // Paused: the task waits in the lane, and `resume` (which
                // clears the flag by RMW, then comes here) sees it. One worker
                // is kept for it — started now if there is none, kept from
                // expiry (`reap`) — for `release`, which ends a pause without
                // a handle to start workers with, wakes parked ones.
                if w.threads() == 0 {
                    let reserved = self
                        .ctl
                        .update(|w| (w.threads() == 0).then(|| w.add_threads(1).add_lookers(1)));
                    if let Ok((old, _)) = reserved {
                        self.start_reserved_looker(handle, old);
                    }
                }
                return;
            }
            if w.parked() == 0 && w.threads() >= self.limit() {
                // Nobody to wake and no room to start one: a looker, or the
                // first busy worker to finish, takes it.
                return;
            }
            let left = match F::Policy::ensure(&self.sight(w)) {
                Taker::Lookers => w.lookers() > 0,
                Taker::Busy => w.busy() > 0 && w.has(WATCH),
                Taker::Own => false,
            };
            if left || self.lane.looks_empty() {
                // Left to someone awake, or taken already.
                return;
            }
            if w.parked() > 0 {
                self.wake_one();
                continue; // woken (or gone meanwhile): count again
            }
            let reserved = self.ctl.update(|w| {
                (w.parked() == 0 && w.threads() < self.limit())
                    .then(|| w.add_threads(1).add_lookers(1))
            });
            if let Ok((old, _)) = reserved {
                if !self.start_reserved_looker(handle, old) {
                    // No thread (the task waits for a worker to free up), or
                    // released with the lane empty.
                    return;
                }
            }
        }
    }

    /// Starts the looker that the swap from `old` reserved. If that swap found
    /// the pool released, only while tasks wait in the lane: the release may
    /// have seen the lane empty and no thread, and returned (it reads the
    /// lane, then `T`, under the lock: our swap, then our read of the lane,
    /// which only drains once released, so it waits for the looker if we see
    /// a task). `false`, reservation given back, if no looker started.
    fn start_reserved_looker<H: EngineRef<Self>>(&self, handle: &H, old: Word) -> bool {
        if old.has(CLOSED) && !self.lane.has_tasks() {
            // Given back as a failed start gives it back (`unreserve` counts
            // a thread gone, and wakes a releaser waiting for that).
            self.counters.live.fetch_add(1, Relaxed);
            self.unreserve(handle, false);
            return false;
        }
        self.start_looker(handle)
    }

    /// Wakes a parked worker as a looker (`S+1`: parked → looking), decided
    /// under the cold lock, where workers park. `false` if none was parked.
    pub(super) fn wake_one(&self) -> bool {
        let mut cold = self.cold.lock();
        if self
            .ctl
            .update(|w| (w.parked() > 0).then(|| w.add_lookers(1)))
            .is_err()
        {
            return false;
        }
        let node = self.detach_parked(&mut cold);
        drop(cold);
        // SAFETY: detached under the lock just now (see `detach_parked`).
        unsafe { Node::finish(node, state::WAKE) };
        true
    }

    /// Takes a parked worker out of the idle queue, to be woken (the caller
    /// moved it out of `parked` in the word, and finishes it with WAKE after
    /// the lock). Marks it TAKEN, so its expiry sees it is no longer idle; if it
    /// was the watcher, the watch ends (see [`end_watch`](Self::end_watch)).
    pub(super) fn detach_parked(&self, cold: &mut Guard<'_, F>) -> NonNull<NodeOf<F>> {
        let Some(worker) = cold.idle.detach() else {
            unreachable!("antpool: the control word counts a parked worker the idle queue lacks");
        };
        self.take_parked(cold, worker)
    }

    /// A parked worker just detached from the idle queue under the lock, to be
    /// woken: ends its watch if it had it, and marks it `TAKEN`. Returns its
    /// mailbox, for the caller to finish (`WAKE`) once the lock is dropped.
    pub(super) fn take_parked(
        &self,
        cold: &mut Guard<'_, F>,
        worker: IdleWorker,
    ) -> NonNull<NodeOf<F>> {
        if cold.watcher == Some(worker.id) {
            self.end_watch(cold);
        }
        let node = worker.id.as_ptr::<NodeOf<F>>();
        // SAFETY: an id in the idle queue names the live mailbox of a worker
        // parked on it, which waits for our token before it leaves; detaching it
        // under the lock gave us the right to finish it.
        unsafe { node.as_ref().set_state(state::TAKEN) };
        node
    }

    /// Starts a worker carrying `task` (admitted at `stamp`); the word
    /// already counts it (`T+1, K+1`). If no thread can be started, gives the
    /// reservation and the admission back and the task to the caller.
    pub(super) fn start_with<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
        stamp: Stamp,
    ) -> Result<(), SubmitError<F::Task>> {
        // Asked here, on the cold path, and cached: the platform's answer can
        // cost file reads and allocations (std reads the cgroup quota).
        self.parallelism();
        self.counters.live.fetch_add(1, Relaxed);
        match launch::spawn(handle, &self.spawner, Some((task, stamp))) {
            Ok(()) => {
                self.counters.spawned.fetch_add(1, Relaxed);
                Ok(())
            }
            Err(task) => {
                self.unreserve(handle, true);
                let Some((task, _)) = task else {
                    unreachable!("antpool: a failed spawn hands back the task it was given");
                };
                Err(SubmitError::SpawnFailed(task))
            }
        }
    }

    /// Starts a worker as a looker (it takes tasks from the lane); the word
    /// already counts it (`T+1, S+1`). If no thread can be started the
    /// reservation is given back; the task stays in the lane for the next
    /// worker that frees up (and the next submit tries again).
    pub(super) fn start_looker<H: EngineRef<Self>>(&self, handle: &H) -> bool {
        // Asked here, on the cold path, and cached: the platform's answer can
        // cost file reads and allocations (std reads the cgroup quota).
        self.parallelism();
        self.counters.live.fetch_add(1, Relaxed);
        match launch::spawn(handle, &self.spawner, None) {
            Ok(()) => {
                self.counters.spawned.fetch_add(1, Relaxed);
                true
            }
            Err(_) => {
                self.unreserve(handle, false);
                false
            }
        }
    }

    /// Gives back a reservation for a worker that could not be started: `T-1`
    /// and `K-1` (it was to carry a task: whose admission is given back too)
    /// or `S-1`.
    pub(super) fn unreserve<H: EngineRef<Self>>(&self, handle: &H, with_task: bool) {
        let (_, new) = self.ctl.apply(|w| match with_task {
            true => w.sub_threads(1).sub_busy(1),
            false => w.sub_threads(1).sub_lookers(1),
        });
        if with_task && self.config.handoff() {
            self.task_done(handle);
        }
        self.left_work(new);
        self.thread_gone(false);
    }

    /// A hand-off pool's task left (finished, or never started): gives its
    /// admission back, lets a waiter in if one waits, wakes `wait_idle` callers
    /// if the pool fell quiet.
    pub(super) fn task_done<H: EngineRef<Self>>(&self, handle: &H) {
        if self.leave_admission() & adm::ANY_WAITERS != 0 {
            self.let_waiters_in(handle);
        }
    }

    /// Gives one admission back (a hand-off task that left; in another pool,
    /// an interrupt's submit out of its window, `isr.rs`); returns `Adm` from
    /// before. If that was the last: wakes `wait_idle` callers if the pool
    /// fell quiet, and settles a closed pool's last worker (handshake 2).
    pub(super) fn leave_admission(&self) -> usize {
        let old = self.gate.adm.leave();
        if old & adm::COUNT == 1 {
            if old & adm::IDLERS != 0 {
                self.maybe_quiet();
            }
            if old & adm::CLOSED != 0 {
                self.settle_closed();
            }
        }
        old
    }
}

#[cfg(all(test, feature = "std", not(antpool_loom)))]
mod tests {
    use super::super::ctl::adm;
    use crate::Priority::{High, Low, Normal};

    /// A hand-off pool turns a newcomer away while submitters wait at its
    /// level or above, even with room for it (as in the moment between a
    /// task's end and the waiters being let in): it never passes them. Waiters
    /// below its level do not hold it back.
    #[test]
    fn a_hand_off_newcomer_never_passes_a_waiter_at_its_level_or_above() {
        let pool = crate::Pool::builder()
            .capacity(4)
            .priorities(true)
            .build()
            .unwrap();
        let engine = pool.engine();
        for newcomer in [High, Normal, Low] {
            assert!(
                !engine.refuses(0, newcomer),
                "{newcomer:?}: room, nobody waits"
            );
            for waiting in [High, Normal, Low] {
                assert_eq!(
                    engine.refuses(adm::waiters(waiting), newcomer),
                    waiting >= newcomer,
                    "a newcomer at {newcomer:?}, waiters at {waiting:?}"
                );
            }
        }
    }
}
