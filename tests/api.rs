//! Compile-time properties of the public API.

use antpool::{Pool, PoolWithFunc, StaticPoolWithFunc, SubmitError};

fn send_sync<T: Send + Sync>() {}

#[test]
fn pools_and_errors_can_be_shared_between_threads() {
    send_sync::<Pool>();
    send_sync::<PoolWithFunc<u64, fn(u64)>>();
    send_sync::<StaticPoolWithFunc<u64, 4, antpool::StdClock, antpool::StdSpawner>>();
    send_sync::<SubmitError<u64>>();
    send_sync::<antpool::BuildError>();
    send_sync::<antpool::ReleaseError>();
    // A task handed back can be sent to another thread to run there.
    fn send<T: Send>() {}
    send::<SubmitError<antpool::Task>>();
    send::<antpool::Job>();
}

#[test]
fn an_arc_of_a_pool_submits_from_many_threads() {
    let pool = std::sync::Arc::new(Pool::new(2).unwrap());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let pool = pool.clone();
            std::thread::spawn(move || pool.submit(|| ()).unwrap())
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
