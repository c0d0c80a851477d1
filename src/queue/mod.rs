//! The idle workers: the [`WorkerQueue`] trait and its implementations.
//!
//! A queue holds [`IdleWorker`]s — plain data, an opaque [`WorkerId`] and the
//! [`Instant`] the worker went idle — ordered by when they went idle. It has no
//! unsafe code and never dereferences an id, so it can be fuzzed on its own
//! against a reference model.
//!
//! | queue | order of `detach` | storage |
//! |---|---|---|
//! | [`IdleQueue`] (alloc), the heap pools' default | newest first (LIFO: warm caches, old workers sink and expire); with `prealloc`, oldest first (FIFO) | grows (`WorkerStack`); with `prealloc`, one buffer sized at build time (`WorkerRingBuf`) |
//! | [`WorkerRing<N>`] | oldest first (FIFO) | `N` slots inline, never allocates |
//!
//! **Invariant.** `since` never decreases from the oldest element to the newest.
//! `insert` clamps a stamp that is older than the newest one (a clock that stepped
//! backwards), so `refresh` can find the expired workers by binary search and
//! remove them as one contiguous run from the old end.

use core::fmt;
use core::ptr::NonNull;

use crate::clock::Instant;

mod ring;
pub use ring::WorkerRing;

#[cfg(feature = "alloc")]
mod idle_queue;
#[cfg(feature = "alloc")]
mod ring_buf;
#[cfg(feature = "alloc")]
mod stack;
#[cfg(feature = "alloc")]
pub use idle_queue::IdleQueue;

/// An opaque name for a worker.
///
/// The engine makes ids from the address of each worker's mailbox; a queue only
/// stores, compares and returns them, and never looks behind them. Tests and
/// fuzzers make ids from plain numbers with [`WorkerId::from_index`].
///
/// ```
/// use antpool::port::WorkerId;
/// let a = WorkerId::from_index(1);
/// assert_eq!(a, WorkerId::from_index(1));
/// assert_ne!(a, WorkerId::from_index(2));
/// assert_eq!(a.index(), 1);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct WorkerId(NonNull<()>);

// SAFETY: a `WorkerId` is an opaque token. Nothing but the engine turns it back into
// a reference, and the engine does so only under its own synchronisation (the idle
// queue's lock and the mailbox protocol in `engine/README.md`).
unsafe impl Send for WorkerId {}
// SAFETY: as for `Send`: sharing the token shares no access to anything.
unsafe impl Sync for WorkerId {}

impl WorkerId {
    /// An id made from a number, for tests and fuzzing. `index` 0 is stored as
    /// `usize::MAX` (an id is a non-null pointer), so every index below
    /// `usize::MAX` gives a distinct id (`usize::MAX` gives 0's).
    ///
    /// ```
    /// use antpool::port::WorkerId;
    /// assert_ne!(WorkerId::from_index(0), WorkerId::from_index(1));
    /// assert_eq!(WorkerId::from_index(0).index(), 0);
    /// ```
    #[must_use]
    pub const fn from_index(index: usize) -> Self {
        let addr = if index == 0 { usize::MAX } else { index };
        // An address without provenance: never dereferenced (see the type's docs).
        let ptr = core::ptr::without_provenance_mut::<()>(addr);
        // SAFETY: `addr` is not zero, so the pointer is not null.
        WorkerId(unsafe { NonNull::new_unchecked(ptr) })
    }

    /// The number this id was made from (for an engine id: the mailbox's address).
    ///
    /// ```
    /// assert_eq!(antpool::port::WorkerId::from_index(9).index(), 9);
    /// ```
    #[must_use]
    pub fn index(self) -> usize {
        match self.0.as_ptr().addr() {
            usize::MAX => 0,
            addr => addr,
        }
    }

    pub(crate) fn from_ptr<T>(ptr: NonNull<T>) -> Self {
        WorkerId(ptr.cast())
    }

    pub(crate) fn as_ptr<T>(self) -> NonNull<T> {
        self.0.cast()
    }
}

impl fmt::Debug for WorkerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WorkerId({:#x})", self.index())
    }
}

/// An idle worker as a queue stores it: who, and since when.
///
/// ```
/// use antpool::port::{IdleWorker, Instant, WorkerId};
/// let w = IdleWorker { id: WorkerId::from_index(3), since: Instant::from_nanos(10) };
/// assert_eq!(w.since.as_nanos(), 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleWorker {
    /// Which worker.
    pub id: WorkerId,
    /// When it went idle.
    pub since: Instant,
}

/// The idle workers of a pool, ordered by when they went idle.
///
/// The pool calls every method with its lock held, so each must do O(1) work
/// (O(log n) to find the expired run in `refresh`, plus O(k) to hand over the `k`
/// workers removed).
///
/// **Invariant.** `since` never decreases from the oldest element to the newest:
/// `insert` clamps a stamp older than the newest stored one (a clock that stepped
/// backwards), so `refresh` can find the expired workers by binary search and
/// remove them as one contiguous run from the old end.
///
/// ```
/// use antpool::WorkerRing;
/// use antpool::port::{IdleWorker, Instant, WorkerId, WorkerQueue};
///
/// let mut q = WorkerRing::<4>::new();
/// for i in 1..=3 {
///     let w = IdleWorker { id: WorkerId::from_index(i), since: Instant::from_nanos(i as u64) };
///     q.insert(w).unwrap();
/// }
/// // Retire everyone idle since t = 2 or earlier.
/// let mut retired = Vec::new();
/// assert_eq!(q.refresh(Instant::from_nanos(2), |w| retired.push(w.id.index())), 2);
/// assert_eq!(retired, [1, 2]);
/// assert_eq!(q.detach().unwrap().id.index(), 3);
/// assert!(q.is_empty());
/// ```
pub trait WorkerQueue: Send + 'static {
    /// Makes an empty queue for a pool of `capacity` workers (`None`: unbounded).
    /// `prealloc` asks for all storage up front; a queue with fixed storage
    /// ignores both.
    fn with_capacity(capacity: Option<usize>, prealloc: bool) -> Self
    where
        Self: Sized;

    /// Adds a worker as the newest. A stamp older than the newest stored one is
    /// clamped up to it. A full fixed-size queue hands the worker back exactly as
    /// it was given (unclamped).
    ///
    /// # Errors
    ///
    /// `Err(worker)`, the worker handed back, when the queue has no room (a fixed-size
    /// ring that is full): the engine then lets that worker exit.
    fn insert(&mut self, worker: IdleWorker) -> Result<(), IdleWorker>;

    /// Takes one worker out to give it a task: the newest for a stack, the oldest
    /// for a ring.
    fn detach(&mut self) -> Option<IdleWorker>;

    /// Removes every worker idle since `deadline` or earlier (that is, whose
    /// `since <= deadline`), oldest first, passing each to `retire`. Returns how
    /// many were removed.
    fn refresh<F: FnMut(IdleWorker)>(&mut self, deadline: Instant, retire: F) -> usize;

    /// Removes every worker, oldest first, passing each to `retire`. Returns how
    /// many were removed.
    fn reset<F: FnMut(IdleWorker)>(&mut self, retire: F) -> usize;

    /// How many workers are idle.
    fn len(&self) -> usize;

    /// Whether no worker is idle.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `since` of `worker`, clamped so it is not older than `newest`.
pub(crate) fn clamp(mut worker: IdleWorker, newest: Option<&IdleWorker>) -> IdleWorker {
    if let Some(newest) = newest {
        if worker.since < newest.since {
            worker.since = newest.since;
        }
    }
    worker
}

/// How many workers at the old end of `(older, newer)` are expired at `deadline`.
/// Both slices are ordered by `since`, and every element of `older` is older than
/// every element of `newer` (the two halves of a ring buffer).
pub(crate) fn expired_run(older: &[IdleWorker], newer: &[IdleWorker], deadline: Instant) -> usize {
    let k = older.partition_point(|w| w.since <= deadline);
    if k < older.len() {
        k
    } else {
        k + newer.partition_point(|w| w.since <= deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(i: usize, t: u64) -> IdleWorker {
        IdleWorker {
            id: WorkerId::from_index(i),
            since: Instant::from_nanos(t),
        }
    }

    #[test]
    fn expired_run_spans_both_halves() {
        let older = [w(1, 1), w(2, 2)];
        let newer = [w(3, 3), w(4, 4)];
        assert_eq!(expired_run(&older, &newer, Instant::from_nanos(0)), 0);
        assert_eq!(expired_run(&older, &newer, Instant::from_nanos(1)), 1);
        assert_eq!(expired_run(&older, &newer, Instant::from_nanos(3)), 3);
        assert_eq!(expired_run(&older, &newer, Instant::from_nanos(9)), 4);
        assert_eq!(expired_run(&[], &newer, Instant::from_nanos(3)), 1);
    }

    /// An id made from a number gives that number back, and ids made from
    /// different numbers differ (0 included, which is stored as another
    /// address since a pointer cannot be null).
    #[test]
    fn ids_made_from_numbers_give_them_back_and_differ() {
        let numbers = [0, 1, 2, 3, 1 << 20, usize::MAX - 1];
        for (i, &a) in numbers.iter().enumerate() {
            assert_eq!(WorkerId::from_index(a).index(), a);
            for &b in &numbers[i + 1..] {
                assert_ne!(WorkerId::from_index(a), WorkerId::from_index(b));
            }
        }
    }

    #[test]
    fn clamp_raises_only_older_stamps() {
        assert_eq!(clamp(w(1, 5), Some(&w(2, 7))).since, Instant::from_nanos(7));
        assert_eq!(clamp(w(1, 9), Some(&w(2, 7))).since, Instant::from_nanos(9));
        assert_eq!(clamp(w(1, 9), None).since, Instant::from_nanos(9));
    }
}
