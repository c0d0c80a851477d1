//! Idle expiry: a worker idle for the expiry retires, without a background thread;
//! `ManualClock` + `purge` show it without sleeping for seconds.

use crate::common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use antpool::Pool;
use antpool::port::{Instant, ManualClock};
use common::{Counter, Gate, ManualPool, TestSpawner, eventually, occupy, on_manual_clock};

/// A pool of `cap` on a manual clock, with a counting spawner. With
/// `own_timers` off (`disable_purge`), `purge` is the only reaper, so the
/// count it returns is exact: otherwise a worker woken for another reason
/// (the watch's periodic look) can see the advanced clock and reap its
/// expired peers first — correct, but not what those tests count.
fn manual_pool(
    cap: usize,
    expiry: Duration,
    own_timers: bool,
) -> (ManualPool, Arc<ManualClock>, TestSpawner) {
    on_manual_clock(
        Pool::builder()
            .capacity(cap)
            .expiry(expiry)
            .disable_purge(!own_timers),
    )
}

/// Makes `n` workers and lets them go idle.
fn make_idle<Q: antpool::port::WorkerQueue, C: antpool::port::Clock, S: antpool::port::Spawner>(
    pool: &Pool<Q, C, S>,
    n: usize,
) {
    occupy(pool, n).open();
    assert!(eventually(|| pool.idle() == n));
}

#[test]
fn workers_idle_for_the_expiry_are_retired_and_their_threads_end() {
    let (pool, clock, spawner) = manual_pool(4, Duration::from_secs(10), false);
    make_idle(&pool, 4);
    assert_eq!(pool.purge(), 0, "nobody has been idle for 10 s yet");
    clock.advance(Duration::from_secs(9));
    assert_eq!(pool.purge(), 0);
    clock.advance(Duration::from_secs(1));
    assert_eq!(pool.purge(), 4);
    assert!(eventually(|| pool.running() == 0 && spawner.live() == 0));
    assert_eq!(pool.idle(), 0);
    // The pool still works: a new worker starts.
    let done = Counter::new();
    let d = done.clone();
    pool.submit(move || d.add()).unwrap();
    assert!(done.reaches(1));
}

#[test]
fn only_the_workers_idle_long_enough_are_retired() {
    let (pool, clock, spawner) = manual_pool(2, Duration::from_secs(10), false);
    let (first, second) = (Gate::new(), Gate::new());
    let started = Counter::new();
    for gate in [first.clone(), second.clone()] {
        let started = started.clone();
        pool.submit(move || {
            started.add();
            gate.wait();
        })
        .unwrap();
    }
    assert!(started.reaches(2));
    first.open(); // idle since t = 0
    assert!(eventually(|| pool.idle() == 1));
    clock.advance(Duration::from_secs(5));
    second.open(); // idle since t = 5
    assert!(eventually(|| pool.idle() == 2));
    clock.advance(Duration::from_millis(5_500)); // t = 10.5
    assert_eq!(pool.purge(), 1);
    assert!(eventually(|| pool.running() == 1 && spawner.live() == 1));
    clock.advance(Duration::from_secs(5)); // t = 15.5
    assert_eq!(pool.purge(), 1);
    assert!(eventually(|| pool.running() == 0 && spawner.live() == 0));
}

#[test]
fn an_idle_worker_retires_by_itself_after_a_real_expiry() {
    let spawner = TestSpawner::new();
    let pool = Pool::builder()
        .capacity(4)
        .expiry(Duration::from_millis(50))
        .spawner(spawner.clone())
        .build()
        .unwrap();
    // Not `make_idle`: with a real 50 ms expiry, "all 3 idle at once" is a
    // moment a slow run (Miri) can miss, as one worker may expire first.
    occupy(&pool, 3).open();
    assert!(
        eventually(|| pool.running() == 0),
        "no purge call: the workers time out"
    );
    assert!(eventually(|| spawner.live() == 0));
    let stats = pool.stats();
    assert_eq!(
        (stats.completed, stats.spawned, stats.retired),
        (3, 3, 3),
        "three tasks ran on three workers, and all three retired"
    );
}

#[test]
fn disable_purge_keeps_idle_workers() {
    let pool = Pool::builder()
        .capacity(2)
        .expiry(Duration::from_millis(10))
        .disable_purge(true)
        .build()
        .unwrap();
    make_idle(&pool, 2);
    thread::sleep(Duration::from_millis(200));
    assert_eq!(pool.running(), 2);
    assert_eq!(pool.idle(), 2);
}

#[test]
fn a_clock_that_steps_backwards_does_not_break_expiry() {
    let (pool, clock, spawner) = manual_pool(2, Duration::from_secs(10), false);
    clock.set(Instant::from_nanos(100_000_000_000)); // t = 100 s
    let (first, second) = (Gate::new(), Gate::new());
    let started = Counter::new();
    for gate in [first.clone(), second.clone()] {
        let started = started.clone();
        pool.submit(move || {
            started.add();
            gate.wait();
        })
        .unwrap();
    }
    assert!(started.reaches(2));
    first.open(); // idle since 100 s
    assert!(eventually(|| pool.idle() == 1));
    clock.set(Instant::from_nanos(50_000_000_000)); // back to 50 s
    second.open(); // idle "since 50 s", clamped to 100 s by the queue
    assert!(eventually(|| pool.idle() == 2));
    clock.set(Instant::from_nanos(105_000_000_000));
    assert_eq!(
        pool.purge(),
        0,
        "neither has been idle 10 s by the clamped stamps"
    );
    clock.set(Instant::from_nanos(110_000_000_000));
    assert_eq!(pool.purge(), 2);
    assert!(eventually(|| spawner.live() == 0));
}

#[test]
fn an_expired_worker_is_not_handed_a_task() {
    // Expire and hand off at the same time, many times: every task still runs.
    let (pool, clock, _spawner) = manual_pool(4, Duration::from_millis(1), true);
    let done = Counter::new();
    for round in 0..200 {
        let d = done.clone();
        pool.submit(move || d.add()).unwrap();
        clock.advance(Duration::from_millis(1));
        pool.purge();
        assert!(done.reaches(round + 1));
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(done.get(), 200);
}

/// With the `tracing` feature, `purge` reports the workers it retired.
#[cfg(feature = "tracing")]
mod traced {
    use super::*;

    use std::fmt;
    use std::sync::Mutex;

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    /// Keeps the `count` of every "idle workers expired" event emitted on the
    /// thread it is the default for (`purge` emits on its caller's).
    #[derive(Clone, Default)]
    struct Expired(Arc<Mutex<Vec<String>>>);

    /// Finds the message and the count among an event's fields.
    #[derive(Default)]
    struct Fields {
        message: String,
        count: String,
    }

    impl Visit for Fields {
        fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
            match field.name() {
                "message" => self.message = format!("{value:?}"),
                "count" => self.count = format!("{value:?}"),
                _ => {}
            }
        }
    }

    impl Subscriber for Expired {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut fields = Fields::default();
            event.record(&mut fields);
            if fields.message == "idle workers expired" {
                self.0.lock().unwrap().push(fields.count);
            }
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    /// `purge` tells a subscriber how many idle workers it retired, and says
    /// nothing when none had expired.
    #[test]
    fn purge_reports_how_many_workers_expired_and_only_then() {
        let (pool, clock, _spawner) = manual_pool(2, Duration::from_secs(10), false);
        make_idle(&pool, 2);
        let expired = Expired::default();
        tracing::subscriber::with_default(expired.clone(), || {
            clock.advance(Duration::from_secs(10));
            assert_eq!(pool.purge(), 2);
            assert_eq!(pool.purge(), 0, "nobody is left idle");
        });
        assert_eq!(*expired.0.lock().unwrap(), ["2"]);
    }
}
