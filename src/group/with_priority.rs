//! A task group seen through one [`Priority`]: `with_priority` on a
//! [`TaskGroup`], whose spawns submit at that level.

use core::time::Duration;

use crate::engine::Mode;
use crate::error::SubmitError;
use crate::priority::Priority;

/// A [`TaskGroup`](crate::TaskGroup) seen through one [`Priority`]: its spawns
/// submit at that level (made by
/// [`TaskGroup::with_priority`](crate::TaskGroup::with_priority)).
///
/// ```
/// use antpool::{Pool, Priority};
/// let pool = Pool::builder().capacity(2).priorities(true).build().unwrap();
/// let mut group = pool.group::<u8>();
/// group.with_priority(Priority::High).spawn(|| 1).unwrap();
/// assert_eq!(group.join_next().unwrap().unwrap(), 1);
/// ```
#[derive(Debug)]
pub struct PrioritizedGroup<'a, T> {
    group: &'a mut crate::group::TaskGroup<T>,
    priority: Priority,
}

impl<T: Send + 'static> crate::group::TaskGroup<T> {
    /// This group seen through `priority`: the view's spawns submit at that
    /// level (see [`PoolOf::with_priority`](crate::PoolOf::with_priority)).
    ///
    /// ```
    /// use antpool::{Pool, Priority};
    /// let pool = Pool::builder().capacity(1).priorities(true).build().unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.with_priority(Priority::Low).spawn(|| 2).unwrap();
    /// assert_eq!(group.join_all().into_iter().map(Result::unwrap).collect::<Vec<_>>(), [2]);
    /// ```
    #[must_use]
    pub fn with_priority(&mut self, priority: Priority) -> PrioritizedGroup<'_, T> {
        PrioritizedGroup {
            group: self,
            priority,
        }
    }
}

impl<T: Send + 'static> PrioritizedGroup<'_, T> {
    /// [`TaskGroup::spawn`](crate::TaskGroup::spawn) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.with_priority(antpool::Priority::High).spawn(|| 3).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 3);
    /// ```
    pub fn spawn<F>(
        &mut self,
        f: F,
    ) -> Result<crate::group::TaskId, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_in(f, Mode::Block, self.priority)
    }

    /// [`TaskGroup::try_spawn`](crate::TaskGroup::try_spawn) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `try_spawn`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// group.with_priority(antpool::Priority::Low).try_spawn(|| 4).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 4);
    /// ```
    pub fn try_spawn<F>(
        &mut self,
        f: F,
    ) -> Result<crate::group::TaskId, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_in(f, Mode::Try, self.priority)
    }

    /// [`TaskGroup::spawn_timeout`](crate::TaskGroup::spawn_timeout) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn_timeout`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// let d = std::time::Duration::from_secs(1);
    /// group.with_priority(antpool::Priority::High).spawn_timeout(|| 5, d).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 5);
    /// ```
    pub fn spawn_timeout<F>(
        &mut self,
        f: F,
        timeout: Duration,
    ) -> Result<crate::group::TaskId, SubmitError<crate::error::Rejected<F>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_in(f, Mode::Within(timeout), self.priority)
    }

    /// [`TaskGroup::spawn_async`](crate::TaskGroup::spawn_async) at the view's level.
    ///
    /// # Errors
    ///
    /// As for `spawn_async`: the closure comes back inside the error.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// let mut group = pool.group::<u8>();
    /// futures_executor::block_on(group.with_priority(antpool::Priority::High).spawn_async(|| 6)).unwrap();
    /// assert_eq!(group.join_next().unwrap().unwrap(), 6);
    /// ```
    pub fn spawn_async<F>(&mut self, f: F) -> crate::group::GroupSpawnAsync<'_, F, T>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.group.spawn_async_at(f, self.priority)
    }
}
