//! A model of a scope (`src/scope.rs` and its module docs): the scope returns
//! only once its detached tasks are gone, and what they wrote to the caller's
//! stack is visible after it.

use std::time::Duration;

use antpool::Pool;
use loom::sync::Arc;
use loom::sync::atomic::AtomicU64;

use super::{LoomClock, ONE_CPU, check};

/// A value the scope's tasks write and the scope's caller reads after it, in
/// loom's cell: loom reports the read as a data race unless the write
/// happens-before it.
struct Borrowed(loom::cell::UnsafeCell<u32>);

// SAFETY: the model writes it from one task and reads it only after the scope
// returned; that this is ordered is what loom checks.
unsafe impl Sync for Borrowed {}

impl Borrowed {
    fn set(&self, value: u32) {
        // SAFETY: one writer per cell (see `Sync`).
        self.0.with_mut(|p| unsafe { *p = value })
    }

    fn get(&self) -> u32 {
        // SAFETY: read after the writer is gone; loom checks that order.
        self.0.with(|p| unsafe { *p })
    }
}

#[test]
fn scope_returns_only_after_its_tasks_are_gone() {
    // Two detached tasks that borrow from the caller: the scope must wait for
    // both (a lost wake-up is a deadlock loom reports), and what they wrote
    // must be visible after it (else loom reports a race on the cells).
    check("scope waits", || {
        let clock = LoomClock(Arc::new(AtomicU64::new(0)));
        let pool = Pool::builder_with(clock, ONE_CPU)
            .capacity(2)
            .disable_purge(true)
            .build()
            .unwrap();
        let (a, b) = (
            Borrowed(loom::cell::UnsafeCell::new(0)),
            Borrowed(loom::cell::UnsafeCell::new(0)),
        );
        pool.scope(|s| {
            drop(s.spawn(|| a.set(1)).unwrap());
            drop(s.spawn(|| b.set(2)).unwrap());
        });
        assert_eq!(a.get() + b.get(), 3);
        pool.release_timeout(Duration::MAX).unwrap();
    });
}

#[test]
fn a_scoped_groups_tasks_are_gone_before_the_scope_returns() {
    // Two tasks of a scoped group borrow from the caller, and the group is
    // dropped at once: each task is aborted before it begins, or runs — and
    // then the scope waits for it (its ticket) and joins it (the group it was
    // left to). Whatever a task wrote must be visible after the scope (else
    // loom reports a race on the cells); a lost wake-up is a deadlock.
    check("scoped group waits", || {
        let clock = LoomClock(Arc::new(AtomicU64::new(0)));
        let pool = Pool::builder_with(clock, ONE_CPU)
            .capacity(2)
            .disable_purge(true)
            .build()
            .unwrap();
        let (a, b) = (
            Borrowed(loom::cell::UnsafeCell::new(0)),
            Borrowed(loom::cell::UnsafeCell::new(0)),
        );
        pool.scope(|s| {
            let mut group = s.group::<()>();
            group.spawn(|| a.set(1)).unwrap();
            group.spawn(|| b.set(2)).unwrap();
        });
        assert!(matches!((a.get(), b.get()), (0 | 1, 0 | 2)));
        pool.release_timeout(Duration::MAX).unwrap();
    });
}
