//! The std platform (feature `std`): OS threads ([`StdSpawner`]), a signal that
//! spins briefly and then parks ([`StdSignal`]), a yielding spin lock
//! ([`StdLock`]), the monotonic clock ([`StdClock`]), and panic catching.
//!
//! Everything here goes through the same [`Spawner`](crate::spawner::Spawner),
//! [`Signal`](crate::spawner::Signal) and [`Clock`](crate::clock::Clock) traits a port
//! implements; the engine never names `std`.

mod abort;
mod clock;
pub(crate) mod global;
pub(crate) mod group;
pub(crate) mod hooks;
pub(crate) mod join;
mod join_error;
mod lock;
pub(crate) mod panic;
pub(crate) mod scope;
mod signal;
mod slot;
pub(crate) mod spawn_async;
mod spawner;

pub use abort::{AbortHandle, AbortOnDrop};
pub use clock::StdClock;
pub use group::{CancelToken, GroupError, GroupSpawnAsync, JoinNext, TaskGroup, TaskId, TimedOut};
pub use join::JoinHandle;
pub use join_error::{JoinError, SpawnError};
pub use lock::StdLock;
pub use panic::{PanicHandler, current_worker_index, panic_message};
pub use scope::{Scope, ScopedJoinHandle};
pub use signal::StdSignal;
pub use spawn_async::SpawnAsync;
pub use spawner::StdSpawner;
