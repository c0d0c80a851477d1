//! Unit tests of the waiters' line that set up, by hand, a state the
//! integration tests reach only by a race.

use std::time::Duration;

use super::super::ctl::adm;
use super::super::node::{Node, state};
use super::super::submit::Attempt;
use super::super::tests::hold_one;
use super::super::timed::Stamp;
use crate::clock::Clock;
use crate::priority::Priority::Normal;
use crate::spawner::Spawner;
use crate::task::SmallTask;

/// A submitter that found the queue full, and once it holds the lock finds
/// a free slot (a worker took a task meanwhile, leaving the queue above half,
/// so its look before the lock saw no room), goes round to take the slot: it
/// does not join the line, where it would wait for the queue to drain past
/// half while the slot stays free.
#[test]
fn a_submitter_that_finds_a_free_slot_under_the_lock_takes_it() {
    let pool = crate::Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    let finish = hold_one(&pool);
    for _ in 0..3 {
        pool.try_submit(|| ()).unwrap();
    }
    let engine = pool.engine();
    assert_eq!(
        engine.queued(),
        3,
        "one slot of four free, not drained past half"
    );
    // A deadline already due: a submitter that joined the line would time
    // out at once instead of parking for good (its worker is held).
    let due = Some(engine.clock.now());
    pool.with_ref(|handle| {
        let task = SmallTask::new(|| ());
        let task = match engine.wait_for_room(handle, task, due, Normal, Stamp::NONE) {
            Attempt::Saturated(task) => task,
            Attempt::Done(Ok(())) => panic!("admitted through the line"),
            Attempt::Done(Err(e)) => panic!("joined the line with a free slot: {e:?}"),
        };
        assert_eq!(engine.waiting(), 0, "nobody in the line");
        assert!(
            matches!(engine.attempt(handle, task, Normal), Attempt::Done(Ok(()))),
            "the free slot takes the task"
        );
    });
    assert_eq!(engine.queued(), 4);
    finish.send(()).unwrap();
    pool.release_timeout(Duration::from_secs(60)).unwrap();
}

/// An async waiter that joins the line through the inbox just as a lock
/// holder, having found its level's line and inbox empty, lowers the level's
/// flag (the push after that look, before the lowering) gets the flag back:
/// newcomers do not pass it. And if the pool has room — the worker that
/// freed it may have read the flag down and let nobody in — the lowerer is
/// told to let it in; with none, it waits for the next task's end to look.
/// Whether the look found every line empty, or (a pool with levels) only
/// the pusher's.
#[test]
fn a_push_racing_the_flags_lowering_keeps_its_place_and_is_let_in() {
    let looks = [(false, adm::ANY_WAITERS), (true, adm::WAITERS)];
    for ((priorities, empty), room) in looks.into_iter().flat_map(|l| [(l, true), (l, false)]) {
        let pool = crate::Pool::builder()
            .capacity(1)
            .priorities(priorities)
            .build()
            .unwrap();
        let finish = (!room).then(|| hold_one(&pool));
        let engine = pool.engine();
        // The last waiter has just left the line: its flag is still up.
        engine.gate.adm.set(adm::WAITERS);
        // The lock holder's look (`empty`), then the push, and its raise.
        let node = Node::with_task(
            engine.spawner.signal(),
            SmallTask::new(|| ()),
            state::WAITING,
        );
        // SAFETY: our node, in no list; it stays on this stack, unmoved,
        // until we take it out of the line below.
        unsafe { engine.inbox.push(Normal, (&node).into()) };
        engine.gate.adm.set(adm::WAITERS);
        let mut cold = engine.cold.lock();
        let let_in = engine.lower_flags(&mut cold, empty);
        assert!(
            engine.refuses(engine.gate.adm.load(), Normal),
            "room {room}, look {empty:x}: a newcomer passes the waiter"
        );
        assert_eq!(
            let_in, room,
            "room {room}, look {empty:x}: told to let the waiter in"
        );
        // Take the node out, as a dropped future does.
        assert!(engine.waiters(&mut cold).at(Normal).remove((&node).into()));
        assert!(!engine.waiters_changed(&mut cold));
        drop(cold);
        // SAFETY: we took our node out ourselves: its task is ours.
        drop(unsafe { node.take_task() });
        drop(finish);
        pool.release_timeout(Duration::from_secs(60)).unwrap();
    }
}

/// A lock holder that finds every line empty lowers every level's flag,
/// however many were up: a newcomer then passes nobody and is admitted,
/// even by `try_submit`.
#[test]
fn the_flags_all_fall_when_every_line_empties_at_once() {
    let pool = crate::Pool::builder()
        .capacity(1)
        .priorities(true)
        .build()
        .unwrap();
    let engine = pool.engine();
    // Waiters at every level have just been let in, all in one grant.
    engine.gate.adm.set(adm::ANY_WAITERS);
    assert!(!engine.waiters_changed(&mut engine.cold.lock()));
    assert_eq!(
        engine.gate.adm.load() & adm::ANY_WAITERS,
        0,
        "flags left up"
    );
    pool.with_priority(crate::Priority::Low)
        .try_submit(|| ())
        .unwrap();
    pool.release_timeout(Duration::from_secs(60)).unwrap();
}

/// A queue pool's worker looks at the admission word before it takes the
/// lock for blocked submitters: the look says "let them in" whenever a
/// level whose waiters' flag is up has drained past half — whatever flags
/// the other levels have up and however full their queues. Else those
/// waiters would wait until another level drains, or the last worker parks.
/// (A "yes" for full queues' waiters alone costs a look under the lock,
/// which lets nobody in: not checked here.)
#[test]
fn a_workers_look_finds_every_level_drained_under_its_flag() {
    use crate::Priority::{High, Low};
    let pool = crate::Pool::builder()
        .capacity(1)
        .max_queued_tasks(2)
        .priorities(true)
        .build()
        .unwrap();
    let finish = hold_one(&pool);
    for level in [High, Low] {
        for _ in 0..2 {
            pool.with_priority(level).try_submit(|| ()).unwrap();
        }
    }
    let engine = pool.engine();
    // `High` and `Low` full, `Normal` empty (drained).
    let (high, normal, low) = (adm::WAITERS_HIGH, adm::WAITERS, adm::WAITERS_LOW);
    for flags in [normal, high | normal, normal | low, high | normal | low] {
        assert!(engine.queue_waiters_may_enter(flags), "flags {flags:x}");
    }
    finish.send(()).unwrap();
    pool.release_timeout(Duration::from_secs(60)).unwrap();
}
