//! The waiters' inbox: how an async submitter joins the line without the
//! cold lock. It pushes its node onto a lock-free stack per level (one
//! compare-and-swap); a lock holder that looks at the line first moves the
//! nodes pushed so far into the FIFO, oldest first ([`Inbox::drain_into`]):
//! all of them to find or count a node (`Engine::waiters`), or those of a
//! level whose line is empty to serve the oldest (`waiters_to_serve`). So
//! every unlink still happens under the lock, and a waiter that times out or
//! is dropped finds its node linked, or taken.
//!
//! The stack is the kernel's `llist` shape: a push writes its node's link and
//! swings the head to it; a drain swaps the head out whole and reverses the
//! chain it got. Nothing is ever popped alone, so there is no ABA; and no
//! push is ever half done from a drain's point of view (the link is written
//! before the swing), so a drain never waits for a preempted pusher — unlike
//! a Vyukov queue, whose consumer must.
//!
//! The handshakes it takes part in are in `engine/README.md` ("The inbox").

use core::ptr::{NonNull, null_mut};

use super::node::{Node, NodeList};
use crate::priority::Priority;
use crate::sync::AtomicPtr;
use crate::sync::AtomicUsize;
use crate::sync::Ordering::{AcqRel, Acquire, Relaxed};

/// A lock-free stack of waiters' nodes per level, moved into the line by the
/// lock holder.
pub(crate) struct Inbox<T, Sig> {
    /// The newest node pushed at each level (`Priority::index`), or null.
    heads: [AtomicPtr<Node<T, Sig>>; 3],
    /// Nodes pushed and not yet moved into the line (for `waiting`).
    pending: AtomicUsize,
}

impl<T, Sig> Inbox<T, Sig> {
    maybe_const_fn! {
        /// An empty inbox.
        pub(crate) fn new() -> Self {
            Inbox {
                heads: [
                    AtomicPtr::new(null_mut()),
                    AtomicPtr::new(null_mut()),
                    AtomicPtr::new(null_mut()),
                ],
                pending: AtomicUsize::new(0),
            }
        }
    }

    /// Nodes pushed and not yet moved into the line.
    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Relaxed)
    }

    /// Pushes `node` at `level`. Its `AcqRel` swing reads the head a drain
    /// left (or a later push's), so whatever the last drainer did before its
    /// drain — the pops of a worker that then parked — is visible to the
    /// pusher after it (the release sequence of the drain's swap).
    ///
    /// # Safety
    ///
    /// `node` is live, in no list and no inbox, and its owner keeps it alive
    /// (and does not move it) until it is unlinked and finished.
    pub(crate) unsafe fn push(&self, level: Priority, node: NonNull<Node<T, Sig>>) {
        self.pending.fetch_add(1, Relaxed);
        let head = &self.heads[level.index()];
        let mut seen = head.load(Relaxed);
        loop {
            // SAFETY: the node is ours and in no list (contract): nobody else
            // reads its link until the swing below publishes it.
            unsafe { node.as_ref().set_next(NonNull::new(seen)) };
            match head.compare_exchange_weak(seen, node.as_ptr(), AcqRel, Relaxed) {
                Ok(_) => return,
                Err(now) => seen = now,
            }
        }
    }

    /// Moves every node pushed at `level` into `line`, oldest first; returns
    /// how many (the caller counts them in the line's length, then calls
    /// [`moved_in`](Self::moved_in)). Always one read-modify-write of the
    /// head (a swap, even of an empty stack): a push after it reads what it
    /// wrote, and so sees what this thread did before (see
    /// [`push`](Self::push)).
    ///
    /// # Safety
    ///
    /// The caller holds `line` (the cold lock), into which only this inbox's
    /// nodes at `level` go.
    pub(crate) unsafe fn drain_into(&self, level: Priority, line: &mut NodeList<T, Sig>) -> usize {
        let mut cur = NonNull::new(self.heads[level.index()].swap(null_mut(), AcqRel));
        // Reverse the chain (newest first) into arrival order.
        let mut oldest = None;
        let mut moved = 0;
        while let Some(node) = cur {
            // SAFETY: the swap made the chain ours: every node in it was
            // pushed (its link written before its swing, which our acquire
            // swap synchronizes with) and is live until finished, which
            // happens only after it is unlinked from the line under the lock
            // we hold.
            unsafe {
                cur = node.as_ref().next();
                node.as_ref().set_next(oldest);
            }
            oldest = Some(node);
            moved += 1;
        }
        while let Some(node) = oldest {
            // SAFETY: as above; `push_back` rewrites the link we just read.
            unsafe {
                oldest = node.as_ref().next();
                line.push_back(node);
            }
        }
        moved
    }

    /// `moved` nodes are counted in the line now (`drain_into`'s caller
    /// stored its length first, so `waiting` never dips in between).
    pub(crate) fn moved_in(&self, moved: usize) {
        self.pending.fetch_sub(moved, Relaxed);
    }

    /// Whether a node waits at `level`: the lock holder's look after it
    /// lowered that level's flag by a read-modify-write (see `waiters.rs`).
    pub(crate) fn holds(&self, level: Priority) -> bool {
        !self.heads[level.index()].load(Acquire).is_null()
    }
}
