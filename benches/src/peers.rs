//! The pools compared, behind one face: submit a boxed task, maybe without
//! blocking, and shut down.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, TrySendError};

/// A task as every peer receives it (all of them box closures).
pub type Task = Box<dyn FnOnce() + Send + 'static>;

/// Every pool a Rust user would pick for this job, and the two baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// antpool's `Pool`, default options.
    Antpool,
    /// antpool's `Pool` in queue mode with a bounded queue of 64 tasks.
    AntpoolQueue,
    /// antpool's `Pool` in queue mode with no limit on the queue.
    AntpoolUnbounded,
    /// antpool's `Pool`, default options (hand-off), at twice the capacity.
    AntpoolX2,
    /// antpool's `Pool`, default options (hand-off), at four times the capacity.
    AntpoolX4,
    /// antpool's `Pool` in queue mode with a bounded queue of 1024 tasks.
    AntpoolQueue1024,
    /// `cap` threads fed through `crossbeam_channel::bounded(cap)`: the
    /// same-job reference of antpool's hand-off mode.
    CbBounded,
    /// `cap` threads fed through `crossbeam_channel::bounded(cap)`, with exactly
    /// `cap` tasks admitted at once (a submitter takes one of `cap` permits
    /// from a second channel; a worker gives it back after the task): the
    /// hand-off's own job done with crossbeam parts, which `bounded(cap)`
    /// alone does not do (it admits up to 2 × cap).
    CbExact,
    /// `cap` threads fed through `crossbeam_channel::bounded(64)`: the
    /// same-job reference of `antpool (queue 64)`.
    CbBounded64,
    /// `cap` threads fed through `crossbeam_channel::unbounded()`.
    CbUnbounded,
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
    /// antpool's `Pool`, default options, fed by `submit_async` (each submit
    /// awaited on `futures_executor::block_on`): the `async` family.
    AntpoolAsync,
    /// antpool's `Pool` with a queue of 64, fed by `submit_async`.
    AntpoolQueueAsync,
    /// The `tokio` family (`tokio_family.rs`): antpool's hand-off through
    /// `spawn_async`, the `JoinHandle` awaited.
    TokioHandOffSpawn,
    /// The `tokio` family: antpool's queue of 64 through `spawn_async`.
    TokioQueueSpawn,
    /// The `tokio` family: antpool's hand-off through `submit_async` and a
    /// `oneshot`.
    TokioHandOffSubmit,
    /// The `tokio` family: antpool's queue of 64 through `submit_async` and a
    /// `oneshot`.
    TokioQueueSubmit,
    /// The `tokio` family: a `tokio::sync::Semaphore` of cap permits, each
    /// offload's permit moved into `spawn_blocking`.
    TokioSemaphore,
    /// The `tokio` family: `spawn_blocking` alone.
    TokioSpawnBlocking,
    /// The `tokio` family: a rayon pool of cap threads and a `oneshot`.
    TokioRayon,
    /// The `tokio` family, run by name only: antpool's hand-off through
    /// `spawn_async`, its workers started as `SCHED_BATCH` (Linux).
    TokioHandOffSpawnBatch,
    /// The `tokio` family, run by name only: antpool's queue of 64 through
    /// `spawn_async`, its workers started as `SCHED_BATCH` (Linux).
    TokioQueueSpawnBatch,
}

impl Kind {
    /// All peers, antpool first.
    pub const ALL: [Kind; 15] = [
        Kind::Antpool,
        Kind::AntpoolQueue,
        Kind::AntpoolUnbounded,
        Kind::CbBounded,
        Kind::CbExact,
        Kind::CbBounded64,
        Kind::CbUnbounded,
        Kind::Threadpool,
        Kind::Rayon,
        Kind::Tokio,
        Kind::RustyPool,
        Kind::SmolBlocking,
        Kind::BlockingThreadpool,
        Kind::ThreadPerTask,
        Kind::BoundedThreadPerTask,
    ];

    /// Peers of the medium family only (see `medium.rs`): antpool at a
    /// multiple of the capacity, and with a longer queue.
    pub const EXTRA: [Kind; 5] = [
        Kind::AntpoolX2,
        Kind::AntpoolX4,
        Kind::AntpoolQueue1024,
        Kind::AntpoolAsync,
        Kind::AntpoolQueueAsync,
    ];

    /// The name in tables, JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Antpool => "antpool",
            Kind::AntpoolQueue => "antpool (queue 64)",
            Kind::AntpoolUnbounded => "antpool (unbounded queue)",
            Kind::AntpoolX2 => "antpool (2× cap)",
            Kind::AntpoolX4 => "antpool (4× cap)",
            Kind::AntpoolQueue1024 => "antpool (queue 1024)",
            Kind::CbBounded => "cb-bounded(cap)",
            Kind::CbExact => "cb-exact(cap)",
            Kind::CbBounded64 => "cb-bounded(64)",
            Kind::CbUnbounded => "cb-unbounded",
            Kind::Threadpool => "threadpool",
            Kind::Rayon => "rayon",
            Kind::Tokio => "tokio-spawn_blocking",
            Kind::RustyPool => "rusty_pool",
            Kind::SmolBlocking => "smol-blocking",
            Kind::BlockingThreadpool => "blocking-threadpool",
            Kind::ThreadPerTask => "thread-per-task",
            Kind::BoundedThreadPerTask => "thread-per-task-bounded",
            Kind::AntpoolAsync => "antpool async",
            Kind::AntpoolQueueAsync => "antpool (queue 64) async",
            Kind::TokioHandOffSpawn => "antpool hand-off spawn_async",
            Kind::TokioQueueSpawn => "antpool queue-64 spawn_async",
            Kind::TokioHandOffSubmit => "antpool hand-off submit_async+oneshot",
            Kind::TokioQueueSubmit => "antpool queue-64 submit_async+oneshot",
            Kind::TokioSemaphore => "Semaphore+spawn_blocking",
            Kind::TokioSpawnBlocking => "spawn_blocking",
            Kind::TokioRayon => "rayon+oneshot",
            Kind::TokioHandOffSpawnBatch => "antpool hand-off spawn_async batch",
            Kind::TokioQueueSpawnBatch => "antpool queue-64 spawn_async batch",
        }
    }

    /// The peer named `name` (of [`Kind::ALL`], [`Kind::EXTRA`] or the
    /// `tokio` family's pools, those run by name only included).
    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .chain(Kind::EXTRA)
            .chain(crate::tokio_family::POOLS)
            .chain(crate::tokio_family::BY_NAME)
            .find(|k| k.name() == name)
    }

    /// Whether the peer makes a thread per task (slow enough that the heavy
    /// workloads run it on a share of the tasks).
    pub fn is_thread_per_task(self) -> bool {
        matches!(self, Kind::ThreadPerTask | Kind::BoundedThreadPerTask)
    }

    /// Whether this is one of antpool's modes.
    pub fn is_antpool(self) -> bool {
        matches!(
            self,
            Kind::Antpool
                | Kind::AntpoolQueue
                | Kind::AntpoolUnbounded
                | Kind::AntpoolX2
                | Kind::AntpoolX4
                | Kind::AntpoolQueue1024
                | Kind::TokioHandOffSpawn
                | Kind::TokioQueueSpawn
                | Kind::TokioHandOffSubmit
                | Kind::TokioQueueSubmit
                | Kind::TokioHandOffSpawnBatch
                | Kind::TokioQueueSpawnBatch
        )
    }

    /// The peers with an unbounded queue, among which the fastest is the
    /// reference of `antpool (unbounded queue)`.
    pub const UNBOUNDED: [Kind; 4] = [
        Kind::Threadpool,
        Kind::RustyPool,
        Kind::Rayon,
        Kind::CbUnbounded,
    ];

    /// The peer doing the same job as an antpool mode: `Some(kind)` for a fixed
    /// reference, `None` for "the fastest of [`Kind::UNBOUNDED`]"; not an antpool
    /// mode, or one of [`Kind::EXTRA`] (whose family compares with the best
    /// pool instead): `None` too.
    pub fn same_job(self) -> Option<Kind> {
        match self {
            Kind::Antpool => Some(Kind::CbBounded),
            Kind::AntpoolQueue => Some(Kind::CbBounded64),
            _ => None,
        }
    }
}

/// `cap` threads that each loop on `rx.recv()` and run the task: the plainest
/// pool there is, over a crossbeam channel.
pub struct ChannelPool {
    /// The submitting end; dropped first at shutdown.
    tx: Option<Sender<Task>>,
    /// `cb-exact(cap)`: the permits, one per task in flight (a submitter
    /// takes one before it sends; a worker sends it back after the task).
    permits: Option<Receiver<()>>,
    /// The worker threads, joined at shutdown.
    threads: Vec<JoinHandle<()>>,
}

impl ChannelPool {
    /// Starts `cap` threads reading from the channel `(tx, rx)`.
    fn new(cap: usize, (tx, rx): (Sender<Task>, Receiver<Task>)) -> ChannelPool {
        ChannelPool::with_permits(cap, (tx, rx), None)
    }

    /// `cap` threads over `bounded(cap)` that admit exactly `cap` tasks at once:
    /// `cap` permits in a channel of their own.
    fn exact(cap: usize) -> ChannelPool {
        let permits = crossbeam_channel::bounded(cap);
        for _ in 0..cap {
            permits.0.send(()).expect("room for every permit");
        }
        ChannelPool::with_permits(cap, crossbeam_channel::bounded(cap), Some(permits))
    }

    /// Starts `cap` threads reading from `(tx, rx)`. With `permits`, a
    /// submitter takes one from its receiving end before it sends, and each
    /// worker sends one back to its sending end after every task.
    fn with_permits(
        cap: usize,
        (tx, rx): (Sender<Task>, Receiver<Task>),
        permits: Option<(Sender<()>, Receiver<()>)>,
    ) -> ChannelPool {
        let (give_back, permits) = permits.unzip();
        let threads = (0..cap)
            .map(|_| {
                let rx = rx.clone();
                let give_back = give_back.clone();
                std::thread::spawn(move || {
                    while let Ok(task) = rx.recv() {
                        task();
                        if let Some(give_back) = &give_back {
                            // (Fails only once the pool is dropped.)
                            let _ = give_back.send(());
                        }
                    }
                })
            })
            .collect();
        ChannelPool {
            tx: Some(tx),
            permits,
            threads,
        }
    }

    /// The submitting end (there until drop).
    fn sender(&self) -> &Sender<Task> {
        self.tx.as_ref().expect("the sender lives until drop")
    }

    /// Sends `task`, first taking a permit if the pool admits exactly `cap`.
    fn send(&self, task: Task) {
        if let Some(permits) = &self.permits {
            permits.recv().expect("workers alive");
        }
        self.sender().send(task).expect("workers alive");
    }

    /// Sends `task` if the pool has room now; hands it back if not.
    fn try_send(&self, task: Task) -> Result<(), Task> {
        if let Some(permits) = &self.permits
            && permits.try_recv().is_err()
        {
            return Err(task);
        }
        self.sender().try_send(task).map_err(|e| match e {
            TrySendError::Full(task) | TrySendError::Disconnected(task) => task,
        })
    }
}

impl Drop for ChannelPool {
    /// Shutdown: drop the sender (every `recv` then fails once the channel is
    /// empty) and join the threads.
    fn drop(&mut self) {
        drop(self.tx.take());
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A counting semaphore (for the bounded thread-per-task peer).
pub struct Semaphore {
    /// Permits left.
    permits: Mutex<usize>,
    /// Signalled when a permit comes back.
    freed: Condvar,
}

impl Semaphore {
    /// Takes a permit, waiting for one if none is left.
    fn acquire(&self) {
        let mut permits = self.permits.lock().unwrap();
        while *permits == 0 {
            permits = self.freed.wait(permits).unwrap();
        }
        *permits -= 1;
    }

    /// Gives a permit back.
    fn release(&self) {
        *self.permits.lock().unwrap() += 1;
        self.freed.notify_one();
    }
}

/// One pool, built for a capacity.
pub enum Peer {
    /// antpool.
    Antpool(antpool::Pool),
    /// antpool, fed by `submit_async`.
    AntpoolAsync(antpool::Pool),
    /// threadpool.
    Threadpool(threadpool::ThreadPool),
    /// rayon.
    Rayon(rayon::ThreadPool),
    /// tokio (the runtime owns the blocking pool).
    Tokio(tokio::runtime::Runtime),
    /// rusty_pool.
    RustyPool(rusty_pool::ThreadPool),
    /// Threads over a crossbeam channel (bounded or not).
    Channel(ChannelPool),
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
            Kind::Antpool => Peer::Antpool(crate::sampling::pool(cap)),
            Kind::AntpoolAsync => Peer::AntpoolAsync(crate::sampling::pool(cap)),
            Kind::AntpoolQueueAsync => Peer::AntpoolAsync(
                crate::sampling::builder()
                    .capacity(cap)
                    .max_queued_tasks(64)
                    .build()
                    .expect("valid options"),
            ),
            Kind::AntpoolX2 => Peer::Antpool(crate::sampling::pool(2 * cap)),
            Kind::AntpoolX4 => Peer::Antpool(crate::sampling::pool(4 * cap)),
            Kind::AntpoolQueue | Kind::AntpoolQueue1024 => Peer::Antpool(
                crate::sampling::builder()
                    .capacity(cap)
                    .max_queued_tasks(match kind {
                        Kind::AntpoolQueue => 64,
                        _ => 1024,
                    })
                    .build()
                    .expect("valid options"),
            ),
            Kind::AntpoolUnbounded => Peer::Antpool(
                crate::sampling::builder()
                    .capacity(cap)
                    .unbounded_queue()
                    .build()
                    .expect("valid options"),
            ),
            Kind::CbBounded => {
                Peer::Channel(ChannelPool::new(cap, crossbeam_channel::bounded(cap)))
            }
            Kind::CbExact => Peer::Channel(ChannelPool::exact(cap)),
            Kind::CbBounded64 => {
                Peer::Channel(ChannelPool::new(cap, crossbeam_channel::bounded(64)))
            }
            Kind::CbUnbounded => {
                Peer::Channel(ChannelPool::new(cap, crossbeam_channel::unbounded()))
            }
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
            Kind::TokioHandOffSpawn
            | Kind::TokioQueueSpawn
            | Kind::TokioHandOffSubmit
            | Kind::TokioQueueSubmit
            | Kind::TokioSemaphore
            | Kind::TokioSpawnBlocking
            | Kind::TokioRayon
            | Kind::TokioHandOffSpawnBatch
            | Kind::TokioQueueSpawnBatch => {
                panic!(
                    "{}: a pool of the tokio family (tokio_family.rs)",
                    kind.name()
                )
            }
        }
    }

    /// Submits `task` the peer's usual way (blocking where the peer blocks),
    /// as its users pass it: the closure itself to every pool whose submit is
    /// generic (each stores it as it does: antpool inline when it fits three
    /// words, threadpool and rayon in their own box), and boxed for the
    /// channel pools, whose users must box to put a closure in a channel.
    /// (Until 2026-11-25 every peer was handed a `Box` made here: the pools
    /// with a generic submit then stored a box inside their own; see
    /// BENCHMARKS.md.)
    pub fn submit<F: FnOnce() + Send + 'static>(&self, task: F) {
        match self {
            Peer::Antpool(p) => p.submit(task).expect("open pool"),
            Peer::AntpoolAsync(p) => {
                futures_executor::block_on(p.submit_async(task)).expect("open pool")
            }
            Peer::Threadpool(p) => p.execute(task),
            Peer::Rayon(p) => p.spawn(task),
            Peer::Tokio(rt) => drop(rt.spawn_blocking(task)),
            Peer::RustyPool(p) => p.execute(task),
            Peer::Channel(p) => p.send(Box::new(task)),
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
            Peer::Antpool(p) | Peer::AntpoolAsync(p) => {
                Some(p.try_submit(task).map_err(|e| e.into_inner().into_box()))
            }
            Peer::Channel(p) => Some(p.try_send(task)),
            // rusty_pool's `try_execute` queues rather than rejects; the others
            // have no non-blocking submit at all.
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// `cb-exact(cap)` admits `cap` tasks and refuses the next until one
    /// finishes; `cb-bounded(cap)` queues `cap` more besides the running ones.
    #[test]
    fn cb_exact_admits_exactly_cap_tasks() {
        let cap = 2;
        for (kind, admitted) in [(Kind::CbExact, cap), (Kind::CbBounded, 2 * cap)] {
            let peer = Peer::new(kind, cap);
            let gate = Arc::new(Barrier::new(cap + 1));
            let started = Arc::new(AtomicUsize::new(0));
            for _ in 0..cap {
                let (gate, started) = (gate.clone(), started.clone());
                peer.submit(move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    gate.wait();
                });
            }
            // Every worker holds a task: the channel is empty.
            while started.load(Ordering::SeqCst) < cap {
                std::thread::yield_now();
            }
            let mut queued = 0;
            while queued < 3 * cap {
                if peer
                    .try_submit(Box::new(|| {}))
                    .expect("has try_submit")
                    .is_err()
                {
                    break;
                }
                queued += 1;
            }
            // (Let the workers go before asserting: a panic with them held
            // would hang in the pool's join.)
            gate.wait();
            assert_eq!(cap + queued, admitted, "{}", kind.name());
            // The refusal was saturation, not a closed pool: room comes back.
            let mut back = Box::new(|| {}) as Task;
            loop {
                match peer.try_submit(back).expect("has try_submit") {
                    Ok(()) => break,
                    Err(task) => back = task,
                }
                std::thread::yield_now();
            }
        }
    }
}
