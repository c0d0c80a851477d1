//! The pools compared, behind one face: submit a boxed task, maybe without
//! blocking, and shut down.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A task as every peer receives it (all of them box closures).
pub type Task = Box<dyn FnOnce() + Send + 'static>;

/// Every pool a Rust user would pick for this job, and the two baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// antpool's `Pool`, default options.
    Antpool,
    /// antpool's `Pool` in queue mode with a bounded queue of 64 tasks.
    AntpoolQueue,
    /// `threadpool` (unbounded queue).
    Threadpool,
    /// `rayon::ThreadPool::spawn`.
    Rayon,
    /// tokio's `spawn_blocking`, `max_blocking_threads` = cap.
    Tokio,
    /// `rusty_pool` (no core threads, max = cap, idle threads expire after 1 s).
    RustyPool,
    /// smol's `blocking::unblock` (`BLOCKING_MAX_THREADS` = cap).
    SmolBlocking,
    /// `blocking-threadpool` with a bounded queue (queue length = cap).
    BlockingThreadpool,
    /// A new thread per task.
    ThreadPerTask,
    /// A new thread per task, at most cap at once (a semaphore).
    BoundedThreadPerTask,
}

impl Kind {
    /// All peers, antpool first.
    pub const ALL: [Kind; 10] = [
        Kind::Antpool,
        Kind::AntpoolQueue,
        Kind::Threadpool,
        Kind::Rayon,
        Kind::Tokio,
        Kind::RustyPool,
        Kind::SmolBlocking,
        Kind::BlockingThreadpool,
        Kind::ThreadPerTask,
        Kind::BoundedThreadPerTask,
    ];

    /// The name in tables, JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Antpool => "antpool",
            Kind::AntpoolQueue => "antpool (queue 64)",
            Kind::Threadpool => "threadpool",
            Kind::Rayon => "rayon",
            Kind::Tokio => "tokio-spawn_blocking",
            Kind::RustyPool => "rusty_pool",
            Kind::SmolBlocking => "smol-blocking",
            Kind::BlockingThreadpool => "blocking-threadpool",
            Kind::ThreadPerTask => "thread-per-task",
            Kind::BoundedThreadPerTask => "thread-per-task-bounded",
        }
    }

    /// The peer named `name`.
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the peer makes a thread per task (slow enough that the heavy
    /// workloads run it on a share of the tasks).
    pub fn is_thread_per_task(self) -> bool {
        matches!(self, Kind::ThreadPerTask | Kind::BoundedThreadPerTask)
    }
}

/// A counting semaphore (for the bounded thread-per-task peer).
pub struct Semaphore {
    permits: Mutex<usize>,
    freed: Condvar,
}

impl Semaphore {
    fn acquire(&self) {
        let mut permits = self.permits.lock().unwrap();
        while *permits == 0 {
            permits = self.freed.wait(permits).unwrap();
        }
        *permits -= 1;
    }

    fn release(&self) {
        *self.permits.lock().unwrap() += 1;
        self.freed.notify_one();
    }
}

/// One pool, built for a capacity.
pub enum Peer {
    /// antpool.
    Antpool(antpool::Pool),
    /// threadpool.
    Threadpool(threadpool::ThreadPool),
    /// rayon.
    Rayon(rayon::ThreadPool),
    /// tokio (the runtime owns the blocking pool).
    Tokio(tokio::runtime::Runtime),
    /// rusty_pool.
    RustyPool(rusty_pool::ThreadPool),
    /// smol's blocking (a global pool).
    SmolBlocking,
    /// blocking-threadpool.
    BlockingThreadpool(blocking_threadpool::ThreadPool),
    /// thread per task.
    ThreadPerTask,
    /// thread per task, bounded.
    BoundedThreadPerTask(Arc<Semaphore>),
}

impl Peer {
    /// Builds `kind` for `cap` workers. Idle workers expire after 1 s where the
    /// peer supports expiry (antpool's default; set to match for tokio and
    /// rusty_pool).
    pub fn new(kind: Kind, cap: usize) -> Peer {
        match kind {
            Kind::Antpool => Peer::Antpool(antpool::Pool::new(cap).expect("valid capacity")),
            Kind::AntpoolQueue => Peer::Antpool(
                antpool::Pool::builder()
                    .capacity(cap)
                    .max_queued_tasks(64)
                    .build()
                    .expect("valid options"),
            ),
            Kind::Threadpool => Peer::Threadpool(threadpool::ThreadPool::new(cap)),
            Kind::Rayon => Peer::Rayon(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(cap)
                    .build()
                    .expect("rayon pool"),
            ),
            Kind::Tokio => Peer::Tokio(
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .max_blocking_threads(cap)
                    .thread_keep_alive(Duration::from_secs(1))
                    .build()
                    .expect("tokio runtime"),
            ),
            Kind::RustyPool => {
                Peer::RustyPool(rusty_pool::ThreadPool::new(0, cap, Duration::from_secs(1)))
            }
            Kind::SmolBlocking => {
                // SAFETY: called before any other thread of this (single-run)
                // process exists, as the benchmark child's first act.
                unsafe { std::env::set_var("BLOCKING_MAX_THREADS", cap.to_string()) };
                Peer::SmolBlocking
            }
            Kind::BlockingThreadpool => Peer::BlockingThreadpool(
                blocking_threadpool::Builder::new()
                    .num_threads(cap)
                    .queue_len(cap)
                    .build(),
            ),
            Kind::ThreadPerTask => Peer::ThreadPerTask,
            Kind::BoundedThreadPerTask => Peer::BoundedThreadPerTask(Arc::new(Semaphore {
                permits: Mutex::new(cap),
                freed: Condvar::new(),
            })),
        }
    }

    /// Submits `task` the peer's usual way (blocking where the peer blocks).
    pub fn submit(&self, task: Task) {
        match self {
            Peer::Antpool(p) => p.submit(task).expect("open pool"),
            Peer::Threadpool(p) => p.execute(task),
            Peer::Rayon(p) => p.spawn(task),
            Peer::Tokio(rt) => drop(rt.spawn_blocking(task)),
            Peer::RustyPool(p) => p.execute(task),
            Peer::SmolBlocking => blocking::unblock(task).detach(),
            Peer::BlockingThreadpool(p) => p.execute(task),
            Peer::ThreadPerTask => drop(std::thread::spawn(task)),
            Peer::BoundedThreadPerTask(sem) => {
                sem.acquire();
                let sem = sem.clone();
                drop(std::thread::spawn(move || {
                    task();
                    sem.release();
                }));
            }
        }
    }

    /// Submits without blocking where the peer can; `Err` hands the task back
    /// when it is saturated. `None` if the peer has no such call.
    pub fn try_submit(&self, task: Task) -> Option<Result<(), Task>> {
        match self {
            Peer::Antpool(p) => Some(p.try_submit(task).map_err(|e| e.into_inner())),
            // rusty_pool's `try_execute` queues rather than rejects; the others
            // have no non-blocking submit at all.
            _ => None,
        }
    }
}
