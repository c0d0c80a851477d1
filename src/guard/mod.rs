//! Around each task on a std worker: its panic caught and handed to the
//! pool's handler ([`panic`]), and the worker's hooks ([`policy`]). Below the
//! results a caller joins (`join/`), which report a caught panic, and above
//! the engine, whose [`Execute`](crate::engine::Execute) it wraps.

pub(crate) mod panic;
pub(crate) mod policy;
