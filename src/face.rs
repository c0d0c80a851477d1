//! What every pool face shares: the counters and the lifecycle, written once.

/// Expands to the accessor and lifecycle methods of a pool face whose engine is
/// `self.engine`. `setup` is doc-test code that runs first, `pool` an expression
/// for a pool of capacity 3, `submit` a statement that submits a trivial task to
/// `pool`.
macro_rules! lifecycle_methods {
    (setup: $setup:literal, pool: $pool:literal, submit: $submit:literal $(,)?) => {
        #[doc = "Live workers, busy or idle (never more than the capacity, except briefly"]
        #[doc = "after `tune` lowered it)."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert_eq!(pool.running(), 0); // no thread until the first task"]
        #[doc = concat!($submit, ";\nassert_eq!(pool.running(), 1);\n```")]
        pub fn running(&self) -> usize {
            self.engine.running()
        }

        #[doc = "Workers parked idle, waiting for a task."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert_eq!(pool.idle(), 0);\n```"]
        pub fn idle(&self) -> usize {
            self.engine.idle()
        }

        #[doc = "Submitters blocked waiting for a worker."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert_eq!(pool.waiting(), 0);\n```"]
        pub fn waiting(&self) -> usize {
            self.engine.waiting()
        }

        #[doc = "Tasks admitted and waiting for a worker to take them (in any mode: a hand-off pool's lane holds them for a moment)."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert_eq!(pool.queued(), 0);\n```"]
        pub fn queued(&self) -> usize {
            self.engine.queued()
        }

        #[doc = "A snapshot of every counter; see [`Stats`](crate::Stats)."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "pool.wait_idle();\nassert_eq!(pool.stats().completed, 1);\n```"]
        pub fn stats(&self) -> crate::stats::Stats {
            self.engine.stats()
        }

        #[doc = "A snapshot of the pool's timing histograms (feature `timings`): how long"]
        #[doc = "blocked submits waited for room, and timed tasks waited to start and ran;"]
        #[doc = "see [`Timings`](crate::Timings). Lock-free; empty unless the pool was"]
        #[doc = "built with `timings(..)` other than [`Sampling::Off`](crate::Sampling::Off)."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "pool.wait_idle();\nassert_eq!(pool.timings().run.count, 0); // Sampling::Off\n```"]
        #[cfg(feature = "timings")]
        pub fn timings(&self) -> crate::timings::Timings {
            self.engine.timings()
        }

        #[doc = "Blocks until no task is running, queued or waiting to be handed over;"]
        #[doc = "the pool stays open. Called from one of the pool's own tasks it never"]
        #[doc = "returns (that task is running): use `wait_idle_timeout` there. A task"]
        #[doc = "aborted in the queue counts until a worker skips it. On a paused pool"]
        #[doc = "with queued tasks it waits for `resume` (the tasks wait for it too):"]
        #[doc = "use `wait_idle_timeout`, or `pause`, which waits for the running ones."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "pool.wait_idle();\nassert_eq!(pool.idle(), pool.running());\nassert!(!pool.is_closed());\n```"]
        pub fn wait_idle(&self) {
            self.engine.wait_idle(None);
        }

        #[doc = "`wait_idle` for async code: resolves once no task is running, queued or"]
        #[doc = "waiting to be handed over, without blocking a thread (it waits in the same"]
        #[doc = "list as `wait_idle` callers; no runtime is needed). Dropped before it"]
        #[doc = "resolves, it leaves nothing behind."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "futures_executor::block_on(pool.wait_idle_async());\nassert!(pool.wait_idle_timeout(std::time::Duration::ZERO));\n```"]
        pub fn wait_idle_async(&self) -> impl core::future::Future<Output = ()> + Send + '_ {
            self.engine.wait_idle_async()
        }

        #[doc = "Like `wait_idle`, but gives up after `timeout`: `true` if the pool"]
        #[doc = "fell quiet, `false` if the time ran out first."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "assert!(pool.wait_idle_timeout(std::time::Duration::from_secs(5)));\n```"]
        pub fn wait_idle_timeout(&self, timeout: core::time::Duration) -> bool {
            self.engine.wait_idle(Some(timeout))
        }

        #[doc = "The capacity; `None` when unbounded. `release` leaves it unchanged."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert_eq!(pool.cap(), Some(3));\npool.release();\nassert_eq!(pool.cap(), Some(3));\n```"]
        pub fn cap(&self) -> Option<usize> {
            self.engine.cap()
        }

        #[doc = "`cap - running` (0 rather than negative after a `tune` down); `None`"]
        #[doc = "when unbounded."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = concat!("assert_eq!(pool.free(), Some(3));\n", $submit, ";\nassert_eq!(pool.free(), Some(2));\n```")]
        pub fn free(&self) -> Option<usize> {
            self.engine.free()
        }

        #[doc = "Pauses the pool and blocks until no task is running. While paused no"]
        #[doc = "task starts: idle workers take nothing, a worker that finishes its task"]
        #[doc = "does not start the next, and submissions behave as at capacity — a"]
        #[doc = "hand-off pool admits nothing (`try_submit` is `Overload` even with idle"]
        #[doc = "workers; `submit` blocks), a queue pool queues until its queue is full."]
        #[doc = "`resume` ends the pause; `release` does too (a released pool runs what"]
        #[doc = "it holds and ends, and `release_drain` hands the queued tasks back"]
        #[doc = "instead). On a released pool it does nothing. Called from one of the"]
        #[doc = "pool's own tasks it never returns (that task is running): use"]
        #[doc = "`pause_timeout` there."]
        #[doc = ""]
        #[doc = "While paused, `wait_idle` waits for `resume` if tasks are queued (they"]
        #[doc = "cannot run), and idle workers still expire as usual — a long pause"]
        #[doc = "sheds threads, which is what expiry is for — but for one kept for the"]
        #[doc = "queued tasks; `resume` starts workers again as the tasks need them."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "pool.pause(); // waits for the task above if it started\nassert!(pool.is_paused());"]
        #[doc = concat!("pool.resume();\nassert!(!pool.is_paused());\n", $submit, ";\npool.wait_idle();\n```")]
        pub fn pause(&self) {
            self.engine.pause(None);
        }

        #[doc = "Like `pause`, but waits at most `timeout` for the running tasks:"]
        #[doc = "`true` once none runs while the pool is paused; `false` if the time ran"]
        #[doc = "out first (the pool stays paused: nothing new starts, the running"]
        #[doc = "tasks finish), if a `resume` or `release` ended the pause meanwhile, or"]
        #[doc = "if the pool is released."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert!(pool.pause_timeout(std::time::Duration::from_secs(5)));\npool.release();\nassert!(!pool.is_paused());"]
        #[doc = "assert!(!pool.pause_timeout(std::time::Duration::ZERO)); // released\n```"]
        pub fn pause_timeout(&self, timeout: core::time::Duration) -> bool {
            self.engine.pause(Some(timeout))
        }

        #[doc = "Whether the pool is paused (`pause` was called, and no `resume` or"]
        #[doc = "`release` since)."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert!(!pool.is_paused());\npool.pause();\nassert!(pool.is_paused());\n```"]
        pub fn is_paused(&self) -> bool {
            self.engine.is_paused()
        }

        #[doc = "Whether the pool is released."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert!(!pool.is_closed());\npool.release();\nassert!(pool.is_closed());\n```"]
        pub fn is_closed(&self) -> bool {
            self.engine.is_closed()
        }

        #[doc = "Retires, now, every worker that has been idle for the expiry or longer,"]
        #[doc = "instead of waiting for their own timers; returns how many. With a"]
        #[doc = "[`ManualClock`](crate::clock::ManualClock) this is how a test sees expiry"]
        #[doc = "without sleeping. Works whether or not `disable_purge` is set."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "assert_eq!(pool.purge(), 0); // nobody idle for a second yet\n```"]
        pub fn purge(&self) -> usize {
            self.engine.purge()
        }

        #[doc = "Closes the pool: later submits are rejected, blocked submitters get"]
        #[doc = "[`SubmitError::Closed`](crate::SubmitError::Closed) with their task, and"]
        #[doc = "tasks already queued still run: the workers finish them, then exit (idle"]
        #[doc = "ones at once). Does not wait — the tasks run on detached workers, which"]
        #[doc = "end with the process if `main` returns first: `wait_idle_timeout` waits"]
        #[doc = "for them, `release_timeout` (or, in async code, `release_async`) for the"]
        #[doc = "workers to exit, and `release_drain` takes back the queued tasks instead."]
        #[doc = "A second call does nothing."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = "pool.release();\nassert!(pool.is_closed());\n```"]
        pub fn release(&self) {
            self.engine.release();
        }

        #[doc = "Releases the pool and waits up to `timeout` for every worker to exit:"]
        #[doc = "[`ReleaseError::Timeout`](crate::ReleaseError::Timeout) if some are still"]
        #[doc = "running (the pool stays closed; they exit after their task),"]
        #[doc = "[`ReleaseError::Closed`](crate::ReleaseError::Closed) if the pool was"]
        #[doc = "already released. Called from one of the pool's own tasks it can only"]
        #[doc = "time out, since the calling worker is still running. `release_async`"]
        #[doc = "waits without a thread, and without a timeout chosen up front."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`ReleaseError::Timeout`](crate::ReleaseError::Timeout) if workers still run"]
        #[doc = "when the time is up (the pool stays closed, they exit after their task, and"]
        #[doc = "`wait_released_timeout` keeps waiting); [`ReleaseError::Closed`](crate::ReleaseError::Closed)"]
        #[doc = "if the pool was already released; [`ReleaseError::Reopened`](crate::ReleaseError::Reopened)"]
        #[doc = "if a `reboot` reopened it during the wait."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n", $submit, ";\n")]
        #[doc = "pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();\nassert_eq!(pool.running(), 0);"]
        #[doc = "assert_eq!(\n    pool.release_timeout(std::time::Duration::from_secs(1)),\n    Err(antpool::ReleaseError::Closed)\n);\n```"]
        pub fn release_timeout(
            &self,
            timeout: core::time::Duration,
        ) -> Result<(), crate::error::ReleaseError> {
            self.engine.release_timeout(timeout)
        }

        #[doc = "Releases the pool **now**, as `release` does — before this returns, not"]
        #[doc = "when the future is first polled — and returns a future that waits for"]
        #[doc = "every worker to exit, without holding a thread (any executor)."]
        #[doc = ""]
        #[doc = "It resolves `Ok(())` once no worker thread is left (every stop hook"]
        #[doc = "has run). Dropping it abandons the wait and nothing else: the pool"]
        #[doc = "stays closed, queued and running tasks go on, the workers exit as they"]
        #[doc = "finish; `release_drain` takes back what has not started, and"]
        #[doc = "`wait_released_async` waits again. So"]
        #[doc = "`select! { r = pool.release_async() => r?, _ = ctrl_c() => drop(pool.release_drain()) }`"]
        #[doc = "gives up the wait on a signal. Awaited on one of the pool's own"]
        #[doc = "workers it never resolves (that worker is still running). See"]
        #[doc = "[`Release`](crate::Release)."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`ReleaseError::Closed`](crate::ReleaseError::Closed) at the first poll, without"]
        #[doc = "waiting, if the pool was already released at the call;"]
        #[doc = "[`ReleaseError::Reopened`](crate::ReleaseError::Reopened) if a `reboot` reopened"]
        #[doc = "the pool before its workers were gone. Never a timeout: drop the"]
        #[doc = "future instead."]
        #[doc = ""]
        #[doc = concat!("```
", $setup, "let pool = ", $pool, ";
", $submit, ";
")]
        #[doc = "let release = pool.release_async(); // closed already
assert!(pool.is_closed());"]
        #[doc = "futures_executor::block_on(release).unwrap();
assert_eq!(pool.running(), 0);"]
        #[doc = "assert_eq!(
    futures_executor::block_on(pool.release_async()),
    Err(antpool::ReleaseError::Closed)
);
```"]
        pub fn release_async(&self) -> crate::release::Release<'_> {
            crate::release::Release::new(crate::release::Wait::One(self.engine.release_async()))
        }

        #[doc = "Waits, without holding a thread, until the pool is released and every"]
        #[doc = "worker has exited: resumes the wait of a dropped `release_async`"]
        #[doc = "future. On an open pool it waits for a release (by any handle), then"]
        #[doc = "for the workers. Lazy, as futures are: nothing happens until it is"]
        #[doc = "polled. See [`Released`](crate::Released)."]
        #[doc = ""]
        #[doc = "# Errors"]
        #[doc = ""]
        #[doc = "[`ReleaseError::Reopened`](crate::ReleaseError::Reopened) if a `reboot` reopened"]
        #[doc = "the pool before its workers were gone."]
        #[doc = ""]
        #[doc = concat!("```
", $setup, "let pool = ", $pool, ";
", $submit, ";
")]
        #[doc = "drop(pool.release_async()); // released; the wait abandoned"]
        #[doc = "futures_executor::block_on(pool.wait_released_async()).unwrap();
assert_eq!(pool.running(), 0);
```"]
        pub fn wait_released_async(&self) -> crate::release::Released<'_> {
            crate::release::Released::new(crate::release::Wait::One(
                self.engine.wait_released_async(),
            ))
        }

        #[doc = "Blocks until the pool is released and every worker has exited, for"]
        #[doc = "at most `timeout`: `true` if that happened, `false` if the time ran"]
        #[doc = "out first or a `reboot` reopened the pool. On an open pool it waits"]
        #[doc = "for a release (by another thread) too. The blocking twin of"]
        #[doc = "`wait_released_async`, and the way to keep waiting after"]
        #[doc = "`release_timeout` timed out."]
        #[doc = ""]
        #[doc = concat!("```
", $setup, "let pool = ", $pool, ";
", $submit, ";
")]
        #[doc = "assert!(!pool.wait_released_timeout(std::time::Duration::ZERO)); // open"]
        #[doc = "pool.release();
assert!(pool.wait_released_timeout(std::time::Duration::from_secs(5)));"]
        #[doc = "assert_eq!(pool.running(), 0);
```"]
        pub fn wait_released_timeout(&self, timeout: core::time::Duration) -> bool {
            self.engine
                .wait_released(crate::engine::Awaited::Any, Some(timeout))
                .is_ok()
        }

        #[doc = "Reopens a released pool. A release still waiting for the workers to"]
        #[doc = "exit (`release_timeout`, `release_async`, `wait_released_*`) ends with"]
        #[doc = "[`ReleaseError::Reopened`](crate::ReleaseError::Reopened). On an open"]
        #[doc = "pool it does nothing."]
        #[doc = ""]
        #[doc = concat!("```\n", $setup, "let pool = ", $pool, ";\n")]
        #[doc = concat!("pool.release();\npool.reboot();\nassert!(!pool.is_closed());\n", $submit, ";\n```")]
        pub fn reboot(&self) {
            self.engine.reboot()
        }
    };
}

pub(crate) use lifecycle_methods;

/// `UnwindSafe` and `RefUnwindSafe` for a pool type: a pool observed after a
/// caught panic is a consistent pool. Its state is atomics, and a lock under
/// which no user code runs (tasks, their drops, the panic handler and the
/// platform's spawner all run outside it); the one place where an unwinding
/// panic could leave a protocol half done (a node linked on a stack) aborts
/// the process instead (`engine::AbortOnUnwind`). So
/// `catch_unwind(|| pool.spawn(..))` compiles, as it does for std's channels.
macro_rules! unwind_safe {
    ([$($generics:tt)*] $ty:ty where $($bounds:tt)*) => {
        impl<$($generics)*> core::panic::UnwindSafe for $ty where $($bounds)* {}
        impl<$($generics)*> core::panic::RefUnwindSafe for $ty where $($bounds)* {}
    };
}

pub(crate) use unwind_safe;
