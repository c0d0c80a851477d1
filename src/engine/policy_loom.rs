//! The mechanism under adversarial policies, with loom: the real engine, on
//! the loom platform of `tests/loom/harness.rs`, its `Flavor` naming a policy
//! that answers what `Tuned` would not.
//!
//! * [`Lazy`] leaves every task to someone else: never a worker of its own
//!   for a task, lookers whenever one is awake (wake-ups always chain), else
//!   a busy worker (speculation whatever the task lengths); it always spins
//!   and learns, always takes up the watch and never resigns it, and a busy
//!   worker never looks up from its tasks.
//! * [`Eager`] does everything itself: a worker of its own for every task,
//!   never a looker's or a busy worker's, never a spin, never a watch, and a
//!   busy worker looks up after every task.
//! * [`Coin`] answers as `Lazy` until the model flips a loom atomic, then as
//!   `Eager`: the flip races the workers' decisions, so loom explores both
//!   answers at each of them.
//! * [`Pusher`] is `Eager` but pushes every task first: its submitters
//!   reserve their worker after the push, racing each other for the last.
//!
//! Each model runs a key handshake under these policies (one test each)
//! and fails if a task is lost (a wait that never ends: loom reports the
//! deadlock), runs twice (the executor's check), or waits in the queue while
//! every worker sleeps (the same deadlock): submit racing a parking worker
//! (handshake 1), a task left to a busy worker that is stuck until it runs
//! (the watch, also when a purge retires the watcher), release racing a
//! submit (handshake 2), and a burst left to a looker that must chain to a
//! new worker — the chain's link, which `Tuned` reaches only past three busy
//! workers on one CPU and so no model of `tests/loom/` reaches. (Drop the
//! link from `take_as_looker` and that model deadlocks.)

use core::marker::PhantomData;
use core::time::Duration;
use std::sync::Arc;

use std::vec::Vec;

use loom::sync::atomic::Ordering::{AcqRel, Acquire, SeqCst};
use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use loom::thread;

use super::policy::{Look, Policy, Seen, Taker};
use super::ring::Slot;
use super::{Engine, Execute, Flavor, Mode, Outcome};
use crate::error::SubmitError;
use crate::options::Options;
use crate::priority::Priority;
use crate::queue::WorkerRing;

// (Shared with `tests/loom.rs`, which uses all of it.)
#[allow(dead_code)]
#[path = "../../tests/loom/harness.rs"]
mod harness;
use harness::{Gate, LoomClock, LoomSpawner, ONE_CPU, check_bounded};

/// The loom spawner of two CPUs.
const TWO_CPUS: LoomSpawner = LoomSpawner { cpus: 2 };

/// Leaves every task to someone else (see the module docs).
struct Lazy;

impl Policy for Lazy {
    fn place(seen: &impl Seen) -> Taker {
        Self::ensure(seen)
    }

    fn ensure(seen: &impl Seen) -> Taker {
        match seen.lookers() > 0 {
            true => Taker::Lookers,
            false => Taker::Busy,
        }
    }

    fn look(_: &impl Seen) -> Option<Look> {
        Some(Look {
            budget: Duration::MAX,
            learns: true,
        })
    }

    const FIRST_LOOK: Duration = Duration::from_secs(1);

    fn next_look(gap: Duration) -> Duration {
        gap
    }

    fn watches(_: &impl Seen) -> bool {
        true
    }

    // (Any finite period: under loom a timed wait runs out once the other
    // threads had a turn.)
    const WATCH_PERIOD: Duration = Duration::from_secs(1);

    fn resigns(_: u32) -> bool {
        false
    }

    fn learn_task(_: usize, ns: usize) -> usize {
        ns
    }

    const TIME_EVERY: u32 = 1;

    const CHECK_EVERY: u32 = u32::MAX;

    fn room_for(_: usize) -> Option<Duration> {
        Some(Duration::MAX)
    }
}

/// Does everything itself (see the module docs).
struct Eager;

impl Policy for Eager {
    fn place(_: &impl Seen) -> Taker {
        Taker::Own
    }

    fn ensure(_: &impl Seen) -> Taker {
        Taker::Own
    }

    fn look(_: &impl Seen) -> Option<Look> {
        None
    }

    const FIRST_LOOK: Duration = Duration::ZERO;

    fn next_look(_: Duration) -> Duration {
        Duration::ZERO
    }

    fn watches(_: &impl Seen) -> bool {
        false
    }

    const WATCH_PERIOD: Duration = Duration::ZERO;

    fn resigns(_: u32) -> bool {
        true
    }

    fn learn_task(estimate: usize, _: usize) -> usize {
        estimate
    }

    const TIME_EVERY: u32 = u32::MAX;

    const CHECK_EVERY: u32 = 1;

    fn room_for(_: usize) -> Option<Duration> {
        None
    }
}

/// Pushes every task and then asks for a worker of its own: [`Eager`] but
/// for `place`, so that each submitter reserves its looker in
/// `ensure_taker` (without [`Lazy`]'s spins and watch, which multiply the
/// interleavings).
struct Pusher;

impl Policy for Pusher {
    fn place(_: &impl Seen) -> Taker {
        Taker::Busy
    }

    fn ensure(seen: &impl Seen) -> Taker {
        Eager::ensure(seen)
    }

    fn look(seen: &impl Seen) -> Option<Look> {
        Eager::look(seen)
    }

    const FIRST_LOOK: Duration = Eager::FIRST_LOOK;

    fn next_look(gap: Duration) -> Duration {
        Eager::next_look(gap)
    }

    fn watches(seen: &impl Seen) -> bool {
        Eager::watches(seen)
    }

    const WATCH_PERIOD: Duration = Eager::WATCH_PERIOD;

    fn resigns(quiet: u32) -> bool {
        Eager::resigns(quiet)
    }

    fn learn_task(estimate: usize, ns: usize) -> usize {
        Eager::learn_task(estimate, ns)
    }

    const TIME_EVERY: u32 = Eager::TIME_EVERY;

    const CHECK_EVERY: u32 = Eager::CHECK_EVERY;

    fn room_for(cpus: usize) -> Option<Duration> {
        Eager::room_for(cpus)
    }
}

loom::lazy_static! {
    /// Whether [`Coin`] answers as [`Lazy`] (heads) or as [`Eager`].
    static ref HEADS: AtomicBool = AtomicBool::new(true);
}

/// Turns [`Coin`] from [`Lazy`] to [`Eager`], racing the decisions of the
/// other threads.
fn flip() {
    HEADS.store(false, SeqCst);
}

fn heads() -> bool {
    HEADS.load(SeqCst)
}

/// Answers as [`Lazy`] until the model [`flip`]s it, then as [`Eager`].
struct Coin;

impl Policy for Coin {
    fn place(seen: &impl Seen) -> Taker {
        match heads() {
            true => Lazy::place(seen),
            false => Eager::place(seen),
        }
    }

    fn ensure(seen: &impl Seen) -> Taker {
        match heads() {
            true => Lazy::ensure(seen),
            false => Eager::ensure(seen),
        }
    }

    fn look(seen: &impl Seen) -> Option<Look> {
        match heads() {
            true => Lazy::look(seen),
            false => Eager::look(seen),
        }
    }

    const FIRST_LOOK: Duration = Lazy::FIRST_LOOK;

    fn next_look(gap: Duration) -> Duration {
        match heads() {
            true => Lazy::next_look(gap),
            false => Eager::next_look(gap),
        }
    }

    fn watches(seen: &impl Seen) -> bool {
        match heads() {
            true => Lazy::watches(seen),
            false => Eager::watches(seen),
        }
    }

    const WATCH_PERIOD: Duration = Lazy::WATCH_PERIOD;

    fn resigns(quiet: u32) -> bool {
        match heads() {
            true => Lazy::resigns(quiet),
            false => Eager::resigns(quiet),
        }
    }

    fn learn_task(estimate: usize, ns: usize) -> usize {
        Lazy::learn_task(estimate, ns)
    }

    const TIME_EVERY: u32 = 1;

    const CHECK_EVERY: u32 = 1;

    fn room_for(cpus: usize) -> Option<Duration> {
        match heads() {
            true => Lazy::room_for(cpus),
            false => Eager::room_for(cpus),
        }
    }
}

/// An engine of `u32` tasks (one bit each) under the policy `P`, with a ring
/// of `N` slots.
struct Model<P, const N: usize>(PhantomData<P>);

impl<P: Policy, const N: usize> Flavor for Model<P, N> {
    type Task = u32;
    type Queue = WorkerRing<4>;
    type Slots = [Slot<u32>; N];
    type Clock = LoomClock;
    type Spawner = LoomSpawner;
    type Exec = Tasks;
    type Policy = P;
}

/// Runs the models' tasks: each marks its bit in `ran` (a second run fails
/// the model). The task `held` (0: none) first waits for the gate `until`;
/// each gate of `gates` opens once every task of its mask has run. (Tasks
/// and models wait on gates, not in spins: loom need not explore every turn
/// of a spin, and a wait that never ends is a deadlock, which it reports.)
struct Tasks {
    ran: loom::sync::Arc<AtomicUsize>,
    held: u32,
    until: usize,
    gates: Vec<(u32, Gate)>,
}

impl Execute<u32> for Tasks {
    fn execute(&self, task: u32) -> Outcome {
        if task & self.held != 0 {
            self.gates[self.until].1.wait();
        }
        let before = self.ran.fetch_or(task as usize, AcqRel) as u32;
        assert_eq!(before & task, 0, "task {task:#b} ran twice");
        for (mask, gate) in &self.gates {
            if before & mask != *mask && (before | task) & mask == *mask {
                gate.open();
            }
        }
        Outcome::Completed
    }
}

/// What a model holds of its pool.
struct Pool<P: Policy, const N: usize> {
    engine: Arc<Engine<Model<P, N>>>,
    clock: LoomClock,
    ran: loom::sync::Arc<AtomicUsize>,
    gates: Vec<Gate>,
}

impl<P: Policy, const N: usize> Pool<P, N> {
    /// A pool with `options` (never expiring) on `spawner`'s CPUs whose tasks open
    /// a gate for each mask of `gates` once they all ran; the task `held`
    /// (0: none) waits for the gate `until` first.
    fn new(options: Options, spawner: LoomSpawner, gates: &[u32], held: u32, until: usize) -> Self {
        let config = options.disable_purge(true).config().unwrap();
        assert_eq!(config.ring_size(), N, "the model's ring");
        let ran = loom::sync::Arc::new(AtomicUsize::new(0));
        let gates: Vec<(u32, Gate)> = gates.iter().map(|&m| (m, Gate::new())).collect();
        let tasks = Tasks {
            ran: ran.clone(),
            held,
            until,
            gates: gates.clone(),
        };
        let clock = LoomClock(loom::sync::Arc::new(AtomicU64::new(0)));
        let engine = Engine::new(
            config,
            WorkerRing::new(),
            core::array::from_fn(|_| Slot::new()),
            N,
            clock.clone(),
            spawner,
            tasks,
        );
        Pool {
            engine: Arc::new(engine),
            clock,
            ran,
            gates: gates.into_iter().map(|(_, g)| g).collect(),
        }
    }

    fn submit(&self, task: u32) -> Result<(), SubmitError<u32>> {
        Engine::submit(&self.engine, task, Mode::Block, Priority::Normal)
    }

    /// Waits until every task of the `i`-th gate's mask has run.
    fn wait(&self, i: usize) {
        self.gates[i].wait();
    }

    fn ran(&self) -> u32 {
        self.ran.load(Acquire) as u32
    }

    /// Waits until the pool fell quiet — a task stranded in the queue with
    /// every worker asleep is a deadlock, which loom reports — then releases
    /// it and waits for every worker to end.
    fn finish(&self) {
        self.engine.wait_idle(None);
        self.engine.release_timeout(Duration::MAX).unwrap();
        assert_eq!(self.engine.running(), 0, "a worker outlived the release");
    }
}

/// A module `$module` of tests, one for each policy listed: `model` under
/// it at its preemption bound, given the [`flip`] to call (`Coin`) or not.
/// (One test each: nextest runs and times them apart.)
macro_rules! under_policies {
    ($module:ident, $name:literal, $model:ident,
     $($test:ident: $policy:ident($flip:expr) @ $bound:literal),+ $(,)?) => {
        mod $module {
            use super::*;
            $(
                #[test]
                fn $test() {
                    check_bounded(
                        concat!($name, " (", stringify!($test), ")"),
                        $bound,
                        || $model::<$policy>($flip),
                    );
                }
            )+
        }
    };
}

/// No flip: the fixed policies.
fn none() {}

/// A queue pool of one on two CPUs: task 1 runs, and task 2 is submitted
/// while its worker goes looking and parks (handshake 1). Whether the
/// submitter counts on the looker or wakes it, task 2 runs once. (One
/// worker: with room for a second, a policy that starts one for every task
/// never meets the park, and loom spends its bound on the second thread.)
/// `flip` races the worker leaving task 1.
fn push_vs_park<P: Policy>(flip: fn()) {
    let pool = Pool::<P, 1>::new(
        Options::<()>::new().capacity(1).max_queued_tasks(1),
        TWO_CPUS,
        &[0b01, 0b11],
        0,
        0,
    );
    pool.submit(0b01).unwrap();
    pool.wait(0);
    flip();
    pool.submit(0b10).unwrap();
    pool.wait(1);
    pool.finish();
    assert_eq!(pool.ran(), 0b11);
}

under_policies!(
    a_submit_racing_a_parking_worker_is_taken,
    "policy: push vs park",
    push_vs_park,
    lazy: Lazy(none) @ 1,
    eager: Eager(none) @ 1,
    coin: Coin(flip) @ 1
);

/// Speculation: task 1 is stuck until task 4 has run; task 2 runs on a
/// second worker, which then parks — on watch, under a policy that watches.
/// Task 4, left to the stuck worker by a policy that speculates, must be
/// taken by the watcher or a worker it wakes; under one that does not, by a
/// worker of its own. `flip` would race the second worker's park; the coin
/// is not run here (it took over a minute, past the loom step's budget).
fn left_to_a_stuck_worker<P: Policy>(flip: fn()) {
    let pool = task_4_beside_a_stuck_worker::<P>(flip);
    pool.wait(2);
    pool.finish();
}

/// The pool of [`left_to_a_stuck_worker`] once task 4 is submitted.
fn task_4_beside_a_stuck_worker<P: Policy>(flip: fn()) -> Pool<P, 2> {
    let pool = Pool::<P, 2>::new(
        Options::<()>::new().capacity(2).max_queued_tasks(2),
        TWO_CPUS,
        &[0b010, 0b100, 0b111],
        0b001,
        1,
    );
    pool.submit(0b001).unwrap();
    pool.submit(0b010).unwrap();
    pool.wait(0);
    flip();
    pool.submit(0b100).unwrap();
    pool
}

under_policies!(
    a_task_left_to_a_stuck_busy_worker_is_rescued,
    "policy: left to a stuck worker",
    left_to_a_stuck_worker,
    lazy: Lazy(none) @ 0,
    eager: Eager(none) @ 0
);

/// The same, and the pool's `purge` retires the parked worker (past its
/// expiry by the clock) while task 4 waits: the watch ends with it, so
/// whether the watcher looked first or not, task 4 gets a worker of its own
/// (the one parked is gone: a new one). Deadlocks if the purge does not
/// check the queue after it.
fn purge_retires_the_watcher<P: Policy>(flip: fn()) {
    let pool = task_4_beside_a_stuck_worker::<P>(flip);
    let expiry = pool.engine.config.expiry.as_nanos();
    pool.clock.0.store(u64::try_from(expiry).unwrap(), SeqCst);
    Engine::purge(&pool.engine);
    pool.wait(2);
    pool.finish();
}

under_policies!(
    a_task_left_to_a_stuck_busy_worker_runs_when_purge_retires_the_watcher,
    "policy: purge retires the watcher",
    purge_retires_the_watcher,
    lazy: Lazy(none) @ 0,
    eager: Eager(none) @ 0
);

/// A queue of one, one worker that ran task 1, released while another
/// thread submits task 2 (handshake 2): task 2 runs before the release
/// returns, or comes back `Closed`; no worker outlives the release. `flip`
/// races the submit.
fn release_vs_submit<P: Policy>(flip: fn()) {
    let pool = Arc::new(Pool::<P, 1>::new(
        Options::<()>::new().capacity(1).max_queued_tasks(1),
        ONE_CPU,
        &[],
        0,
        0,
    ));
    pool.submit(0b01).unwrap();
    let p = pool.clone();
    let other = thread::spawn(move || match p.submit(0b10) {
        Ok(()) => 0b10,
        Err(SubmitError::Closed(0b10)) => 0,
        Err(e) => panic!("unexpected {e:?}"),
    });
    flip();
    pool.engine.release_timeout(Duration::MAX).unwrap();
    let ran = pool.ran();
    assert_eq!(pool.engine.running(), 0, "a worker outlived the release");
    let accepted = other.join().unwrap();
    assert_eq!(
        ran,
        0b01 | accepted,
        "the release returned before a task ran"
    );
}

under_policies!(
    a_release_racing_a_submit_runs_or_returns_the_task,
    "policy: release vs submit",
    release_vs_submit,
    lazy: Lazy(none) @ 1,
    eager: Eager(none) @ 1,
    coin: Coin(flip) @ 1
);

/// Two submitters race for the one worker a pool of one may run, under
/// [`Pusher`] (each pushes its task, and its `ensure_taker` reserves a
/// looker): one reservation wins, the other finds the limit reached and
/// waits for that looker to take its task. Both tasks run, on one thread.
#[test]
fn two_submitters_racing_for_the_last_worker_start_one() {
    check_bounded("policy: two submitters, one worker (pusher)", 1, || {
        let pool = Arc::new(Pool::<Pusher, 2>::new(
            Options::<()>::new().capacity(1).max_queued_tasks(2),
            ONE_CPU,
            &[],
            0,
            0,
        ));
        let p = pool.clone();
        let other = thread::spawn(move || p.submit(0b10).unwrap());
        pool.submit(0b01).unwrap();
        other.join().unwrap();
        pool.finish();
        assert_eq!(pool.ran(), 0b11);
        let spawned = pool.engine.stats().spawned;
        assert_eq!(spawned, 1, "{spawned} workers for a pool of one");
    });
}

/// The chain's link, under [`Lazy`] (which leaves tasks to any looker
/// awake), on one CPU: a worker runs task 1 and parks; task 2 wakes it, and
/// task 4 is left to it while it looks. Task 2 is stuck until task 4 has
/// run, so the looker, having taken task 2, cannot run task 4: only the link
/// it makes as the last looker with a task behind it (`take_as_looker` →
/// `ensure_taker`: a second worker) can. Without the link this deadlocks.
#[test]
fn a_burst_left_to_a_looker_chains_to_a_new_worker() {
    check_bounded("policy: the chain's link (lazy)", 0, || {
        let pool = Pool::<Lazy, 2>::new(
            Options::<()>::new().capacity(2).max_queued_tasks(2),
            ONE_CPU,
            &[0b001, 0b100, 0b111],
            0b010,
            1,
        );
        pool.submit(0b001).unwrap();
        pool.wait(0);
        pool.submit(0b010).unwrap();
        pool.submit(0b100).unwrap();
        pool.wait(2);
        pool.finish();
    });
}
