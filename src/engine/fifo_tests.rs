//! Unit tests of the lane's two FIFOs, the [`TaskRing`](super::ring::TaskRing) and the
//! [`TaskList`](super::list::TaskList): FIFO order, full and closed, what is left to
//! drop, and many threads passing values through (also under Miri, smaller).
//! Their loom models are in their own files. Then the lane over them
//! ([`Transport`](super::transport::Transport)), closed.

mod ring {
    use super::super::heap::boxed_slots;
    use super::super::plain::Plain;
    use super::super::ring::*;

    #[test]
    fn fifo_full_and_empty() {
        let ring = TaskRing::new(boxed_slots::<u32>(3), 3);
        assert_eq!(ring.pop_plain(), None);
        assert!(ring.looks_empty());
        for lap in 0..5 {
            ring.push_plain(lap).unwrap();
            ring.push_plain(lap + 10).unwrap();
            ring.push_plain(lap + 20).unwrap();
            assert_eq!(ring.push_plain(99), Err(99));
            assert_eq!(ring.pop_plain(), Some(lap));
            ring.push_plain(lap + 30).unwrap();
            assert_eq!(ring.pop_plain(), Some(lap + 10));
            assert_eq!(ring.pop_plain(), Some(lap + 20));
            assert_eq!(ring.pop_plain(), Some(lap + 30));
            assert_eq!(ring.pop_plain(), None);
        }
    }

    #[test]
    fn inline_slots_and_drop_of_what_is_left() {
        use alloc::sync::Arc;
        let ring: TaskRing<Arc<()>, [Slot<Arc<()>>; 4]> =
            TaskRing::new([const { Slot::new() }; 4], 4);
        let token = Arc::new(());
        for _ in 0..7 {
            ring.push_plain(token.clone()).unwrap();
            drop(ring.pop_plain());
        }
        ring.push_plain(token.clone()).unwrap();
        ring.push_plain(token.clone()).unwrap();
        assert_eq!(Arc::strong_count(&token), 3);
        drop(ring);
        assert_eq!(Arc::strong_count(&token), 1);
    }

    #[test]
    fn push_now_fills_to_the_brim_and_hands_back_when_full() {
        let ring: TaskRing<u32, [Slot<u32>; 2]> = TaskRing::new([Slot::new(), Slot::new()], 2);
        assert_eq!(ring.push_now(1), Ok(()));
        assert_eq!(ring.push_now(2), Ok(()));
        assert_eq!(ring.push_now(3), Err(3));
        assert_eq!(ring.pop_plain(), Some(1));
        assert_eq!(ring.push_now(3), Ok(()), "the next lap, once emptied");
        assert_eq!(
            (ring.pop_plain(), ring.pop_plain(), ring.pop_plain()),
            (Some(2), Some(3), None)
        );
    }

    #[test]
    fn a_closed_ring_refuses_pushes_and_still_drains() {
        let ring = TaskRing::new(boxed_slots::<u32>(3), 3);
        for lap in 0..3 {
            ring.push_plain(lap).unwrap();
            ring.push_plain(lap + 10).unwrap();
            assert!(!ring.is_closed());
            ring.close();
            assert!(ring.is_closed());
            assert_eq!(ring.push_plain(99), Err(99), "closed: refused");
            assert_eq!(ring.push_now(98), Err(98), "closed: refused at once too");
            assert_eq!(
                (ring.len(), ring.has_tasks(), ring.looks_empty()),
                (2, true, false)
            );
            assert_eq!(ring.pop_plain(), Some(lap));
            assert_eq!(ring.pop_plain(), Some(lap + 10));
            assert_eq!(ring.pop_plain(), None);
            assert_eq!(
                (ring.len(), ring.has_tasks(), ring.looks_empty()),
                (0, false, true)
            );
            ring.reopen();
            assert!(!ring.is_closed());
            // Laps go on where they were: a full ring still reads full.
            for v in 0..3 {
                ring.push_plain(v).unwrap();
            }
            assert_eq!(ring.push_plain(99), Err(99), "full, not closed");
            assert!(!ring.is_closed());
            assert_eq!(ring.len(), 3);
            for v in 0..3 {
                assert_eq!(ring.pop_plain(), Some(v));
            }
        }
    }

    #[test]
    fn closing_keeps_what_is_left_to_drop() {
        use alloc::sync::Arc;
        let ring = TaskRing::new(boxed_slots::<Arc<()>>(2), 2);
        let token = Arc::new(());
        ring.push_plain(token.clone()).unwrap();
        ring.close();
        drop(ring);
        assert_eq!(Arc::strong_count(&token), 1);
    }

    #[cfg(feature = "std")]
    #[test]
    fn many_threads_each_value_once() {
        let ring = std::sync::Arc::new(TaskRing::new(boxed_slots::<usize>(8), 8));
        let (push, pop) = (ring.clone(), ring);
        super::each_value_once(move |v| push.push_plain(v), move || pop.pop_plain());
    }
}

mod list {
    use super::super::list::*;
    use super::super::plain::Plain;

    /// Indices per block: one more than its slots.
    const LAP: usize = BLOCK_CAP + 1;

    #[test]
    fn fifo_across_blocks_len_and_close() {
        let list: TaskList<_> = TaskList::new();
        assert!(list.is_empty());
        assert_eq!(list.pop_plain(), None);
        for round in 0..3 {
            for v in 0..100 {
                list.push_plain(v).unwrap();
            }
            assert_eq!((list.len(), list.is_empty()), (100, false));
            for v in 0..60 {
                assert_eq!(list.pop_plain(), Some(v));
            }
            assert_eq!(list.len(), 40);
            list.close();
            assert_eq!(list.push_plain(7), Err(7), "closed: refused");
            assert_eq!(list.len(), 40, "closing keeps what is in");
            for v in 60..100 {
                assert_eq!(list.pop_plain(), Some(v), "round {round}");
            }
            assert_eq!(list.pop_plain(), None);
            assert!(list.is_empty());
            list.reopen();
        }
    }

    #[test]
    fn a_block_read_out_is_kept_for_the_next_install() {
        let cap = LAP - 1; // slots a block
        let list: TaskList<_> = TaskList::new();
        // Two blocks full; the last push into each installed the next.
        for v in 0..2 * cap {
            list.push_plain(v).unwrap();
        }
        assert_eq!(list.spares(), 0);
        for v in 0..cap {
            assert_eq!(list.pop_plain(), Some(v));
        }
        assert_eq!(list.spares(), 1, "the first block, read out, is kept");
        // Filling the third block installs a fourth: the spare, reset.
        for v in 2 * cap..3 * cap {
            list.push_plain(v).unwrap();
        }
        assert_eq!(list.spares(), 0, "the install took it back");
        for v in cap..3 * cap {
            assert_eq!(list.pop_plain(), Some(v));
        }
        assert_eq!(list.pop_plain(), None);
        list.push_plain(7).unwrap();
        assert_eq!((list.pop_plain(), list.pop_plain()), (Some(7), None));
    }

    #[test]
    fn blocks_past_the_spare_cells_are_freed() {
        use alloc::sync::Arc;
        let cap = LAP - 1;
        let token = Arc::new(());
        let list: TaskList<_> = TaskList::new();
        // Eight blocks full (the last push installed a ninth), then read out:
        // the first blocks given up fill the spare cells, the rest are freed
        // (Miri checks that none leaks and none is freed twice).
        for _ in 0..8 * cap {
            list.push_plain(token.clone()).unwrap();
        }
        while list.pop_plain().is_some() {}
        let kept = list.spares();
        assert!(kept > 0 && kept < 8, "kept {kept}");
        assert_eq!(Arc::strong_count(&token), 1, "every value dropped once");
        // The installs take them back, one each.
        for _ in 0..2 * cap {
            list.push_plain(token.clone()).unwrap();
        }
        assert_eq!(list.spares(), kept - 2);
        drop(list);
        assert_eq!(Arc::strong_count(&token), 1);
    }

    #[test]
    fn drop_frees_what_is_left() {
        use alloc::sync::Arc;
        let token = Arc::new(());
        let list: TaskList<_> = TaskList::new();
        for _ in 0..(3 * LAP + 5) {
            list.push_plain(token.clone()).unwrap();
        }
        for _ in 0..LAP {
            drop(list.pop_plain());
        }
        list.close();
        assert_eq!(Arc::strong_count(&token), 2 * LAP + 6);
        drop(list);
        assert_eq!(Arc::strong_count(&token), 1);
    }

    #[cfg(feature = "std")]
    #[test]
    fn many_threads_each_value_once_until_closed() {
        let list = std::sync::Arc::new(TaskList::<_>::new());
        let (push, pop) = (list.clone(), list.clone());
        super::each_value_once(move |v| push.push_plain(v), move || pop.pop_plain());
        list.close();
        assert_eq!(list.push_plain(0), Err(0));
    }
}

mod transport {
    use super::super::heap::boxed_slots;
    use super::super::plain::Plain;
    use super::super::transport::{Growth, Transport};
    use std::sync::{Arc, mpsc};
    use std::time::Duration;

    /// A closed lane hands every push back and says it is closed, whatever
    /// its growth: also a spilling lane (an unbounded pool's) whose ring is
    /// closed but not full, where a refused push is not one that waits for a
    /// popper to finish its read. It keeps what it held for the drain.
    #[test]
    fn a_closed_lane_refuses_pushes_in_every_growth() {
        for growth in [Growth::Bounded, Growth::Spilling, Growth::Unbounded] {
            let lane = Arc::new(Transport::new(boxed_slots::<u32>(4), 4, growth));
            lane.push_plain(1).unwrap();
            lane.close();
            assert!(lane.is_closed(), "{growth:?}");
            let (tx, rx) = mpsc::channel();
            let l = lane.clone();
            std::thread::spawn(move || tx.send(l.push_plain(2)).unwrap());
            let pushed = rx.recv_timeout(Duration::from_secs(10));
            assert_eq!(pushed, Ok(Err(2)), "{growth:?}: handed back at once");
            assert_eq!(lane.pop_plain(), Some(1), "{growth:?}");
            assert_eq!(lane.pop_plain(), None, "{growth:?}");
        }
    }
}

/// Two producers push `0..2 * per` through `push` (retrying a value handed
/// back), two consumers take them through `pop`: every value comes out once.
/// (The stress test of the engine's FIFOs: the ring's and the list's.)
#[cfg(feature = "std")]
fn each_value_once(
    push: impl Fn(usize) -> Result<(), usize> + Send + Sync + 'static,
    pop: impl Fn() -> Option<usize> + Send + Sync + 'static,
) {
    use std::sync::Arc;
    use std::vec::Vec;
    let per = if cfg!(miri) { 200 } else { 20_000 };
    let (push, pop) = (Arc::new(push), Arc::new(pop));
    let producers: Vec<_> = (0..2)
        .map(|p| {
            let push = push.clone();
            std::thread::spawn(move || {
                for i in 0..per {
                    let mut v = p * per + i;
                    while let Err(back) = push(v) {
                        v = back;
                        std::thread::yield_now();
                    }
                }
            })
        })
        .collect();
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let pop = pop.clone();
            std::thread::spawn(move || {
                let mut got = Vec::new();
                while got.len() < per {
                    match pop() {
                        Some(v) => got.push(v),
                        None => std::thread::yield_now(),
                    }
                }
                got
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    let mut all: Vec<usize> = consumers
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    all.sort_unstable();
    assert_eq!(all, (0..2 * per).collect::<Vec<_>>());
}
