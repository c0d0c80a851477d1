//! Waiting for a release to end: when it has (`released`: closed, and no worker
//! thread left nor to come), who finishes the releasers, and the two ways to
//! wait — a parked thread (`release_timeout`, `wait_released_timeout`: the cold
//! lock's `drains` list) and a future ([`Drain`]: `release_async`,
//! `wait_released_async`, `wait_idle_async`'s twin, in `drain_futures`). The
//! future's node and its view of the engine ([`Drains`]) name no type of the
//! pool's, so the public future is one type for every pool (a multi-pool's
//! future holds one such wait per pool, pinned in a boxed slice). The protocol:
//!
//! * A releaser waits for one release: the one made when it began
//!   (`Awaited::Since`, with the count of reopenings at that moment, read under
//!   the lock where `reboot` raises it), or whichever comes (`Awaited::Any`,
//!   which on an open pool waits for a release first).
//! * Before it links its node it checks, under the lock, whether its wait is
//!   over: its release drained (`Ok`, noted as `drained_at` by whoever saw it
//!   drain, even if a reboot came after), reopened since (`Reopened`), or
//!   released and drained now (`Ok`).
//! * Linked, it is finished by whoever makes the wait end — both lists at once
//!   ([`Releasers`]), under the lock where they decide: a worker thread's end
//!   or the last task of a closed pool that leaves it drained (`DONE`),
//!   `release` itself when no thread is left (`DONE`: a wait begun on the open
//!   pool), `reboot` (`REOPENED`: every node on the list). Nothing finishes a
//!   node while the pool is open but `reboot`, so a wait begun on an open pool
//!   is not ended by its workers' expiry.
//! * A future dropped while linked unlinks its node under the lock and changes
//!   nothing else (the pool stays closed, its workers go on); dropped after
//!   someone unlinked it, it waits for their finish, a moment (the node rules,
//!   `engine/README.md`). So a second releaser is never affected by a first
//!   one's drop. A blocked thread whose time ran out does the same.
//! * `release_async` closes the pool when it is called and links at its first
//!   poll, so everything between the two — the drain, a reboot — is seen by the
//!   check before it links.
//! * Each step after which the pool may first be drained (a thread's end
//!   (`thread_gone`), the last admission of a closed hand-off pool or a closed
//!   queue emptied by a drain (`wake_drains`), `release` with no thread left)
//!   goes through `take_drains_if_drained` under the lock, so none is missed.
//!
//! loom (`tests/loom/release.rs`): `async releaser dropped` (the drop racing
//! the last worker's exit, with a second releaser future that must still be
//! woken; fails without the drop's wait for its finisher, or with a worker's
//! end waking threads only), `reboot during an async release` (the reboot
//! before and after the first poll; fails, by deadlock, without the reboot's
//! finish or without the check for a reopening) and `reboot vs release_timeout`
//! (fails, by deadlock, without the reboot's finish).

use core::future::Future;
use core::marker::PhantomPinned;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use core::time::Duration;

use super::ctl::adm;
use super::node::{Chain, NoSignal, Node, state};
use super::wait_async::{finished_state, poll_node};
use super::{ChainOf, Cold, Engine, Flavor, NodeOf};
use crate::error::ReleaseError;
use crate::spawner::Spawner;
use crate::sync::Ordering::Relaxed;

/// Which release a releaser waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Awaited {
    /// The one made when the wait began, the pool having been reopened this
    /// many times before it (what [`Engine::close`] returns): a reopening
    /// since ends the wait `Reopened`.
    Since(usize),
    /// The pool's release, or — open — its next one.
    Any,
}

impl<F: Flavor> Engine<F> {
    /// Releases the pool and waits up to `timeout` for every worker to exit.
    pub(crate) fn release_timeout(&self, timeout: Duration) -> Result<(), ReleaseError> {
        match self.close() {
            Some(reboots) => self.wait_released(Awaited::Since(reboots), Some(timeout)),
            None => Err(ReleaseError::Closed),
        }
    }

    /// Blocks until the release `awaited` has ended with every worker thread
    /// gone (`Ok`), a `reboot` reopened the pool first (`Reopened`), or
    /// `timeout` ran out (`Timeout`; `None`: no time limit).
    pub(crate) fn wait_released(
        &self,
        awaited: Awaited,
        timeout: Option<Duration>,
    ) -> Result<(), ReleaseError> {
        let node: NodeOf<F> = Node::new(self.spawner.signal(), state::WAITING);
        let cold = self.cold.lock();
        if let Some(end) = self.release_end(&cold, awaited) {
            return end;
        }
        match self.park_on(cold, &node, |c| &mut c.drains, timeout, |_| {}) {
            None => Err(ReleaseError::Timeout),
            Some(finished) => ended(finished),
        }
    }

    /// Under the lock: how a wait for `awaited` ends now, if it does. A
    /// release that drained before a reboot ended `Ok`, even if the wait
    /// looks only after the reboot.
    fn release_end(&self, cold: &Cold<F>, awaited: Awaited) -> Option<Result<(), ReleaseError>> {
        match awaited {
            Awaited::Since(reboots) if cold.drained_at == Some(reboots) => Some(Ok(())),
            Awaited::Since(reboots) if cold.reboots != reboots => Some(Err(ReleaseError::Reopened)),
            _ if self.released() => Some(Ok(())),
            _ => None,
        }
    }

    /// Whether the pool is released and drained: what ends a releaser's wait.
    /// Under the lock (where `release` and `reboot` change the flag).
    fn released(&self) -> bool {
        self.gate.adm.load() & adm::CLOSED != 0 && self.drained()
    }

    /// Whether no worker thread is left, nor reserved, nor can be: no task is
    /// in flight (a hand-off pool's admission count), none in the lane.
    /// Under this lock, where `live` falls; then the lane before `T` (a task
    /// is popped by a worker counted in `T` from before its pop until it
    /// retires), so a task that moves on between the two reads is seen by
    /// the later one. (The lane is read but in a hand-off pool: other pools'
    /// submitters have no window, and a task pushed before the release may
    /// wait there while its submitter starts a looker for it. In a hand-off
    /// pool `Adm`'s count covers it.) `T` is read by a read-modify-write: it
    /// heads a release sequence on `Ctl` (whose writers are all RMWs), so the
    /// CAS of a looker reserved after it reads from it and synchronizes with
    /// it, and that looker's check of the lane sees every pop our read of the
    /// lane saw. With a load, a third thread's pop of the last task
    /// (`clear_queue`, `release_drain`) could be seen here and not by that
    /// looker's check, which would start a thread after we returned (allowed
    /// by the C++ model, not by x86's or ARMv8's).
    fn drained(&self) -> bool {
        self.counters.live.load(Relaxed) == 0
            && !(self.config.lane_closes() && self.lane.has_tasks())
            && self.ctl.read_rmw().threads() == 0
            && self.gate.adm.load() & adm::COUNT == 0
    }

    /// After the admission count fell to 0 in a closed pool: a releaser may be
    /// waiting for exactly that.
    pub(super) fn wake_drains(&self) {
        let mut cold = self.cold.lock();
        let drains = self.take_drains_if_drained(&mut cold);
        drop(cold);
        drains.finish(state::DONE);
    }

    /// Under the lock: the releasers to wake (finish `DONE` once the lock is
    /// dropped), if the pool is released and drained; none otherwise. Every
    /// step that may complete a drain — a worker thread's end, a closed
    /// pool's last admission or lane pop, a release that finds no thread —
    /// comes here, so the release's end is also noted (`drained_at`).
    pub(super) fn take_drains_if_drained(&self, cold: &mut Cold<F>) -> Releasers<F> {
        if !self.released() {
            return Releasers::none();
        }
        cold.drained_at = Some(cold.reboots);
        Releasers::take(cold)
    }

    /// A worker thread ended (`retired`), or a reservation for one that never
    /// started is given back: wakes the releasers if it was the last.
    pub(super) fn thread_gone(&self, retired: bool) {
        let mut cold = self.cold.lock();
        self.counters.live.fetch_sub(1, Relaxed);
        if retired {
            self.counters.retired.fetch_add(1, Relaxed);
        }
        let drains = self.take_drains_if_drained(&mut cold);
        drop(cold);
        drains.finish(state::DONE);
    }

    /// Releases the pool now and returns the future that waits for the
    /// release to end (see [`Drain`]).
    pub(crate) fn release_async(&self) -> Drain<'_>
    where
        Self: Sync,
    {
        Drain::new(self, self.close().map(Awaited::Since))
    }

    /// The future that waits for the pool's release (or, open, its next) to
    /// end (see [`Drain`]).
    pub(crate) fn wait_released_async(&self) -> Drain<'_>
    where
        Self: Sync,
    {
        Drain::new(self, Some(Awaited::Any))
    }
}

/// Releasers unlinked under the lock — threads and futures, the two lists
/// always taken together — to be finished once it is dropped.
#[must_use = "a chain's nodes must be finished, or their owners wait forever"]
pub(super) struct Releasers<F: Flavor> {
    threads: ChainOf<F>,
    futures: Chain<(), NoSignal>,
}

impl<F: Flavor> Releasers<F> {
    fn none() -> Self {
        Releasers {
            threads: Chain::new(),
            futures: Chain::new(),
        }
    }

    /// Unlinks every releaser (under the lock).
    pub(super) fn take(cold: &mut Cold<F>) -> Self {
        Releasers {
            threads: cold.drains.take_all(),
            futures: cold.drain_futures.take_all(),
        }
    }

    /// Finishes every releaser with `state` (`DONE`, `REOPENED`).
    pub(super) fn finish(self, state: u8) {
        self.threads.finish_all(state);
        self.futures.finish_all(state);
    }
}

/// What the state a releaser's node was finished with means.
fn ended(finished: u8) -> Result<(), ReleaseError> {
    match finished {
        state::DONE => Ok(()),
        state::REOPENED => Err(ReleaseError::Reopened),
        other => unreachable!("antpool: releaser finished in state {other}"),
    }
}

/// A releaser future's node: no task, and woken through a `Waker` only, so
/// its type names nothing of its pool's.
type DrainNode = Node<(), NoSignal>;

/// What a releaser future needs of its pool's engine, whatever the engine's
/// flavor: each call takes the cold lock.
pub(crate) trait Drains: Sync {
    /// How a wait for `awaited` ends now, if it does (see `release_end`);
    /// if not, links `node` into `drain_futures` with `waker` (state
    /// `WAITING`).
    ///
    /// # Safety
    ///
    /// `node` is not linked, and stays where it is until it is unlinked by
    /// [`unlink`](Self::unlink) or finished by whoever unlinked it (its owner
    /// is pinned, and its drop does either).
    unsafe fn end_or_link(
        &self,
        awaited: Awaited,
        node: &DrainNode,
        waker: &Waker,
    ) -> Option<Result<(), ReleaseError>>;

    /// Stores `waker` in `node` if it is still linked: `false` if someone
    /// unlinked it.
    ///
    /// # Safety
    ///
    /// `node` is the caller's, linked (if at all) by
    /// [`end_or_link`](Self::end_or_link) of this engine.
    unsafe fn store_drain_waker(&self, node: &DrainNode, waker: &Waker) -> bool;

    /// Unlinks `node` if it is still linked: `false` if someone else did
    /// (their finish is coming).
    fn unlink(&self, node: &DrainNode) -> bool;
}

impl<F: Flavor> Drains for Engine<F>
where
    Self: Sync,
{
    unsafe fn end_or_link(
        &self,
        awaited: Awaited,
        node: &DrainNode,
        waker: &Waker,
    ) -> Option<Result<(), ReleaseError>> {
        let mut cold = self.cold.lock();
        if let Some(end) = self.release_end(&cold, awaited) {
            return Some(end);
        }
        node.set_state(state::WAITING);
        // SAFETY: not linked, and it stays put until unlinked and finished
        // (the caller's contract); the lock is held.
        unsafe {
            node.set_waker(waker);
            cold.drain_futures.push_back(node.into());
        }
        None
    }

    unsafe fn store_drain_waker(&self, node: &DrainNode, waker: &Waker) -> bool {
        // SAFETY: a waker node, linked (if at all) in our `drain_futures`
        // (the caller's contract).
        unsafe { self.store_waker(node, waker) }
    }

    fn unlink(&self, node: &DrainNode) -> bool {
        self.cold.lock().drain_futures.remove(node.into())
    }
}

/// `release_async` and `wait_released_async`: resolves once the release it
/// waits for has ended with every worker thread gone (`Ok`), or a `reboot`
/// reopened the pool first (`Reopened`); `release_async`'s, made on a pool
/// already released, resolves `Closed` at once. It waits in `drain_futures`
/// as a blocked releaser waits in `drains`, woken by a `Waker`; dropped, it
/// leaves the list and changes nothing else. One type for every pool.
pub(crate) struct Drain<'a> {
    engine: &'a dyn Drains,
    /// The release it waits for; `None`: the pool was already released when
    /// `release_async` was called.
    awaited: Option<Awaited>,
    node: DrainNode,
    /// Whether `node` may be linked (linked, or unlinked by a finisher whose
    /// finish we have not seen yet).
    linked: bool,
    _pinned: PhantomPinned,
}

// SAFETY: the node is touched only under the engine's lock (linking, the
// waker, unlinking) or by the one thread that holds the right to finish it
// (the node protocol); the engine is shared by reference and `Sync`.
unsafe impl Send for Drain<'_> {}

impl<'a> Drain<'a> {
    fn new(engine: &'a dyn Drains, awaited: Option<Awaited>) -> Self {
        Drain {
            engine,
            awaited,
            node: Node::for_waker(state::WAITING, true),
            linked: false,
            _pinned: PhantomPinned,
        }
    }
}

impl Future for Drain<'_> {
    type Output = Result<(), ReleaseError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: nothing is moved out of the pinned future; the node stays
        // where it is (it may be linked).
        let this = unsafe { self.get_unchecked_mut() };
        let Some(awaited) = this.awaited else {
            return Poll::Ready(Err(ReleaseError::Closed));
        };
        let engine = this.engine;
        if this.linked {
            // SAFETY: our node, linked by `end_or_link` of this engine.
            let store = || unsafe { engine.store_drain_waker(&this.node, cx.waker()) };
            let finished = match poll_node(&this.node, store) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(finished) => finished,
            };
            this.linked = false;
            return Poll::Ready(ended(finished));
        }
        // SAFETY: not linked; pinned, and our drop unlinks the node or waits
        // for its finisher.
        match unsafe { engine.end_or_link(awaited, &this.node, cx.waker()) } {
            Some(end) => Poll::Ready(end),
            None => {
                this.linked = true;
                Poll::Pending
            }
        }
    }
}

impl Drop for Drain<'_> {
    fn drop(&mut self) {
        if self.linked && !self.engine.unlink(&self.node) {
            finished_state(&self.node);
        }
    }
}
