//! The default pool behind `antpool::submit` and friends, through its whole
//! lifecycle in one test (it is process-wide): created on first use,
//! released and rebooted, then its async entry points.

use std::sync::{Arc, mpsc};
use std::time::Duration;

use futures_executor::block_on;

use crate::common::{self, Counter, Gate, PATIENCE};

#[test]
#[cfg_attr(
    miri,
    ignore = "the default pool lives on past the test: Miri reports its threads"
)]
fn the_default_pool_from_first_use_to_release_reboot_and_async() {
    let _alone = common::serial();
    created_on_first_use_then_released_and_rebooted();
    submits_and_spawns_async();
    releases_asynchronously_and_reboots();
}

fn created_on_first_use_then_released_and_rebooted() {
    // Nothing exists before the first task.
    assert_eq!(antpool::running(), 0);
    assert_eq!(antpool::cap(), None);
    assert_eq!(antpool::free(), None);
    let baseline = std::fs::read_dir("/proc/self/task").unwrap().count();

    let (tx, rx) = mpsc::channel();
    for i in 0..10 {
        let tx = tx.clone();
        antpool::submit(move || tx.send(i).unwrap()).unwrap();
    }
    let mut got: Vec<i32> = rx.iter().take(10).collect();
    got.sort();
    assert_eq!(got, (0..10).collect::<Vec<_>>());
    assert!(antpool::running() >= 1);
    assert_eq!(antpool::cap(), None, "unbounded");
    assert!(std::fs::read_dir("/proc/self/task").unwrap().count() > baseline);
    assert_eq!(antpool::spawn(|| 6 * 7).unwrap().join().unwrap(), 42);
    antpool::wait_idle();

    antpool::release_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(antpool::running(), 0);
    assert!(antpool::submit(|| ()).unwrap_err().is_closed());
    assert_eq!(
        antpool::release_timeout(Duration::from_secs(1)),
        Err(antpool::ReleaseError::Closed)
    );

    antpool::reboot();
    assert_eq!(antpool::spawn(|| "again").unwrap().join().unwrap(), "again");

    // Used already: it cannot be configured any more, and stays as it is.
    assert_eq!(
        antpool::configure(antpool::Pool::builder().capacity(2)),
        Err(antpool::BuildError::DefaultPoolExists)
    );
    assert_eq!(antpool::cap(), None, "still the unbounded default");
    antpool::release();
}

fn submits_and_spawns_async() {
    antpool::reboot(); // the step above left it released
    let (tx, rx) = mpsc::channel();
    block_on(antpool::submit_async(move || tx.send(1).unwrap())).unwrap();
    assert_eq!(rx.recv_timeout(PATIENCE).unwrap(), 1);
    assert_eq!(block_on(antpool::spawn_async(|| 5)).unwrap(), 5);
}

fn releases_asynchronously_and_reboots() {
    let gate = Gate::new();
    let g = gate.clone();
    antpool::submit(move || g.wait()).unwrap();
    let release = antpool::release_async();
    assert!(antpool::submit(|| ()).unwrap_err().is_closed());
    gate.open();
    assert_eq!(block_on(release), Ok(()));
    assert_eq!(antpool::running(), 0);
    assert_eq!(
        block_on(antpool::release_async()),
        Err(antpool::ReleaseError::Closed)
    );
    assert_eq!(block_on(antpool::wait_released_async()), Ok(()));
    assert!(antpool::wait_released_timeout(Duration::ZERO));
    antpool::reboot();
    antpool::submit(|| ()).unwrap();
    let waiting = Arc::new(Counter::new());
    let w = waiting.clone();
    let waiter = std::thread::spawn(move || {
        w.add();
        antpool::wait_released_timeout(PATIENCE)
    });
    assert!(waiting.reaches(1));
    antpool::release();
    assert!(waiter.join().unwrap());
    antpool::reboot();
}
