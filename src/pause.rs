//! Waiting for a quiet pool, and keeping it quiet: `wait_idle` in its three
//! forms, `pause` and `resume` (gammazero/workerpool's `Pause`), and
//! `clear_queue`, on every pool. The protocol is the engine's (`quiet.rs`).

use core::time::Duration;

use crate::engine::Engine;
use crate::kind::{Kind, Reach};
use crate::pool::PoolOf;

impl<K: Kind> PoolOf<K> {
    /// Blocks until no task is running, queued or waiting to be handed over;
    /// the pool stays open. Called from one of the pool's own tasks it never
    /// returns (that task is running): use `wait_idle_timeout` there. A task
    /// aborted in the queue counts until a worker skips it. On a paused pool
    /// with queued tasks it waits for `resume` (the tasks wait for it too):
    /// use `wait_idle_timeout`, or `pause`, which waits for the running ones.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// assert_eq!(pool.idle(), pool.running());
    /// assert!(!pool.is_closed());
    /// ```
    pub fn wait_idle(&self) {
        self.engine().wait_idle(None);
    }

    /// `wait_idle` for async code: resolves once no task is running, queued or
    /// waiting to be handed over, without blocking a thread (it waits in the
    /// same list as `wait_idle` callers; no runtime is needed). Dropped before
    /// it resolves, it leaves nothing behind.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// futures_executor::block_on(pool.wait_idle_async());
    /// assert!(pool.wait_idle_timeout(std::time::Duration::ZERO));
    /// ```
    pub fn wait_idle_async(&self) -> impl core::future::Future<Output = ()> + Send + '_ {
        self.engine().wait_idle_async()
    }

    /// Like `wait_idle`, but gives up after `timeout`: `true` if the pool fell
    /// quiet, `false` if the time ran out first.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// assert!(pool.wait_idle_timeout(std::time::Duration::from_secs(5)));
    /// ```
    pub fn wait_idle_timeout(&self, timeout: Duration) -> bool {
        self.engine().wait_idle(Some(timeout))
    }

    /// Pauses the pool and blocks until no task is running. While paused no
    /// task starts: idle workers take nothing, a worker that finishes its task
    /// does not start the next, and submissions behave as at capacity — a
    /// hand-off pool admits nothing (`try_submit` is `Overload` even with idle
    /// workers; `submit` blocks), a queue pool queues until its queue is full.
    /// `resume` ends the pause; `release` does too (a released pool runs what
    /// it holds and ends, and `release_drain` hands the queued tasks back
    /// instead). On a released pool it does nothing. Called from one of the
    /// pool's own tasks it never returns (that task is running): use
    /// `pause_timeout` there.
    ///
    /// While paused, `wait_idle` waits for `resume` if tasks are queued (they
    /// cannot run), and idle workers still expire as usual — a long pause
    /// sheds threads, which is what expiry is for — but for one kept for the
    /// queued tasks; `resume` starts workers again as the tasks need them.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// pool.submit(|| ()).unwrap();
    /// pool.pause(); // waits for the task above if it started
    /// assert!(pool.is_paused());
    /// pool.resume();
    /// assert!(!pool.is_paused());
    /// pool.submit(|| ()).unwrap();
    /// pool.wait_idle();
    /// ```
    pub fn pause(&self) {
        self.engine().pause(None);
    }

    /// Like `pause`, but waits at most `timeout` for the running tasks: `true`
    /// once none runs while the pool is paused; `false` if the time ran out
    /// first (the pool stays paused: nothing new starts, the running tasks
    /// finish), if a `resume` or `release` ended the pause meanwhile, or if
    /// the pool is released.
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert!(pool.pause_timeout(std::time::Duration::from_secs(5)));
    /// pool.release();
    /// assert!(!pool.is_paused());
    /// assert!(!pool.pause_timeout(std::time::Duration::ZERO)); // released
    /// ```
    pub fn pause_timeout(&self, timeout: Duration) -> bool {
        self.engine().pause(Some(timeout))
    }

    /// Whether the pool is paused (`pause` was called, and no `resume` or
    /// `release` since).
    ///
    /// ```
    /// let pool = antpool::Pool::new(3).unwrap();
    /// assert!(!pool.is_paused());
    /// pool.pause();
    /// assert!(pool.is_paused());
    /// ```
    pub fn is_paused(&self) -> bool {
        self.engine().is_paused()
    }

    /// Ends a [`pause`](Self::pause): the tasks queued meanwhile start, and
    /// blocked submitters are let in as room allows. Does nothing if the pool
    /// is not paused.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let pool = antpool::Pool::builder().capacity(2).max_queued_tasks(8).build().unwrap();
    /// pool.pause();
    /// let ran = Arc::new(AtomicUsize::new(0));
    /// for _ in 0..5 {
    ///     let ran = Arc::clone(&ran);
    ///     pool.submit(move || { ran.fetch_add(1, Ordering::Relaxed); }).unwrap();
    /// }
    /// assert_eq!(pool.queued(), 5); // paused: queued, none started
    /// assert_eq!(ran.load(Ordering::Relaxed), 0);
    /// pool.resume();
    /// pool.wait_idle();
    /// assert_eq!(ran.load(Ordering::Relaxed), 5);
    /// ```
    pub fn resume<'a>(&'a self)
    where
        K: Reach<'a>,
    {
        self.with_ref(Engine::resume)
    }

    /// Drops every task waiting in the task queue (queue mode; in a hand-off
    /// pool, tasks admitted that no worker took yet) and returns how many. The
    /// pool stays open; running tasks go on. A dropped task never runs: the
    /// [`JoinHandle`](crate::JoinHandle) of a spawned one reports
    /// [`is_cancelled`](crate::JoinError::is_cancelled). Blocked submitters
    /// are let into the room it made. To keep the tasks instead, see
    /// [`release_drain`](Self::release_drain).
    ///
    /// ```
    /// use std::sync::mpsc;
    /// let pool = antpool::Pool::builder().capacity(1).max_queued_tasks(10).build().unwrap();
    /// let (hold, wait) = mpsc::channel::<()>();
    /// pool.submit(move || { let _ = wait.recv(); }).unwrap(); // the only worker is busy
    /// pool.submit(|| unreachable!("cleared")).unwrap();
    /// let late = pool.spawn(|| 7).unwrap();
    /// assert_eq!(pool.clear_queue(), 2);
    /// assert_eq!(pool.queued(), 0);
    /// assert!(late.join().unwrap_err().is_cancelled());
    /// drop(hold);
    /// pool.wait_idle();
    /// ```
    #[allow(clippy::must_use_candidate)] // called for its effect; the count is extra
    pub fn clear_queue<'a>(&'a self) -> usize
    where
        K: Reach<'a>,
    {
        self.with_ref(Engine::clear_queue)
    }
}
