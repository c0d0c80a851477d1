//! A worker's life: run a task, take the next one from the lane (or, in a
//! hand-off pool, from the oldest blocked submitter); when the lane is empty,
//! *look* for one (spin on the lane for a moment, if few others do) and then
//! park in the idle queue — on watch duty if it is its turn (`watch.rs`) —
//! until woken to look again, told to retire, or expired.

use super::ctl::{PAUSED, Word, adm};
use super::node::{Node, state};
use super::policy::{Look, Policy};
use super::spin::Spin;
use super::timed::Stamped;
use super::watch::Duty;
use super::{AbortOnUnwind, Engine, EngineRef, Execute, Flavor, NodeOf, Outcome};
use crate::clock::{Clock, Instant};
use crate::queue::{IdleWorker, WorkerId, WorkerQueue};
use crate::spawner::{Signal, Spawner};
use crate::sync::Ordering::{Relaxed, SeqCst};
use crate::sync::fence;
use crate::trace::trace_event;

/// Gives the worker's thread slot back when the worker ends — normally (it
/// retired, and already left the control word), or by a panic unwinding out of
/// a task that the executor did not catch (it still holds a task).
struct ExitGuard<'a, H: EngineRef<Engine<F>>, F: Flavor> {
    handle: &'a H,
    engine: &'a Engine<F>,
    retired: bool,
}

impl<H: EngineRef<Engine<F>>, F: Flavor> Drop for ExitGuard<'_, H, F> {
    fn drop(&mut self) {
        if !self.retired {
            self.engine.task_unwound(self.handle);
        }
        // The stop hook is part of the exit: it runs before the thread stops
        // counting as live, which is what `release_timeout` waits for.
        self.engine.exec.worker_stopping();
        trace_event!(debug, unwound = !self.retired, "worker stopped");
        self.engine.thread_gone(true);
    }
}

/// What a parking looker does next.
enum Park {
    /// Look again: woken, or a task was in the lane after all.
    Look,
    /// Retire.
    Retire,
}

/// The body of every worker thread. The workers' word already counts this
/// worker: busy, if it carries a first task (with its stamp); a looker if
/// not. `index`: its number in the pool ([`Job::index`](crate::port::Job::index)).
pub(crate) fn run<H, F>(handle: H, first: Option<Stamped<F::Task>>, index: usize)
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    let engine = handle.engine();
    // (Declared first, so it closes last: the exit below is inside it.)
    #[cfg(feature = "tracing")]
    let span = tracing::debug_span!(target: "antpool", "worker", worker = index);
    #[cfg(feature = "tracing")]
    let _in_span = span.enter();
    trace_event!(debug, "worker started");
    // The mailbox lives here, on the worker's own stack, for the worker's life.
    // It is linked into the idle queue only while the worker is parked on it.
    let mailbox = Node::new(engine.spawner.signal(), state::BUSY);
    let mut exit = ExitGuard {
        handle: &handle,
        engine,
        retired: false,
    };
    engine.exec.worker_started(index);
    let first = first.or_else(|| engine.find_task(&handle, &mailbox));
    if let Some((mut task, mut stamp)) = first {
        let mut round: u32 = 0;
        loop {
            // (Timed if stamped, or the watch's turn: `timed.rs`.)
            let outcome = engine.run_task(task, stamp, round, mailbox.lap());
            round = round.wrapping_add(1);
            engine.count(outcome);
            match engine.next_task(&handle, &mailbox, round) {
                Some(next) => (task, stamp) = next,
                None => break,
            }
        }
    }
    exit.retired = true;
    drop(exit);
}

impl<F: Flavor> Engine<F> {
    fn count(&self, outcome: Outcome) {
        let counter = match outcome {
            Outcome::Completed => &self.counters.completed,
            Outcome::Panicked => &self.counters.panicked,
            Outcome::Skipped => &self.counters.skipped,
        };
        counter.fetch_add(1, Relaxed);
    }

    /// What a busy worker that finished a task does next (`round`: tasks it ran
    /// so far). `None`: retire.
    // Inlined into the worker's loop, its one caller: a call of its own cost
    // ~20 instructions a task (callgrind).
    #[inline(always)]
    fn next_task<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
        round: u32,
    ) -> Option<Stamped<F::Task>> {
        // Paused, it takes no task: it parks (a pause waits for that). A stale
        // "not paused" is harmless: this worker counts as awake, so `pause`
        // waits for whatever it takes now.
        let paused = self.is_paused();
        if self.config.handoff() {
            // The oldest blocked submitter's task takes the finished task's
            // place (paused: the admission goes back, and no waiter gets it).
            let served = match !paused && self.gate.adm.load() & adm::ANY_WAITERS != 0 {
                true => self.serve_waiter(handle),
                false => None,
            };
            match served {
                Some(task) => return Some(task),
                None => self.task_done(handle),
            }
        } else if round % F::Policy::CHECK_EVERY == 0 {
            // A queue pool: blocked submitters, now and then (also whenever
            // the lane is empty, and after a pop as a looker).
            self.check_queue_waiters(handle);
        }
        // Now and then (not per task: the word is the submitters' line too), see
        // whether `tune` made this worker surplus.
        if round % F::Policy::CHECK_EVERY == 0 && self.ctl.load().threads() > self.limit() {
            return self.retire_surplus(handle, me);
        }
        // (A stale "empty" is harmless: the handshake of `park` finds the task.
        // An empty `pop` is two loads, no write.)
        if !paused {
            if let Some(task) = self.pop_lane(me) {
                return Some(task);
            }
        }
        self.waiters_after_pop(handle);
        let closed = self.gate.adm.load() & adm::CLOSED != 0;
        let limit = self.limit();
        let (old, new) = self.ctl.apply(|w| match closed || w.threads() > limit {
            true => w.sub_busy(1).sub_threads(1),
            false => w.sub_busy(1).add_lookers(1),
        });
        self.left_work(new);
        if new.threads() == old.threads() {
            return self.find_task(handle, me); // a looker now
        }
        if closed && self.lane.has_tasks() {
            // A task pushed before our swap, whose submitter read the word from
            // before it (and so counted on us), is in the lane now.
            self.ctl.apply(|w| w.add_threads(1).add_lookers(1));
            return self.find_task(handle, me);
        }
        self.after_exit(handle, me, new)
    }

    /// A busy worker over the capacity `tune` lowered retires.
    fn retire_surplus<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
    ) -> Option<Stamped<F::Task>> {
        let (_, new) = self.ctl.apply(|w| w.sub_busy(1).sub_threads(1));
        self.left_work(new);
        self.after_exit(handle, me, new)
    }

    /// After a worker left the word to retire (`new`): the last worker of a
    /// closed pool stays while a task is still admitted or on its way (it looks
    /// for it as a looker); otherwise `None`.
    fn after_exit<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
        new: Word,
    ) -> Option<Stamped<F::Task>> {
        if new.threads() == 0 && self.last_must_stay() {
            // It looks; `park` decides whether it stays for the task
            // (handshake 2).
            self.ctl.apply(|w| w.add_threads(1).add_lookers(1));
            return self.find_task(handle, me);
        }
        if self.lane.has_tasks() {
            // Other workers remain, but perhaps none awake: make sure one comes.
            self.ensure_taker(handle);
        }
        None
    }

    /// Whether the last worker of a pool, just out of the word, must stay: a
    /// hand-off task is admitted and not finished (`Adm`'s count, 0 in other
    /// pools), or the lane holds a task or a claimed slot (handshake 2 in
    /// `engine/README.md`: in a closed pool other than a hand-off one, that
    /// read counts every slot ever claimed).
    fn last_must_stay(&self) -> bool {
        self.gate.adm.read_rmw() & adm::COUNT > 0 || self.lane.has_tasks()
    }

    /// A queue pool, after a looker's pop, or as a busy worker finds the lane
    /// empty (or is paused): lets blocked submitters in if the lane has
    /// drained past the hysteresis (one load of `Adm` when nobody waits). A
    /// grant whose push met the slot this pop held between its claim and its
    /// read left its waiter first in line (`TaskRing::push` hands back rather
    /// than wait), perhaps with every other worker parked: a woken worker's
    /// pop is where that happens, and nobody else would look before its task
    /// ends. (A busy worker looks every
    /// [`CHECK_EVERY`](Policy::CHECK_EVERY) tasks.)
    #[inline]
    fn waiters_after_pop<H: EngineRef<Self>>(&self, handle: &H) {
        if !self.config.handoff() {
            self.check_queue_waiters(handle);
        }
    }

    /// A queue pool: lets blocked submitters in if the lane has drained past
    /// the hysteresis.
    fn check_queue_waiters<H: EngineRef<Self>>(&self, handle: &H) {
        if self.queue_waiters_may_enter(self.gate.adm.load()) {
            self.let_waiters_in(handle);
        }
    }

    /// Serves the oldest waiter of the highest level (or a lower one's turn
    /// under the starvation bound) — a blocked thread or an async submitter —
    /// with the finished task's admission: its task is taken from its node, to
    /// run next (admitted now, its submit's wait recorded). `None`: no waiter
    /// was left, or the one next may not take the admission yet (the count is
    /// above its level's limit: the reserve for `High`).
    fn serve_waiter<H: EngineRef<Self>>(&self, handle: &H) -> Option<Stamped<F::Task>> {
        let mut cold = self.cold.lock();
        let lines = self.waiters_to_serve(&mut cold);
        let level = lines
            .next_level(self.config.starvation_bound)
            .filter(|&level| self.gate.adm.load() & adm::COUNT <= self.handoff_limit(level));
        let waiter = level.and_then(|level| {
            let waiter = lines.at(level).pop_front();
            lines.served(level);
            waiter
        });
        let let_in = self.waiters_changed(&mut cold);
        drop(cold);
        if let_in {
            // Another worker freed room unseen while the flag was down.
            self.let_waiters_in(handle);
        }
        let waiter = waiter?;
        // (`level` is `Some` with the waiter: its level.)
        let (admitted, level) = (self.stamp_now(), level.unwrap_or_default());
        // SAFETY: we unlinked the waiter under the lock: it is ours to finish,
        // and its task and stamp ours to take; `finish` is our last touch.
        unsafe {
            let task = waiter.as_ref().take_task();
            self.record_submit_wait(waiter.as_ref().stamp(), admitted);
            Node::finish(waiter, state::SERVED);
            Some((task, self.level_stamp(admitted, level)))
        }
    }

    /// A looker (counted in `lookers`) finds its next task: spins on the lane
    /// for a moment if the policy says so ([`Policy::look`]), then parks until
    /// woken, and looks again. `None`: retire. (A task it finds is not taken
    /// straight after its last: its lap is forgotten, `timed.rs`.) However
    /// long it looks, it parks through handshake 1: a look only delays that.
    pub(super) fn find_task<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
    ) -> Option<Stamped<F::Task>> {
        me.lap().forget();
        loop {
            // When the look that ran out began (a full look, not paused).
            let mut looked = None;
            if self.is_paused() {
                // Nothing to take: park (`park` decides on the word's flag).
            } else if let Some(Look { budget, learns }) =
                F::Policy::look(&self.sight(self.ctl.load()))
            {
                let mut spin = Spin::new(&self.clock, budget);
                loop {
                    if let Some(task) = self.take_as_looker(handle, me) {
                        return Some(task);
                    }
                    if self.is_paused() {
                        break;
                    }
                    if !spin.wait() {
                        looked = learns.then(|| spin.began());
                        break;
                    }
                }
            } else if let Some(task) = self.take_as_looker(handle, me) {
                return Some(task);
            }
            match self.park(handle, me) {
                Park::Look => {
                    if let Some(began) = looked {
                        self.learn_look(began);
                    }
                    continue;
                }
                Park::Retire => return None,
            }
        }
    }

    /// A looker whose teaching look (begun at `began`) ran out was woken to
    /// look again: the policy turns the gap into the next learnt look
    /// ([`Policy::next_look`]), kept for the pool in whole microseconds, a
    /// hint read and written relaxed — any value is a correct look, and a lost
    /// write only delays learning by one wake-up. (Under loom the clock
    /// stands still.)
    fn learn_look(&self, began: Instant) {
        let gap = self.clock.now().saturating_duration_since(began);
        let us = usize::try_from(F::Policy::next_look(gap).as_micros()).unwrap_or(usize::MAX);
        if self.look_us.load(Relaxed) != us {
            self.look_us.store(us, Relaxed);
        }
    }

    /// A looker takes a task from the lane and becomes busy (`S-1, K+1`). A
    /// submitter that pushed between our pop and our swap counted on us as a
    /// looker — or, while wake-ups chain, counted on the lookers for the
    /// whole burst; if we were the last one and tasks still wait, they get a
    /// taker now (woken, started, or left to a busy worker: `ensure_taker`).
    #[inline]
    fn take_as_looker<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
    ) -> Option<Stamped<F::Task>> {
        let task = self.pop_lane(me)?;
        self.waiters_after_pop(handle);
        let (_, new) = self.ctl.apply(|w| w.sub_lookers(1).add_busy(1));
        // (The fence: our half of the handshake with a submitter that pushed
        // and then, reading the word fenced, counted on us.)
        if new.lookers() == 0 && {
            fence(SeqCst);
            !self.lane.looks_empty()
        } {
            self.ensure_taker(handle);
        }
        Some(task)
    }

    /// Takes the next task from the lanes for the worker whose mailbox is
    /// `me`: the highest level's oldest, under the starvation bound if one is
    /// set (the count is the worker's own, in its mailbox). Inlined: the
    /// task comes back by value (engine README, cost model).
    #[inline(always)]
    fn pop_lane(&self, me: &NodeOf<F>) -> Option<Stamped<F::Task>> {
        let bound = self.config.starvation_bound;
        if bound == 0 {
            return self.lane.pop();
        }
        let mut streak = me.streak().get();
        let task = self.lane.pop_fair(bound, &mut streak);
        me.streak().set(streak);
        task
    }

    /// Leaves the lookers under the cold lock: parks in the idle queue, or —
    /// closed, over capacity, the idle queue full — retires. A task in the lane
    /// after the swap sends it back to looking.
    fn park<H: EngineRef<Self>>(&self, handle: &H, me: &NodeOf<F>) -> Park {
        let now = self.clock.now();
        let mut cold = self.cold.lock();
        let closed = self.gate.adm.load() & adm::CLOSED != 0;
        if closed && !self.is_paused() && self.lane.has_ready() {
            // A released pool's task is ready in the lane: this looker takes
            // it rather than leave. Leaving, it would hand the task to
            // `ensure_taker`, which with no other looker and none parked (the
            // others busy) starts a thread for it — a new thread after the
            // release, in place of one that was there (seen once in CI: a
            // fifth thread for a pool of four). It stays counted as a looker
            // and looks again; no word changes. (A closed pool is never seen
            // paused here — `release` ends a pause under this lock — but a
            // paused looker must not loop on a task it may not take.)
            drop(cold);
            return Park::Look;
        }
        let limit = self.limit();
        // Closed or over the capacity, a looker leaves the word (`T-1`) —
        // except the last worker of a closed pool while a task is on its way:
        // a hand-off task admitted and not finished, or a slot of the lane
        // claimed and not ready to pop (handshake 2). That one stays counted
        // (it parks, or looks again below if the task is ready) until the
        // submitter's handshake wakes it or a settle (`settle_closed`, under
        // this lock) wakes or retires it. It decides on the value its swap
        // replaces: were it to leave and then count itself back in, `T`
        // would read 0 in between, and a submitter would reserve a looker
        // that runs the task and leaves, not the last — with nobody left to
        // wake the one that came back and parked (loom, `release vs bounded
        // queue submit` at three preemptions).
        let (old, new) = self.ctl.apply(|w| {
            let leaves = match closed {
                true => !(w.threads() == 1 && self.last_must_stay()),
                false => w.threads() > limit,
            };
            match leaves {
                true => w.sub_lookers(1).sub_threads(1),
                false => w.sub_lookers(1),
            }
        });
        if new.threads() < old.threads() {
            drop(cold);
            self.left_work(new);
            if self.lane.has_tasks() {
                // Closed or surplus, it leaves; the tasks get a taker.
                self.ensure_taker(handle);
            }
            return Park::Retire;
        }
        // The handshake: a submitter that pushed before our swap and read the
        // word from before it counted on us to see its task. (A task whose
        // push is still being written does not count: its submitter reads the
        // word after it, sees us parked, and wakes a worker.) Paused, the
        // tasks wait: `resume` clears the flag under this lock, so either our
        // swap saw it clear, or `resume` finds us parked and wakes us.
        let paused = new.has(PAUSED);
        if !paused && self.lane.has_ready() {
            self.ctl.apply(|w| w.add_lookers(1));
            return Park::Look;
        }
        if let Some(grants) = self.grants_at_park(&mut cold, paused) {
            if grants.pushed() {
                self.ctl.apply(|w| w.add_lookers(1));
                drop(cold);
                grants.finish();
                return Park::Look;
            }
            grants.finish();
        }
        debug_assert_eq!(cold.idle.len() + 1, new.parked(), "parked workers: {new:?}");
        me.set_state(state::IDLE);
        let id = WorkerId::from_ptr(me.into());
        if cold.idle.insert(IdleWorker { id, since: now }).is_err() {
            // A fixed-size idle queue is full: this worker is surplus.
            me.set_state(state::BUSY);
            self.ctl.apply(|w| w.sub_threads(1));
            drop(cold);
            self.left_work(new);
            return Park::Retire;
        }
        let watching = self.take_watch(&mut cold, id, new);
        drop(cold);
        self.left_work(new);
        match self.park_idle(handle, me, now, watching) {
            true => Park::Look,
            false => Park::Retire,
        }
    }

    /// Parks in the idle queue until woken to look (`true`) or told to retire
    /// (`false`), reaping expired workers (itself included) when its expiry
    /// passes, and — `watching` — looking at the lane every
    /// [`WATCH_PERIOD`](Policy::WATCH_PERIOD).
    fn park_idle<H: EngineRef<Self>>(
        &self,
        handle: &H,
        me: &NodeOf<F>,
        mut since: Instant,
        mut watching: bool,
    ) -> bool {
        let bomb = AbortOnUnwind;
        let my_id = WorkerId::from_ptr(me.into());
        let mut duty = Duty {
            finished: self.finished(),
            quiet: 0,
        };
        loop {
            let deadline = match self.config.purge {
                true => since.checked_add(self.config.expiry),
                false => None,
            };
            let remaining = deadline.map(|d| d.saturating_duration_since(self.clock.now()));
            if remaining.is_some_and(|r| r.is_zero()) {
                // Expired by the clock: reap, if we are still in the queue.
                let now = self.clock.now();
                let Some(cutoff) = now.checked_sub(self.config.expiry) else {
                    since = now; // the clock stepped back below one expiry
                    continue;
                };
                let mut cold = self.cold.lock();
                if me.state() != state::IDLE {
                    // Someone detached us; their notify is coming.
                    drop(cold);
                    me.signal().wait();
                    break;
                }
                let (retired, me_too) = self.reap(&mut cold, cutoff, Some(my_id));
                drop(cold);
                trace_event!(
                    debug,
                    count = retired.len() + usize::from(me_too),
                    "idle workers expired"
                );
                retired.finish_all(state::RETIRE);
                self.after_retiring(handle);
                if me_too {
                    me.set_state(state::BUSY);
                    bomb.disarm();
                    return false;
                }
                // Our stamp was clamped up (the clock stepped back): wait a full expiry.
                since = now;
                continue;
            }
            let woken = match (watching, remaining) {
                (false, None) => {
                    me.signal().wait();
                    true
                }
                (false, Some(r)) => me.signal().wait_timeout(r),
                (true, r) => {
                    let period = F::Policy::WATCH_PERIOD;
                    me.signal()
                        .wait_timeout(r.map_or(period, |r| r.min(period)))
                }
            };
            if woken {
                break;
            }
            if watching && !self.watch_tick(handle, me, &mut duty) {
                watching = false;
            }
        }
        bomb.disarm();
        match me.state() {
            state::WAKE => {
                me.set_state(state::BUSY);
                true
            }
            state::RETIRE => false,
            other => unreachable!("antpool: worker woken in state {other}"),
        }
    }

    /// After workers were retired or the watch ended: tasks left in the lane
    /// for busy workers get a taker of their own if nobody awake will take them.
    pub(super) fn after_retiring<H: EngineRef<Self>>(&self, handle: &H) {
        if self.lane.has_tasks() {
            self.ensure_taker(handle);
        }
    }

    /// A panic unwound out of a task: its worker still holds the task (and a
    /// thread), and gives both back.
    fn task_unwound<H: EngineRef<Self>>(&self, handle: &H) {
        self.count(Outcome::Panicked);
        let (_, new) = self.ctl.apply(|w| w.sub_busy(1).sub_threads(1));
        if self.config.handoff() {
            self.task_done(handle);
        }
        self.left_work(new);
        self.after_retiring(handle);
    }
}
