//! [`StdSpawner`]: workers on OS threads.

use ::std::format;
use ::std::string::String;
use ::std::sync::Arc;
use ::std::thread;
use core::ffi::c_void;
use core::fmt;

use super::lock::StdLock;
use super::signal::{StdSignal, max_spinning};
use crate::spawner::{Job, Spawner};

/// Starts each worker on its own OS thread, named `"{prefix}-{index}"`, where
/// `index` is the worker's number in its pool ([`Job::index`]).
///
/// A thread that cannot be started (the OS refused: `EAGAIN`, out of memory) is
/// logged through `log::warn!` and the job is handed back, so the submitter gets
/// its task back in [`SubmitError::SpawnFailed`](crate::SubmitError::SpawnFailed).
///
/// ```
/// use antpool::Pool;
/// use antpool::port::StdSpawner;
/// let spawner = StdSpawner::new().name("io").stack_size(512 << 10);
/// let pool = Pool::builder().capacity(2).spawner(spawner).build().unwrap();
/// # drop(pool);
/// ```
#[derive(Clone)]
pub struct StdSpawner {
    name: Naming,
    stack_size: Option<usize>,
}

/// How threads are named.
#[derive(Clone)]
enum Naming {
    /// `"{prefix}-{index}"`.
    Prefix(Arc<str>),
    /// What the function returns for the index.
    With(Arc<dyn Fn(usize) -> String + Send + Sync>),
}

impl StdSpawner {
    /// Threads named `antpool-worker-{index}`, with the platform's stack size.
    ///
    /// ```
    /// let _ = antpool::port::StdSpawner::new();
    /// ```
    #[must_use]
    pub fn new() -> Self {
        StdSpawner {
            name: Naming::Prefix(Arc::from("antpool-worker")),
            stack_size: None,
        }
    }

    /// Names threads `"{prefix}-{index}"`, counting from 0.
    ///
    /// ```
    /// let _ = antpool::port::StdSpawner::new().name("cpu");
    /// ```
    #[must_use]
    pub fn name(mut self, prefix: impl Into<String>) -> Self {
        self.name = Naming::Prefix(Arc::from(prefix.into()));
        self
    }

    /// Names each thread what `name` returns for its worker's number in the
    /// pool (as rayon's `thread_name`).
    ///
    /// ```
    /// let spawner = antpool::port::StdSpawner::new().name_with(|i| format!("shard-{}", i % 4));
    /// let pool = antpool::Pool::builder().capacity(1).spawner(spawner).build().unwrap();
    /// let name = pool.spawn(|| std::thread::current().name().map(String::from)).unwrap();
    /// assert_eq!(name.join().unwrap().as_deref(), Some("shard-0"));
    /// ```
    #[must_use]
    pub fn name_with(mut self, name: impl Fn(usize) -> String + Send + Sync + 'static) -> Self {
        self.name = Naming::With(Arc::new(name));
        self
    }

    /// Gives each thread a stack of `bytes`.
    ///
    /// ```
    /// let _ = antpool::port::StdSpawner::new().stack_size(1 << 20);
    /// ```
    #[must_use]
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes);
        self
    }
}

impl fmt::Debug for StdSpawner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("StdSpawner");
        match &self.name {
            Naming::Prefix(prefix) => d.field("prefix", prefix),
            Naming::With(_) => d.field("name", &"<fn>"),
        };
        d.field("stack_size", &self.stack_size).finish()
    }
}

impl Default for StdSpawner {
    fn default() -> Self {
        Self::new()
    }
}

/// A job's raw pointer, carried into the new thread.
struct RawJob(*mut c_void);

// SAFETY: it is a `Job` (which is `Send`) in raw form, owned by exactly one side.
unsafe impl Send for RawJob {}

impl RawJob {
    /// # Safety
    ///
    /// Called once, on a pointer from `Job::into_raw`.
    unsafe fn into_job(self) -> Job {
        // SAFETY: per the contract.
        unsafe { Job::from_raw(self.0) }
    }
}

impl Spawner for StdSpawner {
    type Signal = StdSignal;
    type Lock = StdLock;

    fn spawn(&self, job: Job) -> Result<(), Job> {
        let index = job.index();
        let name = match &self.name {
            Naming::Prefix(prefix) => format!("{prefix}-{index}"),
            Naming::With(name) => name(index),
        };
        let mut builder = thread::Builder::new().name(name);
        if let Some(bytes) = self.stack_size {
            builder = builder.stack_size(bytes);
        }
        // The spin limit of the worker's signal, asked now: the first ask
        // allocates (it reads cgroup files), and a worker's park must not.
        max_spinning();
        let raw = job.into_raw();
        let carried = RawJob(raw);
        let body = move || {
            // SAFETY: the closure runs at most once, and only if the spawn
            // succeeded, in which case this thread never touches `raw` again.
            unsafe { carried.into_job() }.run()
        };
        match builder.spawn(body) {
            Ok(_detached) => Ok(()),
            Err(err) => {
                log::warn!("antpool: could not start a worker thread: {err}");
                // SAFETY: the spawn failed, so the closure (and its copy of the
                // pointer) was dropped unrun; the job is ours again, taken once.
                Err(unsafe { Job::from_raw(raw) })
            }
        }
    }

    fn signal(&self) -> StdSignal {
        StdSignal::new()
    }

    fn parallelism(&self) -> usize {
        thread::available_parallelism().map_or(1, |n| n.get())
    }
}
