//! `group` on a pool of closures: a [`TaskGroup`] over a [`Pool`]'s engine.

use ::std::boxed::Box;

use super::TaskGroup;
use crate::clock::Clock;
use crate::pool::Pool;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

impl<Q: WorkerQueue, C: Clock, S: Spawner> Pool<Q, C, S> {
    /// A [`TaskGroup`](crate::TaskGroup) on this pool: tasks spawned
    /// together, joined as they complete, cancelled together. The group
    /// holds the pool's engine, not this handle: it does not keep the pool
    /// open (once the pool is released, its spawns are refused `Closed`).
    ///
    /// ```
    /// let pool = antpool::Pool::new(4).unwrap();
    /// let mut group = pool.group::<usize>();
    /// for word in ["ant", "pool", "group"] {
    ///     group.spawn(move || word.len()).unwrap();
    /// }
    /// assert_eq!(group.join_all().into_iter().map(Result::unwrap).collect::<Vec<_>>(), [3, 4, 5]);
    /// ```
    #[must_use]
    pub fn group<T: Send + 'static>(&self) -> TaskGroup<T> {
        TaskGroup::new(Box::new(self.reach()))
    }
}
