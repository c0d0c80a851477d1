//! Models of `release` racing what feeds the lane (`lifecycle.rs`, handshake 2
//! in `engine/README.md`): a submit (hand-off, a bounded and an unbounded
//! queue), the first submit of a queue pool, expiry, a paused pool's looker, a
//! looker finding a task ready, `release_drain` and `clear_queue`. Every
//! accepted task runs before the release returns, or comes back; no worker
//! starts after it. And of waiting for a release (`drain.rs` and its module
//! docs): an async releaser dropped while the last worker exits, and a reboot
//! during an async release.

use std::time::Duration;

use antpool::PoolWithFunc;
use antpool::SubmitError;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use loom::sync::{Condvar, Mutex};
use loom::thread;

use super::async_waiters::poll_to_end;
use super::{LoomClock, LoomPool, ONE_CPU, check, check_bounded, pool, pool_with_queue};

/// Invokes `pool` with `arg` on another thread, racing a release: the thread
/// returns `arg` if the pool took it, 0 if it came back `Closed` (any other
/// error fails the model).
fn invoke_racing_release<F>(pool: &Arc<LoomPool<F>>, arg: u32) -> thread::JoinHandle<usize>
where
    F: Fn(u32) + Clone + Send + Sync + 'static,
{
    let pool = pool.clone();
    thread::spawn(move || match pool.invoke(arg) {
        Ok(()) => arg as usize,
        Err(SubmitError::Closed(back)) if back == arg => 0,
        Err(e) => panic!("unexpected {e:?}"),
    })
}

/// A pool of one worker (with a queue of `queue`: see [`pool_with_queue`]) that
/// has run a task is released while another thread submits: the task is run
/// before the last worker exits, or handed back `Closed`.
fn release_racing_a_submit(queue: usize) {
    let sum = Arc::new(AtomicUsize::new(0));
    let (pool, _clock) = pool_with_queue(1, false, queue, sum.clone());
    let pool = Arc::new(pool);
    pool.invoke(1).unwrap();
    let other = invoke_racing_release(&pool, 2);
    pool.release_timeout(Duration::MAX).unwrap();
    let accepted = other.join().unwrap();
    assert_eq!(sum.load(Ordering::Relaxed), 1 + accepted);
    assert_eq!(pool.running(), 0);
}

#[test]
fn release_racing_a_submit_runs_or_returns_the_task() {
    check("release vs submit", || {
        release_racing_a_submit(0);
    });
}

#[test]
fn release_racing_a_bounded_queue_submit_runs_or_returns_the_task() {
    // A bounded queue has no push window: the release closes the lane (the
    // ring's mark), so a push lands before it — and the last worker, which
    // reads the lane after the flag, stays for it — or fails `Closed`. (With
    // the worker retiring on `Adm`'s flag alone, without the lane read, loom
    // finds the task stranded.) At three preemptions (`LOOM_MAX_PREEMPTIONS=3`,
    // minutes) it also finds the last worker parked for good if it leaves the
    // workers' word and then counts itself back in to stay (handshake 2).
    check("release vs bounded queue submit", || {
        release_racing_a_submit(1);
    });
}

#[test]
fn release_racing_the_first_bounded_queue_submit_leaves_no_thread() {
    // No worker yet: the submit starts one carrying its task, or pushes and
    // starts a looker for it. A release that saw no thread and an empty lane
    // may have returned: then the submit must neither start a worker (the
    // workers' word carries `CLOSED`, which refuses the reservation of one
    // carrying a task, and a looker reserved in a closed pool starts only for
    // tasks in the lane) nor leave its task behind.
    check("release vs first bounded queue submit", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 1, sum.clone());
        let pool = Arc::new(pool);
        let other = invoke_racing_release(&pool, 2);
        pool.release_timeout(Duration::MAX).unwrap();
        let ran = sum.load(Ordering::Relaxed);
        assert_eq!(pool.running(), 0, "a worker outlived the release");
        let accepted = other.join().unwrap();
        assert_eq!(ran, accepted, "the release returned before the task ran");
    });
}

#[test]
fn expiry_and_release_racing_a_bounded_queue_submit_strand_nothing() {
    // One parked worker, so the submit pushes; a purge may retire that worker
    // before the submit looks for a taker, leaving the task in the lane with no
    // thread, then the release comes. The release must wait while the lane
    // holds the task (`drained` reads the lane), and the looker the submitter
    // or the purge (which sees the lane get a taker) starts must run it. At
    // preemption bound 0: with the purge able to start a looker too, bound 1
    // ran past twenty minutes. The same window without the purge (a task in
    // the lane, no thread) is `release between a push and its looker`, at
    // bound 1, which fails without `drained`'s read of the lane.
    check_bounded("expiry and release vs bounded queue submit", 0, || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, clock) = pool_with_queue(1, true, 1, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap();
        pool.wait_idle();
        let other = invoke_racing_release(&pool, 2);
        clock.0.store(1_000, Ordering::Release);
        pool.purge();
        pool.release_timeout(Duration::MAX).unwrap();
        let ran = sum.load(Ordering::Relaxed);
        assert_eq!(pool.running(), 0, "a worker outlived the release");
        let accepted = other.join().unwrap();
        assert_eq!(
            ran,
            1 + accepted,
            "the release returned before the task ran"
        );
    });
}

/// A paused pool of one worker, none started, with a queue of one: another
/// thread submits task 2, which the pool pushes (it starts no worker while
/// paused) and then reserves a looker for. Returns once the task is in the
/// lane, with the pool, the sum its tasks add to, and the submitting thread
/// (see [`invoke_racing_release`]).
fn paused_pool_with_a_task_pushed() -> (
    Arc<LoomPool<impl Fn(u32) + Clone + Send + Sync + 'static>>,
    Arc<AtomicUsize>,
    thread::JoinHandle<usize>,
) {
    let sum = Arc::new(AtomicUsize::new(0));
    let (pool, _clock) = pool_with_queue(1, false, 1, sum.clone());
    let pool = Arc::new(pool);
    pool.pause();
    let other = invoke_racing_release(&pool, 2);
    while pool.queued() == 0 {
        thread::yield_now();
    }
    (pool, sum, other)
}

#[test]
fn a_release_between_a_push_and_its_looker_waits_for_the_task() {
    // A paused pool without a worker: the submit pushes, then reserves a
    // looker (a paused pool keeps one). The release comes between the two,
    // once the task is in the lane: it finds no thread and nobody admitted
    // (a queue pool counts no submitter), so only its read of the lane
    // (`drained`) keeps it waiting until the looker has run the task; loom
    // finds it returning first without that read.
    check("release between a push and its looker", || {
        let (pool, sum, other) = paused_pool_with_a_task_pushed();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(
            sum.load(Ordering::Relaxed),
            2,
            "the release returned before the task ran"
        );
        assert_eq!(pool.running(), 0, "a worker outlived the release");
        assert_eq!(other.join().unwrap(), 2);
    });
}

#[test]
fn a_looker_reserved_after_the_release_emptied_the_lane_never_starts() {
    // A paused pool without a worker: the submit pushes, and reserves a looker
    // to keep for the paused pool. Meanwhile `clear_queue` takes the task and
    // the release, finding the lane empty and no thread, returns. A looker
    // reserved after that must not start: no thread may begin after the
    // release returned. (loom finds one started without the lane check in
    // `start_reserved_looker`; and found the release waiting forever when
    // that check gave the reservation back without counting it live first.)
    check("looker reserved after release", || {
        // Once the task is in the lane (so that `clear_queue` finds it there).
        let (pool, sum, other) = paused_pool_with_a_task_pushed();
        let cleared = pool.clear_queue();
        pool.release_timeout(Duration::MAX).unwrap();
        let ran = sum.load(Ordering::Relaxed);
        let spawned = pool.stats().spawned;
        let accepted = other.join().unwrap();
        assert_eq!(
            ran + 2 * cleared,
            accepted,
            "a task ran after the release, or none"
        );
        assert_eq!(
            pool.stats().spawned,
            spawned,
            "a worker started after the release"
        );
        assert_eq!(pool.running(), 0, "a worker outlived the release");
    });
}

#[test]
fn a_last_worker_staying_for_a_task_clear_queue_takes_is_let_go() {
    // A paused pool: the task waits in the lane and its looker parks. The
    // release ends the pause; a worker that reached `park` while paused, and
    // then found the pool closed, stays as its last worker when it sees the
    // lane holding the task, and parks when none is ready to pop:
    // `clear_queue` on another thread has popped it meanwhile. Nobody will
    // push again, so the clear must settle the closed pool (wake or retire its
    // parked workers) as a hand-off pool's last admission does. Without that
    // loom finds the worker parked for good and the release waiting for it.
    // (`release_drain` settles too. A paused pool's drain takes the tasks out
    // before its release ends the pause, so its model needs more threads — a
    // `pause` or a submit racing it — than a CI run affords.)
    check("last worker vs clear_queue after release", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 1, sum.clone());
        let pool = Arc::new(pool);
        pool.pause();
        pool.invoke(2).unwrap();
        let clearer = {
            let pool = pool.clone();
            thread::spawn(move || pool.clear_queue())
        };
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(pool.running(), 0, "a worker outlived the release");
        let cleared = clearer.join().unwrap();
        let ran = sum.load(Ordering::Relaxed);
        assert!(
            matches!((ran, cleared), (2, 0) | (0, 1)),
            "the task must run or be cleared, once: ran {ran}, cleared {cleared}"
        );
    });
}

#[test]
fn a_looker_of_a_released_pool_takes_a_ready_task_and_starts_no_thread() {
    // A hand-off pool of two: task 1 holds its worker at a gate, task 2's
    // worker finishes and looks, and task 4 goes to the lane for it. Then the
    // gate opens and the pool is released. A looker that parks after the
    // release must take a task that is ready in the lane, not leave: leaving,
    // it handed the task to `ensure_taker`, which with no other looker and
    // none parked (the other worker busy) started a third thread for it — loom
    // finds that in ~30 s without the lane check in `park`; CI saw it as a
    // fifth thread for a static pool of four. Nothing retires before the
    // release (no expiry, no `tune`), so two threads are all there ever are.
    // (Without the gate, or with task 4 submitted at once, the model is four
    // to ten times longer.)
    check("release vs a looker with a task ready", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let (add, held) = (sum.clone(), gate.clone());
        let pool = PoolWithFunc::builder_with(
            move |n: u32| {
                if n == 1 {
                    let (open, cvar) = &*held;
                    let mut open = open.lock().unwrap();
                    while !*open {
                        open = cvar.wait(open).unwrap();
                    }
                }
                add.fetch_add(n as usize, Ordering::Relaxed);
            },
            LoomClock(Arc::new(AtomicU64::new(0))),
            ONE_CPU,
        )
        .capacity(2)
        .disable_purge(true)
        .build()
        .unwrap();
        pool.invoke(1).unwrap();
        pool.invoke(2).unwrap();
        while sum.load(Ordering::Relaxed) != 2 {
            thread::yield_now();
        }
        pool.invoke(4).unwrap();
        *gate.0.lock().unwrap() = true;
        gate.1.notify_one();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), 7);
        assert_eq!(pool.running(), 0, "a worker outlived the release");
        let spawned = pool.stats().spawned;
        assert!(spawned <= 2, "{spawned} threads for a pool of two");
    });
}

#[test]
fn release_racing_a_queued_submit_runs_or_returns_the_task() {
    // An unbounded queue: the release closes the list too (its mark), so a
    // push lands before it — and the last worker stays for it — or fails
    // `Closed`. (Without the list's close, loom finds the task stranded. When
    // this pool had a push window and its last worker stayed by yielding and
    // looking again, loom found a path that went round that loop past its
    // branch limit.)
    check("release vs queued submit", || {
        release_racing_a_submit(usize::MAX);
    });
}

#[test]
fn release_drain_racing_the_worker_returns_or_runs_each_task_once() {
    check("release_drain vs worker", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 2, sum.clone());
        pool.invoke(1).unwrap();
        pool.invoke(2).unwrap();
        pool.invoke(4).unwrap();
        let back: u32 = pool.release_drain().into_iter().sum();
        pool.wait_idle();
        assert_eq!(sum.load(Ordering::Relaxed) + back as usize, 7);
    });
}

#[test]
fn clear_queue_racing_the_worker_drops_or_runs_each_task_once() {
    check("clear_queue vs worker", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, 2, sum.clone());
        pool.invoke(1).unwrap();
        pool.invoke(2).unwrap();
        let cleared = pool.clear_queue();
        // The pool stays open and still runs what comes next.
        pool.invoke(4).unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        let ran = sum.load(Ordering::Relaxed);
        assert_eq!(ran & 4, 4, "the task after the clear ran");
        assert_eq!(
            (ran & 3).count_ones() as usize + cleared,
            2,
            "sum {ran}, cleared {cleared}"
        );
    });
}

#[test]
fn an_async_releaser_dropped_as_the_last_worker_exits_leaves_the_other_releasers_woken() {
    // The release closes the pool at the call; its future links its node
    // (unless the worker is gone already) and is dropped while the last
    // worker exits, whose end finishes every releaser: the drop unlinks its
    // node, or waits for the finish of whoever unlinked it. A second
    // releaser, a future on another thread in the same list, must be woken
    // either way (a lost wake-up hangs it: loom reports the deadlock); the
    // dropped node is never freed while its finisher holds it (`Node`'s drop
    // checks that under loom).
    check("async releaser dropped", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(1, false, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap(); // a worker, busy or parked
        let mut release = Box::pin(pool.release_async());
        let waker = std::task::Waker::noop();
        let first = release
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker));
        let p = pool.clone();
        let second = thread::spawn(move || poll_to_end(std::pin::pin!(p.wait_released_async())));
        drop(release);
        assert_eq!(second.join().unwrap(), Ok(()));
        assert!(matches!(
            first,
            std::task::Poll::Pending | std::task::Poll::Ready(Ok(()))
        ));
        assert_eq!(sum.load(Ordering::Relaxed), 1);
        assert_eq!(pool.running(), 0);
    });
}

#[test]
fn a_reboot_during_an_async_release_ends_it_reopened_or_after_the_drain() {
    // The release closes the pool at the call; the worker's exit races a
    // reboot that comes before the future's first poll or after it (the
    // poll's check-and-link and the reboot are both under the cold lock, so
    // these are the orders between them). It resolves `Ok` if the worker was
    // gone before the reboot, else `Reopened` — never a hang: the reboot
    // finishes a linked releaser, and a first poll after the reboot sees the
    // pool reopened since its release (on the open pool nothing else would
    // end the wait: loom reports the deadlock).
    for reboot_first in [true, false] {
        check("reboot during an async release", move || {
            let sum = Arc::new(AtomicUsize::new(0));
            let (pool, _clock) = pool(1, false, sum.clone());
            pool.invoke(1).unwrap(); // a worker, busy or parked
            let mut release = std::pin::pin!(pool.release_async());
            if reboot_first {
                pool.reboot();
            } else {
                let waker = std::task::Waker::noop();
                let first = release
                    .as_mut()
                    .poll(&mut std::task::Context::from_waker(waker));
                pool.reboot();
                if let std::task::Poll::Ready(ended) = first {
                    assert_eq!(ended, Ok(()), "drained before the reboot");
                    return;
                }
            }
            let ended = poll_to_end(release);
            assert!(
                matches!(ended, Ok(()) | Err(antpool::ReleaseError::Reopened)),
                "{ended:?}"
            );
            assert!(!pool.is_closed());
            // Reopened: the worker the reboot kept is still the pool's.
            pool.release_timeout(Duration::MAX).unwrap();
            assert_eq!(sum.load(Ordering::Relaxed), 1);
        });
    }
}

#[test]
fn a_reboot_racing_release_timeout_ends_its_wait() {
    // A blocking `release_timeout` (no time limit) and a reboot on another
    // thread: the wait ends `Ok` (the worker was gone first, or the reboot
    // came before the release and did nothing) or `Reopened` — before, the
    // reboot left it waiting out its timeout, here forever (loom reports the
    // deadlock).
    check("reboot vs release_timeout", || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool(1, false, sum.clone());
        let pool = Arc::new(pool);
        pool.invoke(1).unwrap();
        let p = pool.clone();
        let rebooter = thread::spawn(move || p.reboot());
        let ended = pool.release_timeout(Duration::MAX);
        rebooter.join().unwrap();
        match ended {
            Ok(()) => assert_eq!(sum.load(Ordering::Relaxed), 1),
            // Open again: a worker the reboot kept leaves at the next release.
            Err(antpool::ReleaseError::Reopened) => pool.release(),
            Err(e) => panic!("{e:?}"),
        }
    });
}

#[test]
fn a_try_submit_refused_by_a_release_says_closed_though_a_reboot_follows() {
    // An unbounded queue is never full: a push it refuses was refused because
    // the pool was released, even if a reboot has reopened it by the time the
    // submitter looks why. The answer is `Closed` (with the task), never
    // `Overload`. (Two preemptions: the release lands between the submit's
    // look at admission and its push, the reboot between the refusal and the
    // look at why.)
    check_bounded("try submit vs release and reboot", 2, || {
        let sum = Arc::new(AtomicUsize::new(0));
        let (pool, _clock) = pool_with_queue(1, false, usize::MAX, sum.clone());
        let pool = Arc::new(pool);
        let p = pool.clone();
        let other = thread::spawn(move || match p.try_invoke(2) {
            Ok(()) => 2,
            Err(SubmitError::Closed(back)) if back == 2 => 0,
            Err(e) => panic!("unexpected {e:?}"),
        });
        pool.release_timeout(Duration::MAX).unwrap();
        thread::yield_now();
        pool.reboot();
        let accepted = other.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), accepted);
    });
}
