//! The pool engine, generic over the task payload `T`: capacity accounting, the
//! hand-off to idle workers, the FIFO of blocked submitters, expiry, tune,
//! release and reboot. The protocol is written down in `README.md` beside this
//! file; read it before changing anything here.
//!
//! The engine never names `std`. The faces — [`Pool`](crate::Pool),
//! [`PoolWithFunc`](crate::PoolWithFunc), [`StaticPoolWithFunc`](crate::StaticPoolWithFunc)
//! — choose `T`, how a task is executed ([`Execute`]), and how workers refer to
//! the engine ([`EngineRef`]: an `Arc`, or a `&'static`).

use core::marker::PhantomData;
use core::time::Duration;

use crate::sync::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use crate::clock::{Clock, Instant};
use crate::error::{ReleaseError, SubmitError};
use crate::queue::{IdleWorker, WorkerId, WorkerQueue};
use crate::spawner::{Signal, Spawner};

mod backlog;
mod launch;
mod node;
mod worker;

#[cfg(feature = "alloc")]
pub(crate) use backlog::TaskQueue;
pub(crate) use backlog::{Backlog, NoBacklog};

use node::{Chain, List, Node, state};

/// What became of one task: the std faces report a caught panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Completed,
    /// Only the std faces catch panics, so only they report this.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    Panicked,
}

/// How a worker runs one task. The std faces wrap this to catch panics.
pub(crate) trait Execute<T>: Send + Sync + 'static {
    fn execute(&self, task: T) -> Outcome;
}

/// The types one engine is made of: its task, idle queue, task queue, clock,
/// platform and executor. Bundled so the engine's many functions carry one bound.
pub(crate) trait Flavor: 'static {
    type Task: Send + 'static;
    type Queue: WorkerQueue;
    type Backlog: Backlog<Self::Task>;
    type Clock: Clock;
    type Spawner: Spawner;
    type Exec: Execute<Self::Task>;
}

/// The [`Flavor`] made of `T`, `Q`, `B`, `C`, `S` and `X`.
/// (A type-level marker: never made as a value.)
pub(crate) struct Parts<T, Q, B, C, S, X>(PhantomData<(T, Q, B, C, S, X)>);

impl<T, Q, B, C, S, X> Flavor for Parts<T, Q, B, C, S, X>
where
    T: Send + 'static,
    Q: WorkerQueue,
    B: Backlog<T>,
    C: Clock,
    S: Spawner,
    X: Execute<T>,
{
    type Task = T;
    type Queue = Q;
    type Backlog = B;
    type Clock = C;
    type Spawner = S;
    type Exec = X;
}

type SignalOf<F> = <<F as Flavor>::Spawner as Spawner>::Signal;
type NodeOf<F> = Node<<F as Flavor>::Task, SignalOf<F>>;
type ChainOf<F> = Chain<<F as Flavor>::Task, SignalOf<F>>;
type ListOf<F> = List<<F as Flavor>::Task, SignalOf<F>>;
type LockOf<F> = <<F as Flavor>::Spawner as Spawner>::Lock;
/// The lock held on an engine's shared state.
type Guard<'a, F> = lock_api::MutexGuard<'a, LockOf<F>, Shared<F>>;

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

#[cfg(feature = "alloc")]
impl<E: Send + Sync + 'static> EngineRef<E> for alloc::sync::Arc<E> {
    const HANDSHAKE: bool = false;

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
}

/// Whether a submit may block when the pool is saturated.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Block as the options allow (`submit`, `invoke`).
    Block,
    /// Never block (`try_submit`, `try_invoke`).
    Try,
}

/// Why a worker's thread slot (`live`) is given back.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotEnd {
    /// A worker exited after deciding to (or being told to) under the lock,
    /// where it already left `running`.
    Retired,
    /// A worker's thread ended by a panic unwinding out of the executor: it
    /// still counts in `running`.
    Unwound,
    /// A reservation for a worker that could not be started.
    NotStarted,
}

/// What the lock protects.
struct Shared<F: Flavor> {
    idle: F::Queue,
    /// Queue mode's accepted tasks, oldest first. Invariant: while it holds a
    /// task, no worker is idle (workers go idle only when it is empty, and a task
    /// is queued only when no worker is idle).
    backlog: F::Backlog,
    /// Blocked submitters, oldest first. Served directly by workers that finish.
    waiters: ListOf<F>,
    /// Releasers waiting for the last worker to exit.
    drains: ListOf<F>,
    /// Callers of `wait_idle` waiting for the pool to fall quiet.
    idlers: ListOf<F>,
}

// SAFETY: the lists hold pointers to nodes that live on other threads' stacks.
// Those threads hand them over for as long as they are linked (node.rs), and the
// lists are only touched with the lock held, so moving `Shared` between threads
// (inside the lock) is sound whenever the tasks themselves are `Send`.
unsafe impl<F: Flavor> Send for Shared<F> {}

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

/// The engine of one pool.
pub(crate) struct Engine<F: Flavor> {
    shared: lock_api::Mutex<LockOf<F>, Shared<F>>,
    /// Workers that serve, busy or idle, plus reservations for workers being
    /// spawned. A worker leaves it the moment it decides (or is told) to retire,
    /// under the lock, so `running - cap` is always the surplus still to shed.
    /// Written only under the lock; read anywhere.
    running: AtomicUsize,
    /// Worker threads not yet exited, plus reservations: `running` and the
    /// workers that are retiring but still on their way out. `release_timeout`
    /// waits for it to reach 0. Written only under the lock.
    live: AtomicUsize,
    /// Mirrors of what is under the lock, for lock-free accessors.
    idle: AtomicUsize,
    waiting: AtomicUsize,
    queued: AtomicUsize,
    /// The capacity; `usize::MAX` when unbounded. Written only under the lock.
    cap: AtomicUsize,
    closed: AtomicBool,
    /// Statistics, written under the lock (plain load + store: no extra atomic
    /// read-modify-write on the hand-off path), except `spawned`.
    completed: AtomicUsize,
    panicked: AtomicUsize,
    spawned: AtomicUsize,
    retired: AtomicUsize,
    config: Config,
    clock: F::Clock,
    spawner: F::Spawner,
    exec: F::Exec,
}

/// The lock around an engine's shared state.
#[cfg(not(antpool_loom))]
const fn new_mutex<F: Flavor>(shared: Shared<F>) -> lock_api::Mutex<LockOf<F>, Shared<F>> {
    lock_api::Mutex::const_new(<LockOf<F> as lock_api::RawMutex>::INIT, shared)
}

/// The lock around an engine's shared state (loom: made at run time).
#[cfg(antpool_loom)]
fn new_mutex<F: Flavor>(shared: Shared<F>) -> lock_api::Mutex<LockOf<F>, Shared<F>> {
    lock_api::Mutex::from_raw(LockOf::<F>::default(), shared)
}

/// Adds one to a counter that only the lock holder writes.
fn bump(counter: &AtomicUsize) {
    counter.store(counter.load(Relaxed).wrapping_add(1), Relaxed);
}

impl<F: Flavor> Engine<F> {
    maybe_const_fn! {
        pub(crate) fn new(
            config: Config,
            queue: F::Queue,
            backlog: F::Backlog,
            clock: F::Clock,
            spawner: F::Spawner,
            exec: F::Exec,
        ) -> Self {
            let cap = match config.capacity {
                Some(cap) => cap,
                None => usize::MAX,
            };
            Engine {
                shared: new_mutex(Shared {
                    idle: queue,
                    backlog,
                    waiters: List::new(),
                    drains: List::new(),
                    idlers: List::new(),
                }),
                running: AtomicUsize::new(0),
                live: AtomicUsize::new(0),
                idle: AtomicUsize::new(0),
                waiting: AtomicUsize::new(0),
                queued: AtomicUsize::new(0),
                cap: AtomicUsize::new(cap),
                closed: AtomicBool::new(false),
                completed: AtomicUsize::new(0),
                panicked: AtomicUsize::new(0),
                spawned: AtomicUsize::new(0),
                retired: AtomicUsize::new(0),
                config,
                clock,
                spawner,
                exec,
            }
        }
    }

    /// Hands `task` to a worker: an idle one, a new one, the task queue (queue
    /// mode), or — saturated and allowed to block — the first worker to finish.
    pub(crate) fn submit<H: EngineRef<Self>>(
        handle: &H,
        mut task: F::Task,
        mode: Mode,
    ) -> Result<(), SubmitError<F::Task>> {
        let this = handle.engine();
        loop {
            let mut shared = this.shared.lock();
            if this.closed.load(Relaxed) {
                return Err(SubmitError::Closed(task));
            }
            if let Some(worker) = shared.idle.detach() {
                this.idle.store(shared.idle.len(), Relaxed);
                // SAFETY: an id in the idle queue names the live mailbox of a worker
                // parked on it, and detaching it under the lock gave us the right to
                // fill it (see `deliver`).
                unsafe { this.deliver(shared, worker, task) };
                return Ok(());
            }
            if this.running.load(Relaxed) < this.cap.load(Relaxed) {
                this.reserve();
                if let Some(head) = shared.backlog.pop_front() {
                    // Room for one more worker, and older tasks are queued: the new
                    // worker starts with the oldest, and this task goes round again.
                    if !this.start_queued(handle, shared, head) {
                        return Err(SubmitError::SpawnFailed(task));
                    }
                    continue;
                }
                drop(shared);
                return this.start_or_hand_back(handle, task);
            }
            task = match shared.backlog.push_back(task) {
                Ok(()) => {
                    this.queued.store(shared.backlog.len(), Relaxed);
                    return Ok(());
                }
                Err(task) => task,
            };
            let may_block = mode == Mode::Block
                && !this.config.nonblocking
                && (this.config.max_blocking == 0
                    || shared.waiters.len() < this.config.max_blocking);
            if !may_block {
                return Err(SubmitError::Overload(task));
            }
            return this.block(handle, shared, task);
        }
    }

    /// Puts `task` in a worker's mailbox and wakes it.
    ///
    /// # Safety
    ///
    /// `worker` was just detached from the idle queue under `shared`'s lock.
    unsafe fn deliver(&self, shared: Guard<'_, F>, worker: IdleWorker, task: F::Task) {
        let node = worker.id.as_ptr::<NodeOf<F>>();
        // SAFETY: per the contract the id names the live mailbox of a worker parked
        // on it, which cannot leave before our notify; TAKEN tells it (under the
        // lock) that it was detached.
        unsafe { node.as_ref().set_state(state::TAKEN) };
        drop(shared);
        // SAFETY: as above; the mailbox is empty (the worker emptied it before going
        // idle), and `finish` is our last touch.
        unsafe {
            node.as_ref().put_task(task);
            Node::finish(node, state::FULL);
        }
    }

    /// Joins the waiters with `task` and blocks until a worker takes it, the pool
    /// closes, or a worker slot is granted.
    fn block<H: EngineRef<Self>>(
        &self,
        handle: &H,
        mut shared: Guard<'_, F>,
        task: F::Task,
    ) -> Result<(), SubmitError<F::Task>> {
        let node = Node::with_task(self.spawner.signal(), task, state::WAITING);
        let bomb = AbortOnUnwind;
        // SAFETY: `node` stays on this stack, unmoved, until it is finished and we
        // have consumed the finisher's token below.
        unsafe { shared.waiters.push_back((&node).into()) };
        self.waiting.store(shared.waiters.len(), Relaxed);
        drop(shared);
        node.signal().wait();
        bomb.disarm();
        match node.state() {
            // A worker took the task, or moved it into the task queue.
            state::SERVED => Ok(()),
            // SAFETY: whoever finished the node with CLOSED or GRANTED left the task
            // in it, and it is ours again.
            state::CLOSED => Err(SubmitError::Closed(unsafe { node.take_task() })),
            // A worker slot was reserved for us (running was incremented).
            // SAFETY: as for CLOSED.
            state::GRANTED => self.start_or_hand_back(handle, unsafe { node.take_task() }),
            other => unreachable!("antpool: waiter woken in state {other}"),
        }
    }

    /// Starts a worker for `task`; `running` already counts it. On failure the
    /// caller gives the reservation back.
    fn start<H: EngineRef<Self>>(&self, handle: &H, task: F::Task) -> Result<(), F::Task> {
        launch::spawn(handle, &self.spawner, task)?;
        self.spawned.fetch_add(1, Relaxed);
        Ok(())
    }

    /// Starts a worker for `task` (`running` already counts it); if none can be
    /// started, gives the reservation back and the task to the caller.
    fn start_or_hand_back<H: EngineRef<Self>>(
        &self,
        handle: &H,
        task: F::Task,
    ) -> Result<(), SubmitError<F::Task>> {
        self.start(handle, task).map_err(|task| {
            self.release_slot(SlotEnd::NotStarted);
            SubmitError::SpawnFailed(task)
        })
    }

    /// Starts a worker for `head`, the oldest queued task, just popped under
    /// `shared` with `running` already counting the worker; the oldest waiter's
    /// task moves into the room. `false` if no worker could be started: the task
    /// is queued again (or handed to a worker that went idle meanwhile).
    fn start_queued<H: EngineRef<Self>>(
        &self,
        handle: &H,
        mut shared: Guard<'_, F>,
        head: F::Task,
    ) -> bool {
        let moved = self.refill_backlog(&mut shared);
        drop(shared);
        moved.finish_all(state::SERVED);
        match self.start(handle, head) {
            Ok(()) => true,
            Err(head) => {
                self.requeue(head);
                self.release_slot(SlotEnd::NotStarted);
                false
            }
        }
    }

    /// Puts back a queued task that no worker could be started for: to an idle
    /// worker if one appeared meanwhile, else at the front of the queue.
    fn requeue(&self, task: F::Task) {
        let mut shared = self.shared.lock();
        if let Some(worker) = shared.idle.detach() {
            self.idle.store(shared.idle.len(), Relaxed);
            // SAFETY: detached under the lock just now.
            unsafe { self.deliver(shared, worker, task) };
            return;
        }
        shared.backlog.push_front(task);
        self.queued.store(shared.backlog.len(), Relaxed);
    }

    /// After a task left the queue: moves the oldest blocked submitter's task into
    /// the room it made. Returns the waiter to finish with SERVED (after the lock).
    fn refill_backlog(&self, shared: &mut Shared<F>) -> ChainOf<F> {
        let mut moved = Chain::new();
        if !shared.backlog.is_full() {
            if let Some(waiter) = shared.waiters.pop_front() {
                // SAFETY: we unlinked the waiter under the lock, so its task is ours
                // to take and the node ours to finish.
                unsafe {
                    let task = waiter.as_ref().take_task();
                    if shared.backlog.push_back(task).is_err() {
                        unreachable!("antpool: the queue had room");
                    }
                    moved.push(waiter);
                }
                self.waiting.store(shared.waiters.len(), Relaxed);
            }
        }
        self.queued.store(shared.backlog.len(), Relaxed);
        moved
    }

    /// What a worker that finished a task does next: a queued task, the oldest
    /// waiter's task, or park idle until a task or retirement comes. `None`:
    /// retire.
    fn next_task(&self, node: &NodeOf<F>, outcome: Outcome) -> Option<F::Task> {
        let now = self.clock.now();
        let mut shared = self.shared.lock();
        bump(match outcome {
            Outcome::Completed => &self.completed,
            Outcome::Panicked => &self.panicked,
        });
        if self.running.load(Relaxed) > self.cap.load(Relaxed) {
            self.leave(&mut shared); // tune shrank the pool: this worker is surplus
            return None;
        }
        if let Some(task) = shared.backlog.pop_front() {
            // Queued tasks are drained first, even after a release.
            let moved = self.refill_backlog(&mut shared);
            drop(shared);
            moved.finish_all(state::SERVED);
            return Some(task);
        }
        if self.closed.load(Relaxed) {
            self.leave(&mut shared);
            return None;
        }
        if let Some(waiter) = shared.waiters.pop_front() {
            self.waiting.store(shared.waiters.len(), Relaxed);
            // SAFETY: we unlinked the waiter under the lock, so its task is ours to
            // take; it waits for our `finish`, our last touch.
            let task = unsafe { waiter.as_ref().take_task() };
            drop(shared);
            // SAFETY: as above.
            unsafe { Node::finish(waiter, state::SERVED) };
            return Some(task);
        }
        node.set_state(state::IDLE);
        let me = IdleWorker {
            id: WorkerId::from_ptr(node.into()),
            since: now,
        };
        if shared.idle.insert(me).is_err() {
            // A fixed-size queue is full: this worker is surplus.
            node.set_state(state::BUSY);
            self.leave(&mut shared);
            return None;
        }
        self.idle.store(shared.idle.len(), Relaxed);
        let quiet = self.take_idlers_if_quiet(&mut shared);
        drop(shared);
        quiet.finish_all(state::DONE);
        self.park_idle(node, now)
    }

    /// Whether no task is running, queued or waiting to be handed over.
    fn is_quiet(&self, shared: &Shared<F>) -> bool {
        self.running.load(Relaxed) == shared.idle.len()
            && shared.backlog.is_empty()
            && shared.waiters.len() == 0
    }

    /// The `wait_idle` callers to wake, if the pool just fell quiet.
    fn take_idlers_if_quiet(&self, shared: &mut Shared<F>) -> ChainOf<F> {
        if shared.idlers.len() > 0 && self.is_quiet(shared) {
            shared.idlers.take_all()
        } else {
            Chain::new()
        }
    }

    /// Parks an idle worker until a task or retirement arrives, reaping expired
    /// workers (itself included) when its expiry passes.
    fn park_idle(&self, node: &NodeOf<F>, mut since: Instant) -> Option<F::Task> {
        let bomb = AbortOnUnwind;
        let me = WorkerId::from_ptr(node.into());
        loop {
            let deadline = match self.config.purge {
                true => since.checked_add(self.config.expiry),
                false => None,
            };
            let Some(deadline) = deadline else {
                node.signal().wait();
                break;
            };
            let remaining = deadline.saturating_duration_since(self.clock.now());
            if !remaining.is_zero() {
                if node.signal().wait_timeout(remaining) {
                    break;
                }
                continue; // recheck against the clock: it decides, not the timer
            }
            // Expired by the clock: reap, if we are still in the queue.
            let now = self.clock.now();
            let Some(cutoff) = now.checked_sub(self.config.expiry) else {
                continue; // the clock stepped back below one expiry: not expired
            };
            let mut shared = self.shared.lock();
            if node.state() != state::IDLE {
                // Someone detached us; their notify is coming.
                drop(shared);
                node.signal().wait();
                break;
            }
            let mut retired: ChainOf<F> = Chain::new();
            let mut me_too = false;
            shared.idle.refresh(cutoff, |w| {
                if w.id == me {
                    me_too = true;
                } else {
                    // SAFETY: see `retire_into`.
                    unsafe { retire_into(&mut retired, w) };
                }
            });
            self.idle.store(shared.idle.len(), Relaxed);
            self.running.store(
                self.running.load(Relaxed) - retired.len() - usize::from(me_too),
                Relaxed,
            );
            drop(shared);
            retired.finish_all(state::RETIRE);
            if me_too {
                node.set_state(state::BUSY);
                bomb.disarm();
                return None;
            }
            // Our stamp was clamped up (the clock stepped back): wait a full expiry.
            since = now;
        }
        bomb.disarm();
        match node.state() {
            state::FULL => {
                node.set_state(state::BUSY);
                // SAFETY: FULL means the submitter that detached us put a task in our
                // mailbox before the notify whose token we consumed.
                Some(unsafe { node.take_task() })
            }
            state::RETIRE => None,
            other => unreachable!("antpool: worker woken in state {other}"),
        }
    }

    /// Gives back one unit of `running` (a worker exited, or a reserved spawn
    /// failed), granting the freed slot to the oldest waiter, and waking
    /// releasers when the last worker is gone and `wait_idle` callers when the
    /// pool fell quiet.
    fn release_slot(&self, end: SlotEnd) {
        let mut shared = self.shared.lock();
        self.live.fetch_sub(1, Relaxed);
        match end {
            SlotEnd::Retired => bump(&self.retired),
            SlotEnd::Unwound => {
                bump(&self.retired);
                self.running.fetch_sub(1, Relaxed);
            }
            SlotEnd::NotStarted => {
                self.running.fetch_sub(1, Relaxed);
            }
        }
        let granted = self.grant_waiters(&mut shared);
        let drained = match self.live.load(Relaxed) {
            0 => shared.drains.take_all(),
            _ => Chain::new(),
        };
        let quiet = self.take_idlers_if_quiet(&mut shared);
        drop(shared);
        granted.finish_all(state::GRANTED);
        drained.finish_all(state::DONE);
        quiet.finish_all(state::DONE);
    }

    /// Reserves a worker slot for each waiter the capacity now allows. (Waiters
    /// exist only while the task queue is full, so the queue needs no slot.)
    fn grant_waiters(&self, shared: &mut Shared<F>) -> ChainOf<F> {
        let mut granted = Chain::new();
        let cap = self.cap.load(Relaxed);
        while !self.closed.load(Relaxed) && self.running.load(Relaxed) < cap {
            let Some(waiter) = shared.waiters.pop_front() else {
                break;
            };
            self.reserve();
            // SAFETY: we unlinked the waiter under the lock, so we hold the right
            // to finish it.
            unsafe { granted.push(waiter) };
        }
        self.waiting.store(shared.waiters.len(), Relaxed);
        granted
    }

    /// Reserves a worker slot, under the lock: `running` and `live` count the
    /// worker about to be started.
    fn reserve(&self) {
        bump(&self.running);
        bump(&self.live);
    }

    /// The calling worker decided, under the lock, to retire: it stops counting
    /// in `running` now (its thread leaves `live` when it exits).
    fn leave(&self, _shared: &mut Shared<F>) {
        self.running.fetch_sub(1, Relaxed);
    }

    pub(crate) fn running(&self) -> usize {
        self.running.load(Relaxed)
    }

    /// The pool clock's time.
    #[cfg(feature = "alloc")]
    pub(crate) fn now(&self) -> Instant {
        self.clock.now()
    }

    pub(crate) fn idle(&self) -> usize {
        self.idle.load(Relaxed)
    }

    pub(crate) fn waiting(&self) -> usize {
        self.waiting.load(Relaxed)
    }

    pub(crate) fn queued(&self) -> usize {
        self.queued.load(Relaxed)
    }

    pub(crate) fn stats(&self) -> crate::Stats {
        crate::Stats {
            running: self.running(),
            idle: self.idle(),
            waiting: self.waiting(),
            queued: self.queued(),
            completed: self.completed.load(Relaxed),
            panicked: self.panicked.load(Relaxed),
            spawned: self.spawned.load(Relaxed),
            retired: self.retired.load(Relaxed),
        }
    }

    pub(crate) fn cap(&self) -> Option<usize> {
        match self.cap.load(Relaxed) {
            usize::MAX => None,
            cap => Some(cap),
        }
    }

    pub(crate) fn free(&self) -> Option<usize> {
        self.cap().map(|cap| cap.saturating_sub(self.running()))
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Relaxed)
    }

    /// `Debug` for a face of this engine named `name`: its counters.
    pub(crate) fn fmt_as(&self, name: &str, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(name)
            .field("cap", &self.cap())
            .field("running", &self.running())
            .field("idle", &self.idle())
            .field("waiting", &self.waiting())
            .field("queued", &self.queued())
            .field("closed", &self.is_closed())
            .finish()
    }

    /// Changes the capacity. Ignored for 0, unbounded and prealloc pools.
    /// Growing starts workers for queued tasks and grants slots to waiters at
    /// once; shrinking retires surplus idle workers at once (busy ones retire
    /// when they finish their task).
    pub(crate) fn tune<H: EngineRef<Self>>(handle: &H, capacity: usize) {
        let this = handle.engine();
        if capacity == 0 || this.config.capacity.is_none() || this.config.prealloc {
            return;
        }
        let mut shared = this.shared.lock();
        let old = this.cap.swap(capacity, Relaxed);
        if capacity < old {
            let mut retired: ChainOf<F> = Chain::new();
            let surplus = this.running.load(Relaxed).saturating_sub(capacity);
            for _ in 0..surplus {
                let Some(w) = shared.idle.detach() else {
                    break;
                };
                // SAFETY: see `retire_into`.
                unsafe { retire_into(&mut retired, w) };
            }
            this.idle.store(shared.idle.len(), Relaxed);
            this.running.fetch_sub(retired.len(), Relaxed);
            drop(shared);
            retired.finish_all(state::RETIRE);
            return;
        }
        // Growing: queued tasks are the oldest, so they get new workers first.
        loop {
            if this.closed.load(Relaxed) || this.running.load(Relaxed) >= this.cap.load(Relaxed) {
                break;
            }
            let Some(head) = shared.backlog.pop_front() else {
                break;
            };
            this.reserve();
            if !this.start_queued(handle, shared, head) {
                return;
            }
            shared = this.shared.lock();
        }
        let granted = this.grant_waiters(&mut shared);
        drop(shared);
        granted.finish_all(state::GRANTED);
    }

    /// Retires every worker that has been idle for the expiry or longer, now.
    /// Returns how many.
    pub(crate) fn purge(&self) -> usize {
        // Before the clock has run for one expiry, nobody can have expired.
        let Some(cutoff) = self.clock.now().checked_sub(self.config.expiry) else {
            return 0;
        };
        let mut shared = self.shared.lock();
        let mut retired: ChainOf<F> = Chain::new();
        // SAFETY: see `retire_into`.
        let n = shared
            .idle
            .refresh(cutoff, |w| unsafe { retire_into(&mut retired, w) });
        self.idle.store(shared.idle.len(), Relaxed);
        self.running.fetch_sub(n, Relaxed);
        drop(shared);
        retired.finish_all(state::RETIRE);
        n
    }

    /// Closes the pool: idle workers retire, blocked submitters get their task
    /// back, busy workers drain the task queue and retire. With `drain`, the
    /// queued tasks are taken out and returned instead of run. `None` if the pool
    /// was already closed.
    fn close(&self, drain: bool) -> Option<F::Backlog> {
        let mut shared = self.shared.lock();
        if self.closed.swap(true, Relaxed) {
            return None;
        }
        let mut retired: ChainOf<F> = Chain::new();
        // SAFETY: see `retire_into`.
        shared
            .idle
            .reset(|w| unsafe { retire_into(&mut retired, w) });
        self.idle.store(0, Relaxed);
        self.running.fetch_sub(retired.len(), Relaxed);
        let turned_away = shared.waiters.take_all();
        self.waiting.store(0, Relaxed);
        let mut drained = shared.backlog.take();
        if !drain {
            core::mem::swap(&mut drained, &mut shared.backlog);
        }
        self.queued.store(shared.backlog.len(), Relaxed);
        let quiet = self.take_idlers_if_quiet(&mut shared);
        drop(shared);
        retired.finish_all(state::RETIRE);
        turned_away.finish_all(state::CLOSED);
        quiet.finish_all(state::DONE);
        Some(drained)
    }

    /// Closes the pool (see [`close`](Self::close)); `false` if already closed.
    pub(crate) fn release(&self) -> bool {
        self.close(false).is_some()
    }

    /// Closes the pool (if it is open) and takes the queued tasks out, to be
    /// returned instead of run — also after a plain `release`, for the tasks not
    /// started yet.
    #[cfg(feature = "alloc")]
    pub(crate) fn release_drain(&self) -> F::Backlog {
        if let Some(drained) = self.close(true) {
            return drained;
        }
        let mut shared = self.shared.lock();
        let drained = shared.backlog.take();
        self.queued.store(0, Relaxed);
        let quiet = self.take_idlers_if_quiet(&mut shared);
        drop(shared);
        quiet.finish_all(state::DONE);
        drained
    }

    /// Releases the pool and waits up to `timeout` for every worker to exit.
    pub(crate) fn release_timeout(&self, timeout: Duration) -> Result<(), ReleaseError> {
        if !self.release() {
            return Err(ReleaseError::Closed);
        }
        self.wait_drained(timeout)
    }

    /// Waits up to `timeout` for every worker to exit.
    pub(crate) fn wait_drained(&self, timeout: Duration) -> Result<(), ReleaseError> {
        match self.park_until(
            |s| &mut s.drains,
            |e, _| e.live.load(Relaxed) == 0,
            Some(timeout),
        ) {
            true => Ok(()),
            false => Err(ReleaseError::Timeout),
        }
    }

    /// Waits until no task is running, queued or waiting (`None`: no time limit).
    /// `false` if the time ran out first.
    pub(crate) fn wait_idle(&self, timeout: Option<Duration>) -> bool {
        self.park_until(|s| &mut s.idlers, |e, s| e.is_quiet(s), timeout)
    }

    /// Parks on a node in the list `pick` selects until the condition `done` (checked
    /// under the lock, first) holds and whoever makes it hold finishes the node.
    fn park_until(
        &self,
        pick: fn(&mut Shared<F>) -> &mut ListOf<F>,
        done: fn(&Self, &Shared<F>) -> bool,
        timeout: Option<Duration>,
    ) -> bool {
        let node: NodeOf<F> = Node::new(self.spawner.signal(), state::WAITING);
        let mut shared = self.shared.lock();
        if done(self, &shared) {
            return true;
        }
        let bomb = AbortOnUnwind;
        // SAFETY: `node` stays on this stack, unmoved, until it is unlinked by us
        // below or finished by someone else and we consumed the token.
        unsafe { pick(&mut shared).push_back((&node).into()) };
        drop(shared);
        let finished = match timeout {
            None => {
                node.signal().wait();
                true
            }
            Some(timeout) => {
                node.signal().wait_timeout(timeout) || {
                    let mut shared = self.shared.lock();
                    if pick(&mut shared).remove((&node).into()) {
                        false
                    } else {
                        // Finished just now; its notify is coming.
                        drop(shared);
                        node.signal().wait();
                        true
                    }
                }
            }
        };
        bomb.disarm();
        finished
    }

    /// Reopens a released pool. Workers still finishing their last task before the
    /// release go on serving.
    pub(crate) fn reboot(&self) {
        let _shared = self.shared.lock();
        self.closed.store(false, Relaxed);
    }
}

/// Marks an idle worker taken out of the queue under the lock as retiring, and
/// adds it to `chain` to be woken once the lock is dropped.
///
/// # Safety
///
/// Called with the lock held, on a worker just removed from the idle queue: its
/// id names the live mailbox of a worker parked on it, and removing it gave the
/// caller the right to finish it.
unsafe fn retire_into<T, Sig: Signal>(chain: &mut Chain<T, Sig>, worker: IdleWorker) {
    let node = worker.id.as_ptr::<Node<T, Sig>>();
    // SAFETY: per the function's contract.
    unsafe {
        node.as_ref().set_state(state::RETIRE);
        chain.push(node);
    }
}
