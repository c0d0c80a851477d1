//! [`PoolOf`]: the one pool handle, and its counters. Every pool type is a
//! `PoolOf` of some [`Kind`]: [`Pool`] runs closures, [`PoolWithFunc`] one
//! function over typed arguments, [`StaticPoolWithFunc`] the same with no
//! heap. The methods every pool has are written once, here and in the files
//! of their feature (`pause.rs`, `release.rs`, `deadline.rs`, …); the
//! methods of one kind are in `closures.rs` and `calls.rs`.

use core::fmt;

use crate::engine::Engine;
use crate::kind::sealed::{Reaches, Sealed};
use crate::kind::{Calls, Inline, Kind, Reach};
#[cfg(feature = "alloc")]
use crate::kind::{Closures, Shared};
use crate::priority::Priority;
use crate::queue::WorkerRing;

/// A pool of reusable worker threads that run the tasks of kind `K` (see
/// [`kind`](crate::kind)): you will mostly meet it as [`Pool`] (closures),
/// [`PoolWithFunc`] (one function over typed arguments) or
/// [`StaticPoolWithFunc`] (the same in a `static`, with no heap).
///
/// Every pool hands each task straight to an idle worker, starts a new one
/// while fewer than the capacity exist, and otherwise blocks (or rejects, when
/// `nonblocking`) until a worker is free. Workers idle for the expiry (default
/// 1 s) retire; [`tune`](Self::tune) resizes at run time;
/// [`release`](Self::release) closes.
///
/// A heap pool's handle is cheap to clone: every clone controls the one pool,
/// and dropping the last one releases it (queued tasks still run; call
/// [`release_timeout`](Self::release_timeout) first to wait for them).
///
/// ```
/// use antpool::Pool;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// let pool = Pool::new(4).unwrap();
/// let done = Arc::new(AtomicUsize::new(0));
/// for _ in 0..100 {
///     let done = done.clone();
///     pool.submit(move || { done.fetch_add(1, Ordering::Relaxed); }).unwrap();
/// }
/// assert!(pool.running() <= 4);
/// pool.release_timeout(Duration::from_secs(5)).unwrap();
/// assert_eq!(done.load(Ordering::Relaxed), 100);
/// ```
pub struct PoolOf<K: Kind> {
    pub(crate) home: <K as Sealed>::Home,
}

/// A pool of workers that run closures: `submit`, `spawn` and their
/// `try_`, `_timeout` and `_async` forms (`closures.rs`). `Q` is the
/// idle-worker policy, `C` the clock, `S` the platform; with `std` they
/// default to OS threads, so the common case names none of them.
///
/// ```
/// let pool = antpool::Pool::new(2)?;
/// let answer = pool.spawn(|| 6 * 7)?;
/// assert_eq!(answer.join()?, 42);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[cfg(feature = "std")]
pub type Pool<
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner,
> = PoolOf<Closures<Q, C, S>>;
/// A pool of workers that run closures (see the `std` build's docs).
#[cfg(all(feature = "alloc", not(feature = "std")))]
pub type Pool<Q, C, S> = PoolOf<Closures<Q, C, S>>;

/// A pool whose workers all run one function `F`, each call on an argument of
/// type `A`: `invoke`, `call` and their `try_`, `_timeout` and `_async` forms
/// (`calls.rs`). It behaves exactly like [`Pool`], but a task is the argument
/// itself, travelling by value: no allocation per task.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
/// let sum = Arc::new(AtomicU64::new(0));
/// let s = sum.clone();
/// let pool = antpool::PoolWithFunc::new(4, move |n: u64| { s.fetch_add(n, Ordering::Relaxed); })?;
/// for n in 1..=100 {
///     pool.invoke(n)?;
/// }
/// pool.release_timeout(std::time::Duration::from_secs(5))?;
/// assert_eq!(sum.load(Ordering::Relaxed), 5050);
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[cfg(feature = "std")]
pub type PoolWithFunc<
    A,
    F,
    Q = crate::queue::IdleQueue,
    C = crate::os::clock::StdClock,
    S = crate::os::spawner::StdSpawner,
> = PoolOf<Calls<A, F, Q, C, S, Shared>>;
/// A pool whose workers all run one function (see the `std` build's docs).
#[cfg(all(feature = "alloc", not(feature = "std")))]
pub type PoolWithFunc<A, F, Q, C, S> = PoolOf<Calls<A, F, Q, C, S, Shared>>;

/// A [`PoolWithFunc`] that lives in a `static`: no heap, not even when it is
/// built. Made for embedded targets: `N` worker slots — at most `N` workers,
/// their idle queue (a [`WorkerRing<N>`](crate::WorkerRing)) and the ring that
/// carries arguments to them, all inline — on your platform's clock `C` and
/// spawner `S`, running a plain function.
///
/// Its workers hold a `&'static` to the pool, so the methods that may start
/// one need the pool through a `&'static` (a `static`, or a leaked box). The
/// first task of a new worker is handed over on the submitter's stack: the
/// submitter waits until the new thread has taken it (once per worker; never
/// per task). The capacity may not exceed `N`
/// ([`BuildError::CapacityTooLarge`](crate::BuildError::CapacityTooLarge):
/// an unbounded static pool included), and `tune` never raises it past `N`.
///
/// ```
/// use antpool::{Options, StaticPoolWithFunc};
/// use antpool::port::{StdClock, StdSpawner};
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use std::sync::LazyLock;
/// use std::time::Duration;
///
/// static SUM: AtomicU32 = AtomicU32::new(0);
/// fn work(n: u32) {
///     SUM.fetch_add(n, Ordering::Relaxed);
/// }
///
/// // On std, the clock and spawner are not `const`, hence the `LazyLock`; an RTOS
/// // port's zero-sized clock and spawner go straight into the initialiser.
/// static POOL: LazyLock<StaticPoolWithFunc<u32, 4, StdClock, StdSpawner>> =
///     LazyLock::new(|| StaticPoolWithFunc::new(Options::new().capacity(4), work, StdClock::new(), StdSpawner::new()));
///
/// for n in 1..=10 {
///     POOL.invoke(n).unwrap();
/// }
/// POOL.release_timeout(Duration::from_secs(5)).unwrap();
/// assert_eq!(SUM.load(Ordering::Relaxed), 55);
/// ```
pub type StaticPoolWithFunc<A, const N: usize, C, S> =
    PoolOf<Calls<A, fn(A), WorkerRing<N>, C, S, Inline<N>>>;

impl<K: Kind> PoolOf<K> {
    /// The engine.
    #[inline]
    pub(crate) fn engine(&self) -> &Engine<K> {
        K::engine(&self.home)
    }

    /// `f` on the engine as the pool's workers hold it (an `Arc`, or a
    /// `&'static`), borrowed: what the engine's calls that may start a worker
    /// take.
    #[inline]
    pub(crate) fn with_ref<'a, R>(&'a self, f: impl FnOnce(&<K as Reaches<'a>>::Ref) -> R) -> R
    where
        K: Reach<'a>,
    {
        K::reach(&self.home, f)
    }

    /// The engine as the pool's workers hold it, for a future or a group
    /// that keeps it (not the handle: it does not keep the pool open).
    pub(crate) fn reach<'a>(&'a self) -> <K as Reaches<'a>>::Ref
    where
        K: Reach<'a>,
    {
        K::reach(&self.home, Clone::clone)
    }

    /// Live workers, busy or idle (never more than the capacity, except
    /// briefly after `tune` lowered it).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.running(), 0); // no thread until the first task
    /// pool.submit(|| ()).unwrap();
    /// assert_eq!(pool.running(), 1);
    /// ```
    pub fn running(&self) -> usize {
        self.engine().running()
    }

    /// Workers parked idle, waiting for a task.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.idle(), 0);
    /// ```
    pub fn idle(&self) -> usize {
        self.engine().idle()
    }

    /// Submitters waiting for room (blocked threads and pending async
    /// submissions).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.waiting(), 0);
    /// ```
    pub fn waiting(&self) -> usize {
        self.engine().waiting()
    }

    /// Tasks admitted and waiting for a worker to take them (in any mode: a
    /// hand-off pool's task queue holds them for a moment).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.queued(), 0);
    /// ```
    pub fn queued(&self) -> usize {
        self.engine().queued()
    }

    /// Tasks waiting at `level`: in a pool with a task queue per level, that
    /// queue's length; otherwise every queued task, whatever its level.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// assert_eq!(pool.queued_at(antpool::Priority::Low), 0);
    /// ```
    pub fn queued_at(&self, level: Priority) -> usize {
        self.engine().queued_at(level)
    }

    /// Whether the pool was built with `priorities(true)`: a line of waiting
    /// submitters (and, with a heap and a queue, a task queue) per level.
    ///
    /// ```
    /// assert!(!antpool::Pool::new(2).unwrap().has_priorities());
    /// let levels = antpool::Pool::builder().capacity(2).priorities(true).build().unwrap();
    /// assert!(levels.has_priorities());
    /// ```
    pub fn has_priorities(&self) -> bool {
        self.engine().has_priorities()
    }

    /// A snapshot of every counter; see [`Stats`](crate::Stats).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// assert_eq!(pool.stats().completed, 1);
    /// ```
    pub fn stats(&self) -> crate::stats::Stats {
        self.engine().stats()
    }

    /// A snapshot of the pool's timing histograms (feature `timings`): how
    /// long blocked submits waited for room, and timed tasks waited to start
    /// and ran; see [`Timings`](crate::Timings). Lock-free; empty unless the
    /// pool was built with `timings(..)` other than
    /// [`Sampling::Off`](crate::Sampling::Off).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// assert_eq!(pool.timings().run.count, 0); // Sampling::Off
    /// ```
    #[cfg(feature = "timings")]
    pub fn timings(&self) -> crate::timings::Timings {
        self.engine().timings()
    }

    /// The capacity; `None` when unbounded. `release` leaves it unchanged.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.cap(), Some(3));
    /// pool.release();
    /// assert_eq!(pool.cap(), Some(3));
    /// ```
    pub fn cap(&self) -> Option<usize> {
        self.engine().cap()
    }

    /// `cap - running` (0 rather than negative after a `tune` down); `None`
    /// when unbounded.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.free(), Some(3));
    /// pool.submit(|| ()).unwrap();
    /// assert_eq!(pool.free(), Some(2));
    /// ```
    pub fn free(&self) -> Option<usize> {
        self.engine().free()
    }

    /// Whether the pool is released.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert!(!pool.is_closed());
    /// pool.release();
    /// assert!(pool.is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        self.engine().is_closed()
    }

    /// Retires, now, every worker that has been idle for the expiry or
    /// longer, instead of waiting for their own timers; returns how many.
    /// With a [`ManualClock`](crate::port::ManualClock) this is how a test
    /// sees expiry without sleeping. Works whether or not `disable_purge` is
    /// set. If it retires the idle worker that stood by for tasks queued
    /// behind busy ones, it wakes or starts another for them: it may start a
    /// thread, so a static pool calls it through a `&'static`, as
    /// [`tune`](Self::tune).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert_eq!(pool.purge(), 0); // nobody idle for a second yet
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect; the count is extra
    pub fn purge<'a>(&'a self) -> usize
    where
        K: Reach<'a>,
    {
        self.with_ref(|engine| Engine::purge(engine))
    }

    /// Changes the capacity at run time. Growing starts workers for queued
    /// tasks and lets blocked submitters in at once; shrinking retires surplus
    /// idle workers at once, and busy ones as they finish their task. Ignored
    /// for 0, for unbounded pools and for `prealloc` pools; a static pool's
    /// capacity stays at most its `N`.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.tune(8);
    /// assert_eq!(pool.cap(), Some(8));
    /// pool.tune(0); // ignored
    /// assert_eq!(pool.cap(), Some(8));
    /// ```
    pub fn tune<'a>(&'a self, capacity: usize)
    where
        K: Reach<'a>,
    {
        self.with_ref(|engine| Engine::tune(engine, capacity.min(K::MAX_CAP)))
    }
}

/// Another handle to the same heap pool (two reference counts, no new
/// worker): submit from anywhere without wrapping the pool in an `Arc`. Every
/// handle sees and controls the one pool (`release` on any closes it for
/// all), and the pool is released when the last handle is dropped.
///
/// ```
/// use std::time::Duration;
/// let pool = antpool::Pool::new(2).unwrap();
/// let handle = pool.clone();
/// let producer = std::thread::spawn(move || {
///     for _ in 0..10 {
///         handle.submit(|| ()).unwrap();
///     }
/// }); // `handle` is dropped here: the pool stays open for `pool`
/// producer.join().unwrap();
/// pool.wait_idle();
/// assert_eq!(pool.stats().completed, 10);
/// pool.release_timeout(Duration::from_secs(5)).unwrap();
/// ```
impl<K: Kind> Clone for PoolOf<K>
where
    <K as Sealed>::Home: Clone,
{
    fn clone(&self) -> Self {
        PoolOf {
            home: self.home.clone(),
        }
    }
}

impl<K: Kind> fmt::Debug for PoolOf<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.engine().fmt_as(K::NAME, f)
    }
}

/// A pool observed after a caught panic is a consistent pool: its state is
/// atomics, and a lock under which no user code runs (tasks, their drops, the
/// panic handler and the platform's spawner all run outside it); the one
/// place where an unwinding panic could leave a protocol half done (a node
/// linked on a stack) aborts the process instead. So
/// `catch_unwind(|| pool.spawn(..))` compiles, as it does for std's channels.
impl<K: Kind> core::panic::UnwindSafe for PoolOf<K> {}
impl<K: Kind> core::panic::RefUnwindSafe for PoolOf<K> {}
