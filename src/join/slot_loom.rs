//! The result slot under loom, on its own (no pool): a joiner that polls with
//! one waker and then another races the filler. The filler reads the waker
//! cell once its swap saw `JOIN_WAKER`; a joiner changing its waker must take
//! the cell back first (clear the flag by a swap that fails on `COMPLETE`), so
//! the two never touch the cell at once: loom's cell reports it if they do.
//! The joiner then waits on its second waker: a lost wake-up deadlocks, which
//! loom reports too. (The pool-level models are in `tests/loom/join.rs`.)

use ::std::sync::Arc;
use ::std::task::{Poll, Wake, Waker};

use loom::sync::{Condvar, Mutex};
use loom::thread;

use super::slot::ResultSlot;

/// A waker that sets a flag a thread can wait for (loom's own lock and
/// condvar, so loom sees who waits for whom).
#[derive(Default)]
struct Flag {
    woken: Mutex<bool>,
    cvar: Condvar,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        *self.woken.lock().unwrap() = true;
        self.cvar.notify_one();
    }
}

impl Flag {
    /// Waits until woken, and takes the wake-up.
    fn wait(&self) {
        let mut woken = self.woken.lock().unwrap();
        while !*woken {
            woken = self.cvar.wait(woken).unwrap();
        }
        *woken = false;
    }
}

/// Runs `f` under loom, every interleaving (the model is small).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.max_branches = 10_000;
    builder.check(f);
}

/// A filler thread begins the task and fills the slot with `value`, while
/// this thread polls it once with a first waker and then, until the result is
/// in, with a second (`same`: the first again), waiting on it between polls.
fn race_the_fill(value: u32, same: bool) {
    let slot = Arc::new(ResultSlot::<u32>::new());
    let filler = {
        let slot = slot.clone();
        thread::spawn(move || {
            assert!(slot.begin());
            slot.fill(Ok(value));
        })
    };
    let first = Arc::new(Flag::default());
    let second = match same {
        true => first.clone(),
        false => Arc::new(Flag::default()),
    };
    let joined = match slot.poll_join(&Waker::from(first)) {
        Poll::Ready(result) => result.unwrap(),
        Poll::Pending => {
            let waker = Waker::from(second.clone());
            loop {
                match slot.poll_join(&waker) {
                    Poll::Ready(result) => break result.unwrap(),
                    Poll::Pending => second.wait(),
                }
            }
        }
    };
    assert_eq!(joined, value);
    filler.join().unwrap();
}

#[test]
fn a_joiner_changing_its_waker_never_touches_the_cell_beside_the_filler() {
    // The race the flag protects: the second poll reads the state before the
    // fill, and would write the cell while the filler reads the first waker.
    model(|| race_the_fill(7, false));
}

#[test]
fn a_joiner_polling_again_with_the_same_waker_is_woken() {
    // The same waker again: the joiner only reads the cell (a shared read
    // beside the filler's) and keeps it; the fill wakes it.
    model(|| race_the_fill(9, true));
}
