//! The policy's decisions without threads: [`Tuned`]'s answers on
//! snapshots, and the properties a pool relies on (proptest).

use super::tuned::*;
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
    // Nor with nobody busy: there is no busy worker to leave it to (the
    // mechanism would not honour the answer).
    let nobody_busy = Snapshot {
        busy: 0,
        ..speculating
    };
    assert_eq!(Tuned::place(&nobody_busy), Taker::Own);
    assert_eq!(Tuned::ensure(&nobody_busy), Taker::Own);
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
    // Never a third on two CPUs; on eight, four.
    let third_tiny = Snapshot {
        lookers: 3,
        ..second_tiny
    };
    assert_eq!(Tuned::look(&third_tiny), None);
    let eight_cpus = Snapshot {
        cpus: 8,
        ..third_tiny
    };
    assert_eq!(max_spinners(&eight_cpus), 4);
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
        // (Small counts as often as large ones: the rules' edges are there.)
        prop_oneof![0..3usize, 0..64usize],
        any::<bool>(),
        prop_oneof![0..3usize, 0..1024usize],
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
    // Pure arithmetic, nothing unsafe: under Miri a few cases show it runs.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 256 }))]

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
    fn the_spinners_hold_at_most_half_the_cpus_or_two(seen in snapshots()) {
        // None on one CPU; otherwise never more than half of them, or two
        // while tasks are tiny.
        let spinners = max_spinners(&seen);
        match seen.cpus {
            0 | 1 => prop_assert_eq!(spinners, 0),
            n if tiny(seen.task_ns) => prop_assert!(spinners <= (n / 2).max(2)),
            n => prop_assert!(spinners <= n / 2),
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
