//! [`JoinError`]: why a spawned task produced no value — it panicked (the
//! error holds the payload) or it was cancelled — as a
//! [`JoinHandle`](super::handle::JoinHandle) (`join.rs`) or a
//! [`ScopedJoinHandle`](super::scope::ScopedJoinHandle) (`scope.rs`) reports it;
//! and [`SpawnError`], what `spawn_async`'s one `.await` reports: that, or the
//! closure rejected before it was ever submitted.

use ::std::any::Any;
use ::std::boxed::Box;
use core::fmt;

use crate::error::{Rejected, SubmitError};
use crate::error_kind::ErrorKind;

/// Why a spawned task produced no value.
///
/// ```
/// let pool = antpool::Pool::new(1).unwrap();
/// let err = pool.spawn(|| -> u8 { panic!("boom") }).unwrap().join().unwrap_err();
/// assert!(err.is_panic());
/// assert_eq!(*err.into_panic().downcast::<&str>().unwrap(), "boom");
/// ```
///
/// It is `Send + Sync + 'static`, so `?` turns it into `anyhow::Error` or
/// `Box<dyn Error + Send + Sync>`:
///
/// ```
/// fn total() -> Result<u64, Box<dyn std::error::Error + Send + Sync>> {
///     let pool = antpool::Pool::new(2)?;
///     let handle = pool.spawn(|| 6 * 7)?;
///     Ok(handle.join()?)
/// }
/// assert_eq!(total().unwrap(), 42);
/// ```
///
/// Its [`source`](core::error::Error::source) is its
/// [`kind`](JoinError::kind), `Panicked` or `Cancelled`: a service that
/// maps errors to statuses by [`ErrorKind::of`] (500 for a panic; see
/// [`ErrorKind`]) needs no downcast to `JoinError` itself.
pub struct JoinError {
    kind: Kind,
}

enum Kind {
    Panicked(Payload),
    Cancelled(Why),
}

/// Why a task never ran: what its [`JoinError`]'s message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// Its `JoinHandle`, `AbortHandle` or `AbortOnDrop` aborted it.
    Aborted,
    /// Its group was cancelled (`abort_all`, a failure, a token, the drop).
    GroupCancelled,
    /// It was dropped unrun: cleared from the queue, drained and dropped, or
    /// left in a pool that went away.
    Dropped,
}

/// A panic payload that a `&JoinError` shared between threads never exposes:
/// the payload is only `Send`, so the error may be `Sync` only because no
/// `&self` method hands out a reference to it (as tokio's `JoinError` does with
/// its `SyncWrapper`). `&self` reads it only as `&str` (a `Sync` type), and
/// the payload itself leaves by value.
struct Payload(Box<dyn Any + Send + 'static>);

// SAFETY: a shared `&Payload` gives access only through `Payload::message`,
// which downcasts to `&'static str` or `String` — both `Sync`, so reading them
// from several threads at once is sound whatever the payload's type; every
// other use of the box takes the `Payload` by value (`into_panic`).
unsafe impl Sync for Payload {}

impl Payload {
    /// The payload's text, when it is a string (the `Sync` view of it).
    fn message(&self) -> Option<&str> {
        crate::guard::panic::panic_message(&*self.0)
    }
}

impl JoinError {
    pub(crate) fn panicked(payload: Box<dyn Any + Send + 'static>) -> Self {
        JoinError {
            kind: Kind::Panicked(Payload(payload)),
        }
    }

    /// The error of a task that will never run, for `why`.
    pub(crate) fn cancelled(why: Why) -> Self {
        JoinError {
            kind: Kind::Cancelled(why),
        }
    }

    /// The panic's message when its payload is a string (what `panic!` with a
    /// message gives); `None` for a cancelled task or any other payload.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let err = pool.spawn(|| -> u8 { panic!("no {}", "luck") }).unwrap().join().unwrap_err();
    /// assert_eq!(err.panic_message(), Some("no luck"));
    /// ```
    #[must_use]
    pub fn panic_message(&self) -> Option<&str> {
        match &self.kind {
            Kind::Panicked(payload) => payload.message(),
            Kind::Cancelled(_) => None,
        }
    }

    /// Whether the task panicked.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// assert!(pool.spawn(|| panic!()).unwrap().join().unwrap_err().is_panic());
    /// ```
    #[must_use]
    pub fn is_panic(&self) -> bool {
        matches!(self.kind, Kind::Panicked(_))
    }

    /// Whether the task never ran: aborted before it began
    /// ([`JoinHandle::abort`](super::handle::JoinHandle::abort), an
    /// [`AbortHandle`](super::abort::AbortHandle), a dropped
    /// [`AbortOnDrop`](super::abort::AbortOnDrop)), cancelled with its group,
    /// or dropped without running (handed back by `release_drain`, say, and
    /// not run by the caller). The message ([`Display`](core::fmt::Display))
    /// says which. A task that began and stopped early on its
    /// [`CancelToken`](super::cancel::CancelToken) is not cancelled: it
    /// returned, and its value is the result.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(1).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap();
    /// let handle = pool.spawn(|| 7).unwrap(); // queued
    /// drop(pool.release_drain());              // handed back, and dropped
    /// assert!(handle.join().unwrap_err().is_cancelled());
    /// drop(hold);
    /// ```
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        matches!(self.kind, Kind::Cancelled(_))
    }

    /// What became of the task: [`ErrorKind::Panicked`] or
    /// [`ErrorKind::Cancelled`] (the error's
    /// [`source`](core::error::Error::source) too, so it is found after `?`).
    ///
    /// ```
    /// use antpool::ErrorKind;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let err = pool.spawn(|| panic!()).unwrap().join().unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Panicked);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self.kind {
            Kind::Panicked(_) => ErrorKind::Panicked,
            Kind::Cancelled(_) => ErrorKind::Cancelled,
        }
    }

    /// The panic payload, as `std::thread::JoinHandle::join` would give it.
    ///
    /// # Panics
    ///
    /// If the task was cancelled rather than panicked; see
    /// [`try_into_panic`](JoinError::try_into_panic).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let err = pool.spawn(|| panic!("{}", 42)).unwrap().join().unwrap_err();
    /// assert_eq!(*err.into_panic().downcast::<String>().unwrap(), "42");
    /// ```
    #[must_use]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        match self.try_into_panic() {
            Ok(payload) => payload,
            Err(_) => panic!("antpool: JoinError::into_panic on a cancelled task"),
        }
    }

    /// The panic payload, or the error back if the task was cancelled.
    ///
    /// # Errors
    ///
    /// `Err(self)` when the task was cancelled (it never ran, so there is no payload).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let err = pool.spawn(|| panic!("x")).unwrap().join().unwrap_err();
    /// assert!(err.try_into_panic().is_ok());
    /// ```
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.kind {
            Kind::Panicked(payload) => Ok(payload.0),
            Kind::Cancelled(_) => Err(self),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Panicked(_) => f.write_str("JoinError::Panicked(..)"),
            Kind::Cancelled(_) => f.write_str("JoinError::Cancelled"),
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Panicked(payload) => write!(
                f,
                "the task panicked: {}",
                payload
                    .message()
                    .unwrap_or(crate::guard::panic::NOT_A_STRING)
            ),
            Kind::Cancelled(Why::Aborted) => f.write_str("the task was aborted before it ran"),
            Kind::Cancelled(Why::GroupCancelled) => {
                f.write_str("the task's group was cancelled before it ran")
            }
            Kind::Cancelled(Why::Dropped) => f.write_str(
                "the task was dropped without running (its pool cleared or drained it, or went away)",
            ),
        }
    }
}

/// Its [`source`](core::error::Error::source) is its [`ErrorKind`]: see
/// [`ErrorKind::of`].
impl core::error::Error for JoinError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(self.kind().as_error())
    }
}

/// Why `spawn_async(f).await` produced no value: the pool refused the closure
/// ([`Submit`](SpawnError::Submit): it never ran, and comes back inside), or
/// the task panicked or was cancelled ([`Join`](SpawnError::Join)).
///
/// It is `Send + Sync + 'static` whatever the closure captures (the closure is
/// kept in a [`Rejected`]), so `?` turns it into `anyhow::Error` or
/// `Box<dyn Error + Send + Sync>`:
///
/// ```
/// async fn square(pool: &antpool::Pool, n: u64) -> Result<u64, Box<dyn std::error::Error + Send + Sync>> {
///     Ok(pool.spawn_async(move || n * n).await?)
/// }
/// let pool = antpool::Pool::new(2).unwrap();
/// assert_eq!(futures_executor::block_on(square(&pool, 7)).unwrap(), 49);
/// ```
#[non_exhaustive]
pub enum SpawnError<F> {
    /// The pool did not take the task: the closure comes back untouched.
    Submit(SubmitError<Rejected<F>>),
    /// The task was taken, and panicked or was cancelled (aborted, or dropped
    /// unrun by `clear_queue` or a drained task's owner).
    Join(JoinError),
}

impl<F> SpawnError<F> {
    /// Whether the pool refused the closure (it never ran).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let err = futures_executor::block_on(pool.spawn_async(|| 1)).unwrap_err();
    /// assert!(err.is_rejected());
    /// assert!(err.as_submit().is_some_and(|e| e.is_closed()));
    /// ```
    #[must_use]
    pub fn is_rejected(&self) -> bool {
        matches!(self, SpawnError::Submit(_))
    }

    /// Whether the task panicked.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let err = futures_executor::block_on(pool.spawn_async(|| -> u8 { panic!("boom") })).unwrap_err();
    /// assert!(err.is_panic());
    /// ```
    #[must_use]
    pub fn is_panic(&self) -> bool {
        matches!(self, SpawnError::Join(e) if e.is_panic())
    }

    /// Whether the task was cancelled: aborted, or dropped unrun after the
    /// pool took it.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let task = pool.spawn_async(|| 1);
    /// task.abort_handle().abort();
    /// assert!(futures_executor::block_on(task).unwrap_err().is_cancelled());
    /// ```
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        matches!(self, SpawnError::Join(e) if e.is_cancelled())
    }

    /// What became of the task: the refusal's kind (`Overload`, `Closed`,
    /// `Timeout`, `SpawnFailed`), or `Panicked` or `Cancelled`.
    ///
    /// ```
    /// use antpool::ErrorKind;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let err = futures_executor::block_on(pool.spawn_async(|| 1)).unwrap_err();
    /// assert_eq!(err.kind(), ErrorKind::Closed);
    /// ```
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            SpawnError::Submit(e) => e.kind(),
            SpawnError::Join(e) => e.kind(),
        }
    }

    /// The refusal, if the pool refused the closure.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(1).nonblocking(true).build().unwrap();
    /// let (hold, wait) = std::sync::mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap();
    /// let err = futures_executor::block_on(pool.spawn_async(|| 1)).unwrap_err();
    /// assert!(err.as_submit().is_some_and(|e| e.is_overload()));
    /// drop(hold);
    /// ```
    #[must_use]
    pub fn as_submit(&self) -> Option<&SubmitError<Rejected<F>>> {
        match self {
            SpawnError::Submit(e) => Some(e),
            SpawnError::Join(_) => None,
        }
    }

    /// The closure back, if the pool refused it (it never ran).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// pool.release();
    /// let err = futures_executor::block_on(pool.spawn_async(|| 6 * 7)).unwrap_err();
    /// let f = err.into_closure().expect("refused");
    /// assert_eq!(f(), 42);
    /// ```
    #[must_use]
    pub fn into_closure(self) -> Option<F> {
        match self {
            SpawnError::Submit(e) => Some(e.into_inner().into_inner()),
            SpawnError::Join(_) => None,
        }
    }

    /// The [`JoinError`], if the task was taken and did not produce a value.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let err = futures_executor::block_on(pool.spawn_async(|| -> u8 { panic!("x") })).unwrap_err();
    /// assert_eq!(err.into_join_error().unwrap().panic_message(), Some("x"));
    /// ```
    #[must_use]
    pub fn into_join_error(self) -> Option<JoinError> {
        match self {
            SpawnError::Join(e) => Some(e),
            SpawnError::Submit(_) => None,
        }
    }
}

impl<F> From<SubmitError<Rejected<F>>> for SpawnError<F> {
    fn from(e: SubmitError<Rejected<F>>) -> Self {
        SpawnError::Submit(e)
    }
}

impl<F> From<JoinError> for SpawnError<F> {
    fn from(e: JoinError) -> Self {
        SpawnError::Join(e)
    }
}

impl<F> fmt::Debug for SpawnError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::Submit(e) => f.debug_tuple("Submit").field(e).finish(),
            SpawnError::Join(e) => f.debug_tuple("Join").field(e).finish(),
        }
    }
}

impl<F> fmt::Display for SpawnError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpawnError::Submit(e) => fmt::Display::fmt(e, f),
            SpawnError::Join(e) => fmt::Display::fmt(e, f),
        }
    }
}

/// It prints as the error it holds, and its
/// [`source`](core::error::Error::source) is that error's: its
/// [`ErrorKind`], which is not generic, so after `?` a service still tells
/// "closed" (503) from "panicked" (500) with [`ErrorKind::of`]. To keep the
/// closure, take it back before the `?`:
///
/// ```
/// use antpool::{ErrorKind, Pool};
///
/// async fn square(pool: &Pool, n: u64) -> anyhow::Result<u64> {
///     match pool.spawn_async(move || n * n).await {
///         Ok(value) => Ok(value),
///         // Refused: run it here instead.
///         Err(err) if err.is_rejected() => Ok(err.into_closure().expect("refused")()),
///         Err(err) => Err(err.into()), // panicked or cancelled
///     }
/// }
///
/// async fn boom(pool: &Pool) -> anyhow::Result<u64> {
///     Ok(pool.spawn_async(|| -> u64 { panic!("boom") }).await?)
/// }
///
/// let pool = Pool::new(1).unwrap();
/// let err = futures_executor::block_on(boom(&pool)).unwrap_err();
/// assert_eq!(ErrorKind::of(err.as_ref()), Some(ErrorKind::Panicked));
/// assert_eq!(format!("{err:#}"), "the task panicked: boom: panicked");
/// pool.release();
/// assert_eq!(futures_executor::block_on(square(&pool, 7)).unwrap(), 49); // ran here
/// ```
impl<F> core::error::Error for SpawnError<F> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            SpawnError::Submit(e) => core::error::Error::source(e),
            SpawnError::Join(e) => core::error::Error::source(e),
        }
    }
}
