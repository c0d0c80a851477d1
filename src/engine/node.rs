//! The one record every party of the hand-off protocol parks on: a [`Node`].
//!
//! A node lives on the stack of the thread that waits on it — a worker (its
//! mailbox), a blocked submitter (its waiter record) or a releaser (its drain
//! record) — and is linked into the pool's shared state by raw pointer while that
//! thread waits. The rules that make those pointers sound are in
//! `engine/README.md`; in short:
//!
//! * a node is linked (in the idle queue, the waiter list, the drain list) only
//!   while its owner waits, and only the lock holder links or unlinks it (an
//!   async waiter pushes its own node onto the inbox, `inbox.rs`, which the
//!   lock holder then links);
//! * whoever unlinks a node owns the right to finish it: set its state, move its
//!   task in or out, and `notify` its signal — exactly once;
//! * the owner does not leave (and so does not free the node) until it has
//!   consumed that notify's token, and `notify` does not touch the node once the
//!   token is visible ([`Signal`](crate::spawner::Signal) rule 6).

use core::cell::{Cell, UnsafeCell};
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr::NonNull;
use core::task::Waker;

use crate::sync::{AtomicU8, Ordering};

use crate::spawner::Signal;

use super::timed::{Lap, Stamp};

/// Node states. A worker's mailbox moves BUSY → IDLE → (TAKEN → WAKE | RETIRE);
/// a waiter WAITING → TAKEN → (SERVED | GRANTED | CLOSED); an idle record
/// WAITING → TAKEN → DONE, a drain record WAITING → TAKEN → (DONE | REOPENED)
/// (TAKEN: unlinked by whoever will finish it, which an async owner must know:
/// `wait_async.rs`).
pub(crate) mod state {
    /// A worker running a task, or looking for the next one.
    pub const BUSY: u8 = 0;
    /// A worker parked in the idle queue.
    pub const IDLE: u8 = 1;
    /// A parked worker detached (under the lock) by whoever wakes it to look
    /// (a submitter, a looker, the watcher, release): no longer idle, its
    /// wake-up is coming. Likewise a node unlinked from a list by whoever
    /// finishes it.
    pub const TAKEN: u8 = 2;
    /// A worker woken for a task: it takes one from the transport.
    pub const WAKE: u8 = 3;
    /// A worker told to exit.
    pub const RETIRE: u8 = 4;
    /// A blocked submitter, releaser or `wait_idle` caller in its list.
    pub const WAITING: u8 = 5;
    /// A blocked submitter whose task is in the transport, admitted.
    pub const SERVED: u8 = 6;
    /// A blocked submitter granted a worker slot: it spawns the worker itself.
    pub const GRANTED: u8 = 7;
    /// A blocked submitter turned away because the pool closed.
    pub const CLOSED: u8 = 8;
    /// A releaser whose pool has no worker left, or a `wait_idle` caller whose
    /// pool fell quiet.
    pub const DONE: u8 = 9;
    /// A releaser whose pool a `reboot` reopened before its workers were gone.
    pub const REOPENED: u8 = 10;
}

/// The signal of a node that is only ever woken through a `Waker`: there is
/// none (the type has no value), so such a node's type names no platform — a
/// releaser future's node is one type whatever its pool (`drain.rs`).
pub(crate) enum NoSignal {}

impl Signal for NoSignal {
    fn wait(&self) {
        match *self {}
    }

    fn wait_timeout(&self, _: core::time::Duration) -> bool {
        match *self {}
    }

    unsafe fn notify(this: *const Self) {
        // SAFETY: never called: no `NoSignal` exists to point to.
        unsafe { match *this {} }
    }
}

/// How a node's owner is woken: the platform's signal (a thread that
/// blocks), or the `Waker` of an async task (a future that returned
/// `Pending`).
enum Wake<Sig> {
    Thread(Sig),
    /// Written by the owner only under the lock while the node is linked, and
    /// taken by its finisher after it unlinked it (the state is `TAKEN` then,
    /// and the owner leaves it alone until the state is final).
    Task {
        waker: UnsafeCell<Option<Waker>>,
        /// Whether a finish `SERVED` wakes the owner. An async spawn learns
        /// that its task ran from its result, whose delivery wakes it: a
        /// wake-up for the serve as well would cost its executor a poll (and
        /// perhaps a thread's wake-up) for nothing.
        wake_served: bool,
    },
}

/// A parking record: a state, a link, an optional task, and the owner's signal.
pub(crate) struct Node<T, Sig> {
    state: AtomicU8,
    /// The next node in whichever list or chain holds this one. Only the holder
    /// of that list (the lock holder, or the owner of a detached chain) touches it.
    next: UnsafeCell<Option<NonNull<Node<T, Sig>>>>,
    task: UnsafeCell<MaybeUninit<T>>,
    /// A waiter's time (feature `timings`; zero-sized without): when its
    /// submit found the pool saturated, and — once granted a worker — when
    /// it was admitted. Moves with the task, under the same rules.
    stamp: UnsafeCell<Stamp>,
    wake: Wake<Sig>,
    /// A worker's mailbox: its takes in a row from above a waiting lower
    /// level (the starvation bound's count, `lanes.rs`). Only the worker
    /// itself touches it.
    streak: Cell<u32>,
    /// A worker's mailbox: the end of its last task, if timed (`timed.rs`).
    /// Only the worker itself touches it.
    lap: Lap,
}

impl<T, Sig: Signal> Node<T, Sig> {
    maybe_const_fn! {
        /// An empty node in `state`.
        pub(crate) fn new(signal: Sig, state: u8) -> Self {
            Node {
                state: AtomicU8::new(state),
                next: UnsafeCell::new(None),
                task: UnsafeCell::new(MaybeUninit::uninit()),
                stamp: UnsafeCell::new(Stamp::NONE),
                wake: Wake::Thread(signal),
                streak: Cell::new(0),
                lap: Lap::new(),
            }
        }
    }

    /// An empty node in `state` whose owner is an async task, woken through
    /// the `Waker` it stores with [`set_waker`](Self::set_waker) — on every
    /// finish but `SERVED` when not `wake_served` (see [`Wake::Task`]).
    pub(crate) fn for_waker(state: u8, wake_served: bool) -> Self {
        Node {
            state: AtomicU8::new(state),
            next: UnsafeCell::new(None),
            task: UnsafeCell::new(MaybeUninit::uninit()),
            stamp: UnsafeCell::new(Stamp::NONE),
            wake: Wake::Task {
                waker: UnsafeCell::new(None),
                wake_served,
            },
            streak: Cell::new(0),
            lap: Lap::new(),
        }
    }

    /// A node holding `task`, in `state`.
    pub(crate) fn with_task(signal: Sig, task: T, state: u8) -> Self {
        Node {
            state: AtomicU8::new(state),
            next: UnsafeCell::new(None),
            task: UnsafeCell::new(MaybeUninit::new(task)),
            stamp: UnsafeCell::new(Stamp::NONE),
            wake: Wake::Thread(signal),
            streak: Cell::new(0),
            lap: Lap::new(),
        }
    }

    /// The owner worker's count for the starvation bound (see `streak`).
    pub(crate) fn streak(&self) -> &Cell<u32> {
        &self.streak
    }

    /// The owner worker's lap (see `lap`).
    #[inline(always)]
    pub(crate) fn lap(&self) -> &Lap {
        &self.lap
    }

    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    pub(crate) fn set_state(&self, state: u8) {
        self.state.store(state, Ordering::Release);
    }

    /// The owner's signal (a node of a thread that blocks).
    pub(crate) fn signal(&self) -> &Sig {
        match &self.wake {
            Wake::Thread(signal) => signal,
            Wake::Task { .. } => unreachable!("antpool: an async waiter's node has no signal"),
        }
    }

    /// Stores `waker` to be woken when the node is finished (unless the one
    /// stored already wakes the same task).
    ///
    /// # Safety
    ///
    /// A node made by [`for_waker`](Self::for_waker); the caller owns it and
    /// holds the lock, and the node is not unlinked (not `TAKEN` or final):
    /// nobody else touches the waker then.
    pub(crate) unsafe fn set_waker(&self, waker: &Waker) {
        let Wake::Task { waker: cell, .. } = &self.wake else {
            unreachable!("antpool: set_waker on a thread's node");
        };
        // SAFETY: exclusive access per the contract.
        let stored = unsafe { &mut *cell.get() };
        if !stored.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *stored = Some(waker.clone());
        }
    }

    /// Puts a task taken with [`take_task`](Self::take_task) back into the
    /// (empty) cell.
    ///
    /// # Safety
    ///
    /// The caller has the exclusive right to the cell and the cell is empty.
    pub(crate) unsafe fn put_back(&self, task: T) {
        // SAFETY: exclusive access and an empty cell, per the caller's contract;
        // writing a `MaybeUninit` drops nothing.
        unsafe { (*self.task.get()).write(task) };
    }

    /// Moves the task out of the cell, leaving it empty.
    ///
    /// # Safety
    ///
    /// The caller has the exclusive right to the cell and the cell is full.
    pub(crate) unsafe fn take_task(&self) -> T {
        // SAFETY: exclusive access, and the cell holds an initialised task, per the
        // caller's contract; the protocol never reads it twice.
        unsafe { (*self.task.get()).assume_init_read() }
    }

    /// The waiter's stamp (see the field).
    ///
    /// # Safety
    ///
    /// As for [`take_task`](Self::take_task): the caller has the exclusive
    /// right to the node's cells.
    pub(crate) unsafe fn stamp(&self) -> Stamp {
        // SAFETY: exclusive access, per the caller's contract.
        unsafe { *self.stamp.get() }
    }

    /// Sets the waiter's stamp.
    ///
    /// # Safety
    ///
    /// As for [`stamp`](Self::stamp).
    pub(crate) unsafe fn set_stamp(&self, stamp: Stamp) {
        // SAFETY: exclusive access, per the caller's contract.
        unsafe { *self.stamp.get() = stamp };
    }

    /// Finishes `node` `SERVED` now, where that wakes nobody — an async
    /// spawn's node (its result wakes its future) — and returns `true`; else
    /// returns `false` and leaves the node to [`finish`](Self::finish), which
    /// may wake, after the lock. A grant finishes a spawn's node before it
    /// lets the lock go, since its task may already run: the future, woken by
    /// the result, would otherwise spin on `TAKEN` until the granter got to
    /// it (for the rest of a time slice, had the granter been preempted).
    ///
    /// # Safety
    ///
    /// As for [`finish`](Self::finish); the caller is done with the node's
    /// task and stamp.
    pub(crate) unsafe fn finish_unwoken(node: NonNull<Self>) -> bool {
        // SAFETY: the node is live and ours to finish (contract); the state's
        // store is our last touch, after which its owner may free it.
        unsafe {
            if let Wake::Task {
                wake_served: false, ..
            } = &(*node.as_ptr()).wake
            {
                node.as_ref().set_state(state::SERVED);
                return true;
            }
        }
        false
    }

    /// Finishes a node this thread unlinked: sets `state` and wakes the owner.
    /// After this the node may be gone.
    ///
    /// # Safety
    ///
    /// `node` is live and this thread holds the right to finish it (it unlinked it
    /// under the lock, or took it as part of a detached chain), and does not touch
    /// it afterwards.
    pub(crate) unsafe fn finish(node: NonNull<Self>, state: u8) {
        // SAFETY: the node is live and ours to finish (contract). A thread's
        // node: its owner waits for this notify's token before it frees the
        // node, so it is live until `notify` makes the token visible; no
        // reference into the node spans that moment (`set_state`'s ends when it
        // returns, and `notify` gets a raw pointer: Signal rule 6). A task's
        // node: its owner leaves the waker alone while the state is `TAKEN`, and
        // may free the node once the state is final, so the waker is taken
        // first and woken after, from this stack. A serve that does not wake
        // leaves the waker where it is, for the owner to drop with the node.
        unsafe {
            let signal: *const Sig = match &(*node.as_ptr()).wake {
                Wake::Thread(signal) => signal,
                Wake::Task { waker, wake_served } => {
                    if state == state::SERVED && !*wake_served {
                        node.as_ref().set_state(state);
                        return;
                    }
                    let waker = (*waker.get()).take();
                    node.as_ref().set_state(state);
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                    return;
                }
            };
            node.as_ref().set_state(state);
            Sig::notify(signal);
        }
    }
}

impl<T, Sig> Node<T, Sig> {
    /// The node's link.
    ///
    /// # Safety
    ///
    /// The caller holds whatever holds the node (a list's lock, a chain, or
    /// an inbox's drained stack): nobody writes the link meanwhile.
    pub(crate) unsafe fn next(&self) -> Option<NonNull<Self>> {
        // SAFETY: no concurrent write, per the contract.
        unsafe { *self.next.get() }
    }

    /// Sets the node's link.
    ///
    /// # Safety
    ///
    /// As for [`next`](Self::next), and nobody reads it meanwhile.
    pub(crate) unsafe fn set_next(&self, next: Option<NonNull<Self>>) {
        // SAFETY: exclusive access, per the contract.
        unsafe { *self.next.get() = next };
    }
}

/// Rule 3 of the node protocol, checked where it is cheap to (debug builds,
/// and loom's models, which run in release): a node is never freed while
/// someone who unlinked it may still finish it (`TAKEN`) — its owner waits for
/// the final state first.
#[cfg(any(debug_assertions, antpool_loom))]
impl<T, Sig> Drop for Node<T, Sig> {
    fn drop(&mut self) {
        assert_ne!(
            self.state.load(Ordering::Acquire),
            state::TAKEN,
            "antpool: a node freed while its finisher holds it"
        );
    }
}

/// A FIFO list of nodes linked through their `next` field. Lives in the pool's
/// lock-protected state; every method is called with that lock held.
pub(crate) struct NodeList<T, Sig> {
    head: Option<NonNull<Node<T, Sig>>>,
    tail: Option<NonNull<Node<T, Sig>>>,
    len: usize,
}

impl<T, Sig> NodeList<T, Sig> {
    pub(crate) const fn new() -> Self {
        NodeList {
            head: None,
            tail: None,
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `node`.
    ///
    /// # Safety
    ///
    /// `node` is live, in no list, and its owner keeps it alive (and does not
    /// move it) until it is unlinked and finished.
    pub(crate) unsafe fn push_back(&mut self, node: NonNull<Node<T, Sig>>) {
        // SAFETY: `node` is live and in no list (caller's contract), so nobody else
        // reads or writes its link; `tail`, if any, is a live linked node whose
        // link only the list holder touches.
        unsafe {
            *node.as_ref().next.get() = None;
            match self.tail {
                Some(tail) => *tail.as_ref().next.get() = Some(node),
                None => self.head = Some(node),
            }
        }
        self.tail = Some(node);
        self.len += 1;
    }

    /// Links `node` as the oldest (first to be served).
    ///
    /// # Safety
    ///
    /// As for [`push_back`](Self::push_back).
    pub(crate) unsafe fn push_front(&mut self, node: NonNull<Node<T, Sig>>) {
        // SAFETY: `node` is live and in no list (caller's contract); its link is
        // ours to write.
        unsafe { *node.as_ref().next.get() = self.head };
        if self.head.is_none() {
            self.tail = Some(node);
        }
        self.head = Some(node);
        self.len += 1;
    }

    /// Unlinks the oldest node, marked `TAKEN`: the caller finishes it.
    pub(crate) fn pop_front(&mut self) -> Option<NonNull<Node<T, Sig>>> {
        let head = self.head?;
        // SAFETY: linked nodes are live (push_back's contract) and their links are
        // ours while we hold the list.
        let next = unsafe {
            head.as_ref().state.store(state::TAKEN, Ordering::Release);
            *head.as_ref().next.get()
        };
        self.head = next;
        if next.is_none() {
            self.tail = None;
        }
        self.len -= 1;
        Some(head)
    }

    /// Unlinks `node` if it is in the list; `false` if it is not.
    pub(crate) fn remove(&mut self, node: NonNull<Node<T, Sig>>) -> bool {
        let mut prev: Option<NonNull<Node<T, Sig>>> = None;
        let mut cur = self.head;
        while let Some(c) = cur {
            // SAFETY: linked nodes are live and their links are ours (see pop_front).
            let next = unsafe { *c.as_ref().next.get() };
            if c == node {
                match prev {
                    // SAFETY: as above, `p` is a live linked node.
                    Some(p) => unsafe { *p.as_ref().next.get() = next },
                    None => self.head = next,
                }
                if self.tail == Some(c) {
                    self.tail = prev;
                }
                self.len -= 1;
                return true;
            }
            prev = cur;
            cur = next;
        }
        false
    }

    /// Unlinks every node, marked `TAKEN`, as a chain in FIFO order.
    pub(crate) fn take_all(&mut self) -> Chain<T, Sig> {
        let mut cur = self.head;
        while let Some(node) = cur {
            // SAFETY: linked nodes are live and their links are ours (see
            // pop_front).
            unsafe {
                node.as_ref().state.store(state::TAKEN, Ordering::Release);
                cur = *node.as_ref().next.get();
            }
        }
        let chain = Chain {
            head: self.head,
            _nodes: PhantomData,
        };
        *self = NodeList::new();
        chain
    }
}

/// Nodes unlinked under the lock, to be finished after it is dropped (the lock is
/// never held while a signal is notified).
#[must_use = "a chain's nodes must be finished, or their owners wait forever"]
pub(crate) struct Chain<T, Sig> {
    head: Option<NonNull<Node<T, Sig>>>,
    _nodes: PhantomData<Node<T, Sig>>,
}

impl<T, Sig: Signal> Chain<T, Sig> {
    pub(crate) const fn new() -> Self {
        Chain {
            head: None,
            _nodes: PhantomData,
        }
    }

    /// How many nodes the chain holds.
    pub(crate) fn len(&self) -> usize {
        let mut n = 0;
        let mut cur = self.head;
        while let Some(node) = cur {
            n += 1;
            // SAFETY: the chain holds the right to its nodes, links included.
            cur = unsafe { *node.as_ref().next.get() };
        }
        n
    }

    /// Adds a node this thread unlinked.
    ///
    /// # Safety
    ///
    /// `node` is live, unlinked from every list, and this thread holds the right
    /// to finish it.
    pub(crate) unsafe fn push(&mut self, node: NonNull<Node<T, Sig>>) {
        // SAFETY: we hold the right to the node (caller's contract), its link included.
        unsafe { *node.as_ref().next.get() = self.head };
        self.head = Some(node);
    }

    /// Takes the newest node back out, with the right to finish it (or to
    /// link it elsewhere under the lock).
    pub(crate) fn pop(&mut self) -> Option<NonNull<Node<T, Sig>>> {
        let node = self.head?;
        // SAFETY: the chain holds the right to its nodes, links included.
        self.head = unsafe { *node.as_ref().next.get() };
        Some(node)
    }

    /// Finishes every node with `state`, waking each owner.
    pub(crate) fn finish_all(self, state: u8) {
        let mut cur = self.head;
        while let Some(node) = cur {
            // SAFETY: the chain holds the right to finish its nodes (push and
            // take_all's contracts); the link is read before `finish`, after which
            // the node may be gone.
            unsafe {
                cur = *node.as_ref().next.get();
                Node::finish(node, state);
            }
        }
    }
}
