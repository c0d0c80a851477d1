//! [`ErrorKind`]: what became of a task, in one type that is not generic, so
//! that it can still be told apart after `?` has boxed a generic error.
//!
//! `anyhow::Error` and `Box<dyn Error>` keep the concrete error they were
//! given, and `downcast_ref` matches that type only: a
//! `SubmitError<Rejected<F>>` over a closure's type `F` (which has no name)
//! cannot be downcast to. So every task error reports its kind as its
//! [`source`](core::error::Error::source) — a `&'static ErrorKind`, no
//! storage — and [`ErrorKind::of`] walks the chain to it.

use core::fmt;

/// What became of a task that gave no value, in one type that is not
/// generic: refused by the pool (`Overload`, `Closed`, `Timeout`,
/// `SpawnFailed`: it never ran, and the error hands it back), or taken and
/// then `Panicked` or `Cancelled`.
///
/// Every task error has a `kind()` —
/// [`SubmitError`](crate::SubmitError::kind),
/// [`JoinError`](crate::JoinError::kind),
/// [`SpawnError`](crate::SpawnError::kind) — and reports its kind as its
/// [`source`](core::error::Error::source), as a
/// [`GroupError`](crate::GroupError)'s panic or cancel does (a task's own
/// `Err` is not the pool's: it has no kind). That is what survives `?`: once
/// `pool.spawn(f)?` has put a `SubmitError<Rejected<F>>` into an
/// `anyhow::Error` or a `Box<dyn Error + Send + Sync>`, nothing can name `F`
/// to downcast to it, but [`ErrorKind::of`] (or
/// `err.chain().find_map(|e| e.downcast_ref::<ErrorKind>())` with anyhow)
/// finds the kind. To keep the closure, take it back before the `?`
/// (`into_closure()`).
///
/// What a service answers for each, when a request's work runs on the pool:
///
/// | kind | what happened | HTTP |
/// |---|---|---|
/// | `Overload` | saturated, and this submit may not wait | 503 with `Retry-After` (or 429) |
/// | `Timeout` | saturated for the whole deadline | 503 (504 if the deadline was the client's) |
/// | `Closed` | the pool is released: shutting down | 503 |
/// | `SpawnFailed` | no worker thread could be started | 503 |
/// | `Panicked` | the task panicked: a bug | 500 |
/// | `Cancelled` | aborted, or dropped unrun | 503 (499 if the client went away) |
///
/// ```
/// use antpool::{ErrorKind, Pool};
///
/// fn status(err: &anyhow::Error) -> u16 {
///     match ErrorKind::of(err.as_ref()) {
///         Some(ErrorKind::Panicked) => 500,
///         Some(ErrorKind::Cancelled) => 499,
///         Some(_) => 503, // refused: overloaded, closed, timed out, no thread
///         None => 500,    // not the pool's error
///     }
/// }
///
/// fn double(pool: &Pool, n: u64) -> anyhow::Result<u64> {
///     let handle = pool.spawn(move || if n == 0 { panic!("zero") } else { n * 2 })?;
///     Ok(handle.join()?)
/// }
///
/// let pool = Pool::new(2).unwrap();
/// assert_eq!(double(&pool, 21).unwrap(), 42);
/// assert_eq!(status(&double(&pool, 0).unwrap_err()), 500); // panicked
/// pool.release();
/// let err = double(&pool, 21).unwrap_err();
/// assert_eq!(status(&err), 503); // closed
/// assert_eq!(format!("{err:#}"), "the pool has been released: closed");
/// ```
///
/// The same with `Box<dyn Error + Send + Sync>`:
///
/// ```
/// use std::error::Error;
/// use antpool::ErrorKind;
///
/// fn run(pool: &antpool::Pool) -> Result<u8, Box<dyn Error + Send + Sync>> {
///     Ok(pool.spawn(|| 1)?.join()?)
/// }
/// let pool = antpool::Pool::new(1).unwrap();
/// pool.release();
/// let err = run(&pool).unwrap_err();
/// assert_eq!(ErrorKind::of(&*err), Some(ErrorKind::Closed));
/// ```
///
/// An `ErrorKind` is an error itself: to drop the closure and keep only the
/// kind, so that a plain `downcast_ref::<ErrorKind>()` (or anyhow's
/// `downcast`) finds it at the top, map before the `?`:
///
/// ```
/// use antpool::ErrorKind;
/// fn run(pool: &antpool::Pool) -> anyhow::Result<u8> {
///     Ok(pool.spawn(|| 1).map_err(|e| e.kind())?.join().map_err(|e| e.kind())?)
/// }
/// let pool = antpool::Pool::new(1).unwrap();
/// pool.release();
/// assert_eq!(run(&pool).unwrap_err().downcast::<ErrorKind>().unwrap(), ErrorKind::Closed);
/// ```
///
/// More kinds may come, so a `match` needs a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The pool was saturated and the submit could not wait
    /// ([`SubmitError::Overload`](crate::SubmitError::Overload)).
    Overload,
    /// The pool is released
    /// ([`SubmitError::Closed`](crate::SubmitError::Closed)).
    Closed,
    /// The pool stayed saturated for a whole `*_timeout`
    /// ([`SubmitError::Timeout`](crate::SubmitError::Timeout)).
    Timeout,
    /// No worker thread could be started
    /// ([`SubmitError::SpawnFailed`](crate::SubmitError::SpawnFailed)).
    SpawnFailed,
    /// The task panicked ([`JoinError::is_panic`](crate::JoinError::is_panic)).
    Panicked,
    /// The task was aborted or dropped unrun
    /// ([`JoinError::is_cancelled`](crate::JoinError::is_cancelled)).
    Cancelled,
}

impl ErrorKind {
    /// The kind of the first antpool task error in `error`'s chain: `error`
    /// itself, its [`source`](core::error::Error::source), that one's, and so
    /// on. `None` when none is antpool's.
    ///
    /// With anyhow, pass `err.as_ref()`; with a `Box<dyn Error + ..>`, `&*err`.
    ///
    /// ```
    /// use antpool::{ErrorKind, SubmitError};
    /// let err = anyhow::Error::new(SubmitError::Overload(())).context("resizing the image");
    /// assert_eq!(ErrorKind::of(err.as_ref()), Some(ErrorKind::Overload));
    /// let other = anyhow::anyhow!("not the pool");
    /// assert_eq!(ErrorKind::of(other.as_ref()), None);
    /// ```
    #[must_use]
    pub fn of(error: &(dyn core::error::Error + 'static)) -> Option<ErrorKind> {
        let mut next = Some(error);
        while let Some(error) = next {
            if let Some(kind) = error.downcast_ref::<ErrorKind>() {
                return Some(*kind);
            }
            next = error.source();
        }
        None
    }

    /// This kind as an error with a `'static` life: what a task error's
    /// `source` returns.
    pub(crate) fn as_error(self) -> &'static (dyn core::error::Error + 'static) {
        match self {
            ErrorKind::Overload => &ErrorKind::Overload,
            ErrorKind::Closed => &ErrorKind::Closed,
            ErrorKind::Timeout => &ErrorKind::Timeout,
            ErrorKind::SpawnFailed => &ErrorKind::SpawnFailed,
            ErrorKind::Panicked => &ErrorKind::Panicked,
            ErrorKind::Cancelled => &ErrorKind::Cancelled,
        }
    }
}

/// One word or two, the kind's name: the error that carries it says why (its
/// `Display`), so that a chain printed whole (anyhow's `{:#}`) reads
/// "the pool has been released: closed".
///
/// ```
/// assert_eq!(antpool::ErrorKind::Timeout.to_string(), "timed out");
/// ```
impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Overload => "overloaded",
            ErrorKind::Closed => "closed",
            ErrorKind::Timeout => "timed out",
            ErrorKind::SpawnFailed => "spawn failed",
            ErrorKind::Panicked => "panicked",
            ErrorKind::Cancelled => "cancelled",
        })
    }
}

impl core::error::Error for ErrorKind {}
