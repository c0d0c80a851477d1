//! Models of the waiters' inbox ("The inbox" in `engine/README.md`): an
//! async submitter joins the line without the lock, pushing its node onto a
//! lock-free stack that the next lock holder moves into the line. Each model
//! races a push with one lock holder's decision that depends on the line: a
//! worker lowering the waiters' flag as the line empties, a release turning
//! the line away, and the last worker of a queue pool parking. A waiter left
//! in the inbox that nobody will look at is a future never woken, which loom
//! reports as a deadlock. (The flag's lowering racing a push *and* a worker
//! that gives its admission back needs two preemptions inside one lock
//! section — past ten minutes on the engine — and is modelled on the inbox
//! itself: `src/engine/inbox_loom.rs`.)

use std::time::Duration;

use antpool::{SpawnError, SubmitError};

use super::async_waiters::poll_to_end;
use super::{Gate, check, std_pool};

/// Polls `fut` once with a waker that does nothing: the future joins the
/// line (it is woken later by its result, a spawn's only wake-up).
fn poll_once<T>(fut: std::pin::Pin<&mut impl std::future::Future<Output = T>>) -> Option<T> {
    match fut.poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(value) => Some(value),
        std::task::Poll::Pending => None,
    }
}

#[test]
fn a_join_as_the_line_empties_keeps_the_waiters_flag_up() {
    // A hand-off pool of one, its worker held at a gate; spawn A waits in the
    // line. The gate opens: the worker serves A (moves the inbox in, takes
    // A, finds the line empty and lowers the flag) while spawn B pushes
    // itself and raises the flag. If the lowering won unseen, B would sit in
    // the inbox with the flag down: the worker, finishing A's task, would see
    // no waiter and give its admission back, and nobody would look again.
    check("inbox: a join vs the flag's lowering", || {
        let pool = std_pool(1, 0);
        let (gate, ended) = (Gate::new(), Gate::new());
        let (open, end) = (gate.clone(), ended.clone());
        pool.submit(move || {
            gate.wait();
            end.open();
        })
        .unwrap();
        let mut a = Box::pin(pool.spawn_async(|| 1));
        assert!(poll_once(a.as_mut()).is_none(), "the worker is held");
        open.open();
        // B joins once the held task has ended: while the worker serves A
        // (one preemption puts B's push inside that).
        ended.wait();
        assert_eq!(
            poll_to_end(std::pin::pin!(pool.spawn_async(|| 2))).unwrap(),
            2
        );
        assert_eq!(poll_to_end(a.as_mut()).unwrap(), 1);
        pool.release_timeout(Duration::MAX).unwrap();
    });
}

#[test]
fn a_join_racing_the_release_gets_its_closure_back_or_runs() {
    // A spawn joins the line of a hand-off pool whose worker is held, while
    // another thread releases the pool. Pushed before the release turned the
    // line away, it is turned away with it; pushed after, it sees the pool
    // closed and takes itself out. Either way its closure comes back (it
    // never ran); a push nobody looked at would hang the future.
    check("inbox: a join vs the release", || {
        let pool = std_pool(1, 0);
        let gate = Gate::new();
        let open = gate.clone();
        pool.submit(move || gate.wait()).unwrap();
        let p = pool.clone();
        let releaser = loom::thread::spawn(move || p.release());
        match poll_to_end(std::pin::pin!(pool.spawn_async(|| 2))) {
            Err(SpawnError::Submit(SubmitError::Closed(f))) => assert_eq!(f.into_inner()(), 2),
            other => panic!("a held pool's waiter ran or failed otherwise: {other:?}"),
        }
        releaser.join().unwrap();
        open.open();
        assert!(pool.wait_released_timeout(Duration::MAX));
    });
}

#[test]
fn a_join_as_the_last_worker_parks_is_let_in() {
    // A queue of one, full behind a held worker. The gate opens and the
    // worker drains the queue and parks — looking at the line under the lock
    // first — while a spawn finds the queue full and pushes itself. Either
    // the parking worker's look finds the push, or the pusher's look at the
    // room (after the swap that the look made) sees the queue drained and
    // lets itself in: it never waits on a parked pool.
    check("inbox: a join vs the last worker's park", || {
        let pool = std_pool(1, 1);
        let gate = Gate::new();
        let open = gate.clone();
        pool.submit(move || gate.wait()).unwrap();
        pool.submit(|| ()).unwrap();
        open.open();
        assert_eq!(
            poll_to_end(std::pin::pin!(pool.spawn_async(|| 3))).unwrap(),
            3
        );
        pool.release_timeout(Duration::MAX).unwrap();
    });
}
