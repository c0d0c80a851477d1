//! `release_timeout` leaves no OS thread behind, counted in /proc/self/task.
//! (It holds the binary's other tests off, so no other test's threads disturb
//! the count.)

use crate::common;

use std::time::Duration;

use antpool::Pool;
use common::{Counter, eventually, os_threads};

#[test]
fn no_thread_outlives_release_timeout_across_many_pools() {
    let _alone = common::serial();
    let baseline = os_threads();
    let mut peak = baseline;
    for cycle in 0..100 {
        let pool = Pool::new(8).unwrap();
        let done = Counter::new();
        for _ in 0..64 {
            let d = done.clone();
            pool.submit(move || {
                std::thread::sleep(Duration::from_micros(200));
                d.add();
            })
            .unwrap();
        }
        peak = peak.max(os_threads());
        pool.release_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(done.get(), 64);
        // The workers' thread functions have returned; give the OS a moment to
        // reap the threads, then the count must be back where it started.
        assert!(
            eventually(|| os_threads() == baseline),
            "cycle {cycle}: {} threads, baseline {baseline}",
            os_threads()
        );
    }
    assert!(
        peak > baseline,
        "the pools did run threads ({peak} vs {baseline})"
    );
}
