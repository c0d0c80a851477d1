//! The task side of a [`TaskGroup`](super::TaskGroup): what each task carries
//! ([`GroupJob`], its [`Entry`]), where it reports when it is done
//! ([`Shared`]: the completion queue and the cancel word), read by the
//! group's [`CancelToken`]s (`join/cancel.rs`). The protocol is in the module
//! docs of `group/mod.rs`.

use ::std::boxed::Box;
use ::std::collections::VecDeque;
use ::std::sync::{Arc, PoisonError};
use ::std::time::Instant;
use core::task::{Context, Poll, Waker};

use crossbeam_utils::CachePadded;

#[cfg(antpool_loom)]
use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(antpool_loom))]
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::guard::panic::note_skipped;
use crate::join::cancel::{Cancel, CancelToken, Current, Running};
use crate::join::error::{JoinError, Why};
use crate::join::handle::{Holder, Reply, ResultSlot, call};
use crate::sync::{AtomicU8, AtomicUsize, Ordering};
use crate::task::{Runnable, Task};

/// Identifies a task of a [`TaskGroup`](super::TaskGroup): unique within its
/// group, and ordered as the tasks were spawned. `spawn` returns it, and
/// [`join_next_with_id`](super::TaskGroup::join_next_with_id) gives it back
/// with the task's result.
///
/// ```
/// let pool = antpool::Pool::new(2).unwrap();
/// let mut group = pool.group::<&str>();
/// let a = group.spawn(|| "a").unwrap();
/// let b = group.spawn(|| "b").unwrap();
/// assert!(a < b);
/// let mut seen = std::collections::HashMap::new();
/// while let Some((id, result)) = group.join_next_with_id() {
///     seen.insert(id, result.unwrap());
/// }
/// assert_eq!((seen[&a], seen[&b]), ("a", "b"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub(super) u64);

impl TaskId {
    /// Which task of its group this is, in spawn order: the group's first
    /// task is 0, the next 1, and so on — so a group fed from a slice gives
    /// each result's index back. Only tasks the group took count: a spawn
    /// the pool refused, or an async spawn dropped before the pool took its
    /// task, takes no number. The count runs for the group's whole life
    /// (joins, [`abort_all`](super::TaskGroup::abort_all) and
    /// [`detach_all`](super::TaskGroup::detach_all) never restart it), so an
    /// id is never used twice in one group; each new group starts at 0.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let words = ["ant", "pool", "group"];
    /// let mut group = pool.group::<usize>();
    /// for word in words {
    ///     group.spawn(move || word.len()).unwrap();
    /// }
    /// while let Some((id, len)) = group.join_next_with_id() {
    ///     let index = usize::try_from(id.ordinal()).unwrap();
    ///     assert_eq!(len.unwrap(), words[index].len());
    /// }
    /// ```
    #[must_use]
    pub fn ordinal(self) -> u64 {
        self.0
    }
}

/// A task's fate as its group counts it, read and written under the group's
/// lock: in the group (its completion goes to the queue)...
const COUNTED: u8 = 0;
/// ... an async spawn not yet adopted by the group ...
const UNCOUNTED: u8 = 1;
/// ... or one that completed before it was: its adopter decides.
const ARRIVED: u8 = 2;

/// One task of a group: its slot (the phase decides who fills it, and holds
/// the result until it is joined), where it reports, and who it is.
pub(super) struct Entry<T> {
    slot: ResultSlot<T>,
    pub(super) group: Arc<Shared<T>>,
    pub(super) id: TaskId,
    /// Its place in the group's registry (`mod.rs`).
    pub(super) key: usize,
    /// The cancel generation it was spawned in.
    generation: usize,
    /// `cancel_on_error`: which results are failures.
    fails: Option<fn(&T) -> bool>,
    fate: AtomicU8,
}

impl<T> Entry<T> {
    pub(super) fn new(
        group: Arc<Shared<T>>,
        id: TaskId,
        key: usize,
        generation: usize,
        fails: Option<fn(&T) -> bool>,
        counted: bool,
    ) -> Self {
        Entry {
            slot: ResultSlot::new(),
            group,
            id,
            key,
            generation,
            fails,
            fate: AtomicU8::new(if counted { COUNTED } else { UNCOUNTED }),
        }
    }

    /// Cancels the task if it has not begun (the group's abort, or a task
    /// handed back): `true` if this call did, and filled the slot `Cancelled`.
    pub(super) fn cancel(&self) -> bool {
        self.slot.cancel(Why::GroupCancelled)
    }

    /// The result, once the entry came out of the queue (which it enters
    /// only after its slot was filled).
    pub(super) fn take_result(&self) -> Result<T, JoinError> {
        match self.slot.try_take() {
            Some(result) => result,
            None => unreachable!("antpool: a group task queued before its result"),
        }
    }
}

impl<T> AsRef<ResultSlot<T>> for Entry<T> {
    fn as_ref(&self) -> &ResultSlot<T> {
        &self.slot
    }
}

impl<T> Holder<T> for Entry<T> {
    /// Dropped unrun (cleared from the queue, a drained task dropped, the
    /// group cancelled before it began): it reports `Cancelled`.
    fn filled_on_drop(holder: Arc<Self>) {
        holder.group.arrive(&holder);
    }
}

/// A group's closure travelling with the reply for its entry (a task of its
/// own type, so a refused spawn can hand `f` back as it was given).
pub(super) struct GroupJob<F, T> {
    f: F,
    reply: Reply<T, Entry<T>>,
}

impl<F, T> GroupJob<F, T> {
    pub(super) fn new(f: F, entry: Arc<Entry<T>>) -> Self {
        GroupJob {
            f,
            reply: Reply::new(entry),
        }
    }

    /// The closure of a job handed back whose entry was cancelled first (so
    /// that its reply, dropping, reports nothing).
    pub(super) fn into_closure(self) -> F {
        self.f
    }
}

impl<F, T> Runnable for GroupJob<F, T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    fn run(self) {
        let GroupJob { f, reply } = self;
        let Some(entry) = reply.holder() else {
            unreachable!("antpool: a reply holds its entry until it delivers")
        };
        let fails = entry.fails;
        // The group's cancel word, then the phase (one load and the CAS a
        // `JoinHandle`'s abort races): a task of a cancelled generation, or
        // one the group aborted already, does not run.
        if entry.group.is_cancelled(entry.generation) || !reply.begin() {
            drop(f);
            // It cancels the slot unless the group's abort did, and reports.
            reply.skip(Why::GroupCancelled);
            note_skipped();
            return;
        }
        // The task's token is its group's while `f` runs (`join/cancel.rs`).
        let running = Running::enter(entry);
        let (result, _) = call(f);
        drop(running);
        if let Some(fails) = fails {
            let failed = match &result {
                Ok(value) => fails(value),
                Err(_) => true,
            };
            if failed {
                // Before the result is out: no task of the generation that
                // begins after this completion runs.
                entry.group.cancel(entry.generation);
            }
        }
        if let Some(entry) = reply.deliver(result) {
            entry.group.arrive(&entry);
        }
    }

    fn into_task(self: Box<Self>) -> Task {
        Task::new(move || Runnable::run(*self))
    }
}

/// What a group shares with its tasks: the completion queue (behind one
/// lock, with a condvar for a blocked joiner and a waker for an async one)
/// and the cancel word.
///
/// The cancel word (read as every task begins), the lock (taken per
/// completion) and the `Arc`'s counts (touched per spawn) are on lines of
/// their own.
pub(super) struct Shared<T> {
    /// Every generation below this one is cancelled (see `mod.rs`).
    cancelled_below: CachePadded<AtomicUsize>,
    done: CachePadded<Mutex<Done<T>>>,
    ready: Condvar,
}

struct Done<T> {
    /// Counted entries whose slot is filled, in completion order.
    queue: VecDeque<Arc<Entry<T>>>,
    /// An async joiner's waker.
    waker: Option<Waker>,
    /// A thread waits on `ready` (a notify costs a system call: only then).
    waiting: bool,
    /// The group is gone (dropped, or it detached its tasks): completions
    /// are dropped where they happen.
    abandoned: bool,
}

impl<T> Shared<T> {
    pub(super) fn new() -> Self {
        Shared {
            cancelled_below: CachePadded::new(AtomicUsize::new(0)),
            done: CachePadded::new(Mutex::new(Done {
                queue: VecDeque::new(),
                waker: None,
                waiting: false,
                abandoned: false,
            })),
            ready: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Done<T>> {
        self.done.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `generation` is cancelled.
    pub(super) fn is_cancelled(&self, generation: usize) -> bool {
        // Acquire/Release: a task that begins after a cancel it can see (by
        // any chain of happens-before) reads it.
        self.cancelled_below.load(Ordering::Acquire) > generation
    }

    /// Whether a joiner must stop waiting to sweep: `generation` is
    /// cancelled and was not `swept` yet (a closure, checked under the lock).
    pub(super) fn must_sweep(&self, swept: bool, generation: usize) -> impl Fn() -> bool + '_ {
        move || !swept && self.is_cancelled(generation)
    }

    /// Cancels `generation` (and those before it, all cancelled already), and
    /// wakes a joiner, which sweeps the group's tasks that have not begun.
    pub(super) fn cancel(&self, generation: usize) {
        let was = self
            .cancelled_below
            .fetch_max(generation.saturating_add(1), Ordering::AcqRel);
        if was <= generation {
            // Set before the lock: a joiner checks it under the lock before it
            // waits, so it either sees it or is waiting when we notify.
            self.wake_joiner(self.lock());
        }
    }

    /// Lets go of the lock, then wakes the joiner: a blocked one (only if it
    /// waits: a notify is a system call) or an async one. After the lock, so
    /// that the woken joiner does not find it still held; a joiner that
    /// checked the queue (and the cancel word) under the lock is waiting by
    /// then, so the notify is not lost. Every caller holds a reference to
    /// this `Shared` (an entry, a token, the group), which outlives the call.
    fn wake_joiner(&self, mut done: MutexGuard<'_, Done<T>>) {
        let waiting = done.waiting;
        let waker = done.waker.take();
        drop(done);
        if waiting {
            self.ready.notify_one();
        }
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// A task's slot was filled (by the task, or as it was dropped unrun):
    /// a counted task joins the queue; an uncounted one is left to its
    /// adopter. `entry` is the filler's own reference: through it, this
    /// `Shared` outlives the call (the group itself may be gone).
    pub(super) fn arrive(&self, entry: &Arc<Entry<T>>) {
        let mut done = self.lock();
        if done.abandoned {
            return;
        }
        if entry.fate.load(Ordering::Relaxed) != COUNTED {
            entry.fate.store(ARRIVED, Ordering::Relaxed);
            return;
        }
        done.queue.push_back(entry.clone());
        self.wake_joiner(done);
    }

    /// An async spawn's entry joins the group, or not: `resolved`, the pool
    /// took its task (the future resolved `Ok`), and it is counted whatever
    /// became of it; else (the future was dropped) it is counted unless it
    /// ended without running. Returns whether it is counted.
    pub(super) fn adopt(&self, entry: &Arc<Entry<T>>, resolved: bool) -> bool {
        let mut done = self.lock();
        match entry.fate.load(Ordering::Relaxed) {
            ARRIVED if !resolved && !entry.slot.is_started() => false,
            ARRIVED => {
                entry.fate.store(COUNTED, Ordering::Relaxed);
                // (The future holds the group: it is not abandoned.)
                done.queue.push_back(entry.clone());
                true
            }
            _ => {
                entry.fate.store(COUNTED, Ordering::Relaxed);
                true
            }
        }
    }

    /// Cancels every entry of `entries` that has not begun, and queues it
    /// (`Cancelled`) at once.
    pub(super) fn sweep<'a>(&self, entries: impl Iterator<Item = &'a Arc<Entry<T>>>)
    where
        T: 'a,
    {
        let mut done = self.lock();
        for entry in entries {
            if entry.cancel() && !done.abandoned {
                done.queue.push_back(entry.clone());
            }
        }
    }

    /// Moves every queued completion into `taken` (the joiner's own, empty),
    /// oldest first: one lock for a batch of joins. Returns whether it moved
    /// any.
    pub(super) fn try_take(&self, taken: &mut VecDeque<Arc<Entry<T>>>) -> bool {
        Self::take_into(&mut self.lock(), taken)
    }

    fn take_into(done: &mut Done<T>, taken: &mut VecDeque<Arc<Entry<T>>>) -> bool {
        debug_assert!(taken.is_empty());
        // A swap: the two buffers take turns, and neither is allocated again.
        core::mem::swap(&mut done.queue, taken);
        !taken.is_empty()
    }

    /// [`try_take`](Self::try_take), waiting for a completion until `until`
    /// (`None`: for good); `false` when the time is up or `stop` says the
    /// joiner has something to do first (sweep a cancelled generation).
    pub(super) fn wait_take(
        &self,
        taken: &mut VecDeque<Arc<Entry<T>>>,
        until: Option<Instant>,
        stop: impl Fn() -> bool,
    ) -> bool {
        let mut done = self.lock();
        loop {
            if Self::take_into(&mut done, taken) {
                return true;
            }
            if stop() {
                return false;
            }
            done.waiting = true;
            done = match until {
                None => self
                    .ready
                    .wait(done)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(until) => {
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        done.waiting = false;
                        return false;
                    }
                    self.ready
                        .wait_timeout(done, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
            done.waiting = false;
        }
    }

    /// [`wait_take`](Self::wait_take) for a future: `Ready(false)` when
    /// `stop` says so; else `Pending` with `cx`'s waker stored.
    pub(super) fn poll_take(
        &self,
        taken: &mut VecDeque<Arc<Entry<T>>>,
        cx: &Context<'_>,
        stop: impl Fn() -> bool,
    ) -> Poll<bool> {
        let mut done = self.lock();
        if Self::take_into(&mut done, taken) {
            return Poll::Ready(true);
        }
        if stop() {
            return Poll::Ready(false);
        }
        match &done.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => done.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// An async joiner went away: forget its waker.
    pub(super) fn clear_waker(&self) {
        let waker = self.lock().waker.take();
        drop(waker);
    }

    /// Nobody will join again: later completions are dropped where they
    /// happen. Hands back the completions not joined, to drop after the lock.
    pub(super) fn abandon(&self) -> VecDeque<Arc<Entry<T>>> {
        let mut done = self.lock();
        done.abandoned = true;
        done.waker = None;
        core::mem::take(&mut done.queue)
    }
}

impl<T: Send> Cancel for Shared<T> {
    fn is_cancelled(&self, generation: usize) -> bool {
        Shared::is_cancelled(self, generation)
    }

    fn cancel(&self, generation: usize) {
        Shared::cancel(self, generation);
    }
}

/// A group's task reads its group's token, for the generation it was
/// spawned in (as `TaskGroup::cancel_token` gave it then).
impl<T: Send + 'static> Current for Entry<T> {
    fn token(&self) -> CancelToken {
        CancelToken::new(self.group.clone(), self.generation)
    }
}
