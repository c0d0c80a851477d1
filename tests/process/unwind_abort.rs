//! A panic that would unwind through the pool's protocol while a node is linked
//! on the panicking thread's stack aborts the process, with the pool's message,
//! rather than leave the pool holding a pointer into a dead frame. User code that
//! runs there: the pool's clock, which a parked worker reads each time its
//! timed wait runs out.

use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant as StdInstant};

use antpool::Pool;
use antpool::port::{
    Clock, Instant, Job, Signal, Spawner, StdClock, StdLock, StdSignal, StdSpawner,
};

use crate::{child, common};

const CHILD: &str = "ANTPOOL_UNWIND_ABORT_CHILD";

/// What the pool prints as it aborts (its guard's panic, raised while the
/// clock's panic unwinds).
const MESSAGE: &str = "a panic unwound through the pool's hand-off protocol";

#[test]
fn a_clock_that_panics_under_a_parked_worker_aborts_the_process() {
    let _alone = common::serial();
    // An abort ends the whole process, so the scenario runs in a child.
    let (status, text) = child::run_ignored(
        "unwind_abort::clock_panics_under_a_parked_worker_child",
        CHILD,
    );
    assert!(
        text.contains("the task is submitted"),
        "the child did not run the scenario:\n{text}"
    );
    assert_eq!(
        status.signal(),
        Some(6),
        "the child was not aborted (SIGABRT): {status}\n{text}"
    );
    assert!(
        text.contains(MESSAGE),
        "the abort did not come from the pool's guard:\n{text}"
    );
}

/// Set once a parked worker's timed wait has run out: from then on the clock
/// panics. The worker reads it next inside the pool's protocol, still linked in
/// the idle queue.
static FAIL: AtomicBool = AtomicBool::new(false);

/// The std clock, until `FAIL` is set.
struct FailingClock(StdClock);

impl Clock for FailingClock {
    fn now(&self) -> Instant {
        if FAIL.load(Ordering::SeqCst) {
            panic!("the clock failed");
        }
        self.0.now()
    }
}

/// The std spawner, with a signal that sets `FAIL` when a timed wait runs out.
struct FailingSpawner(StdSpawner);

struct FailingSignal(StdSignal);

impl Signal for FailingSignal {
    fn wait(&self) {
        self.0.wait();
    }
    fn wait_timeout(&self, timeout: Duration) -> bool {
        let woken = self.0.wait_timeout(timeout);
        if !woken {
            FAIL.store(true, Ordering::SeqCst);
        }
        woken
    }
    unsafe fn notify(this: *const Self) {
        // SAFETY: `this` is live until the token is published (the caller's
        // contract), and the inner signal is the part that publishes it.
        unsafe { Signal::notify(core::ptr::addr_of!((*this).0)) }
    }
}

impl Spawner for FailingSpawner {
    type Signal = FailingSignal;
    type Lock = StdLock;
    fn spawn(&self, job: Job) -> Result<(), Job> {
        self.0.spawn(job)
    }
    fn signal(&self) -> FailingSignal {
        FailingSignal(self.0.signal())
    }
}

/// The child's half of the test above: ignored in a normal run, run by the
/// parent with `--ignored` and `ANTPOOL_UNWIND_ABORT_CHILD` set.
#[test]
#[ignore = "run in a child process by a_clock_that_panics_under_a_parked_worker_aborts_the_process"]
fn clock_panics_under_a_parked_worker_child() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "run only as the child of a_clock_that_panics_under_a_parked_worker_aborts_the_process"
    );
    let pool = Pool::builder()
        .capacity(1)
        .clock(FailingClock(StdClock::new()))
        .spawner(FailingSpawner(StdSpawner::new()))
        .expiry(Duration::from_millis(50))
        .build()
        .unwrap();
    pool.submit(|| {}).unwrap();
    println!("the task is submitted");
    // The worker parks; its timed wait runs out (the watch's period or its
    // expiry) and it reads the clock: the process ends there. Nothing here
    // touches the pool (or its clock) again; the pool is leaked, so no
    // release reads the clock either.
    std::mem::forget(pool);
    let deadline = StdInstant::now() + common::PATIENCE;
    while StdInstant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the process was not aborted");
}
