//! Models of `Oneshot` (`src/oneshot.rs`): a `send` racing the receiver's
//! polls is never missed (the poll registers its waker under the lock the
//! send takes), and a receiver dropped meanwhile leaves the value behind.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use antpool::Oneshot;
use loom::sync::Arc;
use loom::thread;

use super::async_waiters::poll_to_end;
use super::{LoomLock, check};

fn cell() -> Arc<Oneshot<u32, LoomLock>> {
    Arc::new(Oneshot::with_lock(LoomLock::default()))
}

#[test]
fn a_send_racing_the_receiver_wakes_it_once() {
    check("oneshot send vs recv", || {
        let cell = cell();
        let sender = {
            let cell = cell.clone();
            thread::spawn(move || cell.send(7).unwrap())
        };
        // Blocks between a Pending and its wake-up: a lost wake-up deadlocks.
        assert_eq!(poll_to_end(pin!(cell.recv())), 7);
        sender.join().unwrap();
        assert_eq!(cell.try_recv(), None);
    });
}

#[test]
fn a_receiver_dropped_while_the_send_races_leaves_the_value() {
    check("oneshot receiver dropped", || {
        let cell = cell();
        let sender = {
            let cell = cell.clone();
            thread::spawn(move || cell.send(9).unwrap())
        };
        let early = {
            let mut recv = pin!(cell.recv());
            recv.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        };
        sender.join().unwrap();
        match early {
            Poll::Ready(v) => assert_eq!(v, 9),
            Poll::Pending => assert_eq!(cell.try_recv(), Some(9)),
        }
        assert_eq!(cell.try_recv(), None);
    });
}
