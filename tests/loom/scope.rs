//! A model of a scope (`src/scope.rs` and its module docs): the scope returns
//! only once its detached tasks are gone, and what they wrote to the caller's
//! stack is visible after it.

use std::time::Duration;

use antpool::Pool;
use loom::sync::Arc;
use loom::sync::atomic::AtomicU64;

use super::{LoomClock, ONE_CPU, check, std_pool};

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

/// Writes its cell as it is dropped: with the closure that holds it, run or not.
struct SetOnDrop<'a>(&'a Borrowed);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.set(2);
    }
}

#[test]
fn a_scoped_groups_task_is_gone_before_the_scope_returns() {
    // A task of a scoped group borrows from the caller (its closure holds a
    // guard that writes the caller's cell as it goes), and the group is
    // dropped at once: the drop's abort races the worker beginning the task.
    // Aborted, the closure is dropped unrun when the worker reaches it, and
    // the scope waits for that (the task's ticket); begun, the scope waits
    // for it and joins it (the group was left to the scope). Either way the
    // write must be visible after the scope (else loom reports a race on the
    // cell); a lost wake-up is a deadlock.
    check("scoped group waits", || {
        let pool = std_pool(1, 0);
        let cell = Borrowed(loom::cell::UnsafeCell::new(0));
        pool.scope(|s| {
            let mut group = s.group::<()>();
            let guard = SetOnDrop(&cell);
            group
                .spawn(move || {
                    let _guard = guard;
                })
                .unwrap();
        });
        assert_eq!(cell.get(), 2);
        pool.release_timeout(Duration::MAX).unwrap();
    });
}
