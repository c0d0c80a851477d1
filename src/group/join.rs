//! Joining a [`TaskGroup`]: in completion order — blocking, polling, with a
//! deadline, or awaiting ([`JoinNext`], cancel-safe) — or all of it in spawn
//! order.

use ::std::sync::Arc;
use ::std::time::Instant;
use ::std::vec::Vec;
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;

use crate::join::error::JoinError;

use super::TaskGroup;
use super::shared::{Entry, TaskId};

/// [`TaskGroup::join_next_timeout`]'s error: no task completed in time.
///
/// ```
/// use std::sync::mpsc;
/// use std::time::Duration;
/// let pool = antpool::Pool::new(1).unwrap();
/// let (hold, wait) = mpsc::channel::<()>();
/// let mut group = pool.group::<()>();
/// group.spawn(move || { let _ = wait.recv(); }).unwrap();
/// let err: antpool::TimedOut = group.join_next_timeout(Duration::from_millis(5)).unwrap_err();
/// assert_eq!(err.to_string(), "no task of the group completed in time");
/// drop(hold);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedOut;

impl fmt::Display for TimedOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no task of the group completed in time")
    }
}

impl core::error::Error for TimedOut {}

/// A task's id, key and result, as the group hands them out.
pub(super) type Completion<T, K> = (TaskId, K, Result<T, JoinError>);

impl<T, K> TaskGroup<T, K> {
    /// A queued completion, out of the group (with the key it was spawned
    /// with: every queued entry is in the registry until taken here).
    fn take(&mut self, entry: Arc<Entry<T>>) -> Completion<T, K> {
        let Some(key) = self.registry.remove(entry.key) else {
            unreachable!("antpool: a group's completion came out twice")
        };
        (entry.id, key, entry.take_result())
    }

    /// The next completion, waiting until `until` (`None`: for good).
    pub(super) fn next_until(
        &mut self,
        until: Option<Instant>,
    ) -> Result<Option<Completion<T, K>>, TimedOut> {
        loop {
            if let Some(entry) = self.taken.pop_front() {
                return Ok(Some(self.take(entry)));
            }
            self.sweep_if_cancelled();
            if self.registry.len == 0 {
                return Ok(None);
            }
            let stop = self.shared.must_sweep(self.swept, self.generation);
            let took = self.shared.wait_take(&mut self.taken, until, stop);
            if !took && until.is_some_and(|until| Instant::now() >= until) {
                return Err(TimedOut);
            }
            // Took some, or stopped to sweep a cancelled generation: go round.
        }
    }

    /// Blocks until a task of the group completes, and gives its result
    /// (tasks come out in the order they completed): its value, or a
    /// [`JoinError`] if it panicked or was cancelled. `None` when the group is
    /// empty (every spawned task was joined).
    ///
    /// Called from a task of the same pool, it can deadlock a full pool.
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(3).unwrap();
    /// let mut group = pool.group::<u64>();
    /// for ms in [30u64, 10, 20] {
    ///     group.spawn(move || { std::thread::sleep(Duration::from_millis(ms)); ms }).unwrap();
    /// }
    /// let mut order = Vec::new();
    /// while let Some(result) = group.join_next() {
    ///     order.push(result.unwrap());
    /// }
    /// assert_eq!(order.len(), 3); // most likely [10, 20, 30]: the order they finished
    /// ```
    pub fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.join_next_with_id().map(|(_, result)| result)
    }

    /// [`join_next`](Self::join_next), with the [`TaskId`] its spawn returned.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<i32>();
    /// let ok = group.spawn(|| 1).unwrap();
    /// let bad = group.spawn(|| panic!("boom")).unwrap();
    /// while let Some((id, result)) = group.join_next_with_id() {
    ///     if id == bad {
    ///         assert_eq!(result.unwrap_err().panic_message(), Some("boom"));
    ///     } else {
    ///         assert_eq!((id, result.unwrap()), (ok, 1));
    ///     }
    /// }
    /// ```
    pub fn join_next_with_id(&mut self) -> Option<(TaskId, Result<T, JoinError>)> {
        match self.next_until(None) {
            Ok(next) => next.map(|(id, _, result)| (id, result)),
            Err(TimedOut) => unreachable!("antpool: a wait without a deadline timed out"),
        }
    }

    /// The result of a task that has completed, if one has; never blocks.
    /// `None` when none has yet (or the group is empty).
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// assert!(group.try_join_next().is_none());
    /// group.spawn(|| 5).unwrap();
    /// pool.wait_idle();
    /// assert_eq!(group.try_join_next().unwrap().unwrap(), 5);
    /// ```
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        if self.taken.is_empty() {
            self.sweep_if_cancelled();
            self.shared.try_take(&mut self.taken);
        }
        let entry = self.taken.pop_front()?;
        Some(self.take(entry).2)
    }

    /// [`join_next`](Self::join_next), waiting at most `timeout`.
    ///
    /// # Errors
    ///
    /// [`TimedOut`] when no task completed within `timeout` (the group is as
    /// it was: a later join gets the next completion).
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.spawn(|| 3).unwrap();
    /// let first = group.join_next_timeout(Duration::from_secs(5)).unwrap();
    /// assert_eq!(first.unwrap().unwrap(), 3);
    /// assert!(group.join_next_timeout(Duration::from_secs(5)).unwrap().is_none()); // empty
    /// ```
    pub fn join_next_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<Option<Result<T, JoinError>>, TimedOut> {
        let until = Instant::now().checked_add(timeout);
        Ok(self.next_until(until)?.map(|(_, _, result)| result))
    }

    /// [`join_next`](Self::join_next) for async code: a future that waits
    /// without blocking a thread, on any executor. **Cancel-safe**: dropped
    /// before it resolves (by `select!`, a timeout), it takes nothing — the
    /// next call gets the completion it would have.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.spawn(|| 1).unwrap();
    /// group.spawn(|| 2).unwrap();
    /// let sum = futures_executor::block_on(async {
    ///     let mut sum = 0;
    ///     while let Some(result) = group.join_next_async().await {
    ///         sum += result.unwrap();
    ///     }
    ///     sum
    /// });
    /// assert_eq!(sum, 3);
    /// ```
    pub fn join_next_async(&mut self) -> JoinNext<'_, T, K> {
        JoinNext { group: self }
    }

    /// Waits for every task of the group and returns their results in the
    /// order they were spawned (`results[i]` for the `i`-th spawn still in
    /// the group). Never panics: a task's panic is its
    /// [`JoinError`](JoinError::is_panic).
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = antpool::Pool::new(4).unwrap();
    /// let mut group = pool.group::<u64>();
    /// for i in 0..4u64 {
    ///     // The later ones finish first.
    ///     group.spawn(move || { std::thread::sleep(Duration::from_millis(20 - 5 * i)); i }).unwrap();
    /// }
    /// let results: Vec<u64> = group.join_all().into_iter().map(Result::unwrap).collect();
    /// assert_eq!(results, [0, 1, 2, 3]);
    /// ```
    #[allow(clippy::must_use_candidate)] // waiting for the tasks is a use of its own
    pub fn join_all(mut self) -> Vec<Result<T, JoinError>> {
        let mut all = Vec::with_capacity(self.len());
        while let Some(next) = self.join_next_with_id() {
            all.push(next);
        }
        all.sort_unstable_by_key(|(id, _)| *id);
        all.into_iter().map(|(_, result)| result).collect()
    }
}

/// The future of [`TaskGroup::join_next_async`]: resolves to the next
/// completion, or `None` once the group is empty. Cancel-safe: dropping it
/// before it resolves takes nothing from the group.
///
/// ```
/// use std::time::Duration;
/// let pool = antpool::Pool::new(1).unwrap();
/// let mut group = pool.group::<&str>();
/// group.spawn(|| { std::thread::sleep(Duration::from_millis(50)); "slow" }).unwrap();
/// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     tokio::select! {
///         _ = group.join_next_async() => unreachable!("not done yet"),
///         _ = tokio::time::sleep(Duration::from_millis(1)) => {} // drops the join: nothing lost
///     }
///     assert_eq!(group.join_next_async().await.unwrap().unwrap(), "slow");
/// });
/// ```
#[must_use = "a future does nothing unless polled"]
pub struct JoinNext<'a, T, K = ()> {
    group: &'a mut TaskGroup<T, K>,
}

impl<T, K> Future for JoinNext<'_, T, K> {
    type Output = Option<Result<T, JoinError>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let group = &mut *self.get_mut().group;
        loop {
            if let Some(entry) = group.taken.pop_front() {
                return Poll::Ready(Some(group.take(entry).2));
            }
            group.sweep_if_cancelled();
            if group.registry.len == 0 {
                return Poll::Ready(None);
            }
            let stop = group.shared.must_sweep(group.swept, group.generation);
            if group
                .shared
                .poll_take(&mut group.taken, cx, stop)
                .is_pending()
            {
                return Poll::Pending;
            }
            // Took some, or stopped to sweep a cancelled generation: go round.
        }
    }
}

impl<T, K> Drop for JoinNext<'_, T, K> {
    fn drop(&mut self) {
        self.group.shared.clear_waker();
    }
}

impl<T, K> fmt::Debug for JoinNext<'_, T, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinNext")
            .field("group", &self.group)
            .finish()
    }
}
