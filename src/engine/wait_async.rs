//! Futures that wait without holding a thread: [`Admit`] (an async submit:
//! waits for room) and [`Quiet`] (`wait_idle_async`: waits for the pool to
//! fall quiet). Built on `core::task` alone: no runtime, no `std`.
//!
//! Each future carries its own [`Node`] (it is `!Unpin`: the node stays put
//! while it is linked) and links it into the same list a blocked thread would
//! — the waiters' FIFO, or the `wait_idle` callers — so async and blocking
//! waiters are served in arrival order and `max_blocking_tasks` counts both.
//! The protocol ("Async waiters" in `engine/README.md`):
//!
//! * An async submitter joins the line without the lock where the pool sets
//!   no `max_blocking_tasks` (`inbox.rs`): it pushes its node, raises the
//!   waiters' flag, then looks at the room; the next lock holder that looks at
//!   the line moves the node in. Until then nobody else touches it.
//! * The owner writes its `Waker` into the node only under the lock, and only
//!   while the node is linked (state `WAITING`) — or before its push.
//! * Whoever unlinks the node (always under the lock) marks it `TAKEN`; after
//!   the lock it takes the waker out, sets the final state, and wakes the
//!   waker from its own stack (a grant sets a spawn's node `SERVED` before it
//!   lets the lock go: that wakes nobody, and the task may already run). The
//!   owner leaves the node alone while it is `TAKEN` (a moment: its finisher
//!   is between the lock and the finish), and may free it once the state is
//!   final.
//! * An async submitter waits as a blocked thread does, its task in its node:
//!   whoever lets it in takes the task from there (a hand-off worker runs it
//!   next, a grant pushes it into the lane) and finishes the node `SERVED` —
//!   waking the future for a submit, not for a spawn, which its result wakes.
//!   A grant of a new worker (`GRANTED`) leaves the task for the future to
//!   start that worker with.
//! * Dropped while linked, the future unlinks itself and its task drops
//!   unrun; dropped after someone unlinked it, the task is the pool's if it
//!   was served (it runs), and dropped, with a granted worker given back,
//!   otherwise. Nothing of the future is left behind either way.

use core::future::Future;
use core::marker::PhantomPinned;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

use super::ctl::adm;
use super::node::{Node, state};
use super::policy::Policy;
use super::submit::Attempt;
use super::timed::Stamp;
use super::{Engine, EngineRef, Flavor, Guard, NodeOf};
use crate::clock::{Clock, Instant};
use crate::error::SubmitError;
use crate::priority::Priority;
use crate::spawner::Signal;
use crate::sync::Ordering::Relaxed;
use crate::sync::{Backoff, spin_hint};
use crate::trace::trace_event;

/// The most saturated polls that yield before joining the line, when the
/// clock does not move (a manual clock, a coarse tick).
const MAX_YIELDS: u32 = 64;

/// Waits for the final state of a node an async owner linked into a list:
/// `Ready(state)` once it is finished; else stores the task's waker
/// (`store_waker`: under the lock, while the node is still linked — see
/// [`Engine::store_waker`]) and returns `Pending`.
pub(super) fn poll_node<T, Sig: Signal>(
    node: &Node<T, Sig>,
    mut store_waker: impl FnMut() -> bool,
) -> Poll<u8> {
    loop {
        match node.state() {
            state::WAITING => {
                if store_waker() {
                    return Poll::Pending;
                }
            }
            state::TAKEN => spin_hint(),
            finished => return Poll::Ready(finished),
        }
    }
}

/// The final state of a node someone else unlinked: its finisher is between
/// the lock and the finish, a moment.
pub(super) fn finished_state<T, Sig: Signal>(node: &Node<T, Sig>) -> u8 {
    loop {
        match node.state() {
            state::TAKEN => spin_hint(),
            finished => return finished,
        }
    }
}

/// An async submit: the engine's half of `submit_async`, `spawn_async` and
/// `invoke_async`. Resolves to what a blocking submit would return.
///
/// It holds the pool's engine `H` (an `Arc`, or a `&'static`), as a worker
/// does — not a handle that keeps the pool open — so it is `'static` and can
/// be spawned on an executor; polled after the pool was released (or its last
/// handle dropped) it resolves `Closed`.
pub(crate) struct Admit<F: Flavor, H: EngineRef<Engine<F>>> {
    handle: H,
    wait: Waiting<F>,
    _pinned: PhantomPinned,
}

/// An async submitter's own state: its task and its node.
///
/// `!Unpin` itself (not only the future around it): a `&mut Waiting` is made
/// while other threads may touch the node (a finisher taking the waker or the
/// task, the list holder writing its link), and only for `!Unpin` types does a
/// `&mut` claim no exclusive access (Miri's data-race check found the retag of
/// an `Unpin` `Waiting` racing a worker's write to the node).
struct Waiting<F: Flavor> {
    /// The task, until it is placed, handed back, or moved into the node to
    /// wait in the line (where whoever serves it takes it).
    task: Option<F::Task>,
    node: NodeOf<F>,
    /// Whether `node` may be in the waiters' list (linked, or unlinked by a
    /// finisher whose finish we have not seen yet).
    linked: bool,
    /// Saturated polls that yielded to the executor before joining the line
    /// (see [`yield_first`](Self::yield_first)), and until when they may.
    /// A spawn never yields: its place in the line costs it no wake-up.
    yields: u32,
    yield_until: Option<Instant>,
    /// The level it waits at (the engine's: `Normal` without levels).
    level: Priority,
    /// When the pool was first found saturated (feature `timings`).
    since: Stamp,
    _pinned: PhantomPinned,
}

// SAFETY: the node's links, waker and task are touched only under the
// engine's lock, by the one thread holding the right to finish it (the node
// protocol), or by the owner before it pushes the node onto the inbox (when
// nobody else can reach it); the task is `Send` (`Flavor::Task`), and so is
// the handle (`EngineRef: Send`).
unsafe impl<F: Flavor, H: EngineRef<Engine<F>>> Send for Admit<F, H> {}

impl<F: Flavor, H: EngineRef<Engine<F>>> Admit<F, H> {
    /// The submit of `task` to the engine behind `handle`, at `priority`.
    /// `wake_served`: whether the future is woken when a worker takes its task
    /// from the line (`false` for a spawn, which is woken by its result
    /// instead).
    pub(crate) fn new(handle: H, task: F::Task, wake_served: bool, priority: Priority) -> Self {
        let level = handle.engine().level(priority);
        Admit {
            handle,
            wait: Waiting {
                task: Some(task),
                node: Node::for_waker(state::WAITING, wake_served),
                linked: false,
                yields: if wake_served { 0 } else { MAX_YIELDS },
                yield_until: None,
                level,
                since: Stamp::NONE,
                _pinned: PhantomPinned,
            },
            _pinned: PhantomPinned,
        }
    }
}

impl<F: Flavor> Waiting<F> {
    /// One poll, before a rejection is counted.
    fn poll<H: EngineRef<Engine<F>>>(
        &mut self,
        handle: &H,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), SubmitError<F::Task>>> {
        let this = handle.engine();
        let mut backoff = Backoff::new();
        loop {
            if self.linked {
                // SAFETY: our node, linked in this engine's waiters.
                let store = || unsafe { this.store_waker(&self.node, cx.waker()) };
                let finished = match poll_node(&self.node, store) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(finished) => finished,
                };
                self.linked = false;
                return Poll::Ready(match finished {
                    // A worker took the task from the node: it is the pool's.
                    state::SERVED => Ok(()),
                    // SAFETY: a CLOSED or GRANTED finish leaves the task in
                    // the node, ours again (the finisher no longer touches it).
                    state::CLOSED => Err(SubmitError::Closed(unsafe { self.node.take_task() })),
                    // A new worker is reserved for our task (`T+1, K+1`).
                    // SAFETY: as for CLOSED.
                    state::GRANTED => unsafe {
                        this.start_granted(handle, &self.node, self.level, self.since)
                    },
                    other => unreachable!("antpool: async waiter finished in state {other}"),
                });
            }
            if self.yields > 0 && this.looks_saturated(self.level) && self.yield_first(this) {
                // Still full, by a look that writes nothing (as a blocked
                // thread's spin looks): no attempt to make.
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            let task = match this.attempt(handle, self.take_task(), self.level) {
                Attempt::Done(result) => {
                    if result.is_ok() {
                        this.admitted_after_wait(self.since);
                    }
                    return Poll::Ready(result);
                }
                Attempt::Saturated(task) => task,
            };
            if this.config.nonblocking {
                return Poll::Ready(Err(SubmitError::Overload(task)));
            }
            if self.since == Stamp::NONE {
                self.since = this.stamp_now();
            }
            if self.yield_first(this) {
                self.task = Some(task);
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if this.config.max_blocking == 0 {
                // No bound on the line's length to check: join it without
                // the lock, through the inbox.
                self.push_into_line(this, task, cx);
                let a = this.gate.adm.set(adm::waiters(self.level));
                if a & adm::CLOSED != 0 {
                    match self.unlink_closed(handle) {
                        Some(task) => return Poll::Ready(Err(SubmitError::Closed(task))),
                        // Someone took the node out: its finish is coming.
                        None => continue,
                    }
                }
                if this.waiters_may_enter(a, self.level) {
                    // Room freed before our flag was up, perhaps unseen by
                    // the worker that freed it: let in whom it allows.
                    this.let_waiters_in(handle);
                }
                if self.node.state() == state::WAITING {
                    // In the line (or the inbox) with this poll's waker.
                    return Poll::Pending;
                }
                continue;
            }
            let mut cold = this.cold.lock();
            let a = this.gate.adm.load();
            if a & adm::CLOSED != 0 {
                return Poll::Ready(Err(SubmitError::Closed(task)));
            }
            if !this.waiters_block(a, self.level) && !this.saturated_now(a, self.level) {
                // Room appeared: go round (after a backoff: the push may have
                // met a slot a worker has claimed and not read yet).
                drop(cold);
                backoff.snooze();
                self.task = Some(task);
                continue;
            }
            let max = this.config.max_blocking;
            if max != 0 && this.waiters(&mut cold).len() >= max {
                return Poll::Ready(Err(SubmitError::Overload(task)));
            }
            self.link(this, &mut cold, task, cx);
            // Room may have appeared before the flag was up, unseen: let in
            // whom it allows (perhaps us, seen on the next round).
            let grants = this.grant_waiters(&mut cold);
            drop(cold);
            this.finish_grants(handle, grants);
            if self.node.state() == state::WAITING {
                // Still linked: the waker stored above is this poll's.
                return Poll::Pending;
            }
        }
    }

    /// Whether a saturated poll should return `Pending` with the task woken
    /// at once (the executor polls it again after its other tasks) instead of
    /// joining the line: for up to the policy's [`room_for`](Policy::room_for)
    /// from the first saturation, as a blocked thread spins on the admission
    /// word before it parks (`None`, as on one CPU: never). A tiny task frees
    /// its room within that time; joining the line would cost a wake-up
    /// through the executor when a worker serves it (a park and an unpark, for
    /// `block_on`), which made a loop of such submits far slower than blocking
    /// ones (`BENCHMARKS.md`, "What the engine's constants rest on"). Never for
    /// a spawn (whose serve wakes nothing: in the line its task is taken the
    /// moment room frees, where a yielding future would leave the freed room to
    /// a worker that parks, and wake one again when it comes back). The loom
    /// models' async submitters run on one CPU, so they check the line.
    fn yield_first(&mut self, engine: &Engine<F>) -> bool {
        let Some(room_for) = F::Policy::room_for(engine.parallelism()) else {
            return false;
        };
        if self.yields >= MAX_YIELDS {
            return false;
        }
        self.yields += 1;
        let now = engine.clock.now();
        let until = *self
            .yield_until
            .get_or_insert_with(|| now.checked_add(room_for).unwrap_or(now));
        now < until
    }

    /// Joins the waiters' line at its back with `task` in the node (where
    /// whoever serves it takes it) and this poll's waker, and raises
    /// `WAITERS`.
    fn link(
        &mut self,
        engine: &Engine<F>,
        cold: &mut Guard<'_, F>,
        task: F::Task,
        cx: &Context<'_>,
    ) {
        self.fill_node(task, cx);
        // SAFETY: our node, filled and in no list; it stays put (the future
        // is pinned) until it is unlinked and finished, or we unlink it
        // (`cancel`). The lock is held.
        unsafe { engine.join_waiters(cold, (&self.node).into(), self.level, false) };
        self.linked = true;
    }

    /// Writes what a waiter carries into our node before it joins a line:
    /// `WAITING`, the task (whoever serves it takes it from there), the wait's
    /// start (feature `timings`) and this poll's waker.
    fn fill_node(&mut self, task: F::Task, cx: &Context<'_>) {
        self.node.set_state(state::WAITING);
        // SAFETY: our node, in no list or inbox (never joined, or finished
        // and left alone since), its cell empty (a task left it by
        // `take_task` or was never put in): nobody else reaches it, so the
        // waker needs no lock here.
        unsafe {
            self.node.put_back(task);
            self.node.set_stamp(self.since);
            self.node.set_waker(cx.waker());
        }
    }

    /// Joins the waiters' line through the inbox, without the lock: `task`
    /// in the node and this poll's waker, pushed at the back of `level`'s
    /// stack. The caller raises the level's flag next, then looks at the room
    /// (the inbox handshakes, `engine/README.md`).
    fn push_into_line(&mut self, engine: &Engine<F>, task: F::Task, cx: &Context<'_>) {
        self.fill_node(task, cx);
        // SAFETY: our node, filled and in no list or inbox; nobody else sees
        // it before the push publishes it, and it stays put (the future is
        // pinned) until it is unlinked under the lock and finished, or we
        // unlink it (`cancel`, `unlink_closed`).
        unsafe { engine.inbox.push(self.level, (&self.node).into()) };
        self.linked = true;
    }

    /// Our push met a closed pool, whose release may have turned the line
    /// away before the push: takes the node out under the lock (its task,
    /// ours again); `None` if someone took it out first (their finish is
    /// coming: `CLOSED`, or `SERVED` before the close). Either way the flag
    /// we raised after the release lowered them is set right.
    fn unlink_closed<H: EngineRef<Engine<F>>>(&mut self, handle: &H) -> Option<F::Task> {
        let engine = handle.engine();
        let mut cold = engine.cold.lock();
        let ours = engine
            .waiters(&mut cold)
            .at(self.level)
            .remove((&self.node).into());
        let let_in = engine.waiters_changed(&mut cold);
        drop(cold);
        if let_in {
            // Reopened since (a reboot), with room for others.
            engine.let_waiters_in(handle);
        }
        if !ours {
            return None;
        }
        self.linked = false;
        // SAFETY: we unlinked our node ourselves: its task is ours.
        Some(unsafe { self.node.take_task() })
    }

    fn take_task(&mut self) -> F::Task {
        match self.task.take() {
            Some(task) => task,
            None => panic!("antpool: an async submit polled after it completed"),
        }
    }

    /// The future is dropped: unlinks the node (its task, never taken, drops
    /// unrun), or — someone unlinked it — settles what their finish left: a
    /// served task is the pool's and runs; a closed pool's task drops; a
    /// reserved new worker is given back. `true` if the task drops unrun:
    /// the submission is withdrawn.
    fn cancel<H: EngineRef<Engine<F>>>(&mut self, handle: &H) -> bool {
        if !self.linked {
            // Never polled, or between attempts (yielding): a task still in
            // hand drops here with the future; none if it resolved.
            return self.task.is_some();
        }
        self.linked = false;
        let this = handle.engine();
        let mut cold = this.cold.lock();
        if this
            .waiters(&mut cold)
            .at(self.level)
            .remove((&self.node).into())
        {
            let let_in = this.waiters_changed(&mut cold);
            drop(cold);
            // SAFETY: we unlinked our node ourselves: its task is ours.
            drop(unsafe { self.node.take_task() });
            if let_in {
                this.let_waiters_in(handle);
            }
            return true;
        }
        drop(cold);
        match finished_state(&self.node) {
            state::SERVED => false,
            state::CLOSED => {
                // SAFETY: a CLOSED finish leaves the task in the node, ours
                // again.
                drop(unsafe { self.node.take_task() });
                true
            }
            state::GRANTED => {
                // SAFETY: as for CLOSED.
                let task = unsafe { self.node.take_task() };
                // The reservation (`T+1, K+1` and, in a hand-off pool, the
                // admission) goes back as a failed start gives it back, which
                // counts a thread gone: count it first.
                this.counters.live.fetch_add(1, Relaxed);
                this.unreserve(handle, true);
                drop(task);
                true
            }
            other => unreachable!("antpool: async waiter finished in state {other}"),
        }
    }
}

impl<F: Flavor, H: EngineRef<Engine<F>>> Admit<F, H> {
    /// The future with its rejected task turned into what the face hands back
    /// (the boxed closure, the argument).
    pub(crate) fn map_err<T>(self, back: fn(F::Task) -> T) -> MapErr<Self, fn(F::Task) -> T> {
        MapErr { inner: self, back }
    }
}

/// A submit future whose rejected task is mapped by `back` (see
/// [`Admit::map_err`]). (A named type rather than an `async` block: the faces
/// promise `Send`, which an `async` block over a `&'static` handle fails to
/// show to the compiler.)
pub(crate) struct MapErr<X, B> {
    inner: X,
    back: B,
}

impl<X, T, U> Future for MapErr<X, fn(T) -> U>
where
    X: Future<Output = Result<(), SubmitError<T>>>,
{
    type Output = Result<(), SubmitError<U>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let back = self.back;
        // SAFETY: `inner` is pinned with us and never moved out (structural
        // pinning; `MapErr` has no `Drop` and is `Unpin` only if `X` is).
        let inner = unsafe { self.map_unchecked_mut(|m| &mut m.inner) };
        inner.poll(cx).map(|r| r.map_err(|e| e.map(back)))
    }
}

impl<F: Flavor, H: EngineRef<Engine<F>>> Future for Admit<F, H> {
    type Output = Result<(), SubmitError<F::Task>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: nothing is moved out of the pinned future; the node stays
        // where it is (it may be linked).
        let this = unsafe { self.get_unchecked_mut() };
        let result = this.wait.poll(&this.handle, cx);
        if let Poll::Ready(Err(_)) = &result {
            this.handle.engine().counters.rejected.fetch_add(1, Relaxed);
        }
        result
    }
}

impl<F: Flavor, H: EngineRef<Engine<F>>> Drop for Admit<F, H> {
    fn drop(&mut self) {
        if self.wait.cancel(&self.handle) {
            // Dropped before it resolved, its task unrun: withdrawn (counted
            // apart from `rejected`, which the caller was told of).
            let engine = self.handle.engine();
            engine.counters.withdrawn.fetch_add(1, Relaxed);
            engine.withdrawn_after_wait(self.wait.since);
            trace_event!(debug, "task withdrawn");
        }
    }
}

impl<F: Flavor> Engine<F> {
    /// Stores `waker` in `node` if it is still linked (`WAITING`): `false`
    /// if someone unlinked it (under the lock, which marked it `TAKEN`).
    ///
    /// # Safety
    ///
    /// `node` is the caller's, made by `Node::for_waker`, and linked (if at
    /// all) in one of this engine's lists, whose lock this takes.
    pub(super) unsafe fn store_waker<T, Sig: Signal>(
        &self,
        node: &Node<T, Sig>,
        waker: &Waker,
    ) -> bool {
        let cold = self.cold.lock();
        if node.state() != state::WAITING {
            return false;
        }
        // SAFETY: the caller's node, still linked in a list of ours (the
        // caller's contract; unlinking marks it TAKEN under the lock, which we
        // hold), so nobody else touches its waker.
        unsafe { node.set_waker(waker) };
        drop(cold);
        true
    }

    /// `wait_idle` as a future (see [`Quiet`]).
    pub(crate) fn wait_idle_async(&self) -> Quiet<'_, F> {
        Quiet::new(self)
    }
}

/// `wait_idle_async`: resolves once no task is running, queued or on its way.
pub(crate) struct Quiet<'a, F: Flavor> {
    engine: &'a Engine<F>,
    node: NodeOf<F>,
    linked: bool,
    _pinned: PhantomPinned,
}

// SAFETY: as for `Admit` (no task; the engine is shared by reference and
// `Sync`).
unsafe impl<F: Flavor> Send for Quiet<'_, F> where Engine<F>: Sync {}

impl<'a, F: Flavor> Quiet<'a, F> {
    pub(crate) fn new(engine: &'a Engine<F>) -> Self {
        Quiet {
            engine,
            node: Node::for_waker(state::WAITING, true),
            linked: false,
            _pinned: PhantomPinned,
        }
    }
}

impl<F: Flavor> Future for Quiet<'_, F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: as for `Admit::poll`.
        let this = unsafe { self.get_unchecked_mut() };
        let engine = this.engine;
        if this.linked {
            // SAFETY: our node, linked in this engine's `idlers`.
            let store = || unsafe { engine.store_waker(&this.node, cx.waker()) };
            return match poll_node(&this.node, store) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(_) => {
                    this.linked = false;
                    Poll::Ready(())
                }
            };
        }
        // As `wait_idle` (`park_until` with the idlers' flag), without the park.
        let mut cold = engine.cold.lock();
        if engine.holds_or_flag(&mut cold, |e| e.is_quiet(), true) {
            return Poll::Ready(());
        }
        this.node.set_state(state::WAITING);
        // SAFETY: as for `push_back` in `Admit::poll_inner`.
        unsafe {
            this.node.set_waker(cx.waker());
            cold.idlers.push_back((&this.node).into());
        }
        this.linked = true;
        Poll::Pending
    }
}

impl<F: Flavor> Drop for Quiet<'_, F> {
    fn drop(&mut self) {
        if !self.linked {
            return;
        }
        let mut cold = self.engine.cold.lock();
        if cold.idlers.remove((&self.node).into()) {
            self.engine.lower_idlers_flag(&mut cold);
            return;
        }
        drop(cold);
        finished_state(&self.node);
    }
}
