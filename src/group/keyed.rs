//! Keyed groups: a [`TaskGroup`] that takes a key of the caller's with each
//! task and gives it back with the task's result — its value, its panic or
//! its cancel (tokio-util's `JoinMap`) — so results need no map from
//! [`TaskId`] back to what each task was for. The key stays in the group's
//! registry beside the task's entry (never on the worker's side), and comes
//! out with the entry's completion.

use ::std::sync::Arc;

use crate::engine::Mode;
use crate::error::{Rejected, SubmitError};
use crate::join::error::JoinError;
use crate::priority::Priority;

use super::TaskGroup;
use super::join::TimedOut;
use super::shared::{Shared, TaskId};

impl<T> TaskGroup<T> {
    /// This group, taking a key of type `K` with each task: spawn with
    /// [`spawn_keyed`](TaskGroup::spawn_keyed), and
    /// [`join_next_keyed`](TaskGroup::join_next_keyed) gives each task's key
    /// back with its result — a panic or a cancel included. Everything else
    /// (the other joins, [`abort_all`](TaskGroup::abort_all),
    /// [`cancel_on_error`](TaskGroup::cancel_on_error), a
    /// [`cancel_token`](TaskGroup::cancel_token) taken before, the
    /// [`TaskId`] count) is as it was; the joins without a key drop it. A
    /// keyed group spawns only with `spawn_keyed`, which waits for room as
    /// [`spawn`](TaskGroup::spawn) does (the pool's options say whether it
    /// may wait).
    ///
    /// # Panics
    ///
    /// If the group has tasks not yet joined (they have no key): make the
    /// group keyed before its first spawn.
    ///
    /// ```
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<u64>().keyed::<String>();
    /// group.spawn_keyed("answer".to_string(), || 42).unwrap();
    /// let (key, result) = group.join_next_keyed().unwrap();
    /// assert_eq!((key.as_str(), result.unwrap()), ("answer", 42));
    /// ```
    #[must_use]
    pub fn keyed<K>(mut self) -> TaskGroup<T, K> {
        assert!(
            self.is_empty(),
            "antpool: TaskGroup::keyed on a group with tasks: make it keyed before its first spawn"
        );
        let mut keyed = TaskGroup::new(self.target.clone_box());
        // The completion queue and cancel word go on (a token taken before
        // stays this group's); `self` drops with a fresh one, and an empty
        // registry: it cancels nothing.
        keyed.shared = core::mem::replace(&mut self.shared, Arc::new(Shared::new()));
        keyed.next_id = self.next_id;
        keyed.generation = self.generation;
        keyed.swept = self.swept;
        keyed.fails = self.fails;
        keyed
    }
}

impl<T: Send + 'static, K> TaskGroup<T, K> {
    /// [`spawn`](TaskGroup::spawn) with a key, which
    /// [`join_next_keyed`](TaskGroup::join_next_keyed) gives back with the
    /// task's result, whatever became of the task. The group needs to be
    /// [`keyed`](TaskGroup::keyed) (a group that is not takes `()`).
    ///
    /// # Errors
    ///
    /// As for [`spawn`](TaskGroup::spawn), and the key comes back too:
    /// [`into_closure`](SubmitError::into_closure) gives `(key, f)`.
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// let pool = antpool::Pool::new(2).unwrap();
    /// let mut group = pool.group::<u64>().keyed::<&str>();
    /// for (name, n) in [("a", 1u64), ("b", 0), ("c", 5)] {
    ///     group.spawn_keyed(name, move || 10 / n).unwrap(); // "b" panics
    /// }
    /// let mut outcome = BTreeMap::new();
    /// while let Some((name, result)) = group.join_next_keyed() {
    ///     outcome.insert(name, result.map_err(|e| e.is_panic()));
    /// }
    /// assert_eq!(outcome, BTreeMap::from([("a", Ok(10)), ("b", Err(true)), ("c", Ok(2))]));
    ///
    /// pool.release();
    /// let (name, f) = group.spawn_keyed("d", || 4).unwrap_err().into_closure();
    /// assert_eq!((name, f()), ("d", 4)); // refused: both come back
    /// ```
    pub fn spawn_keyed<F>(&mut self, key: K, f: F) -> Result<TaskId, SubmitError<Rejected<(K, F)>>>
    where
        F: FnOnce() -> T + Send + 'static,
    {
        let (entry, task) = self.prepare(f, true);
        match self.target.submit(task, Mode::Block, Priority::Normal) {
            Ok(()) => Ok(self.register(entry, key)),
            Err(rejected) => Err(self
                .hand_back(rejected, &entry)
                .map(|f| Rejected::new((key, f.into_inner())))),
        }
    }
}

impl<T, K> TaskGroup<T, K> {
    /// [`join_next`](TaskGroup::join_next), with the key the task was
    /// spawned with ([`spawn_keyed`](TaskGroup::spawn_keyed)): blocks until a
    /// task completes, and gives its key and its value, or its
    /// [`JoinError`] if it panicked or was cancelled. `None` when the group
    /// is empty.
    ///
    /// ```
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(4).build().unwrap();
    /// let (hold, wait) = std::sync::mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
    /// let mut group = pool.group::<u8>().keyed::<u32>();
    /// group.spawn_keyed(7, || 1).unwrap(); // queued
    /// group.abort_all();                   // never runs
    /// let (key, result) = group.join_next_keyed().unwrap();
    /// assert_eq!(key, 7);
    /// assert!(result.unwrap_err().is_cancelled());
    /// drop(hold);
    /// ```
    pub fn join_next_keyed(&mut self) -> Option<(K, Result<T, JoinError>)> {
        match self.next_until(None) {
            Ok(next) => next.map(|(_, key, result)| (key, result)),
            Err(TimedOut) => unreachable!("antpool: a wait without a deadline timed out"),
        }
    }
}
