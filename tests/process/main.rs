//! Tests that count or change something process-wide — the default pool, a
//! global allocator, the process's threads, its address-space limit — in one
//! binary of their own, each holding the others off (`common::serial`).

#[path = "../it/common/mod.rs"]
mod common;

mod allocations;
mod child;
mod default_pool;
mod no_thread_left;
mod os_faults;
mod unwind_abort;
