//! The flag's lowering against a push and a finishing hand-off worker, under
//! loom: the real [`Inbox`], [`Node`] and [`NodeList`], the admission word cut
//! down to a count and one `WAITERS` bit, the cold lock a loom mutex, and
//! each party doing what `waiters_changed`, `wait_async.rs` and `next_task`
//! do with them. The engine's own model of this race (three threads, two
//! preemptions inside one lock section) ran past ten minutes; this one
//! checks the same steps in seconds. (Beside `inbox.rs`, as `list_loom.rs`.)

use core::ptr::NonNull;
use std::boxed::Box;
use std::vec::Vec;

use loom::sync::atomic::AtomicUsize;
use loom::sync::atomic::Ordering::{Acquire, SeqCst};
use loom::sync::{Arc, Mutex};

use super::inbox::Inbox;
use super::node::{NoSignal, Node, NodeList, state};
use super::ring_loom::model;
use crate::priority::Priority;

/// The waiters' flag, above the count.
const FLAG: usize = 1 << 8;
/// A hand-off pool of one.
const CAP: usize = 1;
const LEVEL: Priority = Priority::Normal;

type N = Node<u32, NoSignal>;

/// The cold state: the line, and the ids of the waiters let in.
struct Cold {
    line: NodeList<u32, NoSignal>,
    granted: Vec<u32>,
}

// SAFETY: the nodes the line points to live until the model ends (leaked
// boxes, freed after every thread joined), and are touched only under the
// mutex or by the inbox's protocol.
unsafe impl Send for Cold {}

struct Pool {
    adm: AtomicUsize,
    inbox: Inbox<u32, NoSignal>,
    cold: Mutex<Cold>,
}

impl Pool {
    /// Moves the inbox in (a swap, as every drain).
    fn drain(&self, cold: &mut Cold) {
        // SAFETY: we hold the mutex, which holds the line.
        let moved = unsafe { self.inbox.drain_into(LEVEL, &mut cold.line) };
        self.inbox.moved_in(moved);
    }

    /// `grant_waiters`: admits waiters while the count allows; then lowers
    /// the flag as `waiters_changed` does. `true`: go round again (the flag
    /// was put back with room).
    fn grant(&self, cold: &mut Cold) -> bool {
        self.drain(cold);
        while cold.line.len() > 0 {
            let a = self.adm.load(SeqCst);
            if a % FLAG >= CAP || self.adm.compare_exchange(a, a + 1, SeqCst, SeqCst).is_err() {
                break;
            }
            let node = cold.line.pop_front().unwrap();
            // SAFETY: unlinked under the mutex: ours to read.
            cold.granted.push(unsafe { id(node) });
        }
        self.lower(cold)
    }

    /// `waiters_changed`: the line empty, lower the flag, look at the inbox
    /// again and put the flag back for a push since; `true` if the word then
    /// has room.
    fn lower(&self, cold: &mut Cold) -> bool {
        if cold.line.len() > 0 || self.adm.load(SeqCst) & FLAG == 0 {
            return false;
        }
        self.adm.fetch_and(!FLAG, SeqCst);
        if !self.inbox.holds(LEVEL) {
            return false;
        }
        let a = self.adm.fetch_or(FLAG, SeqCst);
        a % FLAG < CAP
    }

    /// `let_waiters_in`: under the lock, as often as the lowering asks.
    fn let_waiters_in(&self) {
        let mut cold = self.cold.lock().unwrap();
        while self.grant(&mut cold) {}
    }
}

/// The id a node carries (its task).
///
/// # Safety
///
/// The caller holds the node's cell (it unlinked it).
unsafe fn id(node: NonNull<N>) -> u32 {
    // SAFETY: per the contract; a task is a `u32`, nothing to drop.
    unsafe {
        let id = node.as_ref().take_task();
        node.as_ref().put_back(id);
        id
    }
}

fn node(id: u32) -> NonNull<N> {
    let node = Box::new(Node::for_waker(state::WAITING, false));
    // SAFETY: a new node: its cell is ours and empty.
    unsafe { node.put_back(id) };
    NonNull::from(Box::leak(node))
}

/// A hand-off pool of one runs a task; waiter C is in the line. C is dropped
/// (it unlinks itself and lowers the flag), waiter P pushes itself and
/// raises it, and the running task ends (the worker serves a waiter if it
/// sees the flag, else gives its admission back and lets waiters in if its
/// leave saw the flag). P must be let in: by the worker, by itself (room at
/// its raise), or by C's lowering, which saw the flag back up with room.
#[test]
fn a_push_while_the_flag_is_lowered_is_let_in() {
    model(|| {
        let pool = Arc::new(Pool {
            adm: AtomicUsize::new(1 | FLAG),
            inbox: Inbox::new(),
            cold: Mutex::new(Cold {
                line: NodeList::new(),
                granted: Vec::new(),
            }),
        });
        let (c, p) = (node(1), node(2));
        // SAFETY: a live node in no list (freed at the end).
        unsafe { pool.inbox.push(LEVEL, c) };
        let (c_addr, p_addr) = (c.as_ptr() as usize, p.as_ptr() as usize);
        let dropper = {
            let pool = pool.clone();
            loom::thread::spawn(move || {
                let mut cold = pool.cold.lock().unwrap();
                pool.drain(&mut cold);
                let c = NonNull::new(c_addr as *mut N).unwrap();
                // Not found: the worker served C first (its task is the
                // pool's now).
                cold.line.remove(c);
                let let_in = pool.lower(&mut cold);
                drop(cold);
                if let_in {
                    pool.let_waiters_in();
                }
            })
        };
        let pusher = {
            let pool = pool.clone();
            loom::thread::spawn(move || {
                let p = NonNull::new(p_addr as *mut N).unwrap();
                // SAFETY: as for C.
                unsafe { pool.inbox.push(LEVEL, p) };
                let a = pool.adm.fetch_or(FLAG, SeqCst);
                if a % FLAG < CAP {
                    pool.let_waiters_in();
                }
            })
        };
        // The worker, its task done (`next_task`, `serve_waiter`,
        // `task_done`). On a thread of its own, so that the model's main
        // thread, joining, takes no preemption.
        let worker = {
            let pool = pool.clone();
            loom::thread::spawn(move || {
                let mut served = false;
                if pool.adm.load(Acquire) & FLAG != 0 {
                    let mut cold = pool.cold.lock().unwrap();
                    pool.drain(&mut cold);
                    if let Some(node) = cold.line.pop_front() {
                        // The admission passes to it.
                        // SAFETY: unlinked under the mutex.
                        cold.granted.push(unsafe { id(node) });
                        served = true;
                    }
                    let let_in = pool.lower(&mut cold);
                    drop(cold);
                    if let_in {
                        pool.let_waiters_in();
                    }
                }
                if !served && pool.adm.fetch_sub(1, SeqCst) & FLAG != 0 {
                    pool.let_waiters_in();
                }
            })
        };
        worker.join().unwrap();
        dropper.join().unwrap();
        pusher.join().unwrap();
        let cold = pool.cold.lock().unwrap();
        let a = pool.adm.load(SeqCst);
        match cold.granted[..] {
            [2] => {}
            // The worker served C: P waits for C's task, whose end sees the
            // flag.
            [1] => assert!(a % FLAG == CAP && a & FLAG != 0, "P stranded: {a:#x}"),
            _ => panic!(
                "granted {:?}, word {a:#x}: P stranded or let in twice",
                cold.granted
            ),
        }
        drop(cold);
        // SAFETY: every thread is done with the nodes (a node unlinked by a
        // serve is marked TAKEN: finished here, as its finisher would).
        unsafe {
            for n in [c, p] {
                if n.as_ref().state() == state::TAKEN {
                    n.as_ref().set_state(state::SERVED);
                }
                drop(Box::from_raw(n.as_ptr()));
            }
        }
    });
}
