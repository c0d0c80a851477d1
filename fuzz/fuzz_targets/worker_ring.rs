//! `WorkerRing<N>` (FIFO, inline, fixed) against the reference model, for a ring
//! that fills up often (N = 4) and one that is always nearly full (N = 1): a full
//! ring must hand the worker back untouched.
#![no_main]

#[path = "../../tests/it/model/mod.rs"]
mod model;

use libfuzzer_sys::fuzz_target;
use model::{Op, Shape};

fuzz_target!(|data: &[u8]| {
    let ops = Op::decode(data);
    let four = Shape { fifo: true, capacity: Some(4) };
    model::check(antpool::WorkerRing::<4>::new(), four, &ops);
    let one = Shape { fifo: true, capacity: Some(1) };
    model::check(antpool::WorkerRing::<1>::new(), one, &ops);
});
