//! The list under loom, with blocks of three slots: pushes and pops across a
//! block's end (its install, the head moving on, the block given up by its
//! last reader and taken back by an install, and read while it is filled
//! again), and a push racing `close`.
//! (Beside `list.rs`, which it would take past 600 lines.)

use loom::sync::Arc;

use super::list::TaskList;
use super::plain::Plain;
use super::ring_loom::model;

/// Blocks of three slots (so that a model crosses a block's end in a few
/// pushes), and two spares (the models go through more than one).
type Small = TaskList<u32, 3, 2>;

/// Two pushers and a popper over a block's end: every value out once.
#[test]
fn pushers_and_a_popper_across_a_block_end() {
    model(|| {
        let list: Arc<Small> = Arc::new(TaskList::new());
        list.push_plain(1).unwrap();
        list.push_plain(2).unwrap();
        let pushers: [_; 2] = core::array::from_fn(|i| {
            let list = list.clone();
            loom::thread::spawn(move || list.push_plain(10 + i as u32).unwrap())
        });
        let l = list.clone();
        let popper = loom::thread::spawn(move || (l.pop_plain(), l.pop_plain()));
        for p in pushers {
            p.join().unwrap();
        }
        let (a, b) = popper.join().unwrap();
        let mut seen: std::vec::Vec<u32> = [a, b].into_iter().flatten().collect();
        while let Some(v) = list.pop_plain() {
            seen.push(v);
        }
        seen.sort_unstable();
        assert_eq!(seen, [1, 2, 10, 11]);
    });
}

/// A block read out by one thread while another fills the next and
/// installs a third: the installer takes the first back from the spares
/// if it was given up by then (else allocates), and every value comes
/// out once, in order, through the reused block too.
#[test]
fn a_block_given_up_is_reused_for_an_install() {
    model(|| {
        let list: Arc<Small> = Arc::new(TaskList::new());
        // 1, 2, 3 fill the first block; the third push installs the second.
        for v in 1..=3 {
            list.push_plain(v).unwrap();
        }
        let l = list.clone();
        // Reading 3 gives the first block up.
        let popper = loom::thread::spawn(move || [l.pop_plain(), l.pop_plain(), l.pop_plain()]);
        let l = list.clone();
        // 6 takes the second block's last slot: it installs a third.
        let pusher = loom::thread::spawn(move || {
            for v in 4..=6 {
                l.push_plain(v).unwrap();
            }
        });
        assert_eq!(popper.join().unwrap(), [Some(1), Some(2), Some(3)]);
        pusher.join().unwrap();
        // Through the third block, which may be the first one again.
        list.push_plain(7).unwrap();
        let rest: std::vec::Vec<u32> = core::iter::from_fn(|| list.pop_plain()).collect();
        assert_eq!(rest, [4, 5, 6, 7]);
    });
}

/// Two readers of one block: the one that reads its last slot gives the
/// block up only once the other has read its slot too, and the install
/// that takes it back (and the push into its first slot) comes after
/// every read of it, whoever gave it up.
#[test]
fn a_block_is_reused_only_after_its_last_reader() {
    model(|| {
        let list: Arc<Small> = Arc::new(TaskList::new());
        for v in 1..=3 {
            list.push_plain(v).unwrap();
        }
        let l = list.clone();
        let slow = loom::thread::spawn(move || l.pop_plain());
        let l = list.clone();
        let other = loom::thread::spawn(move || {
            let got = [l.pop_plain(), l.pop_plain()];
            // 6 and 9 install blocks (the first one, if given up by then),
            // and 7 and 10 go into their first slots.
            for v in 4..=10 {
                l.push_plain(v).unwrap();
            }
            got
        });
        let mut seen: std::vec::Vec<u32> = [slow.join().unwrap()].into_iter().flatten().collect();
        seen.extend(other.join().unwrap().into_iter().flatten());
        seen.sort_unstable();
        assert_eq!(seen, [1, 2, 3]);
        let rest: std::vec::Vec<u32> = core::iter::from_fn(|| list.pop_plain()).collect();
        assert_eq!(rest, [4, 5, 6, 7, 8, 9, 10]);
    });
}

/// A popper reading through a block that a pusher, at the same time, takes
/// back from the spares and fills: the popper sees the reset block (no stale
/// `WRITE`, no stale `next`) and every value once, in order.
#[test]
fn a_reused_block_is_read_while_it_is_filled() {
    model(|| {
        let list: Arc<Small> = Arc::new(TaskList::new());
        for v in 1..=3 {
            list.push_plain(v).unwrap();
        }
        let l = list.clone();
        let popper = loom::thread::spawn(move || {
            let mut got = std::vec::Vec::new();
            while got.len() < 7 {
                match l.pop_plain() {
                    Some(v) => got.push(v),
                    None => loom::thread::yield_now(),
                }
            }
            got
        });
        let l = list.clone();
        // 6 installs a block (the first one, if read out by then); 7 goes
        // into its first slot.
        let pusher = loom::thread::spawn(move || {
            for v in 4..=7 {
                l.push_plain(v).unwrap();
            }
        });
        pusher.join().unwrap();
        assert_eq!(popper.join().unwrap(), [1, 2, 3, 4, 5, 6, 7]);
    });
}

/// A push racing `close`: it lands before the mark — counted by the
/// closer's later read, and popped — or is handed back.
#[test]
fn a_push_racing_close_lands_before_it_or_comes_back() {
    model(|| {
        let list: Arc<Small> = Arc::new(TaskList::new());
        list.push_plain(1).unwrap();
        list.push_plain(2).unwrap();
        let l = list.clone();
        // The third push takes the block's last slot and installs the next.
        let pusher = loom::thread::spawn(move || l.push_plain(3));
        list.close();
        let counted = list.len();
        let pushed = pusher.join().unwrap();
        assert_eq!(counted, 2 + usize::from(pushed.is_ok()));
        assert_eq!((list.pop_plain(), list.pop_plain()), (Some(1), Some(2)));
        assert_eq!(list.pop_plain(), pushed.ok().map(|()| 3));
        assert_eq!(list.push_plain(4), Err(4));
        assert!(list.is_empty());
    });
}
