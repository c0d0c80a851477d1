//! `IdleQueue` (the heap pools' default) in both of its policies — a ring
//! buffer sized at build (`prealloc`), and a stack — against the reference
//! model.
#![no_main]

#[path = "../../tests/it/model/mod.rs"]
mod model;

use antpool::port::WorkerQueue;
use libfuzzer_sys::fuzz_target;
use model::{Op, Shape};

fuzz_target!(|data: &[u8]| {
    let ops = Op::decode(data);
    let fifo = Shape { fifo: true, capacity: Some(4) };
    model::check(antpool::IdleQueue::with_capacity(Some(4), true), fifo, &ops);
    let lifo = Shape { fifo: false, capacity: None };
    model::check(antpool::IdleQueue::with_capacity(Some(4), false), lifo, &ops);
});
