//! The ring under loom: every interleaving of two pushers and a popper on a
//! ring smaller than what passes through it (laps wrap), each value out once;
//! a popper racing a pusher, a push racing `close`, and the interrupt's push.
//! (Beside `ring.rs`, as `list_loom.rs` is beside `list.rs`.)

use loom::sync::Arc;

use super::plain::Plain;
use super::ring::{Slot, TaskRing};

/// Runs `f` under loom with the preemption bound of the FIFOs' own models
/// (`LOOM_MAX_PREEMPTIONS`, default 2 here: the ring and the list are small).
pub(super) fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.max_branches = 10_000;
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(2);
    }
    builder.check(f);
}

#[test]
fn concurrent_pushers_each_get_a_slot() {
    model(|| {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 2]>> =
            Arc::new(TaskRing::new([Slot::new(), Slot::new()], 2));
        let pushers: [_; 2] = core::array::from_fn(|i| {
            let ring = ring.clone();
            loom::thread::spawn(move || ring.push_plain(i as u32 + 1).unwrap())
        });
        for p in pushers {
            p.join().unwrap();
        }
        let (a, b) = (ring.pop_plain().unwrap(), ring.pop_plain().unwrap());
        assert_eq!(a + b, 3);
        assert_eq!(ring.pop_plain(), None);
    });
}

#[test]
fn a_slot_is_reused_on_the_next_lap_only_once_emptied() {
    model(|| {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 1]>> = Arc::new(TaskRing::new([Slot::new()], 1));
        ring.push_plain(1).unwrap();
        let r = ring.clone();
        let popper = loom::thread::spawn(move || r.pop_plain());
        // Full until the popper has emptied the slot; then lap 1 may use it.
        let early = ring.push_plain(2);
        let popped = popper.join().unwrap();
        assert_eq!(popped, Some(1));
        if let Err(v) = early {
            ring.push_plain(v).unwrap();
        }
        assert_eq!(ring.pop_plain(), Some(2));
        assert_eq!(ring.pop_plain(), None);
    });
}

/// `push_now` racing the popper of the only slot: it takes the value once
/// the slot is emptied, or hands it back; it never loses or doubles one.
#[test]
fn push_now_racing_a_popper_loses_and_doubles_nothing() {
    model(|| {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 1]>> = Arc::new(TaskRing::new([Slot::new()], 1));
        ring.push_plain(1).unwrap();
        let r = ring.clone();
        let popper = loom::thread::spawn(move || r.pop_plain());
        let now = ring.push_now(2);
        assert_eq!(popper.join().unwrap(), Some(1));
        match now {
            Ok(()) => assert_eq!(ring.pop_plain(), Some(2)),
            Err(v) => assert_eq!(v, 2),
        }
        assert_eq!(ring.pop_plain(), None);
    });
}

/// A push racing `close`: it lands before the mark — and `has_tasks`
/// after the close counts it, written or not, and a pop gets it once
/// written — or it is handed back. Never both, never lost.
#[test]
fn a_push_racing_close_lands_before_it_or_comes_back() {
    model(|| {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 2]>> =
            Arc::new(TaskRing::new([Slot::new(), Slot::new()], 2));
        let r = ring.clone();
        let pusher = loom::thread::spawn(move || r.push_plain(5));
        ring.close();
        let counted = ring.has_tasks();
        let pushed = pusher.join().unwrap();
        assert_eq!(
            pushed.is_ok(),
            counted,
            "a push that landed is counted, one that failed is not"
        );
        assert_eq!(ring.pop_plain(), pushed.ok().map(|()| 5));
        assert_eq!(ring.push_plain(6), Err(6));
    });
}

/// Feature `timings`: a value's stamp travels with it, under the slot's
/// protocol (loom checks the stamp's cell for races as it does the
/// value's), at the position its pusher claimed.
#[cfg(feature = "timings")]
#[test]
fn a_stamp_travels_with_its_value() {
    use super::timed::Stamp;
    use crate::clock::Instant;
    let at = |position: usize, _| Stamp::at(Instant::from_nanos(position as u64 * 100 + 7));
    model(move || {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 1]>> = Arc::new(TaskRing::new([Slot::new()], 1));
        ring.push(1, at).unwrap();
        let r = ring.clone();
        let popper = loom::thread::spawn(move || r.pop());
        // Position 1: the next lap of the only slot, once emptied.
        let second = ring.push(2, at);
        assert_eq!(popper.join().unwrap(), Some((1, at(0, Stamp::NONE))));
        match second {
            Ok(()) => assert_eq!(ring.pop(), Some((2, at(1, Stamp::NONE)))),
            Err(v) => assert_eq!(v, 2),
        }
    });
}

#[test]
fn a_popper_racing_a_pusher_sees_the_value_or_nothing() {
    model(|| {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 2]>> =
            Arc::new(TaskRing::new([Slot::new(), Slot::new()], 2));
        let r = ring.clone();
        let popper = loom::thread::spawn(move || r.pop_plain());
        ring.push_plain(7).unwrap();
        let first = popper.join().unwrap();
        let second = ring.pop_plain();
        assert_eq!(first.or(second), Some(7));
        assert!(first.is_none() || second.is_none());
    });
}

/// A push and a second pop meeting a slot whose last reader is between its
/// claim and its read: neither waits for it (the push hands its value back,
/// the pop finds nothing), and every value comes out once.
#[test]
fn nobody_waits_for_a_reader_and_nothing_is_lost() {
    model(|| {
        let ring: Arc<TaskRing<u32, [Slot<u32>; 1]>> = Arc::new(TaskRing::new([Slot::new()], 1));
        ring.push_plain(1).unwrap();
        let readers: [_; 2] = core::array::from_fn(|_| {
            let r = ring.clone();
            loom::thread::spawn(move || r.pop_plain())
        });
        let pushed = ring.push_plain(2);
        let mut out: std::vec::Vec<u32> = readers
            .into_iter()
            .filter_map(|r| r.join().unwrap())
            .collect();
        out.extend(ring.pop_plain());
        match pushed {
            Ok(()) => assert!(out.contains(&2), "a value pushed comes out"),
            Err(v) => out.push(v),
        }
        out.sort_unstable();
        assert_eq!(out, [1, 2], "each value once: popped, left, or handed back");
        assert_eq!(ring.pop_plain(), None);
    });
}
