//! The errors: [`SubmitError`] hands the task back, [`BuildError`] names the bad
//! option, [`ReleaseError`] says why a release did not finish, and
//! [`ErrorKind`] names what became of a task in one type that is not generic
//! (every task error's [`source`](core::error::Error::source), so it is still
//! found after `?` has boxed the error).

use core::fmt;

use crate::error_kind::ErrorKind;

/// A task the pool did not take, handed back to the caller inside the error.
///
/// Like `crossbeam_channel::TrySendError`, the error owns the rejected value
/// (`T` is the pool's task: a boxed closure for [`Pool`](crate::Pool), the
/// argument for [`PoolWithFunc`](crate::PoolWithFunc)), and its `Debug` does not
/// print it, so `T` needs no `Debug`.
///
/// ```
/// use antpool::SubmitError;
/// let err = SubmitError::Overload(5_u32);
/// assert!(err.is_overload());
/// assert_eq!(err.to_string(), "the pool is saturated: no worker or queue slot is free, and this submit may not wait (try_submit, a nonblocking pool, or max_blocking_tasks callers already waiting)");
/// assert_eq!(err.into_inner(), 5);
/// ```
///
/// It is `Send`, `Sync` and `'static` when the task is: a [`Pool`](crate::Pool)'s
/// [`Task`](crate::Task) is, so `pool.submit(..)?` works in a function that returns
/// `anyhow::Result` or `Result<_, Box<dyn Error + Send + Sync>>`:
///
/// ```
/// fn work() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
///     let pool = antpool::Pool::new(2)?;
///     pool.submit(|| println!("hello"))?;
///     Ok(())
/// }
/// work().unwrap();
/// ```
///
/// More reasons may come, so a `match` needs a wildcard arm;
/// [`into_inner`](SubmitError::into_inner) gives the task back whatever the
/// reason.
///
/// After `?`, nothing can name `T` to downcast to when it holds a closure
/// (a closure's type has no name), so the error reports its
/// [`kind`](SubmitError::kind) as its [`source`](core::error::Error::source):
/// [`ErrorKind::of`] tells a service what to answer — a refusal is 503,
/// `Retry-After` for `Overload` (the table is on [`ErrorKind`]). Take the
/// task back before the `?` if it is wanted:
///
/// ```
/// use antpool::{ErrorKind, Pool};
/// fn handle(pool: &Pool, req: u64) -> anyhow::Result<u64> {
///     let handle = match pool.spawn(move || req + 1) {
///         Ok(handle) => handle,
///         Err(err) if err.is_overload() => return Ok(err.into_closure()()), // run it here
///         Err(err) => return Err(err.into()),
///     };
///     Ok(handle.join()?)
/// }
/// let pool = Pool::new(1).unwrap();
/// assert_eq!(handle(&pool, 1).unwrap(), 2);
/// pool.release();
/// let err = handle(&pool, 1).unwrap_err();
/// let status = match ErrorKind::of(err.as_ref()) {
///     Some(ErrorKind::Panicked) | None => 500,
///     Some(_) => 503,
/// };
/// assert_eq!(status, 503);
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubmitError<T> {
    /// Every worker is busy, the pool is at capacity, and it may not block the
    /// caller (`nonblocking`, `try_submit`, or `max_blocking_tasks` callers are
    /// already waiting).
    Overload(T),
    /// The pool is released (closed), or was released while the caller waited.
    Closed(T),
    /// The pool needed a new worker and the platform could not start a thread.
    /// The count of running workers is as it was before the call.
    SpawnFailed(T),
    /// The pool stayed saturated for the whole time a `*_timeout` call was
    /// allowed to wait for room (`submit_timeout`, `spawn_timeout`,
    /// `invoke_timeout`). The task never ran, and the caller left no trace in
    /// the pool's waiters.
    Timeout(T),
}

impl<T> SubmitError<T> {
    /// The task that was not taken.
    ///
    /// ```
    /// let err = antpool::SubmitError::Closed("task");
    /// assert_eq!(err.into_inner(), "task");
    /// ```
    pub fn into_inner(self) -> T {
        match self {
            SubmitError::Overload(t)
            | SubmitError::Closed(t)
            | SubmitError::SpawnFailed(t)
            | SubmitError::Timeout(t) => t,
        }
    }

    /// Whether the pool was saturated and would not block.
    ///
    /// ```
    /// assert!(antpool::SubmitError::Overload(()).is_overload());
    /// ```
    pub fn is_overload(&self) -> bool {
        matches!(self, SubmitError::Overload(_))
    }

    /// Whether the pool was closed.
    ///
    /// ```
    /// assert!(antpool::SubmitError::Closed(()).is_closed());
    /// ```
    pub fn is_closed(&self) -> bool {
        matches!(self, SubmitError::Closed(_))
    }

    /// Whether a new worker thread could not be started.
    ///
    /// ```
    /// assert!(antpool::SubmitError::SpawnFailed(()).is_spawn_failed());
    /// ```
    pub fn is_spawn_failed(&self) -> bool {
        matches!(self, SubmitError::SpawnFailed(_))
    }

    /// Whether a `*_timeout` call gave up waiting for room.
    ///
    /// ```
    /// assert!(antpool::SubmitError::Timeout(()).is_timeout());
    /// ```
    #[must_use]
    pub fn is_timeout(&self) -> bool {
        matches!(self, SubmitError::Timeout(_))
    }

    /// The reason, without the task: an [`ErrorKind`] (`Overload`, `Closed`,
    /// `SpawnFailed` or `Timeout`), which is not generic and can be kept,
    /// compared, or matched after the task was taken back.
    ///
    /// ```
    /// use antpool::{ErrorKind, SubmitError};
    /// let err = SubmitError::Timeout("task");
    /// assert_eq!(err.kind(), ErrorKind::Timeout);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            SubmitError::Overload(_) => ErrorKind::Overload,
            SubmitError::Closed(_) => ErrorKind::Closed,
            SubmitError::SpawnFailed(_) => ErrorKind::SpawnFailed,
            SubmitError::Timeout(_) => ErrorKind::Timeout,
        }
    }

    /// The same error around a different task (for example the closure a boxed
    /// task was made from).
    ///
    /// ```
    /// let err = antpool::SubmitError::Closed(2).map(|n| n * 10);
    /// assert_eq!(err, antpool::SubmitError::Closed(20));
    /// ```
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> SubmitError<U> {
        match self {
            SubmitError::Overload(t) => SubmitError::Overload(f(t)),
            SubmitError::Closed(t) => SubmitError::Closed(f(t)),
            SubmitError::SpawnFailed(t) => SubmitError::SpawnFailed(f(t)),
            SubmitError::Timeout(t) => SubmitError::Timeout(f(t)),
        }
    }
}

impl<F> SubmitError<Rejected<F>> {
    /// The rejected closure itself, out of its [`Rejected`] wrapper (what
    /// `spawn` and its kin hand back).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let f = pool.spawn(|| 6 * 7).unwrap_err().into_closure();
    /// assert_eq!(f(), 42);
    /// ```
    pub fn into_closure(self) -> F {
        self.into_inner().into_inner()
    }
}

impl<T> fmt::Debug for SubmitError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubmitError::Overload(_) => f.write_str("Overload(..)"),
            SubmitError::Closed(_) => f.write_str("Closed(..)"),
            SubmitError::SpawnFailed(_) => f.write_str("SpawnFailed(..)"),
            SubmitError::Timeout(_) => f.write_str("Timeout(..)"),
        }
    }
}

impl<T> SubmitError<T> {
    /// The variant's name, short (`tracing`'s `reason` field).
    #[cfg(feature = "tracing")]
    pub(crate) fn reason(&self) -> &'static str {
        match self {
            SubmitError::Overload(_) => "overload",
            SubmitError::Closed(_) => "closed",
            SubmitError::SpawnFailed(_) => "spawn failed",
            SubmitError::Timeout(_) => "timeout",
        }
    }
}

impl<T> fmt::Display for SubmitError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SubmitError::Overload(_) => {
                "the pool is saturated: no worker or queue slot is free, and this submit may not wait (try_submit, a nonblocking pool, or max_blocking_tasks callers already waiting)"
            }
            SubmitError::Closed(_) => "the pool has been released",
            SubmitError::SpawnFailed(_) => "the pool could not start a worker thread",
            SubmitError::Timeout(_) => "the pool stayed saturated for the whole timeout",
        })
    }
}

/// Its [`source`](core::error::Error::source) is its [`ErrorKind`], which is
/// not generic: after `?` has boxed the error (into `anyhow::Error`, a
/// `Box<dyn Error>`), [`ErrorKind::of`] still finds it.
impl<T> core::error::Error for SubmitError<T> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(self.kind().as_error())
    }
}

/// A rejected closure, as a spawn hands it back inside [`SubmitError`]:
/// [`into_inner`](Rejected::into_inner) gives the closure itself, to run it
/// here, keep it, or read what it captured.
///
/// Why a wrapper: so that the error is `Send + Sync` whatever the closure
/// captures. A closure that captures something `Send` but not `Sync` (an
/// `mpsc::Receiver`, a `Cell`) is not `Sync`, and an error holding it as is
/// would not `?` into `anyhow::Error` or `Box<dyn Error + Send + Sync>`. A
/// `&Rejected` gives no access to the closure — it leaves only by value — so
/// sharing one shares nothing of it.
///
/// ```
/// use std::sync::mpsc;
/// fn offload(pool: &antpool::Pool) -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
///     let (tx, rx) = mpsc::channel::<u32>(); // a Receiver is Send, not Sync
///     tx.send(41)?;
///     let handle = pool.spawn(move || rx.recv().unwrap() + 1)?; // `?` whatever it captures
///     Ok(handle.join()?)
/// }
/// let pool = antpool::Pool::new(1).unwrap();
/// assert_eq!(offload(&pool).unwrap(), 42);
///
/// pool.release();
/// let err = pool.spawn(|| 6 * 7).unwrap_err();
/// assert!(err.is_closed());
/// let f = err.into_inner().into_inner(); // the closure, as it was given
/// assert_eq!(f(), 42);
/// ```
pub struct Rejected<F>(F);

// SAFETY: no `&self` method of `Rejected` (nor any trait it implements:
// `Debug` prints only the type's name) reaches the closure; it leaves only by
// value (`into_inner`) or through `&mut` (`get_mut`), which a shared reference
// cannot give. Sharing a `&Rejected<F>` therefore shares nothing of `F`, which
// needs only `Send` (the argument of tokio's `SyncWrapper`, and of `Task`).
unsafe impl<F: Send> Sync for Rejected<F> {}

impl<F> Rejected<F> {
    /// (Only `spawn`, a `std` face, refuses into one.)
    #[cfg(feature = "std")]
    pub(crate) fn new(f: F) -> Self {
        Rejected(f)
    }

    /// The closure, as it was given.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let f = pool.spawn(|| "back").unwrap_err().into_inner().into_inner();
    /// assert_eq!(f(), "back");
    /// ```
    pub fn into_inner(self) -> F {
        self.0
    }

    /// The closure, by a unique reference (which no other thread can hold).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let mut rejected = pool.spawn(|| 1).unwrap_err().into_inner();
    /// let f: &mut _ = rejected.get_mut();
    /// assert_eq!(f(), 1);
    /// ```
    pub fn get_mut(&mut self) -> &mut F {
        &mut self.0
    }
}

impl<F> fmt::Debug for Rejected<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Rejected(..)")
    }
}

/// An invalid pool configuration, reported by `build()`.
///
/// ```
/// use antpool::{BuildError, Pool};
/// assert_eq!(Pool::new(0).unwrap_err(), BuildError::InvalidCapacity);
/// assert_eq!(
///     BuildError::InvalidCapacity.to_string(),
///     "invalid capacity: a bounded pool needs at least one worker"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BuildError {
    /// A capacity of 0 was given.
    InvalidCapacity,
    /// Neither `capacity(n)` nor `unbounded()` was chosen on the builder.
    MissingCapacity,
    /// An expiry of zero was given.
    InvalidExpiry,
    /// `prealloc(true)` was asked for an unbounded pool: there is no size to
    /// allocate.
    InvalidPreAllocSize,
    /// A multi-pool of zero pools was asked for.
    InvalidMultiPoolSize,
    /// Queue mode was asked of a pool that has no task queue
    /// ([`StaticPoolWithFunc`](crate::StaticPoolWithFunc): no heap for one).
    QueueUnsupported,
    /// More workers than the pool can hold: a capacity above
    /// [`MAX_CAPACITY`](crate::MAX_CAPACITY), or — for a
    /// [`StaticPoolWithFunc`](crate::StaticPoolWithFunc) — above its `N` worker
    /// slots (an unbounded static pool included).
    CapacityTooLarge,
    /// `antpool::configure` came after the default pool was configured or
    /// first used: it is made once.
    DefaultPoolExists,
    /// `min_idle(n)` asked for more warm workers than the capacity allows
    /// (or than [`MAX_CAPACITY`](crate::MAX_CAPACITY), for an unbounded pool).
    InvalidMinIdle,
    /// The platform could not start the `min_idle` workers (the `Spawner`
    /// refused a thread); the workers that did start were released.
    SpawnFailed,
    /// `reserve_for_high(r)` without `priorities(true)`, on a pool with a
    /// queue or without a capacity, or with `r` not below the capacity.
    InvalidReserve,
    /// `timings(Sampling::OneIn(n))` with an `n` that is not a power of two
    /// (0 included): see `Sampling`. Only with the `timings` feature.
    InvalidSampling,
}

impl BuildError {
    /// The error's message, in a `const` context (what `Display` prints).
    ///
    /// ```
    /// use antpool::BuildError;
    /// const MSG: &str = BuildError::InvalidExpiry.message();
    /// assert_eq!(MSG, BuildError::InvalidExpiry.to_string());
    /// ```
    #[must_use]
    pub const fn message(&self) -> &'static str {
        match self {
            BuildError::InvalidCapacity => {
                "invalid capacity: a bounded pool needs at least one worker"
            }
            BuildError::MissingCapacity => {
                "no capacity chosen: call capacity(n) or unbounded() on the builder"
            }
            BuildError::InvalidExpiry => "invalid expiry: the idle expiry must be longer than zero",
            BuildError::InvalidPreAllocSize => {
                "invalid prealloc: an unbounded pool has no size to preallocate"
            }
            BuildError::InvalidMultiPoolSize => {
                "invalid multi-pool size: a multi-pool needs at least one pool"
            }
            BuildError::QueueUnsupported => {
                "queue mode is not available here: a static pool has no heap for a task queue"
            }
            BuildError::CapacityTooLarge => {
                "invalid capacity: more workers than the pool can hold (MAX_CAPACITY, or a static pool's N slots)"
            }
            BuildError::DefaultPoolExists => {
                "the default pool already exists: configure it once, before its first use"
            }
            BuildError::InvalidMinIdle => {
                "invalid min_idle: more warm workers than the pool's capacity"
            }
            BuildError::SpawnFailed => "the platform could not start the pool's min_idle workers",
            BuildError::InvalidReserve => {
                "invalid reserve_for_high: it needs priorities(true), a hand-off pool (no queue) and a reserve below the capacity"
            }
            BuildError::InvalidSampling => {
                "invalid sampling: OneIn(n) takes a power of two (1, 2, 4, ...)"
            }
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for BuildError {}

/// Why a release did not end cleanly: [`release_timeout`](crate::Pool::release_timeout),
/// [`release_async`](crate::Pool::release_async) or
/// [`wait_released_async`](crate::Pool::wait_released_async).
///
/// ```
/// use antpool::ReleaseError;
/// assert_eq!(ReleaseError::Closed.to_string(), "the pool was already released");
/// assert_eq!(
///     ReleaseError::Reopened.to_string(),
///     "the pool was rebooted before its workers had exited"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReleaseError {
    /// Workers were still running when the time ran out. The pool is closed, and
    /// they exit as their tasks finish.
    Timeout,
    /// The pool was already released.
    Closed,
    /// A [`reboot`](crate::Pool::reboot) reopened the pool while the release
    /// waited for its workers to exit. The pool is open again; workers still
    /// finishing a task from before the release go on serving.
    Reopened,
    /// Some pools of a multi-pool did not release cleanly: each one's index and
    /// error, in index order.
    #[cfg(feature = "alloc")]
    Pools(alloc::vec::Vec<(usize, ReleaseError)>),
}

impl fmt::Display for ReleaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReleaseError::Timeout => {
                f.write_str("timed out waiting for the pool's workers to exit")
            }
            ReleaseError::Closed => f.write_str("the pool was already released"),
            ReleaseError::Reopened => {
                f.write_str("the pool was rebooted before its workers had exited")
            }
            #[cfg(feature = "alloc")]
            ReleaseError::Pools(errors) => {
                for (n, (index, error)) in errors.iter().enumerate() {
                    if n > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "pool {index}: {error}")?;
                }
                Ok(())
            }
        }
    }
}

impl core::error::Error for ReleaseError {}
