//! Compile-time properties of the public API.

use antpool::{Pool, PoolWithFunc, StaticPoolWithFunc, SubmitError};

fn send_sync<T: Send + Sync>() {}

#[test]
fn pools_and_errors_can_be_shared_between_threads() {
    send_sync::<Pool>();
    send_sync::<PoolWithFunc<u64, fn(u64)>>();
    send_sync::<StaticPoolWithFunc<u64, 4, antpool::port::StdClock, antpool::port::StdSpawner>>();
    send_sync::<SubmitError<u64>>();
    send_sync::<antpool::BuildError>();
    send_sync::<antpool::ReleaseError>();
    send_sync::<antpool::Task>();
    send_sync::<antpool::JoinError>();
    send::<antpool::port::Job>();
}

fn send<T: Send>() {}

/// What `?` needs to turn an error into `Box<dyn Error + Send + Sync>` (and
/// `anyhow::Error`, which asks the same).
fn boxable<E: std::error::Error + Send + Sync + 'static>() {}

#[test]
fn every_error_goes_into_a_send_sync_box_error() {
    boxable::<SubmitError<antpool::Task>>();
    boxable::<SubmitError<u64>>();
    boxable::<antpool::JoinError>();
    boxable::<antpool::BuildError>();
    boxable::<antpool::ReleaseError>();
    // `spawn` hands back the caller's closure: the error is `Sync` when the
    // closure is (a closure capturing only `Sync` values).
    fn spawn_error_of<F: FnOnce() -> R, R>(_: &F) -> std::marker::PhantomData<SubmitError<F>> {
        std::marker::PhantomData
    }
    fn check<E: std::error::Error + Send + Sync + 'static>(_: std::marker::PhantomData<E>) {}
    let n = 4_u64;
    let f = move || n * 2;
    check(spawn_error_of(&f));
}

/// Every way a caller meets an error, with `?` into one boxed error type.
fn everything() -> Result<u64, Box<dyn std::error::Error + Send + Sync>> {
    let pool = Pool::new(2)?;
    pool.submit(|| ())?;
    let doubled = pool.spawn(|| 21 * 2)?.join()?;
    let func = PoolWithFunc::new(1, |n: u64| n + 1)?;
    let plus = func.call(doubled)?.join()?;
    pool.release_timeout(std::time::Duration::from_secs(5))?;
    Ok(plus)
}

#[test]
fn question_mark_works_in_a_function_returning_a_send_sync_box_error() {
    assert_eq!(everything().unwrap(), 43);
    // And the error that comes out reads as the pool's message.
    fn closed() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let pool = Pool::new(1)?;
        pool.release();
        pool.submit(|| ())?;
        Ok(())
    }
    assert_eq!(
        closed().unwrap_err().to_string(),
        "the pool has been released"
    );
}

#[test]
fn pools_and_handles_are_unwind_safe() {
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    unwind_safe::<Pool>();
    unwind_safe::<PoolWithFunc<u64, fn(u64)>>();
    unwind_safe::<antpool::MultiPool>();
    unwind_safe::<StaticPoolWithFunc<u64, 4, antpool::port::StdClock, antpool::port::StdSpawner>>();
    unwind_safe::<antpool::JoinHandle<u64>>();
    unwind_safe::<antpool::AbortHandle>();
    unwind_safe::<antpool::AbortOnDrop<antpool::JoinHandle<u64>>>();
    // What a user writes: a pool used inside `catch_unwind`.
    let pool = Pool::new(1).unwrap();
    let handle = std::panic::catch_unwind(|| pool.spawn(|| 5).unwrap()).unwrap();
    assert_eq!(handle.join().unwrap(), 5);
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

#[test]
fn handles_and_errors_cross_threads_whatever_the_closure_captures() {
    fn send_sync<T: Send + Sync + 'static>() {}
    fn send<T: Send + 'static>() {}
    // A closure that captures a Receiver is Send, not Sync.
    fn closure_of<F: FnOnce() -> u8 + Send + 'static>(_: &F) {
        send_sync::<antpool::SubmitError<antpool::Rejected<F>>>();
        send_sync::<antpool::SpawnError<F>>();
        send::<antpool::SpawnAsync<F, u8>>();
    }
    let (_tx, rx) = std::sync::mpsc::channel::<u8>();
    closure_of(&move || rx.recv().unwrap());
    send_sync::<antpool::AbortHandle>();
    send_sync::<antpool::JoinHandle<u8>>();
    send_sync::<antpool::JoinError>();
}
