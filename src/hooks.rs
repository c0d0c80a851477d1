//! The builders' `panic_handler`, `on_worker_start` and `on_worker_stop`:
//! what a worker does besides its tasks (kept in a [`Policy`], which the
//! workers' [`Catching`](crate::guard::panic::Catching) applies).
//!
//! They need `std` (the panic of a hook is caught and reported, as a task's
//! is); a static pool on an RTOS has neither yet.

use ::std::sync::Arc;

use crate::builder::Builder;
#[cfg(doc)]
use crate::guard::policy::Policy;

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
