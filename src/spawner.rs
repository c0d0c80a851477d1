//! The platform seam: [`Spawner`], its [`Signal`], and the [`Job`] a new thread runs.
//!
//! A pool never starts a thread, parks one or takes a lock by itself. It asks its
//! `Spawner`, which is how a platform — OS threads, an RTOS, a test harness —
//! plugs in:
//!
//! | the pool needs | the `Spawner` supplies | std | an RTOS (e.g. FreeRTOS) |
//! |---|---|---|---|
//! | a new thread of execution | [`Spawner::spawn`] of a [`Job`] | `std::thread::Builder::spawn` | `xTaskCreate` with `Job::into_raw` as `pvParameters` |
//! | to block and be woken | [`Spawner::Signal`] | spin a little, then `thread::park` | `ulTaskNotifyTake` / `xTaskNotifyGive` |
//! | to exclude briefly | [`Spawner::Lock`] | a spin lock that yields | a critical section |
//!
//! # Writing a port
//!
//! 1. A `Signal` is a binary semaphore owned by one thread; read its contract
//!    below closely, the pool's hand-off protocol rests on it.
//! 2. `spawn` starts a thread that calls [`Job::run`] once, or hands the job back
//!    in `Err` if it cannot. It must never run the job on the calling thread.
//! 3. The lock is held for a handful of instructions (never across a task, a
//!    spawn or a notify). A spin lock is right where threads cannot be preempted
//!    by a higher-priority spinner; on a priority-scheduled single core use a
//!    critical section instead. Any [`lock_api::RawMutex`] will do.

use core::ffi::c_void;
use core::fmt;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;
use core::time::Duration;

/// A binary semaphore that one thread waits on and any thread may notify.
///
/// # Contract
///
/// The pool's correctness rests on these rules; a port must keep all of them.
///
/// 1. **Tokens.** `notify` leaves one token; `wait` consumes it, returning at once
///    if it is already there. A notify that comes before the wait is not lost.
///    Tokens do not add up: two notifies before a wait leave one token (the
///    pool never sends a second before the first was consumed).
/// 2. **No spurious returns.** `wait` returns only after consuming a token;
///    `wait_timeout` returns `true` if it consumed one and `false` if the time ran
///    out first (with no token consumed).
/// 3. **Exclusive.** Only `notify` on this signal makes tokens for it. An RTOS port
///    that maps signals to task notifications must use a notification (index) that
///    nothing else on that task uses.
/// 4. **One waiter.** A signal is made by [`Spawner::signal`] on the thread that
///    will wait on it, and only that thread waits.
/// 5. **Ordering.** Everything a thread did before `notify` happens-before
///    whatever the waiter does after the `wait` that consumed that token.
/// 6. **Hands off after the token.** The waiter may free the signal as soon as it
///    has consumed the token. So `notify` receives a raw pointer, not `&self`: it
///    copies out what it needs *before* it publishes the token, and after that
///    touches nothing of `*this`. No reference into `*this` may live across the
///    publication (a reference passed to a function lives until that function
///    returns), except a reference to the atomic that publishes it — the same
///    pattern `std::sync::Arc::drop` follows. Until the token is visible the pool
///    guarantees the signal is alive.
///
/// # What the pool promises in return
///
/// * **No stale tokens.** Every token the pool sends is consumed before the
///   signal is dropped: when a `wait_timeout` loses the race with a notify, the
///   pool calls `wait` to take the token that is on its way.
/// * **One signal in play per thread.** Others can notify a signal only while its
///   thread is about to wait on it, or is waiting on it. A thread waits on one
///   thing at a time.
///
/// So a port may back every signal a thread makes with one per-thread primitive,
/// such as a task-notification slot or the thread's park token, provided the signal
/// is made on the thread that waits on it (rule 4). The FreeRTOS port
/// (`antpool-freertos`) does this.
///
/// ```
/// use antpool::port::Signal;
/// use core::sync::atomic::{AtomicBool, Ordering};
/// use core::time::Duration;
///
/// /// A spinning signal: fine for a test or a core that nothing preempts.
/// struct SpinSignal(AtomicBool);
/// impl Signal for SpinSignal {
///     fn wait(&self) {
///         while !self.0.swap(false, Ordering::Acquire) {
///             core::hint::spin_loop();
///         }
///     }
///     fn wait_timeout(&self, _timeout: Duration) -> bool {
///         self.0.swap(false, Ordering::Acquire) // a real port would wait the timeout out
///     }
///     unsafe fn notify(this: *const Self) {
///         // SAFETY: `this` is live until the store below publishes the token; the
///         // only reference made is to that atomic.
///         unsafe { (*this).0.store(true, Ordering::Release) };
///     }
/// }
///
/// let s = SpinSignal(AtomicBool::new(false));
/// // SAFETY: `s` is live for the whole call.
/// unsafe { Signal::notify(&s) }; // before the wait: not lost
/// s.wait();
/// assert!(!s.wait_timeout(Duration::ZERO));
/// ```
pub trait Signal: Send + Sync {
    /// Blocks until a token is there, and consumes it.
    fn wait(&self);

    /// Like [`wait`](Signal::wait), but gives up after `timeout`: `true` if a token
    /// was consumed, `false` if the time ran out.
    fn wait_timeout(&self, timeout: Duration) -> bool;

    /// Leaves a token, waking the waiter if it is blocked.
    ///
    /// # Safety
    ///
    /// `this` points to a live signal. It stays live until the token this call
    /// publishes is visible to the waiter, and may be freed from then on (rule 6).
    unsafe fn notify(this: *const Self);
}

/// A platform's way to start threads, block them, and exclude them briefly.
///
/// ```
/// use antpool::port::{Job, Spawner};
/// # use antpool::port::Signal;
/// # use core::time::Duration;
/// # pub struct MySignal;
/// # impl Signal for MySignal {
/// #     fn wait(&self) {}
/// #     fn wait_timeout(&self, _: Duration) -> bool { true }
/// #     unsafe fn notify(_: *const Self) {}
/// # }
///
/// /// A spawner for an imaginary RTOS with `rtos_task_create(entry, arg) -> bool`.
/// struct RtosSpawner;
///
/// extern "C" fn entry(arg: *mut core::ffi::c_void) {
///     // SAFETY: `arg` came from `Job::into_raw` in `spawn` below, and is used once.
///     let job = unsafe { Job::from_raw(arg) };
///     job.run();
///     // ...then the task deletes itself.
/// }
/// # fn rtos_task_create(_entry: extern "C" fn(*mut core::ffi::c_void), _arg: *mut core::ffi::c_void) -> bool { false }
///
/// impl Spawner for RtosSpawner {
///     type Signal = MySignal;
///     type Lock = antpool::port::SpinLock;
///
///     fn spawn(&self, job: Job) -> Result<(), Job> {
///         let arg = job.into_raw();
///         if rtos_task_create(entry, arg) {
///             Ok(())
///         } else {
///             // SAFETY: the task was not created, so `arg` was not used; take it back.
///             Err(unsafe { Job::from_raw(arg) })
///         }
///     }
///
///     fn signal(&self) -> MySignal {
///         MySignal // e.g. remember xTaskGetCurrentTaskHandle()
///     }
/// }
/// ```
pub trait Spawner: Send + Sync + 'static {
    /// What this platform's threads block on.
    type Signal: Signal;

    /// The lock around the pool's idle queue and waiters.
    #[cfg(not(antpool_loom))]
    type Lock: lock_api::RawMutex + Send + Sync;
    /// The lock around the pool's idle queue and waiters (under loom, made at run
    /// time: loom's atomics are not `const`).
    #[cfg(antpool_loom)]
    type Lock: lock_api::RawMutex + Send + Sync + Default;

    /// Starts a new thread of execution that calls [`Job::run`] exactly once.
    ///
    /// If no thread can be started (out of memory, out of task slots), hands the
    /// job back untouched; the pool then returns the task to its submitter.
    /// Never runs the job on the calling thread, and never drops it: a dropped job
    /// still releases the pool's bookkeeping, but its task is lost.
    ///
    /// # Errors
    ///
    /// `Err(job)`, the job handed back unrun, when the platform cannot start a thread;
    /// the pool then hands the task back to its caller as
    /// [`SubmitError::SpawnFailed`](crate::SubmitError::SpawnFailed).
    fn spawn(&self, job: Job) -> Result<(), Job>;

    /// Makes a signal for the calling thread to wait on (see [`Signal`], rule 4).
    fn signal(&self) -> Self::Signal;

    /// How many threads this platform runs at the same time (its CPUs). The
    /// pool lets idle workers spin for the next task only if it is more than
    /// 1, and then at most half of them at once (two at least while tasks are
    /// tiny); on one CPU a spinner only delays the thread it waits for.
    /// Likewise a saturated submitter watches for room a moment before it
    /// parks, and tiny tasks may be left to a busy worker (under watch: see
    /// the engine's README), only above 1. The default, 1, never spins or
    /// leaves a task to a busy worker.
    ///
    /// ```
    /// use antpool::port::Spawner;
    /// assert!(antpool::port::StdSpawner::new().parallelism() >= 1);
    /// ```
    fn parallelism(&self) -> usize {
        1
    }
}

/// What a job's record starts with: how to run it and how to give it up.
pub(crate) struct JobVTable {
    /// Runs the job; consumes the record.
    pub(crate) run: unsafe fn(NonNull<JobHeader>),
    /// Gives the job up without running it; consumes the record.
    pub(crate) abandon: unsafe fn(NonNull<JobHeader>),
}

/// The first field of every job record (`#[repr(C)]`), so a pointer to the record
/// is a pointer to its header.
#[repr(C)]
pub(crate) struct JobHeader {
    pub(crate) vtable: &'static JobVTable,
    /// The worker's number in its pool (see [`Job::index`]).
    pub(crate) index: usize,
}

/// The work a new thread does: one pointer, `Send`, and FFI-friendly.
///
/// The pool makes a job when it needs a new worker, and the [`Spawner`] starts a
/// thread that calls [`run`](Job::run); the job then serves tasks until the
/// worker retires, and returns. A job is one machine word, so it can travel
/// through a C task-creation call as its `void *` argument: [`into_raw`](Job::into_raw)
/// on the way in, [`from_raw`](Job::from_raw) on the other side.
///
/// A job must be run or handed back to the pool (as `Err` from
/// [`Spawner::spawn`]). Dropping one gives it up: the pool's count of workers is
/// restored, but the task it carried is dropped.
///
/// ```
/// assert_eq!(core::mem::size_of::<antpool::port::Job>(), core::mem::size_of::<usize>());
/// ```
pub struct Job {
    header: NonNull<JobHeader>,
}

// SAFETY: a job record holds only `Send` data (the pool handle and a task, both
// required to be `Send`), and exactly one `Job` refers to it at a time.
unsafe impl Send for Job {}

impl Job {
    /// # Safety
    ///
    /// `header` heads a live job record whose vtable functions may be called once,
    /// and nothing else owns it.
    pub(crate) unsafe fn from_header(header: NonNull<JobHeader>) -> Job {
        Job { header }
    }

    /// The number of the worker this job starts, in its pool: 0 for the
    /// pool's first worker, then counting up (a number is never given twice,
    /// so a worker that retired leaves a gap). The std spawner names threads
    /// after it, and the `tracing` span of the worker carries it as `worker`;
    /// a port may name its tasks by it too.
    ///
    /// ```
    /// use antpool::port::{Job, Spawner, StdSpawner};
    /// // A spawner that records each job's index and starts it on std's thread.
    /// #[derive(Clone)]
    /// struct Named(StdSpawner, std::sync::Arc<std::sync::Mutex<Vec<usize>>>);
    /// impl Spawner for Named {
    ///     type Signal = <StdSpawner as Spawner>::Signal;
    ///     type Lock = <StdSpawner as Spawner>::Lock;
    ///     fn spawn(&self, job: Job) -> Result<(), Job> {
    ///         self.1.lock().unwrap().push(job.index());
    ///         self.0.spawn(job)
    ///     }
    ///     fn signal(&self) -> Self::Signal { self.0.signal() }
    ///     fn parallelism(&self) -> usize { self.0.parallelism() }
    /// }
    /// let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    /// let pool = antpool::Pool::builder()
    ///     .capacity(2)
    ///     .spawner(Named(StdSpawner::new(), seen.clone()))
    ///     .min_idle(2)
    ///     .build()
    ///     .unwrap();
    /// let mut indices = seen.lock().unwrap().clone();
    /// indices.sort();
    /// assert_eq!(indices, [0, 1]);
    /// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
    /// ```
    #[must_use]
    pub fn index(&self) -> usize {
        // SAFETY: the record is live while its `Job` exists (type invariant),
        // and its header is never written after it was made.
        unsafe { self.header.as_ref().index }
    }

    /// Gives up ownership without running or abandoning the record.
    pub(crate) fn into_header(self) -> NonNull<JobHeader> {
        ManuallyDrop::new(self).header
    }

    /// Runs the job on the calling thread: the worker's whole life. Returns when
    /// the worker retires; the thread should then end.
    ///
    /// ```
    /// use antpool::PoolWithFunc;
    /// use antpool::port::StdSpawner;
    /// // Std pools call `run` from `StdSpawner`; a port's thread entry does the same.
    /// let pool = PoolWithFunc::new(1, |x: u32| assert_eq!(x, 7)).unwrap();
    /// pool.invoke(7).unwrap();
    /// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
    /// ```
    pub fn run(self) {
        let header = self.into_header();
        // SAFETY: we owned the record (type invariant) and gave up the `Job`, so the
        // vtable's `run` is called exactly once. Reading the vtable pointer is sound:
        // the record is live until `run` consumes it.
        unsafe {
            let run = header.as_ref().vtable.run;
            run(header)
        }
    }

    /// The job as a raw pointer, to pass through an FFI call. Turn it back with
    /// [`from_raw`](Job::from_raw) exactly once, or the worker's bookkeeping leaks.
    ///
    /// ```
    /// # fn spawn_with(job: antpool::port::Job) {
    /// let raw: *mut core::ffi::c_void = job.into_raw();
    /// // SAFETY: `raw` came from `into_raw` just above and is used once.
    /// let job = unsafe { antpool::port::Job::from_raw(raw) };
    /// # drop(job);
    /// # }
    /// ```
    #[must_use]
    pub fn into_raw(self) -> *mut c_void {
        self.into_header().as_ptr().cast()
    }

    /// Takes back a job from [`into_raw`](Job::into_raw).
    ///
    /// # Safety
    ///
    /// `raw` must come from `Job::into_raw`, and each such pointer may be passed to
    /// `from_raw` only once.
    ///
    /// ```
    /// # fn spawn_with(job: antpool::port::Job) {
    /// let raw = job.into_raw();
    /// // SAFETY: `raw` came from `into_raw` just above and is used once.
    /// let job = unsafe { antpool::port::Job::from_raw(raw) };
    /// job.run();
    /// # }
    /// ```
    pub unsafe fn from_raw(raw: *mut c_void) -> Job {
        debug_assert!(!raw.is_null(), "Job::from_raw of a null pointer");
        // SAFETY: by the caller's contract `raw` came from `into_raw`, which never
        // returns null, and this is its only owner.
        unsafe { Job::from_header(NonNull::new_unchecked(raw.cast())) }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: we own the record (type invariant), and `drop` runs once, so the
        // record is consumed exactly once.
        unsafe {
            let abandon = self.header.as_ref().vtable.abandon;
            abandon(self.header)
        }
    }
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Job").field(&self.header).finish()
    }
}

/// A spin lock for [`Spawner::Lock`] on platforms where spinning is safe: a
/// [`spin`] mutex, which implements [`lock_api::RawMutex`].
///
/// ```
/// use lock_api::RawMutex;
/// let lock = antpool::port::SpinLock::INIT;
/// lock.lock();
/// // SAFETY: locked just above, by this thread.
/// unsafe { lock.unlock() };
/// ```
pub type SpinLock = spin::mutex::SpinMutex<()>;
