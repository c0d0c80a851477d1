//! Where the clock is read for the timings (feature `timings`), and what is
//! recorded where — one code path, with or without the feature.
//!
//! Every function here, and every engine function a task's stamp passes
//! through, has the same signature either way. What the feature changes is a
//! handful of types, chosen once below (`timed/on.rs` with it, `timed/off.rs`
//! without): a [`Stamp`] (the admission time, 8 bytes; without, zero-sized),
//! the [`Recorder`] of histograms (without, zero-sized, recording nothing),
//! a worker's [`Lap`] (the end of its last timed task; without, zero-sized),
//! the [`Sampler`] a submitter stamps its push with (without, zero-sized,
//! reading nothing), and `Engine::sample` (without: `None`, sampling off).
//! Without the feature every question they answer is a constant, so the code
//! below folds away and the hot paths compile to what they would without any
//! of it: a zero-sized stamp beside a task adds no move of it (the task is
//! what a tiny task's cost is made of: the engine README's cost model).
//!
//! # No new protocol
//!
//! Every value the timings add rides on a hand-over the engine already orders
//! (`engine/README.md`):
//!
//! * **The stamp** (an admission time, or "not timed") is written into the
//!   ring's or list's slot with the task, before the slot's `Release` store,
//!   and read with it after the popper's `Acquire` load: part of the slot's
//!   payload, it needs no atomic of its own. A waiter's node holds its stamp
//!   under the node rules (the owner writes it before linking, whoever
//!   unlinks reads or rewrites it before the finish, the owner reads it after
//!   the final state); a new worker's first task carries it in the job record.
//! * **The counters** (`recorder.rs`) are relaxed `fetch_add`s on lines of
//!   their own, read by relaxed loads: statistics no decision reads.
//! * **Without the feature** nothing of it is compiled where a task travels
//!   (`stamp.rs`): the off build's machine code is the same, function for
//!   function — checked once on the benchmark binary by comparing every
//!   function whose name holds `antpool`.
//!
//! loom: `a_stamp_travels_with_its_value` (`ring_loom.rs`, run with the
//! feature: the stamp's cell is a loom cell, checked for races as the value's
//! is). `tests/it/clock_budget.rs` counts the clock reads exactly. What the
//! timings cost: `BENCHMARKS.md`, "Timings: what they cost".
//!
//! # Where the clock is read
//!
//! * **The lane.** A submitter that claims a lane slot at a sampled position
//!   (`position & mask == 0`: every one with `Every`, one in `n` with
//!   `OneIn(n)`) reads the clock and stamps the slot; the others stamp
//!   nothing. The worker that pops the slot sees the stamp, so the two agree
//!   on which tasks are timed without a counter between them. The read comes
//!   *before* the claim: between a claim and its publish a ring's popper sees
//!   the slot empty, and a clock read there would widen that window for every
//!   sampled push. A retry that lost the slot keeps its read.
//! * **Off the lane** — a new worker's first task, a blocked submitter's task
//!   let in by a grant or a hand-off worker — the task is stamped whenever
//!   timings are on: those paths are cold and already slow.
//! * **The worker** times a stamped task: it reads the clock as it begins
//!   (or reuses its last task's end, when it went straight on to this one:
//!   `Every` costs it one read a task) and as it ends, and records
//!   `queue_wait` (begin − stamp) and `run` (end − begin), unless the task
//!   was skipped unrun. The watch (`watch.rs`) learns from those reads; only
//!   where sampling is rarer than the policy's one task in
//!   [`TIME_EVERY`](Policy::TIME_EVERY) (or off, or without the feature) does
//!   the worker still time every such task for it alone.
//! * **Per level** (a heap pool with `priorities(true)`: a lane per level,
//!   and `queue_wait` per level in the recorder): a stamp carries the level
//!   its task waits at in its top bits, `Normal` as 0 (`timed/stamp.rs`). The
//!   `High` and `Low` lanes mark the stamps pushed into them (`Lanes::push`),
//!   and a task admitted off the lane at a level is marked here
//!   ([`level_stamp`](Engine::level_stamp); a new worker's first task out of
//!   line, [`carried_stamp`](Engine::carried_stamp)); the worker reads the
//!   level back only in such a pool. Elsewhere no stamp is marked and none is
//!   read: a pool without levels records as it did, after one more branch on
//!   its recorder, taken only for a timed task. A pool with levels needs a
//!   clock that reads below 2⁶² ns (146 years) from its origin.
//! * **`submit_wait`**: a blocking submit that found the pool saturated reads
//!   the clock then (its node carries the time); whoever admits it — a grant,
//!   a hand-off worker serving it, or the submitter itself once it finds room
//!   — reads it again and records the difference. A submit that ends
//!   rejected records nothing.
//! * **`withdrawn_wait`**: an async submit that found the pool saturated and
//!   was dropped before the pool took its task records the same span, up to
//!   its drop, here instead: the waits of those that got in stay apart from
//!   the waits of those that gave up.

use crate::clock::{Clock, Instant};
use crate::error::SubmitError;
use crate::priority::Priority;

use super::policy::Policy;
use super::{Engine, EngineRef, Execute, Flavor, NodeOf, Outcome};

/// The types the feature changes (see the module docs). (`on.rs` is a
/// directory module's file: its own modules are `timed/stamp.rs` and
/// `timed/recorder.rs`.)
#[cfg(feature = "timings")]
#[path = "timed/on.rs"]
mod imp;
/// The same types, zero-sized: no timings.
#[cfg(not(feature = "timings"))]
#[path = "timed/off.rs"]
mod imp;

pub(crate) use imp::{Lap, Recorder, Sampler, Stamp};

/// A task with its stamp, as the lane and a new worker's job record carry it
/// and a worker takes it.
pub(crate) type Stamped<T> = (T, Stamp);

/// What gives a task pushed into the lane its stamp: asked with the position
/// of the slot the push is about to claim (in the ring's or the list's order
/// of slots since it was made) and the stamp of its try before (if that one
/// lost its slot to another pusher), before each try. Passed by value: a
/// closure over a zero-sized [`Sampler`], or a zero-sized [`Stamp`], is
/// nothing to pass.
pub(crate) trait StampAt: Fn(usize, Stamp) -> Stamp + Copy {}

impl<S: Fn(usize, Stamp) -> Stamp + Copy> StampAt for S {}

/// Which histogram a duration goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    /// A blocked submit, from saturation to admission.
    SubmitWait,
    /// An async submit, from saturation to being dropped unserved.
    WithdrawnWait,
    /// A task, from admission to its start.
    QueueWait,
    /// A task, from its start to its end.
    Run,
}

impl<F: Flavor> Engine<F> {
    /// The stamp of a task about to be pushed into the lane at `position`
    /// (`last`: its stamp for the try before, if that one lost its slot to
    /// another pusher): the time now if the position is sampled — read before
    /// the claim, once per push unless a retry lands on a sampled position
    /// for the first time.
    #[inline(always)]
    fn lane_stamp(&self, position: usize, last: Stamp) -> Stamp {
        match self.sample() {
            Some(mask) if position & mask == 0 => match last.get() {
                None => Stamp::at(self.clock.now()),
                Some(_) => last,
            },
            _ => Stamp::NONE,
        }
    }

    /// What stamps a submitter's push into the lane
    /// ([`lane_stamp`](Self::lane_stamp), through a [`Sampler`]: without the
    /// feature, a closure over nothing).
    #[inline(always)]
    pub(super) fn lane_stamper(&self) -> impl StampAt + '_ {
        let sampler = Sampler::new(self);
        move |position, last| match sampler.engine() {
            Some(engine) => engine.lane_stamp(position, last),
            None => Stamp::NONE,
        }
    }

    /// The time now as a stamp, if timings are on (a task admitted off the
    /// lane; a submit found saturated).
    #[inline]
    pub(super) fn stamp_now(&self) -> Stamp {
        match self.sample() {
            Some(_) => Stamp::at(self.clock.now()),
            None => Stamp::NONE,
        }
    }

    /// [`stamp_now`](Self::stamp_now) for a task a new worker carries,
    /// submitted at `level` ([`level_stamp`](Self::level_stamp)). Out of
    /// line with the feature: a submit that pushes into the lane keeps its
    /// code as it was.
    #[cfg_attr(feature = "timings", inline(never))]
    #[cfg_attr(not(feature = "timings"), inline(always))]
    pub(super) fn carried_stamp(&self, level: Priority) -> Stamp {
        self.level_stamp(self.stamp_now(), level)
    }

    /// The stamp of a task admitted at `level` off the lane (carried by a
    /// new worker; let in from the line by a hand-off worker or a grant):
    /// marked with the level in a pool that times queue waits per level,
    /// else `stamp` itself (see the module docs). The `High` and `Low` lanes
    /// mark what enters them on their own (`Lanes::push`).
    #[inline]
    pub(super) fn level_stamp(&self, stamp: Stamp, level: Priority) -> Stamp {
        match self.recorder.has_levels() {
            true => stamp.at_level(level),
            false => stamp,
        }
    }

    /// A blocked submit found the pool saturated at `since` and was admitted
    /// at `admitted`: records the wait (nothing if either is not stamped).
    #[inline]
    pub(super) fn record_submit_wait(&self, since: Stamp, admitted: Stamp) {
        if let (Some(since), Some(admitted)) = (since.get(), admitted.get()) {
            self.record(Which::SubmitWait, since, admitted);
        }
    }

    /// A submit that found the pool saturated at `since` (`Stamp::NONE`:
    /// never, or not timed) got in on its own attempt: records the wait
    /// until now.
    #[inline]
    pub(super) fn admitted_after_wait(&self, since: Stamp) {
        if since.get().is_some() {
            self.record_submit_wait(since, Stamp::at(self.clock.now()));
        }
    }

    /// An async submit that found the pool saturated at `since` was dropped
    /// before the pool took its task: records the wait until now in
    /// `withdrawn_wait` (nothing if it never waited, or is not timed).
    pub(super) fn withdrawn_after_wait(&self, since: Stamp) {
        if let Some(since) = since.get() {
            self.record(Which::WithdrawnWait, since, self.clock.now());
        }
    }

    /// A blocked submitter at `level` (since `since`) was granted a new
    /// worker for its task: starts it with the task admitted when the grant
    /// stamped the node, and records the wait if it started.
    ///
    /// # Safety
    ///
    /// `node` is the caller's own, finished `GRANTED`: its task and stamp are
    /// the caller's again.
    pub(super) unsafe fn start_granted<H: EngineRef<Self>>(
        &self,
        handle: &H,
        node: &NodeOf<F>,
        level: Priority,
        since: Stamp,
    ) -> Result<(), SubmitError<F::Task>> {
        // SAFETY: per the contract.
        let (task, admitted) = unsafe { (node.take_task(), node.stamp()) };
        let started = self.start_with(handle, task, self.level_stamp(admitted, level));
        if started.is_ok() {
            self.record_submit_wait(since, admitted);
        }
        started
    }

    #[inline]
    fn record(&self, which: Which, from: Instant, to: Instant) {
        self.recorder.record(which, nanos_between(from, to));
    }

    /// Records the queue wait of a timed task with `stamp` that began at
    /// `start`: from `at`, its stamp's time — or, in a pool that keeps queue
    /// waits per level, from the time its stamp carries, at its level.
    #[inline]
    fn record_queue_wait(&self, stamp: Stamp, at: Instant, start: Instant) {
        if self.recorder.has_levels() {
            return self.record_queue_wait_at(stamp, start);
        }
        self.record(Which::QueueWait, at, start);
    }

    /// [`record_queue_wait`](Self::record_queue_wait) in a pool with levels.
    /// Out of line: the worker's loop of a pool without them grows by a
    /// branch only.
    #[inline(never)]
    fn record_queue_wait_at(&self, stamp: Stamp, start: Instant) {
        if let Some((at, level)) = stamp.split() {
            let nanos = nanos_between(at, start);
            self.recorder.record_queue_wait_at(level, nanos);
        }
    }

    /// Whether the worker times a task for the watch alone on round `round`:
    /// sampling is off (or the feature), or rarer than the policy's one in
    /// [`TIME_EVERY`](Policy::TIME_EVERY).
    #[inline]
    fn watch_reads(&self, round: u32) -> bool {
        let every = F::Policy::TIME_EVERY;
        let own = match self.sample() {
            None => true,
            Some(mask) => mask >= every as usize,
        };
        own && round % every == 0
    }

    /// Runs one task on a worker (its `round`-th), timing it if it is stamped
    /// (or the watch's turn): see the module docs. `lap`: the end of the
    /// worker's last task if it was timed and the worker went straight on to
    /// this one (a worker that looks or parks forgets it: `find_task`).
    // Inlined into the worker's loop, its one caller.
    #[inline(always)]
    pub(super) fn run_task(&self, task: F::Task, stamp: Stamp, round: u32, lap: &Lap) -> Outcome {
        let stamped = stamp.get();
        if stamped.is_none() && !self.watch_reads(round) {
            lap.forget();
            return self.exec.execute(task);
        }
        let start = match lap.get() {
            Some(end) => end,
            None => self.clock.now(),
        };
        let outcome = self.exec.execute(task);
        let end = self.clock.now();
        self.watch.learn::<F::Policy>(start, end);
        lap.set(end);
        if let Some(at) = stamped {
            if outcome != Outcome::Skipped {
                self.record_queue_wait(stamp, at, start);
                self.record(Which::Run, start, end);
            }
        }
        outcome
    }
}

/// The nanoseconds from `from` to `to` (0 if `to` is earlier).
#[inline]
fn nanos_between(from: Instant, to: Instant) -> u64 {
    let nanos = to.saturating_duration_since(from).as_nanos();
    u64::try_from(nanos).unwrap_or(u64::MAX)
}
