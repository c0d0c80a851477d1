//! The task as it travels and as it comes back: [`SmallTask`], a closure that
//! travels inline when it fits in three words, so the common small task costs
//! no heap allocation (and no free on another thread), larger ones boxed; and
//! [`Task`], what a caller gets back inside a [`SubmitError`] — boxed only then.
//!
//! On the tiny-task benchmark the box and its free on another thread were a
//! large share of the time per task (`BENCHMARKS.md`, "What the engine's
//! constants rest on").

use alloc::boxed::Box;
#[cfg(feature = "std")]
use core::any::TypeId;
use core::fmt;
use core::mem::{ManuallyDrop, MaybeUninit, align_of, size_of};

#[cfg(doc)]
use crate::error::SubmitError;

/// A task as [`SubmitError`] hands it back (and as `release_drain` returns it):
/// the closure that was submitted, boxed. [`run`](Task::run) it, store it, or
/// drop it.
///
/// It is `Send + Sync` (so `SubmitError<Task>` is too, and `?` turns it into
/// `anyhow::Error` or `Box<dyn Error + Send + Sync>`), though the closure in it
/// is only `Send`: a `&Task` gives no access to the closure, which leaves only
/// by value.
///
/// ```
/// use antpool::Pool;
/// let pool = Pool::new(1).unwrap();
/// pool.release();
/// let err = pool.submit(|| println!("never ran in the pool")).unwrap_err();
/// let task: antpool::Task = err.into_inner();
/// task.run(); // the caller may still run it itself
/// ```
pub struct Task(Box<dyn FnOnce() + Send + 'static>);

// SAFETY: no `&self` method of `Task` (nor any trait it implements: `Debug`
// prints only the type's name) reaches the closure; it leaves only by value
// (`run`, `into_box`), on one thread. Sharing a `&Task` therefore shares
// nothing of the closure, which needs only `Send` (the same argument as tokio's
// `SyncWrapper` for its `JoinError`).
unsafe impl Sync for Task {}

impl Task {
    /// Boxes a closure as a task (for tests and for code that stores tasks
    /// next to the ones a pool handed back).
    ///
    /// ```
    /// let task = antpool::Task::new(|| println!("hello"));
    /// task.run();
    /// ```
    pub fn new<F: FnOnce() + Send + 'static>(f: F) -> Task {
        Task(Box::new(f))
    }

    /// Calls the closure.
    ///
    /// ```
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// antpool::Task::new(move || tx.send(5).unwrap()).run();
    /// assert_eq!(rx.recv().unwrap(), 5);
    /// ```
    pub fn run(self) {
        (self.0)()
    }

    /// The closure, as the box it is kept in.
    ///
    /// ```
    /// let f: Box<dyn FnOnce() + Send> = antpool::Task::new(|| ()).into_box();
    /// f();
    /// ```
    #[must_use]
    pub fn into_box(self) -> Box<dyn FnOnce() + Send + 'static> {
        self.0
    }
}

impl From<Box<dyn FnOnce() + Send + 'static>> for Task {
    /// ```
    /// let f: Box<dyn FnOnce() + Send> = Box::new(|| ());
    /// antpool::Task::from(f).run();
    /// ```
    fn from(f: Box<dyn FnOnce() + Send + 'static>) -> Task {
        Task(f)
    }
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Task(..)")
    }
}

/// What a [`SmallTask`] can carry: a closure, or a crate type that knows how
/// to run itself and how to become a [`Task`] (a spawned closure with the
/// reply for its handle, which must hand the caller's closure back).
pub(crate) trait Runnable: Send + 'static {
    /// Runs it.
    fn run(self);
    /// It as a `Task`, from the box it is in.
    fn into_task(self: Box<Self>) -> Task;
}

impl<F: FnOnce() + Send + 'static> Runnable for F {
    fn run(self) {
        self()
    }

    fn into_task(self: Box<Self>) -> Task {
        Task(self)
    }
}

/// Room for a closure stored inline: three machine words, word-aligned.
type Storage = MaybeUninit<[usize; 3]>;

/// What to do with the closure in a `SmallTask`'s storage.
struct VTable {
    /// Takes the closure out and calls it.
    call: unsafe fn(*mut Storage),
    /// Drops the closure unrun.
    drop: unsafe fn(*mut Storage),
    /// Takes the closure out as a `Task`.
    into_box: unsafe fn(*mut Storage) -> Task,
    /// The type stored, for `SmallTask::downcast` (`spawn` needs it, on std).
    #[cfg(feature = "std")]
    type_id: fn() -> TypeId,
}

/// A [`Runnable`] (usually a `FnOnce() + Send + 'static` closure), inline or boxed.
pub(crate) struct SmallTask {
    vtable: &'static VTable,
    data: Storage,
}

// SAFETY: `SmallTask::new` only accepts `F: Runnable` (which is `Send`), and the
// storage holds that `F` (or a `Box<F>`), nothing else.
unsafe impl Send for SmallTask {}

/// The vtable of a closure `F` stored inline.
struct Inline<F>(core::marker::PhantomData<F>);

impl<F: Runnable> Inline<F> {
    const VTABLE: VTable = VTable {
        call: Self::call,
        drop: Self::drop,
        into_box: Self::into_box,
        #[cfg(feature = "std")]
        type_id: TypeId::of::<F>,
    };

    /// # Safety
    ///
    /// `data` holds an `F` written by `SmallTask::new`, which is read out once.
    unsafe fn call(data: *mut Storage) {
        // SAFETY: per the contract; `new` checked that `F` fits and is aligned.
        let f = unsafe { data.cast::<F>().read() };
        f.run()
    }

    /// # Safety
    ///
    /// As for `call`.
    unsafe fn drop(data: *mut Storage) {
        // SAFETY: per the contract.
        unsafe { data.cast::<F>().drop_in_place() }
    }

    /// # Safety
    ///
    /// As for `call`.
    unsafe fn into_box(data: *mut Storage) -> Task {
        // SAFETY: per the contract.
        Box::new(unsafe { data.cast::<F>().read() }).into_task()
    }
}

/// The vtable of a closure `F` too big (or too aligned) to store inline: the
/// storage holds a `Box<F>`.
struct Boxed<F>(core::marker::PhantomData<F>);

impl<F: Runnable> Boxed<F> {
    const VTABLE: VTable = VTable {
        call: Self::call,
        drop: Self::drop,
        into_box: Self::into_box,
        #[cfg(feature = "std")]
        type_id: TypeId::of::<F>,
    };

    /// # Safety
    ///
    /// `data` holds a `Box<F>` written by `SmallTask::new`, which is read out once.
    unsafe fn call(data: *mut Storage) {
        // SAFETY: per the contract (a `Box<F>` is one word: it fits).
        let f = unsafe { data.cast::<Box<F>>().read() };
        (*f).run()
    }

    /// # Safety
    ///
    /// As for `call`.
    unsafe fn drop(data: *mut Storage) {
        // SAFETY: per the contract.
        unsafe { data.cast::<Box<F>>().drop_in_place() }
    }

    /// # Safety
    ///
    /// As for `call`.
    unsafe fn into_box(data: *mut Storage) -> Task {
        // SAFETY: per the contract; the box is reused, not reallocated.
        unsafe { data.cast::<Box<F>>().read() }.into_task()
    }
}

impl SmallTask {
    /// Whether `F` is stored inline (else boxed).
    const fn fits<F>() -> bool {
        size_of::<F>() <= size_of::<Storage>() && align_of::<F>() <= align_of::<Storage>()
    }

    /// Wraps `f`: inline if it fits in three words, else in a box.
    pub(crate) fn new<F: Runnable>(f: F) -> Self {
        let mut data = Storage::uninit();
        if Self::fits::<F>() {
            // SAFETY: `F` fits in the storage and its alignment is at most the
            // storage's (checked just above).
            unsafe { data.as_mut_ptr().cast::<F>().write(f) };
            SmallTask {
                vtable: &Inline::<F>::VTABLE,
                data,
            }
        } else {
            // SAFETY: a `Box<F>` (F: Sized) is one pointer: it fits and is aligned.
            unsafe { data.as_mut_ptr().cast::<Box<F>>().write(Box::new(f)) };
            SmallTask {
                vtable: &Boxed::<F>::VTABLE,
                data,
            }
        }
    }

    /// Calls the closure, consuming the task.
    pub(crate) fn run(self) {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: the storage holds what the vtable expects (type invariant), and
        // `ManuallyDrop` keeps `Drop` from touching it again after `call` read it.
        unsafe { (this.vtable.call)(&mut this.data) }
    }

    /// What was stored, taken back out, if it is an `F` (else the task back).
    #[cfg(feature = "std")]
    pub(crate) fn downcast<F: Runnable>(self) -> Result<F, SmallTask> {
        if (self.vtable.type_id)() != TypeId::of::<F>() {
            return Err(self);
        }
        let mut this = ManuallyDrop::new(self);
        let data = &mut this.data as *mut Storage;
        if Self::fits::<F>() {
            // SAFETY: the storage holds an `F` (its type id says so), inline since
            // it fits (`new` decides by the same test); `ManuallyDrop` keeps
            // `Drop` from touching it again after it is read out.
            Ok(unsafe { data.cast::<F>().read() })
        } else {
            // SAFETY: as above, but `new` stored a `Box<F>`.
            Ok(*unsafe { data.cast::<Box<F>>().read() })
        }
    }

    /// The closure as a `Task` (a box), consuming the task: for handing it back.
    pub(crate) fn into_box(self) -> Task {
        let mut this = ManuallyDrop::new(self);
        // SAFETY: as for `run`.
        unsafe { (this.vtable.into_box)(&mut this.data) }
    }
}

impl Drop for SmallTask {
    fn drop(&mut self) {
        // SAFETY: the storage holds what the vtable expects (type invariant), and a
        // `SmallTask` that was run or turned into a box is never dropped.
        unsafe { (self.vtable.drop)(&mut self.data) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::sync::Arc;
    use core::sync::atomic::{AtomicUsize, Ordering};

    /// Counts drops of what a closure captured.
    struct Probe(Arc<AtomicUsize>);
    impl Drop for Probe {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn probe() -> (Arc<AtomicUsize>, Probe) {
        let n = Arc::new(AtomicUsize::new(0));
        (n.clone(), Probe(n))
    }

    #[test]
    fn small_closures_are_inline_and_big_or_aligned_ones_boxed() {
        let small = [0u8; 24];
        assert!(SmallTask::fits::<[u8; 24]>());
        assert!(!SmallTask::fits::<[u8; 25]>());
        #[repr(align(32))]
        struct Aligned;
        assert!(!SmallTask::fits::<Aligned>());
        assert!(SmallTask::fits::<()>());
        let _ = small;
    }

    #[test]
    fn run_calls_once_and_drops_captures_once() {
        let ran = Arc::new(AtomicUsize::new(0));
        for big in [false, true] {
            let (drops, p) = probe();
            let r = ran.clone();
            let pad = [7u64; 4];
            let task = if big {
                SmallTask::new(move || {
                    let _p = &p;
                    assert_eq!(pad[3], 7);
                    r.fetch_add(1, Ordering::SeqCst);
                })
            } else {
                SmallTask::new(move || {
                    let _p = &p;
                    r.fetch_add(1, Ordering::SeqCst);
                })
            };
            task.run();
            assert_eq!(drops.load(Ordering::SeqCst), 1, "big: {big}");
        }
        assert_eq!(ran.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn dropping_unrun_drops_the_captures() {
        for big in [false, true] {
            let (drops, p) = probe();
            let pad = [1u64; 4];
            let task = if big {
                SmallTask::new(move || drop((p, pad)))
            } else {
                SmallTask::new(move || drop(p))
            };
            drop(task);
            assert_eq!(drops.load(Ordering::SeqCst), 1, "big: {big}");
        }
    }

    #[test]
    fn into_box_hands_back_a_working_task() {
        for big in [false, true] {
            let (drops, p) = probe();
            let ran = Arc::new(AtomicUsize::new(0));
            let r = ran.clone();
            let pad = [2u64; 4];
            let task = if big {
                SmallTask::new(move || {
                    let _p = &p;
                    let _ = pad;
                    r.fetch_add(1, Ordering::SeqCst);
                })
            } else {
                SmallTask::new(move || {
                    let _p = &p;
                    r.fetch_add(1, Ordering::SeqCst);
                })
            };
            let boxed: Task = task.into_box();
            assert_eq!(drops.load(Ordering::SeqCst), 0);
            boxed.run();
            assert_eq!(ran.load(Ordering::SeqCst), 1);
            assert_eq!(drops.load(Ordering::SeqCst), 1, "big: {big}");
        }
    }

    /// A crate type carried as a task (as a spawned closure is).
    #[cfg(feature = "std")]
    struct Job(Probe, [u64; 4]);
    #[cfg(feature = "std")]
    impl Runnable for Job {
        fn run(self) {}
        fn into_task(self: Box<Self>) -> Task {
            Task::new(move || self.run())
        }
    }

    #[test]
    #[cfg(feature = "std")]
    fn downcast_gives_back_what_was_stored_and_only_that() {
        // Inline and boxed, the right type comes back whole (its captures
        // undropped); a wrong type gets the task back untouched.
        let (drops, p) = probe();
        let small = SmallTask::new(move || drop(p));
        let Err(small) = small.downcast::<Job>() else {
            panic!("a closure is not a Job")
        };
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        drop(small);
        assert_eq!(drops.load(Ordering::SeqCst), 1);

        let (drops, p) = probe();
        let Ok(Job(p, pad)) = SmallTask::new(Job(p, [3; 4])).downcast::<Job>() else {
            panic!("a Job comes back as a Job")
        };
        assert_eq!(pad, [3; 4]);
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        drop(p);
        assert_eq!(drops.load(Ordering::SeqCst), 1);

        let (drops, p) = probe();
        let inline = SmallTask::new(move || drop(p));
        assert!(SmallTask::fits::<(Probe,)>());
        assert!(inline.downcast::<fn()>().is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn task_is_send_and_sync() {
        fn both<T: Send + Sync + 'static>() {}
        both::<Task>();
    }
}
