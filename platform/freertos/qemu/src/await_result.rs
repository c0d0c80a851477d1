//! The async check: a future awaits results computed on the pool's worker
//! tasks (`Oneshot`), polled by a tiny executor on the controller task that
//! sleeps on a task notification between polls — the shape an embassy
//! executor running inside a FreeRTOS task has. No `std`, no heap.

use core::ffi::c_void;
use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use portable_atomic::{AtomicUsize, Ordering::Relaxed};

use antpool::{Oneshot, Options, StaticPoolWithFunc};
use antpool_freertos::{CriticalSection, FreeRtosSpawner, TickClock};

use crate::SPAWNER;
use crate::kernel::{CLOCK, Checks, delay};

type Cell = Oneshot<u32, CriticalSection>;
type Request = (u32, &'static Cell);

const REQUESTS: u32 = 200;
static CELLS: [Cell; 4] = [const { Oneshot::new() }; 4];

/// A result that takes a while: a block, so the future really waits.
fn cube((n, reply): Request) {
    if n % 3 == 0 {
        delay(1);
    }
    if reply.send(n * n * n).is_err() {
        crate::fail(format_args!("a cell still held a result"));
    }
}

static POOL: StaticPoolWithFunc<Request, 2, TickClock, FreeRtosSpawner> =
    StaticPoolWithFunc::new(Options::new().capacity(2), cube, CLOCK, SPAWNER);

unsafe extern "C" {
    fn xTaskGetCurrentTaskHandle() -> *mut c_void;
    fn xTaskGenericNotify(
        task: *mut c_void,
        index: core::ffi::c_ulong,
        value: u32,
        action: core::ffi::c_int,
        previous: *mut u32,
    ) -> core::ffi::c_long;
    fn ulTaskGenericNotifyTake(
        index: core::ffi::c_ulong,
        clear: core::ffi::c_long,
        ticks: core::ffi::c_ulong,
    ) -> u32;
}

/// Wake-ups the executor's waker delivered.
static WAKES: AtomicUsize = AtomicUsize::new(0);

/// The waker: a notification (slot 0, which the pool leaves alone) to the
/// task that polls. Its data is that task's handle, which outlives it.
const VTABLE: RawWakerVTable =
    RawWakerVTable::new(|task| RawWaker::new(task, &VTABLE), wake, wake, |_| {});

fn wake(task: *const ()) {
    WAKES.fetch_add(1, Relaxed);
    // SAFETY: `task` is the live polling task's handle; eIncrement (2) with no
    // previous-value pointer is xTaskNotifyGiveIndexed(task, 0).
    unsafe { xTaskGenericNotify(task as *mut c_void, 0, 0, 2, core::ptr::null_mut()) };
}

/// Polls `fut` on this task until it is ready, sleeping on notification
/// slot 0 between polls.
fn block_on<F: Future>(fut: F) -> F::Output {
    // SAFETY: called from a task.
    let me = unsafe { xTaskGetCurrentTaskHandle() };
    // SAFETY: the vtable's functions only copy the handle or notify its task.
    let waker = unsafe { Waker::from_raw(RawWaker::new(me as *const (), &VTABLE)) };
    let mut fut = pin!(fut);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut Context::from_waker(&waker)) {
            return out;
        }
        // SAFETY: our own slot 0; clear-on-exit; wait for ever.
        unsafe { ulTaskGenericNotifyTake(0, 1, core::ffi::c_ulong::MAX) };
    }
}

/// Awaits `REQUESTS` results, four in flight at a time.
pub fn check(checks: &mut Checks) {
    let sum = block_on(async {
        let mut sum: u64 = 0;
        for first in (0..REQUESTS).step_by(CELLS.len()) {
            for (n, cell) in (first..).zip(&CELLS) {
                if let Err(e) = POOL.invoke_async((n, cell)).await {
                    crate::fail(format_args!("invoke_async refused: {e:?}"));
                }
            }
            for cell in &CELLS {
                sum += u64::from(cell.recv().await);
            }
        }
        sum
    });
    let expected: u64 = (0..u64::from(REQUESTS)).map(|n| n * n * n).sum();
    let released = POOL.release_timeout(core::time::Duration::from_secs(2));
    let wakes = WAKES.load(Relaxed);
    checks.check(
        "a future awaits results from the workers (Oneshot, no std, no heap)",
        sum == expected && wakes > 0 && released.is_ok(),
        format_args!(
            "{REQUESTS} results awaited, sum {sum} (expected {expected}), {wakes} wake-ups of the polling task"
        ),
    );
}
