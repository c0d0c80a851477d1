//! The atomics, cells and waits the engine uses: `portable-atomic`'s (so the
//! core builds on targets without compare-and-swap), or loom's when the crate
//! is built with `--cfg antpool_loom` for model checking (see `tests/loom.rs`).
//!
//! This file is the only place where the loom build differs from the one that
//! ships, and only in primitives: the atomics and cells (loom's, which it
//! tracks), how a busy-wait gives way (loom must see every retry loop yield),
//! and how things that hold loom atomics are made (not in a `const fn`, and
//! not from zeroed memory). Every decision the engine takes is the same code
//! under loom as in the shipped build.
//!
//! Loom's atomics cannot be made in a `const fn`, so functions that make them
//! are declared with [`maybe_const_fn!`]: `const` normally, plain under loom.

pub(crate) use imp::*;

/// Atomics loom need not track: statistics, cached facts and the limits `tune`
/// changes, whose ordering the protocol never relies on (any value between the
/// old and the new is a correct one to read at any time). They are
/// `portable-atomic`'s in both builds: loom does not see them, so the model
/// checker spends no interleavings on them.
pub(crate) use portable_atomic::AtomicUsize as UntrackedUsize;

/// The shipped primitives.
#[cfg(not(antpool_loom))]
mod imp {
    /// (Only the heap faces use it: the spill flag, `MultiPool`, scopes.)
    #[cfg_attr(not(feature = "alloc"), allow(unused_imports))]
    pub(crate) use portable_atomic::AtomicBool;
    /// (`AtomicPtr`: the lane's list of blocks, with a heap, and the
    /// waiters' inbox.)
    pub(crate) use portable_atomic::{AtomicPtr, AtomicU8, AtomicUsize, Ordering, fence};

    pub(crate) use word::{AtomicWord, WordBits};

    /// The atomic that holds the engine's control word, and its integer: 64
    /// bits wherever the target has 64-bit atomics, else 32 (see
    /// `engine/ctl.rs`).
    #[cfg(target_has_atomic = "64")]
    mod word {
        pub(crate) use portable_atomic::AtomicU64 as AtomicWord;
        pub(crate) type WordBits = u64;
    }
    /// (See the 64-bit `word`.)
    #[cfg(not(target_has_atomic = "64"))]
    mod word {
        pub(crate) use portable_atomic::AtomicU32 as AtomicWord;
        pub(crate) type WordBits = u32;
    }

    /// Whether memory of all zero bytes is a valid atomic: `portable-atomic`'s
    /// atomics are plain integers in cells (the list allocates its blocks
    /// zeroed, `engine/list.rs`).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) const ZEROED_ATOMICS: bool = true;

    /// The most rounds a time-bounded spin runs when the clock does not move
    /// (`engine/spin.rs`).
    pub(crate) const MAX_SPIN_ROUNDS: u32 = 1 << 12;

    /// A hint that the caller is in a busy-wait loop.
    #[inline]
    pub(crate) fn spin_hint() {
        core::hint::spin_loop();
    }

    /// `rounds` busy-wait hints in a row (a backoff's step).
    #[inline]
    pub(crate) fn spin_rounds(rounds: u32) {
        for _ in 0..rounds {
            core::hint::spin_loop();
        }
    }

    /// Gives the CPU to another thread, if the platform has a scheduler to
    /// ask (`std`); `false` if it has not, and the caller spins instead.
    #[inline]
    pub(crate) fn yield_cpu() -> bool {
        #[cfg(feature = "std")]
        std::thread::yield_now();
        cfg!(feature = "std")
    }

    /// `N` null atomic pointers (the list's spare blocks).
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    pub(crate) const fn null_ptrs<T, const N: usize>() -> [AtomicPtr<T>; N] {
        [const { AtomicPtr::new(core::ptr::null_mut()) }; N]
    }

    /// A lock around `value`.
    pub(crate) const fn new_lock<R: lock_api::RawMutex, T>(value: T) -> lock_api::Mutex<R, T> {
        lock_api::Mutex::const_new(R::INIT, value)
    }

    /// An `UnsafeCell` with loom's closure-based API, so loom checks the
    /// accesses to the ring's slots for data races (and the normal build
    /// pays nothing).
    pub(crate) struct Cell<T>(core::cell::UnsafeCell<T>);

    impl<T> Cell<T> {
        pub(crate) const fn new(value: T) -> Self {
            Cell(core::cell::UnsafeCell::new(value))
        }

        /// Calls `f` with a raw pointer to the contents.
        #[inline]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }

        /// Calls `f` with a raw pointer to the contents, to read them (loom
        /// allows such reads on several threads at once, not beside a write).
        #[cfg_attr(not(feature = "std"), allow(dead_code))]
        #[inline]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }
    }
}

/// The model checker's primitives.
#[cfg(antpool_loom)]
mod imp {
    pub(crate) use loom::sync::atomic::{
        AtomicBool, AtomicPtr, AtomicU8, AtomicUsize, Ordering, fence,
    };

    /// The control word (loom runs on 64-bit hosts: the shipped build's word
    /// there).
    pub(crate) use loom::sync::atomic::AtomicU64 as AtomicWord;
    pub(crate) type WordBits = u64;

    /// Loom's atomics track state that zeroed memory would not set up.
    pub(crate) const ZEROED_ATOMICS: bool = false;

    /// A spin is one round: the model checker must see every retry loop give
    /// way, and a clock that does not move would otherwise keep it spinning.
    pub(crate) const MAX_SPIN_ROUNDS: u32 = 1;

    /// Yields to the model checker, which must see every retry loop give way.
    #[inline]
    pub(crate) fn spin_hint() {
        loom::thread::yield_now();
    }

    /// One yield to the model checker, however many rounds.
    #[inline]
    pub(crate) fn spin_rounds(_rounds: u32) {
        loom::thread::yield_now();
    }

    /// No thread to yield to but the model's: the caller spins (yields).
    #[inline]
    pub(crate) fn yield_cpu() -> bool {
        false
    }

    /// `N` null atomic pointers (made at run time).
    pub(crate) fn null_ptrs<T, const N: usize>() -> [AtomicPtr<T>; N] {
        core::array::from_fn(|_| AtomicPtr::new(core::ptr::null_mut()))
    }

    /// A lock around `value`, made at run time (`Spawner::Lock` is `Default`
    /// under loom).
    pub(crate) fn new_lock<R: lock_api::RawMutex + Default, T>(value: T) -> lock_api::Mutex<R, T> {
        lock_api::Mutex::from_raw(R::default(), value)
    }

    /// An `UnsafeCell` with loom's closure-based API: loom's own cell.
    pub(crate) struct Cell<T>(loom::cell::UnsafeCell<T>);

    impl<T> Cell<T> {
        pub(crate) fn new(value: T) -> Self {
            Cell(loom::cell::UnsafeCell::new(value))
        }

        /// Calls `f` with a raw pointer to the contents.
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            self.0.with_mut(f)
        }

        /// Calls `f` with a raw pointer to the contents, to read them.
        #[cfg_attr(not(feature = "std"), allow(dead_code))]
        pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            self.0.with(f)
        }
    }
}

/// A backoff for waiting on another thread that is a few instructions from
/// done — a lost compare-and-swap's winner, a pusher between its claim and its
/// write — crossbeam's `Backoff`: [`spin`](Self::spin) doubles a run of
/// `spin_loop` hints up to 64; [`snooze`](Self::snooze) does too, then (with
/// `std`) yields the CPU, since on a small machine the thread waited for may
/// have been preempted and need this very CPU to finish. (Without `std` there
/// is nothing to yield to; under loom every round yields to the model.)
pub(crate) struct Backoff {
    step: u32,
}

impl Backoff {
    const SPIN_LIMIT: u32 = 6;

    pub(crate) fn new() -> Self {
        Backoff { step: 0 }
    }

    /// After a lost compare-and-swap: spins a little longer each time.
    #[inline]
    pub(crate) fn spin(&mut self) {
        spin_rounds(1 << self.step.min(Self::SPIN_LIMIT));
        if self.step <= Self::SPIN_LIMIT {
            self.step += 1;
        }
    }

    /// While waiting for another thread to finish a step: spins, then yields.
    #[inline]
    pub(crate) fn snooze(&mut self) {
        if self.step > Self::SPIN_LIMIT && yield_cpu() {
            return;
        }
        self.spin();
    }
}

/// Declares a function `const`, except under loom. (`#[macro_use]` on the
/// module makes it visible to the modules declared after it.)
macro_rules! maybe_const_fn {
    ($(#[$meta:meta])* $vis:vis fn $($rest:tt)*) => {
        #[cfg(not(antpool_loom))]
        $(#[$meta])* $vis const fn $($rest)*
        #[cfg(antpool_loom)]
        $(#[$meta])* $vis fn $($rest)*
    };
}
