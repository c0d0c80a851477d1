//! A model of `try_invoke_from_isr` (`engine/isr.rs`): an "interrupt" races a
//! warm worker on its way to park and a thread that invokes. Whatever the
//! order, the interrupt's argument runs exactly once if it was taken and
//! never if it came back, no thread is started for it, and nothing is lost.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::SeqCst as StdSeqCst};

use antpool::port::{Clock, Instant};
use antpool::{Options, StaticPoolWithFunc, SubmitError};
use loom::thread;

use super::{LoomSpawner, ONE_CPU, check};

/// A clock that stands still (nothing here expires), holding no loom object:
/// the pool is leaked, and loom reports a leaked `Arc`.
#[derive(Clone, Copy)]
struct Still;

impl Clock for Still {
    fn now(&self) -> Instant {
        Instant::from_nanos(0)
    }
}

/// What ran in this execution. (loom runs its threads one at a time on one
/// OS thread, and each execution after the last: a plain static is enough.)
static SUM: StdAtomicUsize = StdAtomicUsize::new(0);

fn add(n: u32) {
    SUM.fetch_add(n as usize, StdSeqCst);
}

type Static = StaticPoolWithFunc<u32, 1, Still, LoomSpawner>;

#[test]
fn an_interrupt_hands_to_a_parked_worker_or_gets_its_argument_back() {
    check("submit from an interrupt", || {
        SUM.store(0, StdSeqCst);
        // Leaked: the pool wants `&'static self` (released below, so its
        // worker ends within the execution).
        let pool: &'static Static = Box::leak(Box::new(StaticPoolWithFunc::new(
            Options::new().capacity(1).min_idle(1).disable_purge(true),
            add,
            Still,
            ONE_CPU,
        )));
        pool.start_min_idle().unwrap();
        let isr = thread::spawn(move || match pool.try_invoke_from_isr(5) {
            Ok(()) => 5,
            Err(SubmitError::Overload(5)) => 0,
            Err(e) => panic!("{e:?}"),
        });
        pool.invoke(1).unwrap();
        let taken = isr.join().unwrap();
        pool.release_timeout(std::time::Duration::MAX).unwrap();
        assert_eq!(SUM.load(StdSeqCst), 1 + taken);
        assert_eq!(pool.stats().spawned, 1, "only the warm worker");
    });
}
