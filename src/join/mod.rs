//! What a caller gets back from a task (feature `std`): its
//! [`JoinHandle`](handle::JoinHandle) over a lock-free result
//! [`ResultSlot`](slot::ResultSlot), the [`JoinError`](error::JoinError) of a task that
//! panicked or was cancelled, the [`AbortHandle`](abort::AbortHandle), the
//! [`CancelToken`](cancel::CancelToken) a running task polls, and the
//! [`SpawnAsync`](spawn_async::SpawnAsync) future of an async spawn. Built on
//! the engine's submit and the caught panics of `guard/`; the faces above
//! hand these out.

pub(crate) mod abort;
pub(crate) mod cancel;
pub(crate) mod error;
pub(crate) mod handle;
pub(crate) mod slot;
#[cfg(all(test, antpool_loom))]
mod slot_loom;
pub(crate) mod spawn_async;
