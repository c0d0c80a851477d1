//! [`GroupSpawnAsync`]: [`TaskGroup::spawn_async`]'s future. It waits for
//! room in the pool as `submit_async` does (the pool's `Admit`, holding the
//! task), and adds the task to the group once the pool took it. Its drop
//! before that decides, with the group's lock, whether the task counts
//! (`Shared::adopt`): the contract is in `spawn_async`'s docs.

use ::std::sync::Arc;
use core::fmt;
use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::error::{Rejected, SubmitError};
use crate::join::spawn_async::Admission;

use super::TaskGroup;
use super::shared::{Entry, TaskId};

/// The future of [`TaskGroup::spawn_async`]: resolves to the task's
/// [`TaskId`] once the pool took the task (it is then in the group), or to
/// the pool's refusal with the closure. It borrows the group. Dropped before
/// it resolves: if the pool had not taken the task, the task never runs and
/// the group does not count it; if it had, the task is in the group.
///
/// ```
/// use std::time::Duration;
/// let pool = antpool::Pool::new(1).unwrap();
/// let (hold, wait) = std::sync::mpsc::channel::<()>();
/// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
/// let mut group = pool.group::<u8>();
/// let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// rt.block_on(async {
///     // No room: the timeout drops the spawn, which withdraws its task.
///     let spawn = group.spawn_async(|| unreachable!("withdrawn"));
///     assert!(tokio::time::timeout(Duration::from_millis(10), spawn).await.is_err());
/// });
/// assert!(group.is_empty());
/// drop(hold);
/// ```
#[must_use = "a future does nothing unless polled: the task is submitted when it is awaited"]
pub struct GroupSpawnAsync<'g, F, T> {
    group: &'g mut TaskGroup<T>,
    /// Until the pool took the task, or refused it.
    admission: Option<Admission>,
    entry: Arc<Entry<T>>,
    _closure: PhantomData<fn() -> F>,
}

impl<'g, F, T> GroupSpawnAsync<'g, F, T> {
    pub(super) fn new(
        group: &'g mut TaskGroup<T>,
        admission: Admission,
        entry: Arc<Entry<T>>,
    ) -> Self {
        GroupSpawnAsync {
            group,
            admission: Some(admission),
            entry,
            _closure: PhantomData,
        }
    }
}

impl<F, T> Future for GroupSpawnAsync<'_, F, T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    type Output = Result<TaskId, SubmitError<Rejected<F>>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Some(admission) = &mut this.admission else {
            panic!("antpool: a group's spawn_async polled after it completed");
        };
        let result = match admission.as_mut().poll(cx) {
            Poll::Ready(result) => result,
            Poll::Pending => return Poll::Pending,
        };
        this.admission = None;
        let entry = this.entry.clone();
        Poll::Ready(match result {
            Ok(()) => Ok(this.group.adopt(entry, true)),
            Err(rejected) => Err(this.group.hand_back(rejected, &entry)),
        })
    }
}

impl<F, T> Drop for GroupSpawnAsync<'_, F, T> {
    fn drop(&mut self) {
        if let Some(admission) = self.admission.take() {
            // Withdraws the task unless the pool took it (then it lives on).
            drop(admission);
            self.group.adopt(self.entry.clone(), false);
        }
    }
}

impl<F, T> fmt::Debug for GroupSpawnAsync<'_, F, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GroupSpawnAsync")
            .field("id", &self.entry.id)
            .field("admitted", &self.admission.is_none())
            .finish()
    }
}
