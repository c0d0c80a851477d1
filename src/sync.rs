//! The atomics and cells the engine uses: `portable-atomic`'s (so the core builds
//! on targets without compare-and-swap), or loom's when the crate is built with
//! `--cfg antpool_loom` for model checking (see `tests/loom.rs`).
//!
//! Loom's atomics cannot be made in a `const fn`, so functions that make them are
//! declared with [`maybe_const_fn!`]: `const` normally, plain under loom.

/// (Only the heap faces use it: the spill flag, `MultiPool`.)
#[cfg(all(not(antpool_loom), feature = "alloc"))]
pub(crate) use portable_atomic::AtomicBool;
/// (The lane's list of blocks, with a heap, and the waiters' inbox.)
#[cfg(not(antpool_loom))]
pub(crate) use portable_atomic::AtomicPtr;
#[cfg(not(antpool_loom))]
pub(crate) use portable_atomic::{AtomicU8, AtomicUsize, Ordering, fence};

#[cfg(antpool_loom)]
pub(crate) use loom::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU8, AtomicUsize, Ordering, fence,
};

#[cfg(antpool_loom)]
pub(crate) use loom::sync::atomic::AtomicU64 as AtomicWord;
#[cfg(all(not(antpool_loom), not(target_has_atomic = "64")))]
pub(crate) use portable_atomic::AtomicU32 as AtomicWord;
/// The atomic that holds the engine's control word: 64 bits wherever the target
/// has 64-bit atomics, else 32 (see `engine/ctl.rs`).
#[cfg(all(not(antpool_loom), target_has_atomic = "64"))]
pub(crate) use portable_atomic::AtomicU64 as AtomicWord;

/// Atomics loom need not track: statistics, cached facts and the limits `tune`
/// changes, whose ordering the protocol never relies on (any value between the
/// old and the new is a correct one to read at any time). Under loom they are
/// std's atomics, so the model checker spends no interleavings on them.
#[cfg(not(antpool_loom))]
pub(crate) use portable_atomic::AtomicUsize as UntrackedUsize;
#[cfg(antpool_loom)]
pub(crate) use std::sync::atomic::AtomicUsize as UntrackedUsize;

/// A hint that the caller is in a busy-wait loop. Under loom it yields to the
/// model checker instead, which must see every retry loop give way.
#[inline]
pub(crate) fn spin_hint() {
    #[cfg(not(antpool_loom))]
    core::hint::spin_loop();
    #[cfg(antpool_loom)]
    loom::thread::yield_now();
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
        #[cfg(not(antpool_loom))]
        for _ in 0..1u32 << self.step.min(Self::SPIN_LIMIT) {
            core::hint::spin_loop();
        }
        #[cfg(antpool_loom)]
        loom::thread::yield_now();
        if self.step <= Self::SPIN_LIMIT {
            self.step += 1;
        }
    }

    /// While waiting for another thread to finish a step: spins, then yields.
    #[inline]
    pub(crate) fn snooze(&mut self) {
        #[cfg(all(not(antpool_loom), feature = "std"))]
        if self.step > Self::SPIN_LIMIT {
            std::thread::yield_now();
            return;
        }
        self.spin();
    }
}

/// An `UnsafeCell` with loom's closure-based API, so loom checks the accesses
/// to the ring's slots for data races (and the normal build pays nothing).
#[cfg(not(antpool_loom))]
pub(crate) struct Cell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(antpool_loom))]
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
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }
}

/// An `UnsafeCell` with loom's closure-based API (loom: loom's own cell).
#[cfg(antpool_loom)]
pub(crate) struct Cell<T>(loom::cell::UnsafeCell<T>);

#[cfg(antpool_loom)]
impl<T> Cell<T> {
    pub(crate) fn new(value: T) -> Self {
        Cell(loom::cell::UnsafeCell::new(value))
    }

    /// Calls `f` with a raw pointer to the contents.
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        self.0.with_mut(f)
    }

    /// Calls `f` with a raw pointer to the contents, to read them.
    #[cfg(feature = "std")]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        self.0.with(f)
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

/// The read that starts a compare-and-swap loop on a control word: `Acquire`.
/// Under loom it is a read-modify-write, which reads the latest value: a stale
/// first read only costs such a loop a retry (the swap decides on the value it
/// replaces), and letting loom try every stale value multiplied the
/// interleavings of the engine's models by ten for no behaviour the swap would
/// not also produce. (A refusal decided on a stale read, `Ctl::update`
/// returning `Err`, is a real behaviour this hides; every caller treats one as
/// "go another way", which the models reach through concurrent changes too.)
/// The ring keeps plain loads: its head and tail are polled by loads, and
/// every RMW adds a store those loads could read, which made the models
/// larger instead.
macro_rules! first_read {
    ($atomic:expr) => {{
        #[cfg(antpool_loom)]
        let value = $atomic.fetch_or(0, $crate::sync::Ordering::SeqCst);
        #[cfg(not(antpool_loom))]
        let value = $atomic.load($crate::sync::Ordering::Acquire);
        value
    }};
}
