//! The `tracing` feature: what the pool tells a `tracing` subscriber, all with
//! the target `antpool`.
//!
//! | what | level | where |
//! |---|---|---|
//! | span `worker` (field `worker`: its number in the pool, from 0) | debug | a worker's whole life, on its own thread; every event below from a worker is inside it |
//! | `worker started` | debug | the worker's first act, before its start hook |
//! | `worker stopped` (field `unwound`: a panic unwound out of it) | debug | its last act, after its stop hook |
//! | `idle workers expired` (field `count`) | debug | expiry, and `purge` |
//! | `task rejected` (field `reason`: `overload`, `closed`, `timeout`) | debug | a submit that hands its task back |
//! | `task rejected` (`reason = "spawn failed"`) | warn | the platform could not start a worker |
//! | `task withdrawn` | debug | an async submit dropped before the pool took its task |
//! | `task panicked` (field `panic`: its message; `delivered`: to a `JoinHandle`) | error | a task's panic, caught |
//! | `hook panicked` (fields `hook`, `panic`) | error | a worker hook's panic, caught |
//!
//! Nothing is emitted under the pool's lock (a subscriber is user code), and
//! with the feature off [`trace_event!`] expands to nothing: no call, no
//! field evaluated.
//!
//! ```
//! // With `features = ["tracing"]` and any subscriber (tracing-subscriber's
//! // `fmt`, say), a pool's workers appear as `worker` spans:
//! let pool = antpool::Pool::new(2).unwrap();
//! pool.submit(|| ()).unwrap(); // inside span `worker{worker=0}`: "worker started"
//! pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
//! ```

/// Emits a `tracing` event (`level`: `debug`, `warn`, `error`, …) with the
/// target `antpool` when the `tracing` feature is on; nothing otherwise.
macro_rules! trace_event {
    ($level:ident, $($arg:tt)+) => {{
        #[cfg(feature = "tracing")]
        {
            ::tracing::$level!(target: "antpool", $($arg)+);
        }
    }};
}

pub(crate) use trace_event;
