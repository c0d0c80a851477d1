//! The async check: a future awaits results computed on the pool's workers
//! ([`Oneshot`](antpool::Oneshot) cells), polled by a small executor on the
//! controlling thread. No `std`, no heap, no executor crate.
//!
//! The executor sleeps a tick between polls unless a waker woke it. It does
//! not park on the port's `Signal`: a thread has one signal in play at a
//! time, and the pool itself may wait on this thread's signal inside a poll
//! (a spawn's handshake), so a waker's notify there would end that wait
//! early. An executor inside a kernel thread parks on something of its own
//! (a second task-notification index, an event flag).

use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use core::time::Duration;

use portable_atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use crate::Checks;
use crate::pools::{CELLS, Pools, Request};
use crate::port::Port;

/// How many results the check awaits, [`CELLS`] in flight at a time.
const REQUESTS: u32 = 200;

/// Wake-ups the executor's waker delivered, and whether one is pending.
static WAKES: AtomicUsize = AtomicUsize::new(0);
static WOKEN: AtomicBool = AtomicBool::new(false);
/// Sends that found their cell still full.
static FULL: AtomicUsize = AtomicUsize::new(0);

/// The results pool's function: a cube that takes a while now and then.
pub(crate) fn cube<P: Port>((n, reply): Request<P>) {
    if n % 3 == 0 {
        P::sleep(1);
    }
    if reply.send(n * n * n).is_err() {
        FULL.fetch_add(1, Relaxed);
    }
}

const VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, drop_waker);

fn clone(_: *const ()) -> RawWaker {
    RawWaker::new(core::ptr::null(), &VTABLE)
}

fn wake(_: *const ()) {
    WAKES.fetch_add(1, Relaxed);
    WOKEN.store(true, Relaxed);
}

fn drop_waker(_: *const ()) {}

/// Polls `fut` on this thread until it is ready.
fn block_on<P: Port, F: Future>(fut: F) -> F::Output {
    // SAFETY: the vtable's functions touch only statics and ignore the data
    // pointer, so any copy of the waker, on any thread, is sound.
    let waker = unsafe { Waker::from_raw(RawWaker::new(core::ptr::null(), &VTABLE)) };
    let mut fut = pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            return out;
        }
        if !WOKEN.swap(false, Relaxed) {
            P::sleep(1);
        }
    }
}

/// Awaits [`REQUESTS`] results, [`CELLS`] in flight at a time.
pub(crate) fn check<P: Port>(pools: &'static Pools<P>, checks: &mut Checks) {
    WAKES.store(0, Relaxed);
    FULL.store(0, Relaxed);
    let pool = &pools.results;
    let mut refused = 0;
    let sum = block_on::<P, _>(async {
        let mut sum: u64 = 0;
        for first in (0..REQUESTS).step_by(CELLS) {
            let mut sent = [false; CELLS];
            for ((n, cell), sent) in (first..).zip(&pools.cells).zip(&mut sent) {
                match pool.invoke_async((n, cell)).await {
                    Ok(()) => *sent = true,
                    Err(_) => refused += 1,
                }
            }
            // Only a request the pool took has a result coming.
            for (cell, _) in pools.cells.iter().zip(sent).filter(|(_, sent)| *sent) {
                sum += u64::from(cell.recv().await);
            }
        }
        sum
    });
    let expected: u64 = (0..u64::from(REQUESTS)).map(|n| n * n * n).sum();
    let released = pool.release_timeout(Duration::from_secs(5));
    let wakes = WAKES.load(Relaxed);
    checks.check(
        "a small executor awaits results from the workers (Oneshot, no heap)",
        sum == expected && refused == 0 && wakes > 0 && FULL.load(Relaxed) == 0 && released.is_ok(),
        format_args!(
            "{REQUESTS} results, sum {sum} (expected {expected}), {wakes} wake-ups, {refused} refused; release {released:?}"
        ),
    );
}
