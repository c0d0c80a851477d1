//! Panic catching: every task runs inside `catch_unwind`; the payload goes to the
//! pool's panic handler (default: `log::error!`) and the worker keeps serving.

use ::std::any::Any;
use ::std::boxed::Box;
use ::std::cell::Cell;
use ::std::mem::ManuallyDrop;
use ::std::panic::{AssertUnwindSafe, catch_unwind};
use ::std::string::String;

use super::policy::{Hook, Policy};
use crate::engine::{Execute, Outcome};
use crate::trace::trace_event;

/// What a task that returned normally tells its executor about itself.
enum Note {
    Nothing,
    /// It caught a panic of its own and delivered it elsewhere (to a
    /// `JoinHandle`): still counted as panicked. The message is for the
    /// `task panicked` event.
    CaughtPanic {
        #[cfg(feature = "tracing")]
        message: String,
    },
    /// It caught a panic of its own that nobody will take (its `JoinHandle`
    /// was dropped): the payload goes to the panic handler, as an uncaught
    /// task's does.
    Unclaimed(Box<dyn Any + Send>),
    /// It was aborted and did not run.
    Skipped,
}

::std::thread_local! {
    /// Whether the running task left a [`Note`] (in `NOTE`): read by the
    /// executor after every task. A `bool` in its own cell, so that read is
    /// one load of a thread-local with no destructor (a `Cell<Note>` has one,
    /// for the payload it may hold: each access then went through a call
    /// that registers it, paid on every task when not inlined; see
    /// `BENCHMARKS.md`, "What the engine's constants rest on").
    static NOTED: Cell<bool> = const { Cell::new(false) };
    /// Set by the running task (see [`Note`]), taken by the executor after it
    /// when `NOTED` says there is one.
    static NOTE: Cell<Note> = const { Cell::new(Note::Nothing) };
    /// This thread's number as a worker of a pool that catches panics (set as
    /// it starts, before its start hook): where a note is read after each
    /// task, and what [`current_worker_index`] says.
    static WORKER: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Records that the running task caught a panic of its own (`payload`), for
/// its handle.
pub(crate) fn note_caught_panic(_payload: &(dyn Any + Send)) {
    leave_note(Note::CaughtPanic {
        #[cfg(feature = "tracing")]
        message: String::from(message(_payload)),
    });
}

/// Records that the running task caught a panic nobody will take (its
/// handle is gone): the executor hands `payload` to the panic handler. Off a
/// worker — a task that `release_drain` handed out, run by its holder — the
/// panic goes on unwinding in the holder's call, as the closure's own would.
pub(crate) fn note_unclaimed_panic(payload: Box<dyn Any + Send>) {
    if WORKER.get().is_none() {
        ::std::panic::resume_unwind(payload);
    }
    leave_note(Note::Unclaimed(payload));
}

/// Records that the running task was aborted and did not run.
pub(crate) fn note_skipped() {
    leave_note(Note::Skipped);
}

/// Leaves `note` for the executor of the running task.
fn leave_note(note: Note) {
    NOTE.set(note);
    NOTED.set(true);
}

/// The note the task just run left, if any (taken: the next task starts
/// with none).
#[inline(always)]
fn take_note() -> Note {
    match NOTED.get() {
        false => Note::Nothing,
        true => {
            NOTED.set(false);
            NOTE.replace(Note::Nothing)
        }
    }
}

/// `X` with every task run under `catch_unwind`, and the worker hooks around
/// a worker's life (also under `catch_unwind`).
pub(crate) struct Catching<X> {
    inner: X,
    policy: Policy,
}

impl<X> Catching<X> {
    pub(crate) fn new(inner: X, policy: Policy) -> Self {
        Catching { inner, policy }
    }

    /// With the default handler (log) and no hooks, in a `const` context.
    pub(crate) const fn new_default(inner: X) -> Self {
        Catching {
            inner,
            policy: Policy::none(),
        }
    }

    /// Gives `payload` (of a panic in `what`) to the panic handler, or logs it.
    fn report(&self, what: &str, payload: Box<dyn Any + Send>) {
        match &self.policy.panic_handler {
            None => log::error!("antpool: {what} panicked: {}", message(&*payload)),
            Some(handler) => {
                if let Err(again) = catch_unwind(AssertUnwindSafe(|| handler(payload))) {
                    log::error!(
                        "antpool: the panic handler itself panicked: {}",
                        message(&*again)
                    );
                }
            }
        }
    }

    /// The executor inside: where a static pool keeps its function hooks.
    pub(crate) const fn inner_mut(&mut self) -> &mut X {
        &mut self.inner
    }

    /// Runs a worker hook, reporting its panic.
    fn run_hook(&self, what: &str, hook: Option<&Hook>) {
        let Some(hook) = hook else { return };
        self.run_guarded(what, || hook());
    }

    /// Runs `hook` (a worker hook), reporting its panic.
    fn run_guarded(&self, what: &str, hook: impl Fn()) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(hook)) {
            trace_event!(
                error,
                hook = what,
                panic = message(&*payload),
                "hook panicked"
            );
            self.report(what, payload);
        }
    }
}

impl<T, X: Execute<T>> Execute<T> for Catching<X> {
    // Inlined into the worker's loop: left to the compiler, this and
    // `RunTask::execute` became calls of their own once the worker's start
    // took its index, and the four-word task went through memory at each
    // (queue of 64, 4 submitters, tiny tasks: 1.1–1.5× the time; `perf`).
    #[inline(always)]
    fn execute(&self, task: T) -> Outcome {
        // The closure borrows the task and moves it out inside, rather than
        // capturing it: `catch_unwind` moves what it runs through memory (its
        // closure goes in and out of a union, behind a call through a function
        // pointer), and a task is four words. Captured by value, each tiny task
        // was copied twice more, with loads that straddled the stores just made
        // (a failed store-to-load forward each); borrowed, one worker ran the
        // same 1 000 000 tasks 22 % faster (46 → 36 ns a task) and four workers
        // on two CPUs ~45 % faster ("Where antpool loses" in BENCHMARKS.md).
        let mut task = ManuallyDrop::new(task);
        let task = &mut task;
        match catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: `catch_unwind` calls this closure exactly once, and
            // nothing reads `task` afterwards: the task is moved out once, into
            // `execute`, which owns it from then on (and drops it if it
            // unwinds); `ManuallyDrop` keeps the husk here from a second drop.
            let task = unsafe { ManuallyDrop::take(task) };
            self.inner.execute(task)
        })) {
            Ok(outcome) => match take_note() {
                Note::Nothing => outcome,
                #[cfg_attr(not(feature = "tracing"), allow(unused_variables))]
                Note::CaughtPanic {
                    #[cfg(feature = "tracing")]
                    message,
                } => {
                    trace_event!(error, panic = message, delivered = true, "task panicked");
                    Outcome::Panicked
                }
                Note::Unclaimed(payload) => {
                    trace_event!(
                        error,
                        panic = message(&*payload),
                        delivered = false,
                        "task panicked"
                    );
                    self.report("a task", payload);
                    Outcome::Panicked
                }
                Note::Skipped => Outcome::Skipped,
            },
            Err(payload) => {
                // (A note left before the panic is not the next task's.)
                drop(take_note());
                trace_event!(error, panic = message(&*payload), "task panicked");
                self.report("a task", payload);
                Outcome::Panicked
            }
        }
    }

    fn worker_started(&self, index: usize) {
        WORKER.set(Some(index));
        self.run_hook("a worker's start hook", self.policy.on_start.as_ref());
        self.run_guarded("a worker's start hook", || self.inner.worker_started(index));
    }

    fn worker_stopping(&self) {
        self.run_guarded("a worker's stop hook", || self.inner.worker_stopping());
        self.run_hook("a worker's stop hook", self.policy.on_stop.as_ref());
    }
}

/// The number of the pool worker running the calling code — in a task, or in
/// a worker hook — or `None` off a worker. Workers are numbered in their pool
/// from 0, in the order they start (a retired worker's number is not given
/// again); the std threads are named after it (`"{thread_name}-{index}"`) and
/// the `tracing` span carries it as `worker`. As rayon's
/// `current_thread_index`: per-worker state indexed by it, a log line, a
/// start hook that pins a thread.
///
/// ```
/// let pool = antpool::Pool::builder()
///     .capacity(2)
///     .thread_name("io")
///     .on_worker_start(|| {
///         let i = antpool::current_worker_index().expect("on a worker");
///         let name = std::thread::current().name().map(String::from);
///         assert_eq!(name, Some(format!("io-{i}")));
///     })
///     .build()
///     .unwrap();
/// let i = pool.spawn(|| antpool::current_worker_index()).unwrap().join().unwrap();
/// assert!(i.is_some());
/// assert_eq!(antpool::current_worker_index(), None); // not a worker
/// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
/// ```
#[must_use]
pub fn current_worker_index() -> Option<usize> {
    WORKER.get()
}

/// What a panic message reads for a payload that is not a string.
pub(crate) const NOT_A_STRING: &str = "<non-string panic payload>";

/// The text of a panic payload, when it is a string: what `panic!("...")`
/// (a `&'static str`) or `panic!("{x}")` (a `String`) gives. For a panic
/// handler, or for the payload of a [`JoinError`](crate::JoinError).
///
/// ```
/// let pool = antpool::Pool::builder()
///     .capacity(1)
///     .panic_handler(|payload| {
///         let msg = antpool::panic_message(&*payload).unwrap_or("(not a string)");
///         eprintln!("a task panicked: {msg}");
///     })
///     .build()
///     .unwrap();
/// pool.submit(|| panic!("disk full")).unwrap();
///
/// let payload: Box<dyn std::any::Any + Send> = Box::new(format!("{} left", 3));
/// assert_eq!(antpool::panic_message(&*payload), Some("3 left"));
/// assert_eq!(antpool::panic_message(&7_u8), None);
/// ```
pub fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        Some(s)
    } else {
        payload.downcast_ref::<String>().map(String::as_str)
    }
}

/// The text of a panic payload for a log line.
fn message(payload: &(dyn Any + Send)) -> &str {
    panic_message(payload).unwrap_or(NOT_A_STRING)
}
