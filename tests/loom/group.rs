//! Models of a task group (`src/group/`): the group's abort racing a
//! worker that begins the task (the slot's phase decides, and whoever wins
//! queues the one completion), a failure under `cancel_on_error` cancelling
//! what begins after it while the joiner waits, and a token cancelled on
//! another thread waking a joiner that waits for a task no worker can reach.
//! A lost wake-up of the joiner is a deadlock, which loom reports.

use std::time::Duration;

use antpool::GroupError;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;

use super::{check, std_pool};

#[test]
fn an_abort_racing_the_start_gives_one_completion() {
    check("group: abort vs start", || {
        // A hand-off pool: the spawn starts a worker carrying the task, and
        // the abort races it.
        let pool = std_pool(1, 0);
        let ran = Arc::new(AtomicUsize::new(0));
        let mut group = pool.group::<u32>();
        let r = ran.clone();
        group
            .spawn(move || {
                r.fetch_add(1, Ordering::Relaxed);
                7
            })
            .unwrap();
        group.abort_all();
        let result = group.join_next().expect("one completion");
        assert!(group.join_next().is_none());
        pool.release_timeout(Duration::MAX).unwrap();
        match result {
            Ok(v) => assert!(v == 7 && ran.load(Ordering::Relaxed) == 1),
            Err(e) => assert!(e.is_cancelled() && ran.load(Ordering::Relaxed) == 0),
        }
    });
}

#[test]
fn a_failure_cancels_what_begins_after_it_and_wakes_the_joiner() {
    check("group: a failure cancels the rest", || {
        // One worker and a queue: the second task begins after the first
        // failed, on the same worker, so it must not run; the joiner, blocked
        // meanwhile, is woken by each completion (or by the cancel).
        let pool = std_pool(1, 2);
        let second_ran = Arc::new(AtomicBool::new(false));
        let mut group = pool.group::<Result<u32, u32>>().cancel_on_error();
        group.spawn(|| Err(1)).unwrap();
        let ran = second_ran.clone();
        group
            .spawn(move || {
                ran.store(true, Ordering::Relaxed);
                Ok(2)
            })
            .unwrap();
        assert!(matches!(group.try_join_all(), Err(GroupError::Failed(1))));
        pool.release_timeout(Duration::MAX).unwrap();
        assert!(!second_ran.load(Ordering::Relaxed));
    });
}

/// A gate a task waits at until it is opened.
type Gate = Arc<(Mutex<bool>, Condvar)>;

fn wait(gate: &Gate) {
    let mut open = gate.0.lock().unwrap();
    while !*open {
        open = gate.1.wait(open).unwrap();
    }
}

fn open(gate: &Gate) {
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
}

#[test]
fn a_token_cancelled_elsewhere_wakes_a_joiner_no_worker_can_serve() {
    check("group: a cancel wakes the joiner", || {
        // The only worker waits at a gate the joiner opens only after its
        // join returned: the queued task must come out cancelled through the
        // token's wake-up (and the joiner's sweep), or nothing ever ends.
        let pool = std_pool(1, 2);
        let gate: Gate = Arc::new((Mutex::new(false), Condvar::new()));
        let g = gate.clone();
        pool.submit(move || wait(&g)).unwrap();
        let mut group = pool.group::<u32>();
        group.spawn(|| 1).unwrap();
        let token = group.cancel_token();
        let canceller = thread::spawn(move || token.cancel());
        let result = group.join_next().expect("one completion");
        assert!(result.unwrap_err().is_cancelled());
        open(&gate);
        canceller.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
    });
}
