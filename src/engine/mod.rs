//! The pool engine, generic over the task payload: admission, the transport of
//! tasks to workers, the workers' states (busy, looking, parked), the FIFO of
//! blocked submitters, expiry, tune, release and reboot. The protocol is
//! written down in `README.md` beside this file; read it before changing
//! anything here.
//!
//! | file | idea |
//! |---|---|
//! | `ctl.rs` | the control words: every decision is one compare-and-swap on one |
//! | `ring.rs`, `list.rs`, `transport.rs` | the lane: the lock-free FIFOs that carry tasks to workers |
//! | `submit.rs` | admission, the push, and seeing that a worker will take the task |
//! | `isr.rs` | submitting from an interrupt handler: to a parked worker, or back at once |
//! | `waiters.rs` | the FIFO of blocked submitters |
//! | `lines.rs` | that FIFO's lines, one per level, and which is served next |
//! | `inbox.rs` | how async submitters join that FIFO without the lock |
//! | `worker.rs` | a worker's life: run, take the next task, look, park, expire |
//! | `watch.rs` | the watch duty that bounds how long a task waits for a busy worker |
//! | `policy/` | every tuning decision (start a worker or push, whom to leave tasks to, how long to look, the watch's duty), apart from the mechanism, which holds for any answer |
//! | `spin.rs` | busy-waits bounded by time |
//! | `lifecycle.rs` | tune, purge, release, reboot |
//! | `drain.rs` | waiting for a release to end: blocking, or as a future |
//! | `quiet.rs` | `wait_idle`, and the pause |
//! | `launch.rs` | how a new worker's first task reaches its thread |
//! | `node.rs` | the parking records of the cold paths |
//! | `wait_async.rs` | futures that wait for room or idleness without a thread |
//! | `timed.rs` | where the clock is read for the timings; `timed/`: the admission time (and, with levels, the level) a task carries, the histograms' counters — zero-sized without the feature `timings` |
//! | `heap.rs` | what only a pool with a heap has (feature `alloc`); `no_heap.rs`: its stand-ins without |
//!
//! The engine never names `std`. The faces — [`Pool`](crate::Pool),
//! [`PoolWithFunc`](crate::PoolWithFunc), [`StaticPoolWithFunc`](crate::StaticPoolWithFunc)
//! — choose the task type, how a task is executed ([`Execute`]), where the
//! transport keeps its slots, and how workers refer to the engine
//! ([`EngineRef`]: an `Arc`, or a `&'static`).

use core::time::Duration;

use crate::sync::{AtomicUsize, Ordering::Relaxed, UntrackedUsize};

use crate::queue::WorkerId;

use crate::clock::Clock;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

mod ctl;
mod drain;
#[cfg(all(test, feature = "alloc", not(antpool_loom)))]
mod fifo_tests;
/// What only a pool with a heap has.
#[cfg(feature = "alloc")]
mod heap;
/// Without a heap: the stand-ins for what `heap.rs` gives.
#[cfg(not(feature = "alloc"))]
#[path = "no_heap.rs"]
mod heap;
mod inbox;
#[cfg(all(test, antpool_loom))]
mod inbox_loom;
mod isr;
mod lanes;
mod launch;
mod lifecycle;
mod lines;
#[cfg(feature = "alloc")]
mod list;
#[cfg(all(test, feature = "alloc", antpool_loom))]
mod list_loom;
mod node;
mod padded;
#[cfg(test)]
mod plain;
mod policy;
#[cfg(all(test, antpool_loom))]
mod policy_loom;
mod quiet;
mod ring;
#[cfg(all(test, antpool_loom))]
mod ring_loom;
mod spin;
mod submit;
#[cfg(all(test, feature = "std", not(antpool_loom)))]
mod tests;
mod timed;
mod transport;
mod wait_async;
mod waiters;
mod watch;
mod worker;

pub(crate) use ctl::MAX_WORKERS;
pub(crate) use drain::{Awaited, Drain};
#[cfg(feature = "alloc")]
#[allow(unused_imports)] // (`MAX_RING`: for the faces; the engine's own use is in `heap.rs`)
pub(crate) use heap::{MAX_RING, boxed_slots};
pub(crate) use policy::Tuned;
pub(crate) use ring::{Slot, Slots};
pub(crate) use wait_async::Admit;

use ctl::{Adm, Ctl};
use lanes::Lanes;
use node::NodeList;
use padded::Padded;
use policy::Policy;
use transport::Growth;

/// What became of one task: the std faces report a caught panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Completed,
    /// Only the std faces catch panics, so only they report this.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    Panicked,
    /// An aborted task (`JoinHandle::abort`), discarded unrun: counted
    /// nowhere, as a task `clear_queue` dropped.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    Skipped,
}

/// How a worker runs one task. The std faces wrap this to catch panics.
pub(crate) trait Execute<T>: Send + Sync + 'static {
    fn execute(&self, task: T) -> Outcome;

    /// Runs on a worker's thread when it starts, before its first task;
    /// `index` is its number in the pool.
    fn worker_started(&self, _index: usize) {}

    /// Runs on a worker's thread as the last thing before it ends.
    fn worker_stopping(&self) {}
}

/// The types one engine is made of: its task, idle queue, transport slots,
/// clock, platform, executor and policy. Bundled so the engine's many
/// functions carry one bound. Implemented by the pool kinds (`kind/`).
pub(crate) trait Flavor: 'static {
    type Task: Send + 'static;
    type Queue: WorkerQueue;
    type Slots: Slots<Self::Task>;
    type Clock: Clock;
    type Spawner: Spawner;
    type Exec: Execute<Self::Task>;
    /// Its tuning decisions (`policy/`): [`Tuned`] for every pool kind;
    /// the loom models drive the mechanism with adversarial ones.
    type Policy: Policy;
}

type SignalOf<F> = <<F as Flavor>::Spawner as Spawner>::Signal;
type NodeOf<F> = node::Node<<F as Flavor>::Task, SignalOf<F>>;
type ChainOf<F> = node::Chain<<F as Flavor>::Task, SignalOf<F>>;
type ListOf<F> = NodeList<<F as Flavor>::Task, SignalOf<F>>;
type LockOf<F> = <<F as Flavor>::Spawner as Spawner>::Lock;
/// The lock held on an engine's cold state.
type Guard<'a, F> = lock_api::MutexGuard<'a, LockOf<F>, Cold<F>>;
/// A new worker's first task, with its stamp (`launch.rs`; the boxed job
/// record of `heap.rs` carries one too).
type First<F> = Option<timed::Stamped<<F as Flavor>::Task>>;

/// Checks that a spawner handed back the job it was given (`launch.rs`,
/// `heap.rs`).
fn check_returned(job: crate::spawner::Job, sent: core::ptr::NonNull<crate::spawner::JobHeader>) {
    let returned = job.into_header();
    assert!(
        returned == sent,
        "antpool: Spawner::spawn returned a different job than it was given"
    );
}

/// How workers refer to their engine for as long as they live.
pub(crate) trait EngineRef<E>: Clone + Send + Sync + 'static {
    /// Whether a new worker's first task must be handed over on the spawning
    /// thread's stack (no heap: the spawner waits until the worker took it), or
    /// can travel in a boxed job record.
    const HANDSHAKE: bool;

    fn engine(&self) -> &E;
}

impl<E: Sync + 'static> EngineRef<E> for &'static E {
    const HANDSHAKE: bool = true;

    fn engine(&self) -> &E {
        self
    }
}

/// A validated configuration (see [`Options`](crate::Options)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// `None`: unbounded.
    pub(crate) capacity: Option<usize>,
    pub(crate) expiry: Duration,
    pub(crate) purge: bool,
    pub(crate) prealloc: bool,
    pub(crate) nonblocking: bool,
    /// 0: no limit.
    pub(crate) max_blocking: usize,
    /// Queue mode: 0 off, `usize::MAX` unbounded.
    pub(crate) queue_limit: usize,
    /// Warm workers: started at build, and kept from expiry.
    pub(crate) min_idle: usize,
    /// A queue and a line of waiters per level (`Priority`).
    pub(crate) priorities: bool,
    /// A hand-off pool's room kept for `High` (0: none).
    pub(crate) reserve_for_high: usize,
    /// Takes from higher levels in a row after which a waiting lower level
    /// gets one (0: strict).
    pub(crate) starvation_bound: u32,
    /// Which tasks are timed: `None` none (`Sampling::Off`), else those whose
    /// lane position `p` has `p & mask == 0` (see `timed.rs`).
    #[cfg(feature = "timings")]
    pub(crate) sample: Option<usize>,
    /// The `pool` label of the facade's metrics (`metrics_label`).
    #[cfg(feature = "metrics")]
    pub(crate) label: Option<&'static str>,
}

impl Config {
    /// The most workers the pool may run at `capacity`: it, or [`MAX_WORKERS`].
    pub(crate) const fn worker_limit(&self, capacity: usize) -> usize {
        if capacity < MAX_WORKERS {
            capacity
        } else {
            MAX_WORKERS
        }
    }

    /// Whether this is a hand-off pool: bounded, without a queue, so the
    /// admission word counts tasks in flight against the capacity.
    pub(crate) const fn handoff(&self) -> bool {
        self.queue_limit == 0 && self.capacity.is_some()
    }

    /// Whether the lane closes on release: every pool but a hand-off one. Its
    /// ring's and list's marks refuse every push after the release
    /// (`TaskRing::close`, `NodeList::close`), so its submitters are not counted in
    /// and out of a push window (`engine/README.md`, handshake 2). A hand-off
    /// pool counts its tasks in flight anyway.
    pub(crate) const fn lane_closes(&self) -> bool {
        !self.handoff()
    }

    /// How the lane grows (see `transport.rs`).
    pub(crate) const fn growth(&self) -> Growth {
        match self.queue_limit {
            0 => Growth::Spilling,
            usize::MAX => Growth::Unbounded,
            _ => Growth::Bounded,
        }
    }

    /// Whether the lane can be full: a bounded queue. Any other lane's push
    /// (through `push_admitted`) is refused only once the lane is closed.
    pub(crate) const fn lane_fills(&self) -> bool {
        matches!(self.growth(), Growth::Bounded)
    }

    /// How far a full bounded queue must drain before blocked submitters are
    /// let in again: half of it.
    pub(crate) const fn hysteresis(&self) -> usize {
        match self.queue_limit {
            0 | usize::MAX => 0,
            n => n / 2,
        }
    }
}

/// Whether a submit may block when the pool is saturated.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Block as the options allow (`submit`, `invoke`).
    Block,
    /// Never block (`try_submit`, `try_invoke`).
    Try,
    /// Block as the options allow, for at most this long (`submit_timeout`,
    /// `spawn_timeout`, `invoke_timeout`); then `SubmitError::Timeout`.
    Within(Duration),
}

/// What the cold lock protects: everything that parks.
struct Cold<F: Flavor> {
    /// Parked workers, by when they parked. Its length is the control word's
    /// `parked` whenever the lock is free (both change only under it).
    idle: F::Queue,
    /// Blocked submitters, oldest first (threads and async tasks alike): a
    /// line per level.
    /// Read through [`Engine::waiters`] or `waiters_to_serve`, which first
    /// move the inbox in (all of it, or where a line is empty).
    lines: lines::Lines<<F as Flavor>::Task, SignalOf<F>>,
    /// Threads waiting for the last worker thread of a released pool to end
    /// (on an open pool, for a release first).
    drains: ListOf<F>,
    /// Futures waiting for the same (`release_async`): finished with
    /// `drains`, always together (`drain.rs`).
    drain_futures: NodeList<(), node::NoSignal>,
    /// `wait_idle` callers waiting for the pool to fall quiet.
    idlers: ListOf<F>,
    /// `pause` callers waiting for the last running task to finish.
    pausers: ListOf<F>,
    /// The parked worker on watch duty (`watch.rs`), if any.
    watcher: Option<WorkerId>,
    /// How many times `reboot` reopened the pool. A releaser waits for the
    /// release made at this count (`drain.rs`): another means the pool
    /// was reopened since.
    reboots: usize,
    /// The count at which the pool was last seen released and drained: that
    /// release ended, whatever came after it.
    drained_at: Option<usize>,
}

// SAFETY: the lists hold pointers to nodes that live on other threads' stacks.
// Those threads hand them over for as long as they are linked (node.rs), and the
// lists are only touched with the lock held, so moving `Cold` between threads
// (inside the lock) is sound whenever the tasks themselves are `Send`.
unsafe impl<F: Flavor> Send for Cold<F> {}

/// Aborts the process if a panic unwinds through a section that has nodes linked
/// on this stack (a dangling node would corrupt the pool). A panic while already
/// unwinding aborts, even without `std`.
pub(crate) struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        panic!("antpool: a panic unwound through the pool's hand-off protocol; aborting");
    }
}

impl AbortOnUnwind {
    pub(crate) fn disarm(self) {
        core::mem::forget(self);
    }
}

/// What every submit touches: the admission word and the limits it is checked
/// against (changed only by `tune`).
struct Gate {
    adm: Adm,
    /// The capacity; `usize::MAX` when unbounded.
    cap: UntrackedUsize,
}

/// Counters kept off the hot line: statistics, and the cold-path mirrors.
struct Counters {
    completed: UntrackedUsize,
    panicked: UntrackedUsize,
    spawned: UntrackedUsize,
    retired: UntrackedUsize,
    /// Submissions handed back to their caller (counted on the cold path).
    rejected: UntrackedUsize,
    /// Tasks a worker reached and dropped unrun: aborted or cancelled.
    skipped: UntrackedUsize,
    /// Async submissions dropped before the pool took their task.
    withdrawn: UntrackedUsize,
    /// Worker threads that have not ended yet, plus reservations: what
    /// `release_timeout` waits for (with the word's `threads`, which a
    /// reservation raises first). Read and lowered under the cold lock.
    live: UntrackedUsize,
    /// Blocked submitters (the waiters list's length), for lock-free reads.
    waiting: UntrackedUsize,
    /// Worker numbers given so far: the next worker's ([`Job::index`]).
    ///
    /// [`Job::index`]: crate::port::Job::index
    workers: UntrackedUsize,
}

/// The engine of one pool.
pub(crate) struct Engine<F: Flavor> {
    gate: Padded<Gate>,
    ctl: Padded<Ctl>,
    lane: Lanes<F::Task, F::Slots>,
    watch: watch::Watch,
    cold: Padded<lock_api::Mutex<LockOf<F>, Cold<F>>>,
    /// Async waiters on their way into the line, pushed without the lock.
    inbox: Padded<inbox::Inbox<F::Task, SignalOf<F>>>,
    counters: Padded<Counters>,
    config: Config,
    /// `parallelism` as the spawner reports it; 0 until the first worker
    /// starts. Read-mostly: kept off the counters' line, which every task
    /// writes.
    parallelism: UntrackedUsize,
    /// How long the one looker of an idle pool looks, in microseconds, as
    /// the policy learnt it from the gaps between looks that ran out and the
    /// tasks that came after them (`Policy::next_look`). Read-mostly: written
    /// when a parked looker is woken and the learnt look changes.
    look_us: UntrackedUsize,
    /// 1 while the pool is paused: the workers' copy of `PAUSED`, checked
    /// before each task they take, on this read-mostly line (`quiet.rs`).
    paused: AtomicUsize,
    clock: F::Clock,
    spawner: F::Spawner,
    exec: F::Exec,
    /// The timing histograms (`timings()`; without the feature `timings`,
    /// nothing).
    recorder: timed::Recorder,
}

impl<F: Flavor> Engine<F> {
    maybe_const_fn! {
        /// An engine over `slots`, which hold `ring_size` slots: for a face
        /// without a heap (which has nowhere to spill), at least the capacity.
        pub(crate) fn new(
            config: Config,
            queue: F::Queue,
            slots: F::Slots,
            ring_size: usize,
            clock: F::Clock,
            spawner: F::Spawner,
            exec: F::Exec,
        ) -> Self {
            let cap = match config.capacity {
                Some(cap) => cap,
                None => usize::MAX,
            };
            Engine {
                gate: Padded::new(Gate {
                    adm: Adm::new(),
                    cap: UntrackedUsize::new(cap),
                }),
                ctl: Padded::new(Ctl::new()),
                lane: Lanes::new(slots, ring_size, config.growth()),
                watch: watch::Watch::new(),
                cold: Padded::new(crate::sync::new_lock(Cold {
                    idle: queue,
                    lines: lines::Lines::new(),
                    drains: NodeList::new(),
                    drain_futures: NodeList::new(),
                    idlers: NodeList::new(),
                    pausers: NodeList::new(),
                    watcher: None,
                    reboots: 0,
                    drained_at: None,
                })),
                inbox: Padded::new(inbox::Inbox::new()),
                counters: Padded::new(Counters {
                    completed: UntrackedUsize::new(0),
                    panicked: UntrackedUsize::new(0),
                    spawned: UntrackedUsize::new(0),
                    retired: UntrackedUsize::new(0),
                    rejected: UntrackedUsize::new(0),
                    skipped: UntrackedUsize::new(0),
                    withdrawn: UntrackedUsize::new(0),
                    live: UntrackedUsize::new(0),
                    waiting: UntrackedUsize::new(0),
                    workers: UntrackedUsize::new(0),
                }),
                config,
                parallelism: UntrackedUsize::new(0),
                look_us: UntrackedUsize::new(F::Policy::FIRST_LOOK.as_micros() as usize),
                paused: AtomicUsize::new(0),
                clock,
                spawner,
                exec,
                recorder: timed::Recorder::new(),
            }
        }
    }

    maybe_const_fn! {
        /// The executor, to finish setting up before the engine serves (a
        /// static pool's function hooks).
        pub(crate) fn exec_mut(&mut self) -> &mut F::Exec {
            &mut self.exec
        }
    }

    /// The most workers the pool may run now.
    #[inline]
    fn limit(&self) -> usize {
        self.config.worker_limit(self.gate.cap.load(Relaxed))
    }

    /// How many threads the platform runs at once, asked once per pool when
    /// it starts its first worker (see `start_with`) and cached.
    fn parallelism(&self) -> usize {
        match self.parallelism.load(Relaxed) {
            0 => {
                let n = self.spawner.parallelism().max(1);
                self.parallelism.store(n, Relaxed);
                n
            }
            n => n,
        }
    }

    pub(crate) fn running(&self) -> usize {
        self.ctl.load().threads()
    }

    pub(crate) fn idle(&self) -> usize {
        self.ctl.load().parked()
    }

    pub(crate) fn waiting(&self) -> usize {
        self.counters.waiting.load(Relaxed) + self.inbox.pending()
    }

    /// Tasks in the lane: waiting for a worker to take them.
    pub(crate) fn queued(&self) -> usize {
        self.lane.len()
    }

    /// Tasks waiting at `level` (all of them, without a lane per level).
    pub(crate) fn queued_at(&self, level: crate::priority::Priority) -> usize {
        self.lane.len_at(level)
    }

    /// Whether submits wait per level (`priorities(true)`).
    pub(crate) fn has_priorities(&self) -> bool {
        self.config.priorities
    }

    /// The number of the next worker to start (see `Job::index`).
    pub(crate) fn next_worker_index(&self) -> usize {
        self.counters.workers.fetch_add(1, Relaxed)
    }

    pub(crate) fn stats(&self) -> crate::stats::Stats {
        let w = self.ctl.load();
        crate::stats::Stats {
            running: w.threads(),
            idle: w.parked(),
            waiting: self.waiting(),
            queued: self.queued(),
            completed: self.counters.completed.load(Relaxed),
            panicked: self.counters.panicked.load(Relaxed),
            spawned: self.counters.spawned.load(Relaxed),
            retired: self.counters.retired.load(Relaxed),
            rejected: self.counters.rejected.load(Relaxed),
            busy: w.busy(),
            skipped: self.counters.skipped.load(Relaxed),
            withdrawn: self.counters.withdrawn.load(Relaxed),
        }
    }

    /// The `pool` label of the facade's metrics (`metrics_label`).
    #[cfg(feature = "metrics")]
    pub(crate) fn label(&self) -> Option<&'static str> {
        self.config.label
    }

    pub(crate) fn cap(&self) -> Option<usize> {
        self.config.capacity.map(|_| self.gate.cap.load(Relaxed))
    }

    pub(crate) fn free(&self) -> Option<usize> {
        self.cap().map(|cap| cap.saturating_sub(self.running()))
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.gate.adm.load() & ctl::adm::CLOSED != 0
    }

    /// `Debug` for a face of this engine named `name`: its counters.
    pub(crate) fn fmt_as(&self, name: &str, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let w = self.ctl.load();
        f.debug_struct(name)
            .field("cap", &self.cap())
            .field("running", &w.threads())
            .field("idle", &w.parked())
            .field("waiting", &self.waiting())
            .field("queued", &self.queued())
            .field("closed", &self.is_closed())
            .finish()
    }
}
