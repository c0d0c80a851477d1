//! The starvation bound: with `starvation_bound(k)`, a waiting lower level
//! gets one turn every `k + 1` grants or takes, among blocked submitters and
//! among queued tasks alike; without one, `High` always goes first.

use crate::common;
use crate::priorities::{log, named, started};

use std::sync::Arc;
use std::thread;

use antpool::{Pool, Priority};
use common::{PATIENCE, eventually, occupy};

use Priority::{High, Low, Normal};

/// A one-worker hand-off pool with levels and a starvation bound of `k`.
fn bounded(k: u32) -> Arc<Pool> {
    let builder = Pool::builder().capacity(1).priorities(true);
    Arc::new(builder.starvation_bound(k).build().unwrap())
}

/// Submits `task` at `level` from a thread of its own, once that submitter
/// has joined the line of blocked ones (so arrivals keep their order).
fn block_in_line(
    pool: &Arc<Pool>,
    level: Priority,
    task: impl FnOnce() + Send + 'static,
) -> thread::JoinHandle<()> {
    let (p, before) = (pool.clone(), pool.waiting());
    let t = thread::spawn(move || p.with_priority(level).submit(task).unwrap());
    assert!(eventually(|| pool.waiting() == before + 1));
    t
}

/// The order in which a busy one-worker pool with a starvation bound of `k`
/// lets in submitters blocked one after another as `arrivals` (level, name).
fn let_in(k: u32, arrivals: impl IntoIterator<Item = (Priority, String)>) -> Vec<String> {
    let pool = bounded(k);
    let gate = occupy(&pool, 1);
    let log = log();
    let threads: Vec<_> = arrivals
        .into_iter()
        .map(|(level, name)| block_in_line(&pool, level, named(&log, name)))
        .collect();
    gate.open();
    for t in threads {
        t.join().unwrap();
    }
    assert!(pool.wait_idle_timeout(PATIENCE));
    pool.release_timeout(PATIENCE).unwrap();
    started(&log)
}

/// With a starvation bound of `k`, a submitter blocked at `Low` in a hand-off
/// pool is let in after at most `k` blocked `High` submitters that came after
/// it, and `High` then has the rest; without one, `Low` waits for every
/// `High` (and a lone level is served in arrival order either way).
#[test]
fn the_starvation_bound_lets_a_blocked_low_submitter_in_after_k_high_ones() {
    for bound in [0, 2] {
        // Arrivals, one at a time: L at Low, then H0..H3 at High.
        let arrivals = [(Low, "L".to_owned())]
            .into_iter()
            .chain((0..4).map(|i| (High, format!("H{i}"))));
        let expected = match bound {
            0 => ["H0", "H1", "H2", "H3", "L"],
            _ => ["H0", "H1", "L", "H2", "H3"],
        };
        assert_eq!(let_in(bound, arrivals), expected, "bound {bound}");
    }
}

/// Under a starvation bound, the turn a lower level gets goes to the next
/// level down with waiters, once: the count of grants in a row starts again
/// from it, so the top level is served next, and a level further down waits
/// until the bound runs out again (blocked submitters of a hand-off pool,
/// at three levels, bound 1).
#[test]
fn the_starvation_bounds_turn_goes_one_level_down_and_back_to_the_top() {
    // Arrivals, one at a time.
    let arrivals = [
        (High, "H0"),
        (High, "H1"),
        (High, "H2"),
        (Normal, "N0"),
        (Normal, "N1"),
        (Low, "L0"),
    ];
    let order = let_in(1, arrivals.map(|(level, name)| (level, name.to_owned())));
    assert_eq!(order, ["H0", "N0", "H1", "N1", "H2", "L0"]);
}

/// The starvation bound counts only grants made while a lower level waits:
/// a `Low` submitter that blocks after `High` ones were let in with nobody
/// below them still waits for `k` more `High` grants (bound 1: `H1` first).
#[test]
fn the_starvation_bound_counts_no_grant_made_before_a_lower_level_waited() {
    let pool = bounded(1);
    let gate = occupy(&pool, 1);
    let (log, h0_gate) = (log(), common::Gate::new());
    let h0 = {
        let (log, h0_gate) = (log.clone(), h0_gate.clone());
        move || {
            log.lock().unwrap().push("H0".to_owned());
            h0_gate.wait();
        }
    };
    let mut threads = vec![
        block_in_line(&pool, High, h0),
        block_in_line(&pool, High, named(&log, "H1")),
    ];
    gate.open();
    // H0 let in (nobody below waited), and running; then L blocks.
    assert!(eventually(|| started(&log) == ["H0"] && pool.waiting() == 1));
    threads.push(block_in_line(&pool, Low, named(&log, "L")));
    h0_gate.open();
    for t in threads {
        t.join().unwrap();
    }
    assert!(pool.wait_idle_timeout(PATIENCE));
    assert_eq!(started(&log), ["H0", "H1", "L"]);
    pool.release_timeout(PATIENCE).unwrap();
}

/// With a starvation bound of `k`, a waiting `Low` task gets one turn every
/// `k + 1` takes, and no more (`High` keeps the other `k`), whatever the queue
/// (bounded, or unbounded); without one, `Low` waits for every `High` task.
#[test]
fn the_starvation_bound_gives_low_a_turn_every_k_plus_one_takes() {
    for (queue, bound) in [
        ("bounded", 0),
        ("bounded", 3),
        ("unbounded", 0),
        ("unbounded", 3),
    ] {
        let builder = match queue {
            "bounded" => Pool::builder().max_queued_tasks(64),
            _ => Pool::builder().unbounded_queue(),
        };
        let pool = builder
            .capacity(1)
            .priorities(true)
            .starvation_bound(bound)
            .build()
            .unwrap();
        let gate = occupy(&pool, 1);
        let log = log();
        for i in 0..40 {
            pool.with_priority(High)
                .submit(named(&log, format!("H{i}")))
                .unwrap();
        }
        for i in 0..5 {
            pool.with_priority(Low)
                .submit(named(&log, format!("L{i}")))
                .unwrap();
        }
        gate.open();
        assert!(pool.wait_idle_timeout(PATIENCE));
        let order = started(&log);
        for i in 0..5 {
            let take = order.iter().position(|n| *n == format!("L{i}")).unwrap() + 1;
            match bound {
                0 => assert!(
                    take > 40,
                    "{queue}, strict: L{i} after every High (take {take})"
                ),
                k => assert_eq!(
                    take,
                    (k as usize + 1) * (i + 1),
                    "{queue}: L{i} at take {take}"
                ),
            }
        }
        pool.release_timeout(PATIENCE).unwrap();
    }
}
