//! Models of a running task's cancel token (`src/join/cancel.rs`): an abort
//! racing the worker that begins the task (the slot's phase and its `ABORTED`
//! flag, one word) and a group's `abort_all` racing the same. The task either
//! never runs, or runs and — at its first check after the abort returned (it
//! waits at a gate the aborter opens after the abort) — sees its token
//! cancelled; a check that sees it cancelled earlier also sees what the
//! aborter wrote before the abort.

use std::time::Duration;

use antpool::CancelToken;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::thread;

use super::{Gate, check, check_bounded, std_pool};

/// What a task saw of its token: whether it ran, and its checks before and
/// after the gate (`None`: it never ran).
type Seen = Option<(bool, bool)>;

/// The task: takes its token, checks it (a cancel seen must carry `note`),
/// waits at `gate`, checks again.
fn watcher(
    gate: Gate,
    note: Arc<AtomicUsize>,
    ran: Arc<AtomicBool>,
) -> impl FnOnce() -> (bool, bool) + Send + 'static {
    move || {
        ran.store(true, Ordering::Relaxed);
        let token = CancelToken::current();
        let early = token.is_cancelled();
        if early {
            // Relaxed: only the token's Release/Acquire orders it.
            assert_eq!(
                note.load(Ordering::Relaxed),
                7,
                "a cancel seen without its write"
            );
        }
        gate.wait();
        (early, token.is_cancelled())
    }
}

fn assert_one_outcome(aborted: bool, ran: bool, seen: Seen) {
    match seen {
        Some((_, late)) => assert!(
            !aborted && ran && late,
            "ran {ran}, aborted {aborted}, cancel seen after the abort {late}"
        ),
        None => assert!(aborted && !ran, "cancelled, yet ran {ran}"),
    }
}

#[test]
fn an_abort_racing_the_start_is_seen_by_the_task_or_keeps_it_from_running() {
    // Two preemptions: the abort between the task's start and its first
    // check (where the token's Acquire/Release is what carries `note`) needs
    // them; with `is_aborted` loading `Relaxed` this model fails.
    check_bounded("cancel vs start", 2, || {
        // A hand-off pool: the spawn starts a worker carrying the task, and
        // the abort races it.
        let pool = std_pool(1, 0);
        let (gate, note, ran) = (Gate::new(), Arc::new(AtomicUsize::new(0)), Arc::default());
        let handle = pool
            .spawn(watcher(gate.clone(), note.clone(), Arc::clone(&ran)))
            .unwrap();
        let abort = handle.abort_handle();
        let aborter = thread::spawn(move || {
            note.store(7, Ordering::Relaxed);
            let aborted = abort.abort();
            gate.open();
            aborted
        });
        let seen = match handle.join() {
            Ok(seen) => Some(seen),
            Err(e) => {
                assert!(e.is_cancelled());
                None
            }
        };
        let aborted = aborter.join().unwrap();
        pool.release_timeout(Duration::MAX).unwrap();
        assert_one_outcome(aborted, ran.load(Ordering::Relaxed), seen);
    });
}

#[test]
fn a_group_abort_racing_the_start_is_seen_by_the_task_or_keeps_it_from_running() {
    check("group: cancel vs start", || {
        let pool = std_pool(1, 0);
        let (gate, note, ran) = (Gate::new(), Arc::new(AtomicUsize::new(0)), Arc::default());
        let mut group = pool.group::<(bool, bool)>();
        group
            .spawn(watcher(gate.clone(), note.clone(), Arc::clone(&ran)))
            .unwrap();
        // The group's abort, on this thread; the task's token is the group's.
        note.store(7, Ordering::Relaxed);
        group.abort_all();
        gate.open();
        let seen = match group.join_next().expect("one completion") {
            Ok(seen) => Some(seen),
            Err(e) => {
                assert!(e.is_cancelled());
                None
            }
        };
        pool.release_timeout(Duration::MAX).unwrap();
        // `abort_all` says nothing of which side won: the result does.
        let ran = ran.load(Ordering::Relaxed);
        match seen {
            Some((_, late)) => assert!(ran && late, "ran, and the cancel not seen after it"),
            None => assert!(!ran, "cancelled, yet ran"),
        }
    });
}
