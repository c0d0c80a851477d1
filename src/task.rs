//! [`SmallTask`]: a closure that travels inline when it fits in three words, so
//! the common small task costs no heap allocation (and no free on another
//! thread); larger ones are boxed. A task handed back to the caller inside a
//! [`SubmitError`](crate::SubmitError) becomes a plain `Box<dyn FnOnce()>`
//! ([`Task`](crate::Task)) only then.
//!
//! Measured on the tiny-task benchmark, the box and its cross-thread free were
//! ~15 % of the time per task.

use alloc::boxed::Box;
use core::mem::{ManuallyDrop, MaybeUninit, align_of, size_of};

use crate::Task;

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
}

/// A `FnOnce() + Send + 'static` closure, inline or boxed.
pub(crate) struct SmallTask {
    vtable: &'static VTable,
    data: Storage,
}

// SAFETY: `SmallTask::new` only accepts `F: Send`, and the storage holds that `F`
// (or a `Box<F>`), nothing else.
unsafe impl Send for SmallTask {}

/// The vtable of a closure `F` stored inline.
struct Inline<F>(core::marker::PhantomData<F>);

impl<F: FnOnce() + Send + 'static> Inline<F> {
    const VTABLE: VTable = VTable {
        call: Self::call,
        drop: Self::drop,
        into_box: Self::into_box,
    };

    /// # Safety
    ///
    /// `data` holds an `F` written by `SmallTask::new`, which is read out once.
    unsafe fn call(data: *mut Storage) {
        // SAFETY: per the contract; `new` checked that `F` fits and is aligned.
        let f = unsafe { data.cast::<F>().read() };
        f()
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
        Box::new(unsafe { data.cast::<F>().read() })
    }
}

/// The vtable of a closure `F` too big (or too aligned) to store inline: the
/// storage holds a `Box<F>`.
struct Boxed<F>(core::marker::PhantomData<F>);

impl<F: FnOnce() + Send + 'static> Boxed<F> {
    const VTABLE: VTable = VTable {
        call: Self::call,
        drop: Self::drop,
        into_box: Self::into_box,
    };

    /// # Safety
    ///
    /// `data` holds a `Box<F>` written by `SmallTask::new`, which is read out once.
    unsafe fn call(data: *mut Storage) {
        // SAFETY: per the contract (a `Box<F>` is one word: it fits).
        let f = unsafe { data.cast::<Box<F>>().read() };
        f()
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
        unsafe { data.cast::<Box<F>>().read() }
    }
}

impl SmallTask {
    /// Whether `F` is stored inline (else boxed).
    const fn fits<F>() -> bool {
        size_of::<F>() <= size_of::<Storage>() && align_of::<F>() <= align_of::<Storage>()
    }

    /// Wraps `f`: inline if it fits in three words, else in a box.
    pub(crate) fn new<F: FnOnce() + Send + 'static>(f: F) -> Self {
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
            boxed();
            assert_eq!(ran.load(Ordering::SeqCst), 1);
            assert_eq!(drops.load(Ordering::SeqCst), 1, "big: {big}");
        }
    }
}
