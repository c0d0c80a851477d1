//! `Oneshot`: results from a `StaticPoolWithFunc` to async code, with no heap.

use crate::common;

use std::future::Future;
use std::pin::pin;
use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use antpool::port::{StdClock, StdLock, StdSpawner};
use antpool::{Oneshot, Options, StaticPoolWithFunc};
use common::PATIENCE;

type Cell = Oneshot<usize, StdLock>;

/// Polls once with a waker that does nothing.
fn poll_once<F: Future>(fut: std::pin::Pin<&mut F>) -> Poll<F::Output> {
    fut.poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn a_value_sent_before_or_after_the_first_poll_is_received_once() {
    let cell: Cell = Oneshot::new();
    cell.send(1).unwrap();
    assert_eq!(poll_once(pin!(cell.recv())), Poll::Ready(1));
    let mut recv = pin!(cell.recv());
    assert_eq!(poll_once(recv.as_mut()), Poll::Pending);
    cell.send(2).unwrap();
    assert_eq!(poll_once(recv.as_mut()), Poll::Ready(2));
    assert_eq!(cell.try_recv(), None);
}

#[test]
fn a_full_cell_keeps_its_value_and_hands_the_new_one_back() {
    let cell: Cell = Oneshot::new();
    cell.send(1).unwrap();
    assert_eq!(cell.send(2), Err(2));
    assert_eq!(cell.try_recv(), Some(1));
    cell.send(3).unwrap();
}

#[test]
fn a_dropped_receiver_leaves_the_value_for_the_next() {
    let cell: Cell = Oneshot::new();
    {
        let mut recv = pin!(cell.recv());
        assert_eq!(poll_once(recv.as_mut()), Poll::Pending);
    }
    cell.send(4).unwrap();
    assert_eq!(futures_executor::block_on(cell.recv()), 4);
}

#[test]
#[should_panic(expected = "another recv future")]
fn two_receivers_at_once_panic() {
    let cell: Cell = Oneshot::new();
    let _first = cell.recv();
    let _second = cell.recv();
}

type Request = (usize, &'static Cell);

fn double((n, reply): Request) {
    reply.send(2 * n).unwrap();
}

/// Many requests, each with its own cell, awaited from async code while the
/// pool's workers answer them.
#[test]
fn results_of_a_static_pool_reach_async_code() {
    const N: usize = if cfg!(miri) { 20 } else { 500 };
    static CELLS: [Cell; 8] = [const { Oneshot::new() }; 8];
    static POOL: OnceLock<StaticPoolWithFunc<Request, 4, StdClock, StdSpawner>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        StaticPoolWithFunc::new(
            Options::new().capacity(4),
            double,
            StdClock::new(),
            StdSpawner::new(),
        )
    });
    let sum = futures_executor::block_on(async {
        let mut sum = 0;
        for round in 0..N / CELLS.len() {
            for (i, cell) in CELLS.iter().enumerate() {
                pool.invoke_async((round * CELLS.len() + i, cell))
                    .await
                    .unwrap();
            }
            for cell in &CELLS {
                sum += cell.recv().await;
            }
        }
        sum
    });
    let n = N / CELLS.len() * CELLS.len();
    assert_eq!(sum, n * (n - 1));
    pool.release_timeout(PATIENCE).unwrap();
}
