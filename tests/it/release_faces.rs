//! `release_async`, `wait_released_async` and `wait_released_timeout` on the
//! static pool (no heap: the same futures). `release_async.rs` has the
//! contract itself, on `Pool`; the default pool's are in `tests/process/`.
//! Runs under Miri in CI.

use crate::common;

use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::LazyLock;
use std::task::{Poll, Waker};
use std::time::Duration;

use antpool::port::{StdClock, StdSpawner};
use antpool::{Options, ReleaseError, StaticPoolWithFunc};
use common::Gate;
use futures_executor::block_on;

/// Polls `fut` once; nothing is woken.
fn poll_once<F: Future + ?Sized>(fut: Pin<&mut F>) -> Poll<F::Output> {
    common::poll_once(fut, Waker::noop())
}

type Held = StaticPoolWithFunc<Gate, 2, StdClock, StdSpawner>;

#[test]
fn a_static_pool_releases_without_a_heap_of_its_own() {
    // A `fn(Gate)`: each task waits on the gate it is given.
    static POOL: LazyLock<Held> = LazyLock::new(|| {
        StaticPoolWithFunc::new(
            Options::new().capacity(2),
            |g: Gate| g.wait(),
            StdClock::new(),
            StdSpawner::new(),
        )
    });
    let gate = Gate::new();
    POOL.invoke(gate.clone()).unwrap();
    let mut release = pin!(POOL.release_async());
    assert!(POOL.invoke(Gate::new()).unwrap_err().is_closed());
    assert!(poll_once(release.as_mut()).is_pending());
    POOL.reboot();
    assert_eq!(
        poll_once(release.as_mut()),
        Poll::Ready(Err(ReleaseError::Reopened))
    );
    gate.open();
    assert_eq!(block_on(POOL.release_async()), Ok(()));
    assert_eq!(POOL.running(), 0);
    assert!(POOL.wait_released_timeout(Duration::ZERO));
    assert_eq!(block_on(POOL.wait_released_async()), Ok(()));
}
