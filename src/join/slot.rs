//! [`ResultSlot`]: where a spawned task's result waits for its handle. One atomic
//! byte, the result and the joiner's waker — no mutex, no condvar — so
//! delivering a result costs the task one read-modify-write and, if someone
//! waits, one wake-up (the protocol of tokio's task state and join waker).
//!
//! The byte holds the task's **phase** and two flags:
//!
//! * phase `QUEUED` → `STARTED` (the task begins: [`begin`](ResultSlot::begin)) or
//!   → `CANCELLED` (an abort, or the task dropped unrun: [`cancel`](ResultSlot::cancel)),
//!   by one compare-and-swap. Whoever moves it out of `QUEUED` owns the one
//!   right to fill the slot: the task after it ran, the canceller at once.
//! * `COMPLETE`: the result is written. The filler writes it, then sets the
//!   flag (`AcqRel`); the joiner reads it only after it saw the flag.
//! * `JOIN_WAKER`: a waker is stored and the filler must wake it. The joiner
//!   writes the waker cell only while the flag is clear and `COMPLETE` is not
//!   set, then sets the flag by a compare-and-swap that fails on `COMPLETE`; to
//!   change it, it clears the flag first (failing on `COMPLETE` too). The
//!   filler reads the cell only when its own swap saw the flag set, and the
//!   joiner never writes it again once `COMPLETE` is set, so the two never
//!   touch the cell at once.
//!
//! * `ABORTED`: an abort was asked ([`abort`](ResultSlot::abort)), whatever the
//!   phase: set by the same read-modify-write that, on a `QUEUED` task, moves
//!   the phase to `CANCELLED`. A task that began reads it as its
//!   [`CancelToken`](super::cancel::CancelToken) (`cancel.rs`), so "aborted
//!   before it began" and "asked to stop while it runs" are one operation on
//!   one word.
//!
//! A blocking `join` is the same protocol with a waker that unparks the
//! joining thread. A fourth flag, `JOIN_INTEREST`, is cleared when the handle
//! is dropped: a filler that finds it clear takes the result back (nobody
//! else will), and hands a panic's payload to the pool's panic handler.
//!
//! The phase's one compare-and-swap is what the engine never needs to know
//! about: abort (`abort.rs`), scopes and groups (their holders of the slot)
//! all decide by it, and the engine runs, queues, clears, drains or drops the
//! task as any other.
//!
//! loom (`tests/loom/join.rs`, on the real pool): `join racing the fill` (a
//! blocking joiner on its own thread), `a changed waker racing the fill`
//! (fails, by deadlock, if a changed waker is not stored), `abort vs start vs
//! await` (one winner of the phase, and the awaiting joiner woken), `handle
//! dropped racing the fill` (the result taken back by one side only); beside
//! this file, `slot_loom.rs` runs the slot alone under every interleaving: a
//! joiner polling again, with another waker or the same, as the fill races it
//! (fails if a poll writes the cell without taking it back first). Loom's
//! cells report any two threads touching the waker or the result at once.

use ::std::sync::Arc;
use core::task::{Context, Poll, Waker};

use crate::sync::{AtomicU8, Cell, Ordering};

use super::error::{JoinError, Why};

/// The phase bits.
const PHASE: u8 = 0b11;
/// Neither begun nor cancelled.
const QUEUED: u8 = 0;
/// The task has begun: it fills the slot when it ends.
const STARTED: u8 = 1;
/// Aborted, or dropped unrun: it never runs; the slot holds `Cancelled`.
const CANCELLED: u8 = 2;
/// The result is in the slot.
const COMPLETE: u8 = 0b100;
/// A waker is stored for the filler to wake.
const JOIN_WAKER: u8 = 0b1000;
/// A handle may still take the result (cleared when it is dropped).
const JOIN_INTEREST: u8 = 0b1_0000;
/// An abort was asked: a task that has begun reads it as its cancel token.
const ABORTED: u8 = 0b10_0000;

#[cfg(not(antpool_loom))]
use ::std::thread;
/// The threads of the model checker, or std's.
#[cfg(antpool_loom)]
use loom::thread;

/// Where a task's result waits for its handle: filled once by the task side,
/// taken once by the handle side.
pub(crate) struct ResultSlot<R> {
    state: AtomicU8,
    /// Written once by the filler before `COMPLETE`; taken by the joiner
    /// after it (`None` again once taken).
    value: Cell<Option<Result<R, JoinError>>>,
    /// The joiner's waker (see the module docs for who may touch it when).
    waker: Cell<Option<Waker>>,
}

// SAFETY: the cells are touched by one thread at a time, as the module docs
// lay out (the state's read-modify-writes order every hand-over); the result
// moves from the filler's thread to the joiner's, so `R: Send`. A `Waker` is
// `Send + Sync`.
unsafe impl<R: Send> Send for ResultSlot<R> {}
// SAFETY: as above: a shared `&ResultSlot` gives no access to a cell outside that
// protocol, and no `&R` (the result leaves only by value).
unsafe impl<R: Send> Sync for ResultSlot<R> {}

// A panic in the middle of a slot's operation leaves no broken state behind:
// each step is one read-modify-write, and a cell is written whole or not at
// all (as a `Mutex`'s poisoning would have nothing to report).
impl<R> ::std::panic::UnwindSafe for ResultSlot<R> {}
impl<R> ::std::panic::RefUnwindSafe for ResultSlot<R> {}

impl<R> ResultSlot<R> {
    pub(crate) fn new() -> Self {
        ResultSlot {
            state: AtomicU8::new(QUEUED | JOIN_INTEREST),
            value: Cell::new(None),
            waker: Cell::new(None),
        }
    }

    /// The task begins: `false` if it was cancelled (it must not run).
    pub(crate) fn begin(&self) -> bool {
        self.leave_queued(STARTED) || self.phase() == STARTED
    }

    /// Cancels the task unless it has begun or was cancelled already, and
    /// fills the slot with `Cancelled` for `why`: `true` if this call
    /// cancelled it. Asks a running task nothing (see [`abort`](Self::abort)).
    pub(crate) fn cancel(&self, why: Why) -> bool {
        let cancelled = self.leave_queued(CANCELLED);
        if cancelled {
            self.fill(Err(JoinError::cancelled(why)));
        }
        cancelled
    }

    /// An abort: one read-modify-write that sets `ABORTED` and, if the task
    /// has not begun, moves it to `CANCELLED` (then this call fills the slot
    /// with `Cancelled`, and the task never runs). `true` if this call
    /// cancelled it unrun; otherwise a task that has begun reads the flag
    /// through its token from now on (see `cancel.rs`).
    pub(crate) fn abort(&self) -> bool {
        // AcqRel: the release publishes what the aborter did before the
        // abort to a task that reads the flag (Acquire, `is_aborted`); the
        // acquire orders the fill after a lost race with `begin`.
        let old = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                if s & PHASE == QUEUED {
                    Some(s | CANCELLED | ABORTED)
                } else {
                    (s & ABORTED == 0).then_some(s | ABORTED)
                }
            });
        let cancelled = matches!(old, Ok(s) if s & PHASE == QUEUED);
        if cancelled {
            self.fill(Err(JoinError::cancelled(Why::Aborted)));
        }
        cancelled
    }

    /// Whether an abort was asked (before the task began, or since).
    pub(crate) fn is_aborted(&self) -> bool {
        self.state.load(Ordering::Acquire) & ABORTED != 0
    }

    /// Moves the phase from `QUEUED` to `to`: `true` if this call did it (and
    /// so holds the right to fill the slot).
    fn leave_queued(&self, to: u8) -> bool {
        self.state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                (s & PHASE == QUEUED).then_some(s | to)
            })
            .is_ok()
    }

    fn phase(&self) -> u8 {
        self.state.load(Ordering::Acquire) & PHASE
    }

    /// Whether the task has begun (so its side holds the right to fill).
    pub(crate) fn is_started(&self) -> bool {
        self.phase() == STARTED
    }

    /// Fills the slot and wakes the joiner if one waits. Called once, by the
    /// holder of the right to fill it (see [`leave_queued`](Self::leave_queued)).
    pub(crate) fn fill(&self, result: Result<R, JoinError>) {
        // SAFETY: the right to fill is ours alone, and the joiner reads the
        // value only after it saw `COMPLETE`, which is set below.
        self.value.with_mut(|v| unsafe { *v = Some(result) });
        let old = self.state.fetch_or(COMPLETE, Ordering::AcqRel);
        if old & JOIN_INTEREST == 0 {
            // The handle is gone: nobody takes the result. A panic goes to the
            // pool's panic handler instead (through the running task's note).
            // SAFETY: no joiner is left to read the value, and the right to
            // fill it was ours alone.
            let unclaimed = self.value.with_mut(|v| unsafe { (*v).take() });
            if let Some(Err(e)) = unclaimed {
                if let Ok(payload) = e.try_into_panic() {
                    crate::guard::panic::note_unclaimed_panic(payload);
                }
            }
            return;
        }
        if old & JOIN_WAKER != 0 {
            // SAFETY: the flag was set before our swap: the joiner wrote the
            // waker before it set the flag (our swap reads from its), and
            // writes it no more now that `COMPLETE` is set.
            self.waker.with(|w| unsafe {
                if let Some(waker) = &*w {
                    waker.wake_by_ref();
                }
            });
        }
    }

    /// The handle is dropped: a result filled from now on is nobody's (a
    /// panic goes to the panic handler instead: see [`fill`](Self::fill)).
    /// One filled before stays, and drops with the slot.
    pub(crate) fn drop_interest(&self) {
        self.state.fetch_and(!JOIN_INTEREST, Ordering::AcqRel);
    }

    /// Whether the result is in (so `join` would not block).
    pub(crate) fn is_finished(&self) -> bool {
        self.state.load(Ordering::Acquire) & COMPLETE != 0
    }

    /// Takes the result once it is in. Joiner only.
    fn take(&self) -> Result<R, JoinError> {
        // SAFETY: `COMPLETE` was seen (Acquire): the filler is done with the
        // value, and only the joiner (us) takes it.
        match self.value.with_mut(|v| unsafe { (*v).take() }) {
            Some(result) => result,
            None => panic!(
                "antpool: a task's result taken twice (a JoinHandle polled after it completed?)"
            ),
        }
    }

    /// The result if it is in; else stores `waker` to be woken when it comes.
    /// Joiner only (one at a time: the handle is not `Clone`).
    pub(crate) fn poll_join(&self, waker: &Waker) -> Poll<Result<R, JoinError>> {
        let s = self.state.load(Ordering::Acquire);
        if s & COMPLETE != 0 {
            return Poll::Ready(self.take());
        }
        if s & JOIN_WAKER != 0 {
            // SAFETY: a stored waker the filler may read at this moment too;
            // we only read it (a shared read).
            let same = self
                .waker
                .with(|w| unsafe { (*w).as_ref().is_some_and(|w| w.will_wake(waker)) });
            if same {
                return Poll::Pending;
            }
            // Take the cell back to change the waker: fails once complete.
            if self
                .state
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                    (s & COMPLETE == 0).then_some(s & !JOIN_WAKER)
                })
                .is_err()
            {
                return Poll::Ready(self.take());
            }
        }
        // SAFETY: `JOIN_WAKER` is clear and `COMPLETE` was not set when we
        // looked: the filler will not read the cell unless we set the flag.
        self.waker.with_mut(|w| unsafe { *w = Some(waker.clone()) });
        match self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
                (s & COMPLETE == 0).then_some(s | JOIN_WAKER)
            }) {
            Ok(_) => Poll::Pending,
            Err(_) => Poll::Ready(self.take()),
        }
    }

    /// The result, if it is in, without waiting. Joiner only.
    pub(crate) fn try_take(&self) -> Option<Result<R, JoinError>> {
        self.is_finished().then(|| self.take())
    }

    /// Blocks the calling thread until the result is in, and takes it.
    /// Joiner only.
    pub(crate) fn join(&self) -> Result<R, JoinError> {
        if let Some(result) = self.try_take() {
            return result;
        }
        let waker = Waker::from(Arc::new(Unpark(thread::current())));
        loop {
            match self.poll_join(&waker) {
                Poll::Ready(result) => return result,
                // (A spurious return of `park` polls again.)
                Poll::Pending => thread::park(),
            }
        }
    }

    /// Polls for the result as a future does.
    pub(crate) fn poll(&self, cx: &Context<'_>) -> Poll<Result<R, JoinError>> {
        self.poll_join(cx.waker())
    }

    /// Empties the slot for good and hands back what it held, if it held a
    /// result nobody took (a scope drops it before it counts the task done).
    /// Called by the last owner of the slot, when nobody else can touch it.
    pub(crate) fn take_unjoined(&self) -> Option<Result<R, JoinError>> {
        // SAFETY: the caller is the slot's last owner (see above).
        self.value.with_mut(|v| unsafe { (*v).take() })
    }
}

/// Wakes a thread blocked in [`ResultSlot::join`].
struct Unpark(thread::Thread);

impl ::std::task::Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

impl<R> AsRef<ResultSlot<R>> for ResultSlot<R> {
    fn as_ref(&self) -> &ResultSlot<R> {
        self
    }
}
