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
//! The engine's [`Flavor`](super::Flavor) names its policy: the pool kinds
//! use [`Tuned`].
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

/// The shipped policy, tuned on the benchmarks. Its reasons are in the
/// constants' docs and in its functions'; the figures in `BENCHMARKS.md`.
pub(crate) struct Tuned;

/// How long a looker watches the queue before it parks: what its former 512
/// rounds lasted on the machine it was tuned on. A shorter look measured worse
/// on tiny tasks: idle workers park sooner, and more tasks then wait for a
/// wake-up through the kernel. Whole microseconds: the learnt look is kept in
/// them.
pub(crate) const LOOK_FOR: Duration = Duration::from_micros(25);

/// The longest a learnt look lasts: a gap longer than this is idleness, and a
/// wake-up through the kernel is then cheaper than spinning through it. (A
/// longer bound measured no better on async round trips.)
pub(crate) const LOOK_MAX: Duration = Duration::from_micros(100);

/// How long a watcher sleeps between looks at the queue: a task left to a
/// busy worker waits at most about two.
pub(crate) const PERIOD: Duration = Duration::from_micros(200);

/// How many quiet periods (empty queue, nobody busy) end a watch: an idle pool
/// costs no wake-ups for long.
pub(crate) const RESIGN_AFTER: u32 = 5;

/// Tasks shorter than this (on average, none much longer lately) are tiny:
/// shorter than what waking a parked worker costs both sides.
pub(crate) const TINY_NS: usize = 5_000;

/// One task in this many is timed (two clock reads), to learn how long tasks
/// run.
pub(crate) const SAMPLE_EVERY: u32 = 16;

/// Speculation leaves a busy worker at most this many tasks each in the
/// queue; past that a parked worker is woken to help.
pub(crate) const BACKLOG_PER_BUSY: usize = 4;

/// Wake-ups chain once the busy workers outnumber the CPUs this many times
/// over ([`chains`]).
pub(crate) const CHAIN_PAST_CPUS: usize = 2;

/// A busy worker looks up once every this many tasks: checking after every
/// task lengthened the tail of async offloads.
pub(crate) const WAITER_CHECK: u32 = 16;

/// How long a saturated submitter watches the admission word before it joins
/// the waiters: what its former 128 rounds lasted on the machine it was
/// tuned on.
pub(crate) const ROOM_FOR: Duration = Duration::from_micros(6);

/// Whether tasks, running `task_ns` lately (`usize::MAX`: not known), are
/// tiny: shorter than a wake-up. A clock that does not move never teaches an
/// estimate, so with it tasks are never tiny.
#[inline]
pub(crate) fn tiny(task_ns: usize) -> bool {
    task_ns < TINY_NS
}

/// Whether the wake-ups a burst of tasks needs pass from worker to worker —
/// the last looker to take a task while more wait makes sure they get a
/// taker — so a submitter need not wake (or start) a worker for each task it
/// pushes while one looks. Chosen when the busy workers outnumber the CPUs
/// twice over and tasks are not tiny: they mostly wait (sleep, I/O), the CPUs
/// have time for the chain, and a submitter paying a wake-up per task would
/// be what holds the burst back. With fewer busy workers, or tiny tasks, the
/// submitter wakes: the woken worker gets a CPU at once, and a chain would
/// move slower than tasks arrive.
#[inline]
pub(crate) fn chains(seen: &impl Seen) -> bool {
    seen.busy() > CHAIN_PAST_CPUS * seen.cpus() && !tiny(seen.task_ns())
}

/// Whether the lookers awake will see `waiting` tasks taken: one each, or in
/// a chain.
#[inline]
pub(crate) fn covers(seen: &impl Seen, waiting: usize) -> bool {
    seen.lookers() > 0 && (seen.lookers() >= waiting || chains(seen))
}

/// Whether the queue's tasks may be left to busy workers: a watcher is on
/// duty, tasks are tiny (a busy worker is about one tiny task from free, and
/// submitter and worker then overlap instead of taking turns through the
/// kernel), and the busy workers' backlog is short.
#[inline]
pub(crate) fn speculates(seen: &impl Seen) -> bool {
    seen.busy() > 0
        && seen.watched()
        && tiny(seen.task_ns())
        && seen.queued() <= BACKLOG_PER_BUSY * seen.busy()
}

/// How many lookers may spin at once: none on a single CPU, where a spinner
/// only delays the thread it waits for; otherwise half the CPUs, and two at
/// least while tasks are tiny. One looker alone is then often busy with the
/// task it just caught when the next one comes, and that submit wakes a parked
/// worker through the kernel for a task that runs for less than the wake-up.
/// With longer tasks a second spinner seldom catches one and holds a CPU the
/// submitters need.
#[inline]
pub(crate) fn max_spinners(seen: &impl Seen) -> usize {
    match seen.cpus() {
        0 | 1 => 0,
        n if tiny(seen.task_ns()) => (n / 2).max(2),
        n => n / 2,
    }
}

/// How long the next look lasts, given the `gap` from the start of the last
/// look that ran out to the task that came after it: the gap and half again,
/// between [`LOOK_FOR`] and [`LOOK_MAX`]; [`LOOK_FOR`] again once a gap is
/// longer than [`LOOK_MAX`]. A steady caller whose round trip is longer than
/// a look (an async task awaiting each result in turn) then finds a worker
/// still looking, not one it must wake through the kernel; a pool that idles
/// between bursts spins no longer than before.
#[inline]
pub(crate) fn next_look(gap: Duration) -> Duration {
    match gap <= LOOK_MAX {
        true => (gap + gap / 2).clamp(LOOK_FOR, LOOK_MAX),
        false => LOOK_FOR,
    }
}

impl Policy for Tuned {
    /// A worker of its own unless the lookers cover the queue with this task
    /// in it, or it may be left to a busy worker.
    #[inline]
    fn place(seen: &impl Seen) -> Taker {
        if covers(seen, seen.queued() + 1) {
            Taker::Lookers
        } else if speculates(seen) {
            Taker::Busy
        } else {
            Taker::Own
        }
    }

    /// While lookers are awake: they, if they cover the queue; else a worker
    /// of its own (not a busy one: the lookers' count says the queue outgrows
    /// them). Nobody looking: a busy worker if it may speculate.
    #[inline]
    fn ensure(seen: &impl Seen) -> Taker {
        if seen.lookers() > 0 {
            return match covers(seen, seen.queued()) {
                true => Taker::Lookers,
                false => Taker::Own,
            };
        }
        match speculates(seen) {
            true => Taker::Busy,
            false => Taker::Own,
        }
    }

    /// No spin past [`max_spinners`]. The one looker of an idle pool (none
    /// busy, no other looker) looks as learnt and learns: that is the shape
    /// of a caller that waits for each result before it sends the next.
    /// Others look [`LOOK_FOR`]: a second spinner, or one beside busy
    /// workers, is not waiting out a caller's round trip but shares the CPUs
    /// with the submitters (with every looker learning, a blocking submitter
    /// of tiny tasks to a hand-off pool measured slower).
    #[inline]
    fn look(seen: &impl Seen) -> Option<Look> {
        if seen.lookers() > max_spinners(seen) {
            return None;
        }
        if seen.lookers() > 1 || seen.busy() > 0 {
            return Some(Look {
                budget: LOOK_FOR,
                learns: false,
            });
        }
        Some(Look {
            budget: seen.learnt_look(),
            learns: true,
        })
    }

    const FIRST_LOOK: Duration = LOOK_FOR;

    #[inline]
    fn next_look(gap: Duration) -> Duration {
        next_look(gap)
    }

    /// When tasks are tiny, work is going on (a busy worker), and another CPU
    /// can run a woken worker: what speculation needs.
    #[inline]
    fn watches(seen: &impl Seen) -> bool {
        seen.busy() > 0 && tiny(seen.task_ns()) && seen.cpus() >= 2
    }

    const WATCH_PERIOD: Duration = PERIOD;

    #[inline]
    fn resigns(quiet: u32) -> bool {
        quiet >= RESIGN_AFTER
    }

    /// An average that jumps up at once on a longer task and forgets it
    /// slowly (an eighth a task): one long task ends speculation at once, a
    /// run of tiny ones brings it back gradually. A clock that did not move
    /// teaches nothing.
    #[inline]
    fn learn_task(estimate: usize, ns: usize) -> usize {
        if ns == 0 {
            return estimate;
        }
        if estimate == usize::MAX || ns >= estimate {
            return ns;
        }
        estimate - estimate / 8 + ns / 8
    }

    const TIME_EVERY: u32 = SAMPLE_EVERY;

    const CHECK_EVERY: u32 = WAITER_CHECK;

    /// Only with another CPU, where the room can come from a thread that runs
    /// beside this one.
    #[inline]
    fn room_for(cpus: usize) -> Option<Duration> {
        (cpus > 1).then_some(ROOM_FOR)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a test shows a policy: every fact read beforehand.
    #[derive(Clone, Copy, Debug)]
    struct Snapshot {
        lookers: usize,
        busy: usize,
        watched: bool,
        queued: usize,
        cpus: usize,
        task_ns: usize,
        look: Duration,
    }

    impl Seen for Snapshot {
        fn lookers(&self) -> usize {
            self.lookers
        }
        fn busy(&self) -> usize {
            self.busy
        }
        fn watched(&self) -> bool {
            self.watched
        }
        fn queued(&self) -> usize {
            self.queued
        }
        fn cpus(&self) -> usize {
            self.cpus
        }
        fn task_ns(&self) -> usize {
            self.task_ns
        }
        fn learnt_look(&self) -> Duration {
            self.look
        }
    }

    /// Two CPUs, nobody awake, an empty queue, tasks of unknown length.
    const QUIET: Snapshot = Snapshot {
        lookers: 0,
        busy: 0,
        watched: false,
        queued: 0,
        cpus: 2,
        task_ns: usize::MAX,
        look: LOOK_FOR,
    };

    const TINY: usize = TINY_NS - 1;
    const LONG: usize = 1_000_000;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn a_task_gets_a_worker_of_its_own_unless_a_looker_or_a_busy_worker_takes_it() {
        assert_eq!(Tuned::place(&QUIET), Taker::Own);
        // One looker, nothing queued: this task is its.
        let one_looker = Snapshot {
            lookers: 1,
            ..QUIET
        };
        assert_eq!(Tuned::place(&one_looker), Taker::Lookers);
        // One looker, one task queued already: this one needs another.
        let behind = Snapshot {
            queued: 1,
            ..one_looker
        };
        assert_eq!(Tuned::place(&behind), Taker::Own);
        // Tiny tasks, a busy worker and a watcher: left to the busy worker.
        let speculating = Snapshot {
            busy: 1,
            watched: true,
            task_ns: TINY,
            ..QUIET
        };
        assert_eq!(Tuned::place(&speculating), Taker::Busy);
        // Not without the watcher, nor with long tasks, nor past the backlog.
        let unwatched = Snapshot {
            watched: false,
            ..speculating
        };
        assert_eq!(Tuned::place(&unwatched), Taker::Own);
        let long = Snapshot {
            task_ns: LONG,
            ..speculating
        };
        assert_eq!(Tuned::place(&long), Taker::Own);
        let backlog = Snapshot {
            queued: BACKLOG_PER_BUSY + 1,
            ..speculating
        };
        assert_eq!(Tuned::place(&backlog), Taker::Own);
    }

    #[test]
    fn wake_ups_chain_past_twice_the_cpus_busy_with_tasks_that_are_not_tiny() {
        let crowd = Snapshot {
            lookers: 1,
            busy: CHAIN_PAST_CPUS * 2 + 1,
            queued: 10,
            task_ns: LONG,
            ..QUIET
        };
        assert!(chains(&crowd));
        assert_eq!(Tuned::ensure(&crowd), Taker::Lookers);
        let at_the_mark = Snapshot {
            busy: CHAIN_PAST_CPUS * 2,
            ..crowd
        };
        assert!(!chains(&at_the_mark));
        assert_eq!(Tuned::ensure(&at_the_mark), Taker::Own);
        let tiny_tasks = Snapshot {
            task_ns: TINY,
            ..crowd
        };
        assert!(!chains(&tiny_tasks));
        // Unknown task lengths are not tiny.
        let unknown = Snapshot {
            task_ns: usize::MAX,
            ..crowd
        };
        assert!(chains(&unknown));
    }

    #[test]
    fn after_a_push_the_lookers_or_a_busy_worker_may_be_counted_on() {
        // Two lookers for two queued tasks.
        let covered = Snapshot {
            lookers: 2,
            queued: 2,
            ..QUIET
        };
        assert_eq!(Tuned::ensure(&covered), Taker::Lookers);
        // Lookers awake but too few: a worker of its own, even where a busy
        // worker could speculate.
        let short = Snapshot {
            lookers: 1,
            queued: 2,
            busy: 1,
            watched: true,
            task_ns: TINY,
            ..QUIET
        };
        assert_eq!(Tuned::ensure(&short), Taker::Own);
        // Nobody looking: a busy worker under a watcher.
        let speculating = Snapshot {
            lookers: 0,
            queued: 1,
            ..short
        };
        assert_eq!(Tuned::ensure(&speculating), Taker::Busy);
        assert_eq!(Tuned::ensure(&QUIET), Taker::Own);
    }

    #[test]
    fn how_many_may_look_and_for_how_long() {
        // One CPU: nobody spins.
        let one_cpu = Snapshot {
            lookers: 1,
            cpus: 1,
            ..QUIET
        };
        assert_eq!(Tuned::look(&one_cpu), None);
        // Two CPUs: one spinner; two while tasks are tiny.
        let alone = Snapshot {
            lookers: 1,
            look: us(60),
            ..QUIET
        };
        assert_eq!(
            Tuned::look(&alone),
            Some(Look {
                budget: us(60),
                learns: true
            })
        );
        let second = Snapshot {
            lookers: 2,
            ..alone
        };
        assert_eq!(Tuned::look(&second), None);
        let second_tiny = Snapshot {
            task_ns: TINY,
            ..second
        };
        assert_eq!(
            Tuned::look(&second_tiny),
            Some(Look {
                budget: LOOK_FOR,
                learns: false
            })
        );
        // Beside a busy worker: the short look, which teaches nothing.
        let beside_busy = Snapshot { busy: 1, ..alone };
        assert_eq!(
            Tuned::look(&beside_busy),
            Some(Look {
                budget: LOOK_FOR,
                learns: false
            })
        );
    }

    #[test]
    fn a_task_that_came_soon_after_the_look_lengthens_it() {
        // Sooner than a look: the look stays as it is.
        assert_eq!(next_look(us(3)), LOOK_FOR);
        // A round trip of 40 µs: the next look lasts 60.
        assert_eq!(next_look(us(40)), us(60));
        // Never past the most.
        assert_eq!(next_look(us(90)), LOOK_MAX);
        assert_eq!(next_look(LOOK_MAX), LOOK_MAX);
        // Idleness: back to the short look.
        assert_eq!(next_look(LOOK_MAX + us(1)), LOOK_FOR);
        assert_eq!(next_look(Duration::from_secs(1)), LOOK_FOR);
    }

    #[test]
    fn the_watch_is_taken_up_for_tiny_tasks_beside_busy_workers_and_resigns_when_quiet() {
        let busy_tiny = Snapshot {
            busy: 1,
            task_ns: TINY,
            ..QUIET
        };
        assert!(Tuned::watches(&busy_tiny));
        assert!(!Tuned::watches(&Snapshot {
            busy: 0,
            ..busy_tiny
        }));
        assert!(!Tuned::watches(&Snapshot {
            task_ns: LONG,
            ..busy_tiny
        }));
        assert!(!Tuned::watches(&Snapshot {
            cpus: 1,
            ..busy_tiny
        }));
        assert!(!Tuned::resigns(RESIGN_AFTER - 1));
        assert!(Tuned::resigns(RESIGN_AFTER));
    }

    #[test]
    fn the_estimate_jumps_up_on_a_long_task_and_forgets_it_slowly() {
        // The first task teaches its length; a still clock teaches nothing.
        assert_eq!(Tuned::learn_task(usize::MAX, 0), usize::MAX);
        assert_eq!(Tuned::learn_task(usize::MAX, 800), 800);
        assert_eq!(Tuned::learn_task(800, 0), 800);
        // Longer: at once. Shorter: an eighth of the way.
        assert_eq!(Tuned::learn_task(800, 80_000), 80_000);
        assert_eq!(Tuned::learn_task(80_000, 8), 70_001);
        // A run of tiny tasks after a long one makes them tiny again.
        let mut estimate = 80_000;
        let mut tasks = 0;
        while !tiny(estimate) {
            estimate = Tuned::learn_task(estimate, 800);
            tasks += 1;
        }
        assert!((10..40).contains(&tasks), "{tasks} tasks");
    }

    #[test]
    fn a_saturated_submitter_watches_for_room_only_beside_another_cpu() {
        assert_eq!(Tuned::room_for(1), None);
        assert_eq!(Tuned::room_for(2), Some(ROOM_FOR));
    }

    fn snapshots() -> impl Strategy<Value = Snapshot> {
        (
            0..8usize,
            0..64usize,
            any::<bool>(),
            0..1024usize,
            1..64usize,
            prop_oneof![Just(usize::MAX), 0..2 * TINY_NS, any::<usize>()],
            0..200u64,
        )
            .prop_map(
                |(lookers, busy, watched, queued, cpus, task_ns, look)| Snapshot {
                    lookers,
                    busy,
                    watched,
                    queued,
                    cpus,
                    task_ns,
                    look: us(look),
                },
            )
    }

    proptest! {
        #[test]
        fn the_look_is_always_within_its_bounds(gap_ns in any::<u64>()) {
            let look = next_look(Duration::from_nanos(gap_ns));
            prop_assert!((LOOK_FOR..=LOOK_MAX).contains(&look));
        }

        #[test]
        fn a_learnt_look_stays_within_its_bounds(gaps in proptest::collection::vec(any::<u64>(), 1..32)) {
            // Whatever the gaps, every look a pool learns is within bounds,
            // and so is every budget a looker gets from it.
            let mut learnt = Tuned::FIRST_LOOK;
            for gap in gaps {
                learnt = Tuned::next_look(Duration::from_nanos(gap));
                let alone = Snapshot { lookers: 1, look: learnt, ..QUIET };
                let budget = Tuned::look(&alone).map(|l| l.budget);
                prop_assert_eq!(budget, Some(learnt));
            }
            prop_assert!((LOOK_FOR..=LOOK_MAX).contains(&learnt));
        }

        #[test]
        fn only_the_spinners_allowed_spin(seen in snapshots()) {
            let look = Tuned::look(&seen);
            prop_assert_eq!(look.is_some(), seen.lookers <= max_spinners(&seen));
            if let Some(look) = look {
                prop_assert!(look.learns == (seen.lookers <= 1 && seen.busy == 0));
            }
        }

        #[test]
        fn every_answer_is_one_the_mechanism_honours(seen in snapshots()) {
            // The tuned policy never counts on a looker that is not awake,
            // nor on a busy worker without a watcher: the mechanism runs
            // what it says.
            for taker in [Tuned::place(&seen), Tuned::ensure(&seen)] {
                match taker {
                    Taker::Lookers => prop_assert!(seen.lookers > 0),
                    Taker::Busy => prop_assert!(seen.busy > 0 && seen.watched),
                    Taker::Own => {}
                }
            }
        }

        #[test]
        fn tasks_are_left_to_busy_workers_only_while_tiny(seen in snapshots()) {
            let busy = [Tuned::place(&seen), Tuned::ensure(&seen)].contains(&Taker::Busy);
            prop_assert!(!busy || tiny(seen.task_ns));
            prop_assert!(!busy || seen.queued <= BACKLOG_PER_BUSY * seen.busy);
        }

        #[test]
        fn the_estimate_follows_a_longer_task_at_once(estimate in any::<usize>(), ns in 1..usize::MAX) {
            let next = Tuned::learn_task(estimate, ns);
            if estimate == usize::MAX || ns >= estimate {
                prop_assert_eq!(next, ns);
            } else {
                prop_assert!(ns <= next && next <= estimate);
            }
        }
    }
}
