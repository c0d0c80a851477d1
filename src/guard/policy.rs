//! [`Policy`]: what a std worker does besides its tasks — the pool's panic
//! handler and the hooks that run on the worker's own thread when it starts
//! (before its first task) and when it stops (expiry, tune down, release).
//! The builders collect it (`hooks.rs`); [`Catching`](super::panic::Catching)
//! applies it.

use ::std::any::Any;
use ::std::boxed::Box;
use ::std::sync::Arc;

/// A panic handler: receives the payload of a task that panicked, on the worker
/// thread that ran it. Set with the builders' `panic_handler`.
///
/// ```
/// let handler: antpool::PanicHandler = std::sync::Arc::new(|payload| {
///     let msg = payload.downcast_ref::<&str>().copied().unwrap_or("?");
///     eprintln!("task panicked: {msg}");
/// });
/// # drop(handler);
/// ```
pub type PanicHandler = Arc<dyn Fn(Box<dyn Any + Send>) + Send + Sync + 'static>;

/// A worker hook: runs on the worker's thread.
pub(crate) type Hook = Arc<dyn Fn() + Send + Sync + 'static>;

/// The panic handler and the worker hooks of one pool.
#[derive(Clone)]
pub(crate) struct Policy {
    /// Gets the payload of a task or hook that panicked (default: log it).
    pub(crate) panic_handler: Option<PanicHandler>,
    /// Runs when a worker starts, before its first task.
    pub(crate) on_start: Option<Hook>,
    /// Runs when a worker stops, as the last thing it does.
    pub(crate) on_stop: Option<Hook>,
}

impl Policy {
    /// No handler, no hooks, in a `const` context.
    pub(crate) const fn none() -> Self {
        Policy {
            panic_handler: None,
            on_start: None,
            on_stop: None,
        }
    }
}
