//! The shipped policy, [`Tuned`]: its constants with their reasons, the
//! heuristics they feed, and its answers to each decision of [`Policy`].
//! The figures behind the constants: `BENCHMARKS.md`, "What the engine's
//! constants rest on".

use core::time::Duration;

use super::{Look, Policy, Seen, Taker};

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
