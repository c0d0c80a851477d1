//! What the engine's unit tests share: a worker held in a task.

use std::sync::mpsc;

use crate::clock::Clock;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

/// Submits a task to `pool` that holds its worker until the returned sender
/// sends or is dropped; returns once the task runs.
pub(crate) fn hold_one<Q, C, S>(pool: &crate::Pool<Q, C, S>) -> mpsc::Sender<()>
where
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    let (started_tx, started) = mpsc::channel();
    let (finish, finish_rx) = mpsc::channel::<()>();
    pool.submit(move || {
        started_tx.send(()).unwrap();
        let _ = finish_rx.recv();
    })
    .unwrap();
    started.recv().unwrap();
    finish
}
