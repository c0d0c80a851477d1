//! What a worker does besides its tasks, as a builder collects it: the panic
//! handler, and the hooks that run on the worker's own thread when it starts
//! (before its first task) and when it stops (expiry, tune down, release).
//!
//! They need `std` (the panic of a hook is caught and reported, as a task's
//! is); a static pool on an RTOS has neither yet.

use ::std::sync::Arc;

use crate::builder::Builder;

/// A worker hook: runs on the worker's thread.
pub(crate) type Hook = Arc<dyn Fn() + Send + Sync + 'static>;

/// The panic handler and the worker hooks of one pool.
#[derive(Clone)]
pub(crate) struct Policy {
    /// Gets the payload of a task or hook that panicked (default: log it).
    pub(crate) panic_handler: Option<super::panic::PanicHandler>,
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

impl<M, Q, C, S> Builder<M, Q, C, S> {
    /// What to do with the payload of a task that panicked (the worker
    /// survives), or of a worker hook that did. Default: log it through
    /// `log::error!`.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let seen = Arc::new(AtomicUsize::new(0));
    /// let s = seen.clone();
    /// let pool = antpool::Pool::builder()
    ///     .capacity(1)
    ///     .panic_handler(move |_payload| { s.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// pool.submit(|| panic!("boom")).unwrap();
    /// pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
    /// assert_eq!(seen.load(Ordering::SeqCst), 1);
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn panic_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(alloc::boxed::Box<dyn core::any::Any + Send>) + Send + Sync + 'static,
    {
        self.policy_mut().panic_handler = Some(Arc::new(handler));
        self
    }

    /// Runs `hook` on each worker's own thread when it starts, before its
    /// first task: to set up thread-locals, pin the thread, name a tracing
    /// span. A hook that panics goes to the panic handler; the worker still
    /// runs its task.
    ///
    /// ```
    /// use std::cell::Cell;
    /// thread_local!(static READY: Cell<bool> = const { Cell::new(false) });
    ///
    /// let pool = antpool::Pool::builder()
    ///     .capacity(2)
    ///     .on_worker_start(|| READY.set(true))
    ///     .build()
    ///     .unwrap();
    /// let ready = pool.spawn(|| READY.get()).unwrap().join().unwrap();
    /// assert!(ready, "the hook ran on the worker's thread, before the task");
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn on_worker_start<F>(mut self, hook: F) -> Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.policy_mut().on_start = Some(Arc::new(hook));
        self
    }

    /// Runs `hook` on each worker's own thread when it stops — expired, tuned
    /// down, or released — as the last thing it does: to flush what it
    /// buffered. It is part of the worker's exit: when `release_timeout`
    /// returns `Ok`, every stop hook has run. A hook that panics goes to the
    /// panic handler.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use std::time::Duration;
    ///
    /// let stopped = Arc::new(AtomicUsize::new(0));
    /// let s = stopped.clone();
    /// let pool = antpool::Pool::builder()
    ///     .capacity(4)
    ///     .on_worker_stop(move || { s.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// for _ in 0..8 {
    ///     pool.submit(|| std::thread::sleep(Duration::from_millis(1))).unwrap();
    /// }
    /// pool.release_timeout(Duration::from_secs(5)).unwrap();
    /// assert_eq!(stopped.load(Ordering::SeqCst), pool.stats().spawned);
    /// ```
    #[must_use = "a builder does nothing until `build()`: use the one this returns"]
    pub fn on_worker_stop<F>(mut self, hook: F) -> Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.policy_mut().on_stop = Some(Arc::new(hook));
        self
    }
}
