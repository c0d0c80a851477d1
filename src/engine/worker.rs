//! A worker's life: run the first task, then serve until retired.

use super::node::{Node, state};
use super::{Engine, EngineRef, Execute, Flavor, SlotEnd};
use crate::spawner::Spawner;

/// Gives the worker's slot back when the worker ends — normally (it retired,
/// and already left `running`), or by a panic unwinding out of a task that the
/// executor did not catch (it still counts in `running`).
struct ExitGuard<'a, F: Flavor> {
    engine: &'a Engine<F>,
    retired: bool,
}

impl<F: Flavor> Drop for ExitGuard<'_, F> {
    fn drop(&mut self) {
        self.engine.release_slot(match self.retired {
            true => SlotEnd::Retired,
            false => SlotEnd::Unwound,
        });
    }
}

/// The body of every worker thread. `running` already counts this worker.
pub(crate) fn run<H, F>(handle: H, first: F::Task)
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    let engine = handle.engine();
    // The mailbox lives here, on the worker's own stack, for the worker's life.
    // It is linked into the idle queue only while `next_task` parks on it.
    let mailbox = Node::new(engine.spawner.signal(), state::BUSY);
    let mut exit = ExitGuard {
        engine,
        retired: false,
    };
    let mut task = first;
    loop {
        let outcome = engine.exec.execute(task);
        match engine.next_task(&mailbox, outcome) {
            Some(next) => task = next,
            None => break,
        }
    }
    exit.retired = true;
    drop(exit);
}
