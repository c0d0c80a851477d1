//! The `tracing` feature: a capturing subscriber sees a span per worker and the
//! events for a worker's start and stop, expiry, rejections and panics
//! (`src/trace.rs` lists them). One test, in steps: the subscriber is global
//! (workers are other threads), so nothing else may emit meanwhile.
//!
//! ```text
//! cargo test --features tracing --test tracing
//! ```

#[path = "it/common/mod.rs"]
mod common;

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use antpool::Pool;
use common::{PATIENCE, TestSpawner, eventually, occupy, on_manual_clock};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// One event as the subscriber saw it.
#[derive(Clone, Debug)]
struct Seen {
    level: Level,
    /// The innermost span entered on the emitting thread, with its fields.
    span: Option<(String, Fields)>,
    message: String,
    fields: Fields,
}

type Fields = HashMap<String, String>;

/// Collects fields as text.
#[derive(Default)]
struct Collect(Fields);

impl Visit for Collect {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// A subscriber that records every event with the span it happened in.
#[derive(Default)]
struct Capture {
    next: AtomicU64,
    spans: Mutex<HashMap<u64, (String, Fields)>>,
    events: Mutex<Vec<Seen>>,
}

thread_local! {
    /// The spans entered on this thread, innermost last.
    static ENTERED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = Collect::default();
        attrs.record(&mut fields);
        self.spans
            .lock()
            .unwrap()
            .insert(id, (attrs.metadata().name().to_owned(), fields.0));
        Id::from_u64(id)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Collect::default();
        event.record(&mut fields);
        let message = fields.0.remove("message").unwrap_or_default();
        let span = ENTERED
            .with(|e| e.borrow().last().copied())
            .and_then(|id| self.spans.lock().unwrap().get(&id).cloned());
        self.events.lock().unwrap().push(Seen {
            level: *event.metadata().level(),
            span,
            message,
            fields: fields.0,
        });
    }

    fn enter(&self, span: &Id) {
        ENTERED.with(|e| e.borrow_mut().push(span.into_u64()));
    }

    fn exit(&self, span: &Id) {
        ENTERED.with(|e| {
            let mut e = e.borrow_mut();
            if let Some(at) = e.iter().rposition(|&id| id == span.into_u64()) {
                e.remove(at);
            }
        });
    }
}

impl Capture {
    /// Takes the events so far.
    fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }

    /// Waits until an event with `message` is seen; returns it (and drops the
    /// events before it).
    fn wait_for(&self, message: &str) -> Seen {
        let mut found = None;
        assert!(
            eventually(|| {
                let events = self.events.lock().unwrap();
                found = events.iter().find(|e| e.message == message).cloned();
                found.is_some()
            }),
            "no event `{message}` in {:#?}",
            self.events.lock().unwrap()
        );
        self.take();
        found.unwrap()
    }
}

fn field<'a>(seen: &'a Seen, name: &str) -> &'a str {
    seen.fields
        .get(name)
        .unwrap_or_else(|| panic!("no field `{name}` in {seen:?}"))
}

#[test]
fn a_subscriber_sees_workers_expiry_rejections_and_panics() {
    let capture: &'static Capture = Box::leak(Box::default());
    tracing::subscriber::set_global_default(Forward(capture)).unwrap();

    // A worker's life, inside its span.
    let pool = Pool::new(1).unwrap();
    pool.submit(|| ()).unwrap();
    let started = capture.wait_for("worker started");
    assert_eq!(started.level, Level::DEBUG);
    let (name, fields) = started.span.expect("inside the worker's span");
    assert_eq!((name.as_str(), fields["worker"].as_str()), ("worker", "0"));

    // Rejections: overload, timeout, closed.
    let gate = occupy(&pool, 1);
    assert!(pool.try_submit(|| ()).is_err());
    let overload = capture.wait_for("task rejected");
    assert_eq!(
        (overload.level, field(&overload, "reason")),
        (Level::DEBUG, "overload")
    );
    assert!(
        pool.submit_timeout(|| (), Duration::from_millis(1))
            .is_err()
    );
    assert_eq!(
        field(&capture.wait_for("task rejected"), "reason"),
        "timeout"
    );
    gate.open();

    // Panics: caught by the pool, and delivered to a JoinHandle.
    pool.submit(|| panic!("boom")).unwrap();
    let panicked = capture.wait_for("task panicked");
    assert_eq!(
        (panicked.level, field(&panicked, "panic")),
        (Level::ERROR, "boom")
    );
    assert!(panicked.span.is_some(), "on the worker, in its span");
    assert!(pool.spawn(|| panic!("kept")).unwrap().join().is_err());
    let delivered = capture.wait_for("task panicked");
    assert_eq!(field(&delivered, "delivered"), "true");
    assert_eq!(
        field(&delivered, "panic"),
        "kept",
        "the message, delivered too"
    );

    // The worker's end, in its span; then a closed pool's rejection.
    pool.release_timeout(PATIENCE).unwrap();
    let stopped = capture.wait_for("worker stopped");
    assert_eq!(field(&stopped, "unwound"), "false");
    assert_eq!(stopped.span.expect("in its span").0, "worker");
    assert!(pool.submit(|| ()).is_err());
    assert_eq!(
        field(&capture.wait_for("task rejected"), "reason"),
        "closed"
    );

    // Expiry (purge, on a manual clock).
    let (pool, clock, _) =
        on_manual_clock(Pool::builder().capacity(2).expiry(Duration::from_secs(1)));
    pool.submit(|| ()).unwrap();
    assert!(eventually(|| pool.idle() == 1));
    clock.advance(Duration::from_secs(2));
    assert_eq!(pool.purge(), 1);
    assert_eq!(
        field(&capture.wait_for("idle workers expired"), "count"),
        "1"
    );
    pool.release_timeout(PATIENCE).unwrap();

    // A worker that cannot start, and a hook that panics.
    let pool = Pool::builder()
        .capacity(1)
        .spawner(TestSpawner::failing(|_| true))
        .build()
        .unwrap();
    assert!(pool.submit(|| ()).unwrap_err().is_spawn_failed());
    let failed = capture.wait_for("task rejected");
    assert_eq!(
        (failed.level, field(&failed, "reason")),
        (Level::WARN, "spawn failed")
    );
    let pool = Pool::builder()
        .capacity(1)
        .on_worker_start(|| panic!("hook"))
        .panic_handler(|_| ())
        .build()
        .unwrap();
    pool.submit(|| ()).unwrap();
    let hook = capture.wait_for("hook panicked");
    assert_eq!((hook.level, field(&hook, "panic")), (Level::ERROR, "hook"));
    pool.release_timeout(PATIENCE).unwrap();

    // The span's worker number is the thread name's index (and what
    // `current_worker_index` says), whatever order the threads start in.
    let pool = Pool::builder()
        .capacity(4)
        .thread_name("w")
        .build()
        .unwrap();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
    for _ in 0..4 {
        let barrier = barrier.clone();
        pool.submit(move || {
            barrier.wait(); // four workers, one task each
            let name = std::thread::current().name().unwrap().to_owned();
            let index = antpool::current_worker_index().unwrap();
            tracing::info!(thread = name, index, "probe");
        })
        .unwrap();
    }
    assert!(pool.wait_idle_timeout(PATIENCE));
    let probes: Vec<Seen> = capture
        .take()
        .into_iter()
        .filter(|e| e.message == "probe")
        .collect();
    assert_eq!(probes.len(), 4);
    for probe in probes {
        let worker = probe.span.as_ref().expect("in its span").1["worker"].clone();
        assert_eq!(field(&probe, "thread"), format!("w-{worker}"), "{probe:?}");
        assert_eq!(field(&probe, "index"), worker);
    }
    pool.release_timeout(PATIENCE).unwrap();
}

/// `set_global_default` takes the subscriber by value: this forwards to the
/// leaked capture that the test reads.
struct Forward(&'static Capture);

impl Subscriber for Forward {
    fn enabled(&self, m: &Metadata<'_>) -> bool {
        self.0.enabled(m)
    }
    fn new_span(&self, a: &Attributes<'_>) -> Id {
        self.0.new_span(a)
    }
    fn record(&self, s: &Id, r: &Record<'_>) {
        self.0.record(s, r)
    }
    fn record_follows_from(&self, s: &Id, f: &Id) {
        self.0.record_follows_from(s, f)
    }
    fn event(&self, e: &Event<'_>) {
        self.0.event(e)
    }
    fn enter(&self, s: &Id) {
        self.0.enter(s)
    }
    fn exit(&self, s: &Id) {
        self.0.exit(s)
    }
}
