//! Where a group's tasks go: the engine of a [`Pool`](crate::Pool) (also the
//! default pool's), or a [`MultiPool`](crate::MultiPool)'s engines with its
//! load balancing (`multi/shards.rs`): a multi-pool's `Target` is here,
//! beside the trait, so the faces below know nothing of groups. A group holds this, not the pool's
//! handle, as workers do: it never keeps a pool open.

use ::std::boxed::Box;
use ::std::sync::Arc;

use crate::engine::{Admit, Engine, Flavor, Mode};
use crate::error::SubmitError;
use crate::join::spawn_async::Admission;
use crate::multi::shards::Shards;
use crate::priority::Priority;
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
}

impl<F: Flavor<Task = SmallTask>> Target for Arc<Engine<F>>
where
    Engine<F>: Send + Sync,
{
    fn submit(
        &self,
        task: SmallTask,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<SmallTask>> {
        Engine::submit(self, task, mode, priority)
    }

    fn admit(&self, task: SmallTask, priority: Priority) -> Admission {
        Box::pin(Admit::<F, Arc<Engine<F>>>::new(
            self.clone(),
            task,
            true,
            priority,
        ))
    }
}

impl<F> Target for Shards<Arc<Engine<F>>>
where
    F: Flavor<Task = SmallTask>,
    Engine<F>: Send + Sync,
{
    fn submit(
        &self,
        task: SmallTask,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<SmallTask>> {
        Shards::submit(self, task, mode, priority)
    }

    fn admit(&self, task: SmallTask, priority: Priority) -> Admission {
        Box::pin(self.submit_async(task, true, priority))
    }
}
