//! Where a group's tasks go: the engine of a [`Pool`](crate::Pool) (also the
//! default pool's). A group holds it, not the pool's handle, as workers do:
//! it never keeps a pool open.

use ::std::boxed::Box;

use crate::clock::Clock;
use crate::engine::{Admit, Engine, Mode};
use crate::error::SubmitError;
use crate::join::spawn_async::Admission;
use crate::kind::Closures;
use crate::kind::heap::ArcRef;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::task::SmallTask;

/// A pool a group submits to, by its engine(s).
pub(crate) trait Target: Send + Sync + 'static {
    /// Submits `task` as the pool's `spawn` does in `mode`, at `priority`.
    fn submit(
        &self,
        task: SmallTask,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<SmallTask>>;

    /// The async submit of `task` at `priority`: resolves once the pool took
    /// it (woken by the serve, as `submit_async`'s future is), or refused it.
    fn admit(&self, task: SmallTask, priority: Priority) -> Admission;

    /// The same pool, once more (for a group that changes its type).
    fn clone_box(&self) -> Box<dyn Target>;
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Target for ArcRef<Closures<Q, C, S>> {
    fn submit(
        &self,
        task: SmallTask,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<SmallTask>> {
        Engine::submit(self, task, mode, priority)
    }

    fn admit(&self, task: SmallTask, priority: Priority) -> Admission {
        Box::pin(Admit::new(self.clone(), task, true, priority))
    }

    fn clone_box(&self) -> Box<dyn Target> {
        Box::new(self.clone())
    }
}
