//! `IdleQueue`'s stack (LIFO, growable: the heap pools' default) against the reference model in
//! `tests/it/model/mod.rs`: every operation's result, the length after each step,
//! stamps never decreasing, and the final contents.
#![no_main]

#[path = "../../tests/it/model/mod.rs"]
mod model;

use libfuzzer_sys::fuzz_target;
use model::{Op, Shape};

fuzz_target!(|data: &[u8]| {
    let shape = Shape { fifo: false, capacity: None };
    let queue = <antpool::IdleQueue as antpool::port::WorkerQueue>::with_capacity(None, false);
    model::check(queue, shape, &Op::decode(data));
});
