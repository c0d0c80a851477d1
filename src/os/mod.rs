//! The std platform (feature `std`): OS threads ([`StdSpawner`](spawner::StdSpawner)),
//! a signal that spins briefly and then parks ([`StdSignal`](signal::StdSignal)),
//! a yielding spin lock ([`StdLock`](lock::StdLock)) and the monotonic clock
//! ([`StdClock`](clock::StdClock)).
//!
//! Everything here goes through the same [`Spawner`](crate::spawner::Spawner),
//! [`Signal`](crate::spawner::Signal) and [`Clock`](crate::clock::Clock) traits a port
//! implements; the engine never names `std`. It knows nothing of the pools
//! above it: the port of the std platform, as `antpool-freertos` is
//! FreeRTOS's.

pub(crate) mod clock;
pub(crate) mod lock;
pub(crate) mod signal;
pub(crate) mod spawner;
