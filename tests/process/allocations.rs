//! A hand-off to an idle worker allocates nothing: not for `PoolWithFunc`, and not
//! for a `Pool` task whose closure fits in three words (it travels inline); a
//! bigger closure costs exactly its one box. Counted by a global allocator,
//! counting only the test's own thread and the pools' workers.
//!
//! Both pools pre-allocate their idle queue: otherwise a worker's first park
//! grows it, and `idle()` already counts a worker that has finished its task
//! but is still looking for the next one, before it parks.

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use antpool::port::IdleWorker;
use antpool::{Pool, PoolWithFunc};
use common::{Counter, eventually};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
/// The bytes those allocations asked for (a `realloc` counts its new size).
static BYTES: AtomicUsize = AtomicUsize::new(0);

std::thread_local! {
    /// Whether this thread's allocations count: the test's own thread and the
    /// pools' workers (their start hook sets it), not the test harness's
    /// threads, which come and go beside them.
    static COUNTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Counts this thread's allocations from now on.
fn count_this_thread() {
    COUNTED.with(|counted| counted.set(true));
}

fn counted() -> bool {
    COUNTED.try_with(std::cell::Cell::get).unwrap_or(false)
}

// SAFETY: forwards to `System`, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counted() {
            ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
            BYTES.fetch_add(layout.size(), Ordering::SeqCst);
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counted() {
            ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
            BYTES.fetch_add(new_size, Ordering::SeqCst);
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made while `work` runs and the pool goes back to `idle` idle
/// workers.
fn allocations_during(idle: impl Fn() -> usize, work: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    work();
    assert!(eventually(|| idle() == 1));
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

#[test]
fn a_hand_off_allocates_nothing_but_a_big_closures_box() {
    let _alone = common::serial();
    count_this_thread();
    // PoolWithFunc: the argument travels by value in the worker's mailbox.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let func_pool = PoolWithFunc::builder(|n: usize| {
        RUNS.fetch_add(n, Ordering::SeqCst);
    })
    .capacity(1)
    .prealloc(true)
    .on_worker_start(count_this_thread)
    .build()
    .unwrap();
    func_pool.invoke(1).unwrap(); // starts the worker (a thread: allocates)
    assert!(eventually(|| func_pool.idle() == 1));
    for round in 0..100 {
        let n = allocations_during(|| func_pool.idle(), || func_pool.invoke(1).unwrap());
        assert_eq!(n, 0, "round {round}: a PoolWithFunc hand-off allocated");
    }
    assert!(eventually(|| RUNS.load(Ordering::SeqCst) == 101));

    // Pool, small closure (one `Arc` captured): inline, no allocation.
    let pool = Pool::builder()
        .capacity(1)
        .prealloc(true)
        .on_worker_start(count_this_thread)
        .build()
        .unwrap();
    let done = Counter::new();
    let d = done.clone();
    pool.submit(move || d.add()).unwrap();
    assert!(eventually(|| pool.idle() == 1));
    for round in 0..100 {
        let d = done.clone();
        let n = allocations_during(|| pool.idle(), || pool.submit(move || d.add()).unwrap());
        assert_eq!(n, 0, "round {round}: a small Pool task allocated");
    }
    assert!(done.reaches(101));

    // Pool, big closure (64 bytes captured): exactly its one box.
    for round in 0..100 {
        let (d, pad) = (done.clone(), [round as u64; 7]);
        let n = allocations_during(
            || pool.idle(),
            || {
                pool.submit(move || {
                    if pad[6] < 1_000 {
                        d.add()
                    }
                })
                .unwrap()
            },
        );
        assert_eq!(
            n, 1,
            "round {round}: a big Pool task allocated more than its box"
        );
    }
    assert!(done.reaches(201));
    pool.release_timeout(Duration::from_secs(5)).unwrap();
    func_pool.release_timeout(Duration::from_secs(5)).unwrap();
}

/// `prealloc(true)` reserves the idle queue's room for every worker when the
/// pool is built; without it, a pool of the largest capacity reserves none up
/// front (its idle queue grows as workers park).
#[test]
fn prealloc_reserves_the_idle_queue_at_build_and_only_then() {
    let _alone = common::serial();
    count_this_thread();
    const CAP: usize = antpool::MAX_CAPACITY;
    let room = CAP * std::mem::size_of::<IdleWorker>();
    let bytes_to_build = |prealloc| {
        let before = BYTES.load(Ordering::SeqCst);
        let pool = Pool::builder()
            .capacity(CAP)
            .prealloc(prealloc)
            .build()
            .unwrap();
        let bytes = BYTES.load(Ordering::SeqCst) - before;
        pool.release();
        bytes
    };
    let with = bytes_to_build(true);
    assert!(
        with >= room,
        "prealloc: {with} bytes, the queue needs {room}"
    );
    let without = bytes_to_build(false);
    assert!(without < room / 16, "no prealloc: {without} bytes at build");
}
