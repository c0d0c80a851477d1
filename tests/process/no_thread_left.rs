//! `release_timeout` leaves no OS thread behind: the pools' worker threads,
//! counted by name in /proc/self/task (the test harness's own threads come
//! and go beside them).

use crate::common;

use std::time::Duration;

use antpool::Pool;
use common::{Counter, eventually, worker_threads};

#[test]
fn no_thread_outlives_release_timeout_across_many_pools() {
    let _alone = common::serial();
    let baseline = worker_threads();
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
        peak = peak.max(worker_threads());
        pool.release_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(done.get(), 64);
        // The workers' thread functions have returned; give the OS a moment to
        // reap the threads, then the count must be back where it started.
        assert!(
            eventually(|| worker_threads() == baseline),
            "cycle {cycle}: {} threads, baseline {baseline}",
            worker_threads()
        );
    }
    assert!(
        peak > baseline,
        "the pools did run threads ({peak} vs {baseline})"
    );
}
