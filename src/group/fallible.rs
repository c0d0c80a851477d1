//! Groups of fallible tasks (`TaskGroup<Result<U, E>>`): the first failure
//! cancels the rest ([`TaskGroup::cancel_on_error`], Go's `errgroup` with a
//! context), and [`TaskGroup::try_join_all`] gives the values or the first
//! error ([`GroupError`]).

use ::std::vec::Vec;
use core::fmt;

use crate::error_kind::ErrorKind;
use crate::join::error::JoinError;

use super::TaskGroup;

/// Why [`TaskGroup::try_join_all`] gave no values: the first failure in
/// completion order — a task's `Err` or its panic — or, when none failed,
/// a task cancelled ([`abort_all`](TaskGroup::abort_all), a
/// [`CancelToken`](crate::CancelToken), or dropped unrun by the pool).
///
/// `Send + Sync` when `E` is, and an error whenever `E` prints, so `?` passes
/// it on (here `E` is a `String`):
///
/// ```
/// fn sizes(pool: &antpool::Pool, names: &[&'static str]) -> Result<Vec<usize>, Box<dyn std::error::Error + Send + Sync>> {
///     let mut group = pool.group::<Result<usize, String>>().cancel_on_error();
///     for &name in names {
///         group.spawn(move || name.parse::<usize>().map_err(|e| format!("{name}: {e}")))?;
///     }
///     Ok(group.try_join_all()?)
/// }
/// let pool = antpool::Pool::new(2).unwrap();
/// assert_eq!(sizes(&pool, &["1", "22"]).unwrap(), [1, 22]);
/// assert!(sizes(&pool, &["1", "x"]).is_err());
/// ```
#[non_exhaustive]
pub enum GroupError<E> {
    /// A task returned this `Err` (the first to, in completion order).
    Failed(E),
    /// A task panicked (the first failure in completion order was a panic):
    /// its payload is in the [`JoinError`].
    Panicked(JoinError),
    /// No task failed, but one or more were cancelled and gave no value.
    Cancelled,
}

impl<E> GroupError<E> {
    /// The task's error, if a task returned one.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<Result<(), &str>>();
    /// group.spawn(|| Err("no")).unwrap();
    /// assert_eq!(group.try_join_all().unwrap_err().into_failed(), Some("no"));
    /// ```
    #[must_use]
    pub fn into_failed(self) -> Option<E> {
        match self {
            GroupError::Failed(e) => Some(e),
            GroupError::Panicked(_) | GroupError::Cancelled => None,
        }
    }
}

impl<E: fmt::Debug> fmt::Debug for GroupError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Failed(e) => f.debug_tuple("Failed").field(e).finish(),
            GroupError::Panicked(e) => f.debug_tuple("Panicked").field(e).finish(),
            GroupError::Cancelled => f.write_str("Cancelled"),
        }
    }
}

impl<E: fmt::Display> fmt::Display for GroupError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Failed(e) => write!(f, "a task of the group failed: {e}"),
            GroupError::Panicked(e) => write!(f, "a task of the group panicked: {e}"),
            GroupError::Cancelled => f.write_str("a task of the group was cancelled"),
        }
    }
}

/// An error whatever the tasks' `E` is, as long as it prints (`String`,
/// `anyhow::Error` and other types that are not `std::error::Error`
/// included), so `?` passes any group's error on. The task's `E` is in the
/// message, not the [`source`](core::error::Error::source) (which that would
/// need `E: Error`); [`into_failed`](GroupError::into_failed) gives it back.
/// A panic or a cancel reports its [`ErrorKind`] as the source (the panic's
/// message is in this error's own), so [`ErrorKind::of`] finds it after `?`.
impl<E: fmt::Debug + fmt::Display> core::error::Error for GroupError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            GroupError::Panicked(e) => core::error::Error::source(e),
            GroupError::Cancelled => Some(ErrorKind::Cancelled.as_error()),
            GroupError::Failed(_) => None,
        }
    }
}

impl<U: Send + 'static, E: Send + 'static, K> TaskGroup<Result<U, E>, K> {
    /// Makes the first task that returns `Err` or panics cancel the group,
    /// as [`abort_all`](TaskGroup::abort_all) does: the worker that sees the
    /// failure cancels before it hands the result on, so no task of the group
    /// that begins after that completion runs (it joins as cancelled), and
    /// running tasks see their [`cancel_token`](TaskGroup::cancel_token)
    /// cancelled. It applies to the tasks spawned after this call: make the
    /// group with it.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap(); // one worker: one task at a time, in order
    /// let mut group = pool.group::<Result<u32, String>>().cancel_on_error();
    /// group.spawn(|| Ok(1)).unwrap();
    /// group.spawn(|| Err("bad input".to_string())).unwrap();
    /// group.spawn(|| Ok(3)).unwrap(); // begins after the failure: never runs
    /// let results = group.join_all();
    /// assert_eq!(results[0].as_ref().unwrap(), &Ok(1));
    /// assert!(results[1].as_ref().unwrap().is_err());
    /// assert!(results[2].as_ref().unwrap_err().is_cancelled());
    /// ```
    #[must_use]
    pub fn cancel_on_error(mut self) -> Self {
        self.fails = Some(Result::is_err);
        self
    }

    /// Waits for every task of the group — each completes or is skipped, so
    /// none is still running when this returns (errgroup's `Wait`) — and
    /// returns their values in spawn order, or the first failure in
    /// completion order.
    ///
    /// # Errors
    ///
    /// [`GroupError::Failed`] with the first `Err` a task returned, or
    /// [`GroupError::Panicked`] if the first failure was a panic; when no task
    /// failed but some were cancelled, [`GroupError::Cancelled`].
    ///
    /// ```
    /// let pool = antpool::Pool::new(4).unwrap();
    /// let mut group = pool.group::<Result<u64, String>>().cancel_on_error();
    /// for n in 1..=4u64 {
    ///     group.spawn(move || Ok(n * 2)).unwrap();
    /// }
    /// assert_eq!(group.try_join_all().unwrap(), [2, 4, 6, 8]);
    /// ```
    pub fn try_join_all(mut self) -> Result<Vec<U>, GroupError<E>> {
        let mut values = Vec::with_capacity(self.len());
        let mut failure = None;
        let mut cancelled = false;
        while let Some((id, result)) = self.join_next_with_id() {
            match result {
                Ok(Ok(value)) => values.push((id, value)),
                Ok(Err(e)) if failure.is_none() => failure = Some(GroupError::Failed(e)),
                Err(e) if failure.is_none() && e.is_panic() => {
                    failure = Some(GroupError::Panicked(e));
                }
                Ok(Err(_)) => {}
                Err(e) if e.is_panic() => {}
                Err(_) => cancelled = true,
            }
        }
        match failure {
            Some(failure) => Err(failure),
            None if cancelled => Err(GroupError::Cancelled),
            None => {
                values.sort_unstable_by_key(|(id, _)| *id);
                Ok(values.into_iter().map(|(_, value)| value).collect())
            }
        }
    }
}
