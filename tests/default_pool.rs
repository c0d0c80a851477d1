//! The default pool behind `antpool::submit` and friends, through its whole
//! lifecycle in one test (it is process-wide).

use std::sync::mpsc;
use std::time::Duration;

#[test]
fn the_default_pool_is_created_on_first_use_and_can_be_released_and_rebooted() {
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
