//! The engine's policy: every tuning decision, kept apart from the mechanism
//! that keeps the pool's promises (as rayon's sleep module puts "when to
//! sleep" behind three calls).
//!
//! The mechanism — the control words, the task queue, the node protocol and
//! the handshakes of `README.md` — never loses a task, never runs one twice and
//! never strands one behind a stuck worker, whatever a [`Policy`] answers. At
//! each decision point it keeps the invariants itself and asks the policy only
//! where every answer is safe. An answer changes when a task starts and what
//! that costs (a thread started, a wake-up through the kernel, a CPU spent
//! spinning), never whether it runs. So the tuning changes without reopening
//! the protocol, and loom drives the mechanism with adversarial policies
//! (`policy_loom.rs`) besides the tuned one.
//!
//! A decision is a pure function of what the engine sees ([`Seen`]): the
//! workers' word it just read, the queue's length, the CPUs, how long tasks
//! run as the watch learnt it, the learnt look. The engine shows a view
//! ([`Sight`]), not a copy: a fact is read only if the decision asks for it,
//! so the hot path reads what it read before the split.
//!
//! The engine's [`Flavor`] names its policy: the pool kinds use [`Tuned`].
//!
//! | decision | asked by | what the mechanism keeps | why any answer is safe |
//! |---|---|---|---|
//! | [`place`](Policy::place): a new worker for this task, or the queue | `place` (`spawn_for`) | a worker carrying a task starts only if the pool is neither paused nor released, nobody is parked, and there is room | a task pushed gets its taker from `ensure_taker`, below |
//! | [`ensure`](Policy::ensure): who takes the tasks queued | `ensure_taker` | leaves them to lookers only if one is awake, to busy workers only if one is busy and a watcher is on duty; else wakes a parked worker or starts one | a looker counted takes a task or parks, and handshake 1 sends it back to look; the last looker to take a task while more wait ensures them a taker (the chain); a task left to busy workers is taken when one finishes, or by the watcher within about two periods if none does |
//! | [`look`](Policy::look): whether a looker spins, how long, whether it learns | `find_task` | a look that runs out parks through handshake 1 | a looker that parks at once makes the same handshake; a longer spin only holds a CPU |
//! | [`next_look`](Policy::next_look) | `learn_look` | keeps the look, in µs | any length is a correct look |
//! | [`watches`](Policy::watches): a parking worker takes watch duty | `park` | one watcher, set and ended under the cold lock; whoever ends a watch checks the queue | without a watcher nothing is left to busy workers; a needless one costs wake-ups |
//! | [`WATCH_PERIOD`](Policy::WATCH_PERIOD), [`resigns`](Policy::resigns) | `park_idle`, `watch_tick` | every period, tasks queued and none finished since: a parked worker is woken | a longer period delays that rescue; a resign ends the watch as above |
//! | [`learn_task`](Policy::learn_task), [`TIME_EVERY`](Policy::TIME_EVERY) | `run_task` | keeps the estimate | it only feeds the decisions above |
//! | [`CHECK_EVERY`](Policy::CHECK_EVERY) | `next_task` | a worker also checks whenever the queue is empty | blocked submitters, or a surplus after `tune`, are noticed later |
//! | [`room_for`](Policy::room_for) | `wait_for_room`, `Admit::poll` | decides under the cold lock before it links a waiter | a submitter that joins the line at once is let in by the grant that would have let it pass |
//!
//! Why each rule of the mechanism holds: `README.md` ("Who takes a task").
//! The figures behind [`Tuned`]'s constants: `BENCHMARKS.md`, "What the
//! engine's constants rest on".

use core::time::Duration;

use super::ctl::{WATCH, Word};
use super::{Engine, Flavor};
use crate::sync::Ordering::Relaxed;

#[cfg(test)]
mod tests;
mod tuned;

pub(crate) use tuned::Tuned;

/// What the engine sees at a decision point: a view, so that a decision reads
/// only what it asks for.
pub(crate) trait Seen {
    /// Awake workers without a task (`S`).
    fn lookers(&self) -> usize;
    /// Workers holding a task (`K`).
    fn busy(&self) -> usize;
    /// Whether a parked worker is on watch duty (`WATCH`).
    fn watched(&self) -> bool;
    /// Tasks in the queue (for [`Policy::place`]: before the task placed).
    fn queued(&self) -> usize;
    /// How many threads the platform runs at once (at least 1).
    fn cpus(&self) -> usize;
    /// How long tasks run lately, in clock nanoseconds, as the watch learnt
    /// it ([`Policy::learn_task`]); `usize::MAX`: not known.
    fn task_ns(&self) -> usize;
    /// The look learnt so far ([`Policy::next_look`]).
    fn learnt_look(&self) -> Duration;
}

/// Whom a policy counts on to take the tasks in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Taker {
    /// The lookers awake: one task each, or a chain of wake-ups (the last
    /// looker to take a task while more wait wakes the next). Honoured only
    /// while a looker is awake.
    Lookers,
    /// A busy worker, once its task ends (*speculation*). Honoured only while
    /// a worker is busy and a watcher is on duty.
    Busy,
    /// A worker of its own: started carrying the task (`place`), or woken
    /// from the parked, or started, to look (`ensure`).
    Own,
}

/// How long a looker spins on the queue before it parks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Look {
    /// How long it spins.
    pub(crate) budget: Duration,
    /// Whether the look teaches: if it runs out and the looker is woken,
    /// the gap sets the next learnt look ([`Policy::next_look`]).
    pub(crate) learns: bool,
}

/// The decisions a pool's engine leaves to its policy (see the module docs
/// for what the mechanism keeps around each). Every answer is safe; the
/// functions take no `self`, so a policy is a type, chosen by the engine's
/// `Flavor`.
pub(crate) trait Policy: 'static {
    /// A submitted task, the mechanism allowing a new worker for it: `Own`
    /// starts a worker carrying it; any other answer pushes it into the queue
    /// (and `ensure` is asked next).
    fn place(seen: &impl Seen) -> Taker;

    /// Tasks in the queue after a push (or a looker's last take, a worker's
    /// exit, the watch's end): whom to leave them to. `Own`, or an answer the
    /// mechanism cannot honour, wakes a parked worker to look or starts one.
    fn ensure(seen: &impl Seen) -> Taker;

    /// A looker that found the queue empty (itself counted in `lookers`):
    /// how it looks before it parks; `None`: it parks at once.
    fn look(seen: &impl Seen) -> Option<Look>;

    /// The look a pool starts with.
    const FIRST_LOOK: Duration;

    /// The next learnt look, given the `gap` from the start of a teaching
    /// look that ran out to the wake-up that came after it.
    fn next_look(gap: Duration) -> Duration;

    /// Whether a worker about to park, nobody watching yet, takes up the
    /// watch duty (`watch.rs`).
    fn watches(seen: &impl Seen) -> bool;

    /// How long a watcher sleeps between its looks at the queue.
    const WATCH_PERIOD: Duration;

    /// Whether a watcher resigns after `quiet` looks in a row that found the
    /// queue empty and nobody busy.
    fn resigns(quiet: u32) -> bool;

    /// The estimate of how long tasks run ([`Seen::task_ns`]; `usize::MAX`:
    /// not known) after one more task took `ns` clock nanoseconds (0: the
    /// clock did not move).
    fn learn_task(estimate: usize, ns: usize) -> usize;

    /// A worker times one task in this many for the estimate.
    const TIME_EVERY: u32;

    /// A busy worker looks up once every this many tasks: at a queue pool's
    /// blocked submitters, and at whether `tune` made it surplus.
    const CHECK_EVERY: u32;

    /// How long a saturated submitter watches for room before it joins the
    /// line of waiters (an async one: yields), on `cpus` CPUs; `None`: it
    /// joins at once.
    fn room_for(cpus: usize) -> Option<Duration>;
}

/// The engine's side of a decision: the workers' word it read for it, and
/// the rest read when asked.
pub(super) struct Sight<'a, F: Flavor> {
    engine: &'a Engine<F>,
    word: Word,
}

impl<F: Flavor> Engine<F> {
    /// What a decision on the workers' word `word` sees.
    #[inline]
    pub(super) fn sight(&self, word: Word) -> Sight<'_, F> {
        Sight { engine: self, word }
    }
}

impl<F: Flavor> Seen for Sight<'_, F> {
    #[inline]
    fn lookers(&self) -> usize {
        self.word.lookers()
    }

    #[inline]
    fn busy(&self) -> usize {
        self.word.busy()
    }

    #[inline]
    fn watched(&self) -> bool {
        self.word.has(WATCH)
    }

    #[inline]
    fn queued(&self) -> usize {
        self.engine.lane.len()
    }

    #[inline]
    fn cpus(&self) -> usize {
        self.engine.parallelism()
    }

    #[inline]
    fn task_ns(&self) -> usize {
        self.engine.watch.task_ns()
    }

    #[inline]
    fn learnt_look(&self) -> Duration {
        Duration::from_micros(self.engine.look_us.load(Relaxed) as u64)
    }
}
