//! Errors with a name: after `?` has boxed a task error into `anyhow::Error`
//! or `Box<dyn Error + Send + Sync>` (where the closure's type can no longer
//! be named), a caller still tells closed from overloaded, timed out, spawn
//! failed, panicked and cancelled — by the `ErrorKind` in the error's chain.

use crate::common;

use std::error::Error;
use std::sync::mpsc;
use std::time::Duration;

use antpool::{ErrorKind, JoinError, Pool, SubmitError};
use common::{TestSpawner, held_pool, occupy};

type BoxError = Box<dyn Error + Send + Sync>;

/// What a service reads off an `anyhow::Error`: the kind, by a downcast in
/// the chain (no antpool helper), and by `ErrorKind::of`, which must agree.
fn kind_anyhow(err: &anyhow::Error) -> Option<ErrorKind> {
    let by_chain = err
        .chain()
        .find_map(|e| e.downcast_ref::<ErrorKind>().copied());
    assert_eq!(
        by_chain,
        err.root_cause().downcast_ref::<ErrorKind>().copied()
    );
    assert_eq!(by_chain, ErrorKind::of(err.as_ref()));
    by_chain
}

/// The same off a `Box<dyn Error + Send + Sync>`, walking `source()` by hand.
fn kind_boxed(err: &BoxError) -> Option<ErrorKind> {
    let mut next: Option<&(dyn Error + 'static)> = Some(&**err);
    let mut found = None;
    while let Some(e) = next {
        if let Some(kind) = e.downcast_ref::<ErrorKind>() {
            found = Some(*kind);
            break;
        }
        next = e.source();
    }
    assert_eq!(found, ErrorKind::of(&**err));
    found
}

/// anyhow's `{:#}` prints the chain joined by ": "; no message is printed
/// twice (no link holds the next one's message), and the last link is the
/// kind's name.
fn assert_chain_reads_once(err: &anyhow::Error, kind: ErrorKind) {
    let links: Vec<String> = err.chain().map(ToString::to_string).collect();
    let (leaf, rest) = links.split_last().expect("a chain has a link");
    assert_eq!(*leaf, kind.to_string(), "{links:?}");
    for pair in rest.windows(2) {
        assert!(
            !pair[0].contains(&pair[1]),
            "a message printed twice: {links:?}"
        );
    }
    assert!(rest.iter().all(|link| link != leaf), "{links:?}");
    assert_eq!(format!("{err:#}"), links.join(": "));
}

/// A closure that captures something `Send` but not `Sync`.
fn not_sync_closure() -> impl FnOnce() -> u32 + Send + 'static {
    let (tx, rx) = mpsc::channel::<u32>(); // a Receiver is Send, not Sync
    tx.send(41).unwrap();
    move || rx.recv().unwrap() + 1
}

fn spawn_anyhow(pool: &Pool) -> anyhow::Result<u32> {
    Ok(pool.spawn(not_sync_closure())?.join()?)
}

fn spawn_boxed(pool: &Pool) -> Result<u32, BoxError> {
    Ok(pool.spawn(not_sync_closure())?.join()?)
}

fn spawn_timeout_anyhow(pool: &Pool) -> anyhow::Result<u32> {
    Ok(pool
        .spawn_timeout(not_sync_closure(), Duration::from_millis(5))?
        .join()?)
}

fn spawn_timeout_boxed(pool: &Pool) -> Result<u32, BoxError> {
    Ok(pool
        .spawn_timeout(not_sync_closure(), Duration::from_millis(5))?
        .join()?)
}

fn spawn_async_anyhow(pool: &Pool) -> anyhow::Result<u32> {
    futures_executor::block_on(async { Ok(pool.spawn_async(not_sync_closure()).await?) })
}

fn spawn_async_boxed(pool: &Pool) -> Result<u32, BoxError> {
    futures_executor::block_on(async { Ok(pool.spawn_async(not_sync_closure()).await?) })
}

#[test]
fn errors_downcast_closed_after_question_mark() {
    let pool = Pool::new(1).unwrap();
    assert_eq!(
        spawn_anyhow(&pool).unwrap(),
        42,
        "a closure that is not Sync runs"
    );
    pool.release();
    for err in [
        spawn_anyhow(&pool).unwrap_err(),
        spawn_async_anyhow(&pool).unwrap_err(),
    ] {
        assert_eq!(kind_anyhow(&err), Some(ErrorKind::Closed));
        assert_chain_reads_once(&err, ErrorKind::Closed);
        assert_eq!(format!("{err:#}"), "the pool has been released: closed");
    }
    for err in [
        spawn_boxed(&pool).unwrap_err(),
        spawn_async_boxed(&pool).unwrap_err(),
    ] {
        assert_eq!(kind_boxed(&err), Some(ErrorKind::Closed));
    }
}

#[test]
fn errors_downcast_overload_after_question_mark() {
    let (pool, gate) = held_pool(Pool::builder().nonblocking(true));
    let err = spawn_anyhow(&pool).unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Overload));
    assert_chain_reads_once(&err, ErrorKind::Overload);
    let err = spawn_async_anyhow(&pool).unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Overload));
    assert_eq!(
        kind_boxed(&spawn_boxed(&pool).unwrap_err()),
        Some(ErrorKind::Overload)
    );
    assert_eq!(
        kind_boxed(&spawn_async_boxed(&pool).unwrap_err()),
        Some(ErrorKind::Overload)
    );
    gate.open();
}

#[test]
fn errors_downcast_timeout_after_question_mark() {
    let pool = Pool::new(1).unwrap();
    let gate = occupy(&pool, 1);
    let err = spawn_timeout_anyhow(&pool).unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Timeout));
    assert_chain_reads_once(&err, ErrorKind::Timeout);
    let err = spawn_timeout_boxed(&pool).unwrap_err();
    assert_eq!(kind_boxed(&err), Some(ErrorKind::Timeout));
    gate.open();
}

#[test]
fn errors_downcast_spawn_failed_after_question_mark() {
    let pool = Pool::builder()
        .capacity(2)
        .spawner(TestSpawner::failing(|_| true))
        .build()
        .unwrap();
    let run = |pool: &antpool::Pool<_, _, TestSpawner>| -> anyhow::Result<u32> {
        Ok(pool.spawn(not_sync_closure())?.join()?)
    };
    let err = run(&pool).unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::SpawnFailed));
    assert_chain_reads_once(&err, ErrorKind::SpawnFailed);
    let run = |pool: &antpool::Pool<_, _, TestSpawner>| -> Result<u32, BoxError> {
        Ok(pool.spawn(not_sync_closure())?.join()?)
    };
    assert_eq!(
        kind_boxed(&run(&pool).unwrap_err()),
        Some(ErrorKind::SpawnFailed)
    );
}

#[test]
fn errors_downcast_panicked_after_question_mark() {
    let pool = Pool::new(2).unwrap();
    let join = || -> anyhow::Result<u32> { Ok(pool.spawn(|| -> u32 { panic!("boom") })?.join()?) };
    let err = join().unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Panicked));
    assert_chain_reads_once(&err, ErrorKind::Panicked);
    // The JoinError itself is not generic: a plain downcast works too.
    assert_eq!(
        err.downcast_ref::<JoinError>()
            .and_then(JoinError::panic_message),
        Some("boom")
    );
    let boxed =
        || -> Result<u32, BoxError> { Ok(pool.spawn(|| -> u32 { panic!("boom") })?.join()?) };
    assert_eq!(kind_boxed(&boxed().unwrap_err()), Some(ErrorKind::Panicked));

    let awaited = || -> anyhow::Result<u32> {
        futures_executor::block_on(async {
            Ok(pool.spawn_async(|| -> u32 { panic!("boom") }).await?)
        })
    };
    let err = awaited().unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Panicked));
    assert_chain_reads_once(&err, ErrorKind::Panicked);
    assert_eq!(format!("{err:#}"), "the task panicked: boom: panicked");
}

#[test]
fn errors_downcast_cancelled_after_question_mark() {
    let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(4));
    let join = |pool: &Pool| -> anyhow::Result<u32> {
        let handle = pool.spawn(not_sync_closure())?; // queued behind the busy worker
        assert!(handle.abort());
        Ok(handle.join()?)
    };
    let err = join(&pool).unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Cancelled));
    assert_chain_reads_once(&err, ErrorKind::Cancelled);
    let boxed = |pool: &Pool| -> Result<u32, BoxError> {
        let handle = pool.spawn(not_sync_closure())?;
        assert!(handle.abort());
        Ok(handle.join()?)
    };
    assert_eq!(
        kind_boxed(&boxed(&pool).unwrap_err()),
        Some(ErrorKind::Cancelled)
    );

    let awaited = |pool: &Pool| -> anyhow::Result<u32> {
        futures_executor::block_on(async {
            let task = pool.spawn_async(not_sync_closure());
            task.abort_handle().abort();
            Ok(task.await?)
        })
    };
    let err = awaited(&pool).unwrap_err();
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Cancelled));
    assert_chain_reads_once(&err, ErrorKind::Cancelled);
    gate.open();
}

#[test]
fn errors_downcast_through_context_and_group_errors() {
    // anyhow's context wraps the error: the kind is still in the chain.
    let err = anyhow::Error::new(SubmitError::Closed(())).context("resizing the image");
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Closed));
    assert_eq!(
        format!("{err:#}"),
        "resizing the image: the pool has been released: closed"
    );

    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    let mut group = pool.group::<Result<u8, String>>();
    group.spawn(|| panic!("boom")).unwrap();
    let err = anyhow::Error::new(group.try_join_all().unwrap_err());
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Panicked));
    assert_chain_reads_once(&err, ErrorKind::Panicked);

    // The one worker held, so the group's task waits in the queue when
    // `abort_all` cancels it.
    let (hold, held) = std::sync::mpsc::channel::<()>();
    pool.submit(move || held.recv().unwrap_or_default())
        .unwrap();
    let mut group = pool.group::<Result<u8, String>>();
    group.spawn(|| Ok(1)).unwrap();
    group.abort_all();
    drop(hold);
    let err = anyhow::Error::new(group.try_join_all().unwrap_err());
    assert_eq!(kind_anyhow(&err), Some(ErrorKind::Cancelled));
    let mut group = pool.group::<Result<u8, String>>();
    group.spawn(|| Err("bad".into())).unwrap();
    let err = anyhow::Error::new(group.try_join_all().unwrap_err());
    assert_eq!(
        kind_anyhow(&err),
        None,
        "a task's own error is not the pool's"
    );
}

#[test]
fn errors_kind_accessors_agree_with_the_variants() {
    assert_eq!(SubmitError::Overload(()).kind(), ErrorKind::Overload);
    assert_eq!(SubmitError::Closed(()).kind(), ErrorKind::Closed);
    assert_eq!(SubmitError::SpawnFailed(()).kind(), ErrorKind::SpawnFailed);
    assert_eq!(SubmitError::Timeout(()).kind(), ErrorKind::Timeout);
    let kinds = [
        ErrorKind::Overload,
        ErrorKind::Closed,
        ErrorKind::Timeout,
        ErrorKind::SpawnFailed,
        ErrorKind::Panicked,
        ErrorKind::Cancelled,
    ];
    let messages: std::collections::HashSet<String> =
        kinds.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), kinds.len(), "a distinct message per kind");
    fn send_sync_static<T: Send + Sync + Copy + 'static>() {}
    send_sync_static::<ErrorKind>();
}

#[test]
fn errors_the_closure_comes_back_before_question_mark() {
    let pool = Pool::new(1).unwrap();
    pool.release();
    // Take the closure back first, then `?` what is left: the kind.
    let run = |pool: &Pool| -> anyhow::Result<u32> {
        match pool.spawn(not_sync_closure()) {
            Ok(handle) => Ok(handle.join()?),
            Err(err) if err.is_closed() => {
                let kind = err.kind();
                let f = err.into_closure();
                assert_eq!(f(), 42, "the closure, with what it captured");
                Err(kind.into())
            }
            Err(err) => Err(err.into()),
        }
    };
    let err = run(&pool).unwrap_err();
    assert_eq!(err.downcast_ref::<ErrorKind>(), Some(&ErrorKind::Closed));

    let err = futures_executor::block_on(pool.spawn_async(not_sync_closure())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Closed);
    let f = err.into_closure().expect("refused, so handed back");
    assert_eq!(f(), 42);
}
