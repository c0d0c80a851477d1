//! `antpool::configure`: the default pool made from a builder, once, before
//! its first use. Its own test binary: the default pool is process-wide, and
//! `tests/default_pool.rs` uses the unconfigured one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[test]
fn a_configured_default_pool_keeps_its_capacity_for_the_whole_process() {
    // Invalid options are refused and leave the default pool unmade.
    assert_eq!(
        antpool::configure(antpool::Pool::builder().capacity(0)),
        Err(antpool::BuildError::InvalidCapacity)
    );
    assert_eq!(antpool::cap(), None);

    antpool::configure(
        antpool::Pool::builder()
            .capacity(2)
            .max_queued_tasks(10_000)
            .thread_name("configured"),
    )
    .unwrap();
    assert_eq!(antpool::cap(), Some(2));
    assert_eq!(antpool::running(), 0, "configured, and still no thread");

    // A hundred spawns from several threads share its two workers.
    let at_once = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let submitters: Vec<_> = (0..4)
        .map(|_| {
            let (at_once, most) = (at_once.clone(), most.clone());
            std::thread::spawn(move || {
                (0..25)
                    .map(|_| {
                        let (at_once, most) = (at_once.clone(), most.clone());
                        antpool::spawn(move || {
                            let now = at_once.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_micros(200));
                            at_once.fetch_sub(1, Ordering::SeqCst);
                            std::thread::current().name().map(str::to_owned)
                        })
                        .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for handles in submitters {
        for handle in handles.join().unwrap() {
            let name = handle.join().unwrap().unwrap_or_default();
            assert!(name.starts_with("configured"), "{name}");
        }
    }
    assert!(
        most.load(Ordering::SeqCst) <= 2,
        "never more than the capacity"
    );
    assert!(antpool::running() <= 2);

    // Once made, it is not made again.
    assert_eq!(
        antpool::configure(antpool::Pool::builder().capacity(64)),
        Err(antpool::BuildError::DefaultPoolExists)
    );
    assert_eq!(antpool::cap(), Some(2));
    antpool::release_timeout(Duration::from_secs(10)).unwrap();
}
