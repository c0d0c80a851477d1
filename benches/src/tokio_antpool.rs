//! Every antpool call of the `tokio` family, and nothing else: the two pools
//! it builds (and their variants whose workers start as `SCHED_BATCH`) and
//! the two ways a tokio task offloads a closure to them. The
//! rest of the family (`tokio_family.rs`) only calls these functions, so a
//! change of antpool's async API is adapted here alone.
//!
//! The futures of `spawn_async` and `submit_async` are `'static` (they hold
//! the pool's engine; each tokio task still owns a clone of the pool, which is
//! cheap, to call them), and `spawn_async` gives the result in one await.

use tokio::sync::oneshot;

/// The pool the family offloads to.
pub type Pool = antpool::Pool;

/// The hand-off pool: `cap` workers, exactly `cap` tasks admitted at once;
/// with `batch`, its workers start as `SCHED_BATCH` ([`become_batch`]).
pub fn hand_off(cap: usize, batch: bool) -> Pool {
    build(crate::sampling::builder().capacity(cap), batch)
}

/// `cap` workers and a queue of `queued` tasks; `batch` as in [`hand_off`].
pub fn queue(cap: usize, queued: usize, batch: bool) -> Pool {
    build(
        crate::sampling::builder()
            .capacity(cap)
            .max_queued_tasks(queued),
        batch,
    )
}

/// Builds the pool, its workers batch threads if `batch`.
fn build(builder: antpool::PoolBuilder, batch: bool) -> Pool {
    let builder = if batch {
        builder.on_worker_start(become_batch)
    } else {
        builder
    };
    builder.build().expect("valid options")
}

/// A worker's start hook: the calling thread becomes `SCHED_BATCH`, so that
/// when woken it does not preempt the thread running on its CPU (a tokio
/// runtime thread, here), as the README's "Choosing a configuration" shows.
/// Aborts the run if the kernel refuses (the pool would catch a panic): a
/// row that claims batch workers has them.
fn become_batch() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: `param` is a valid `sched_param` that outlives the call; pid 0
    // is the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) } != 0 {
        eprintln!("SCHED_BATCH refused: {}", std::io::Error::last_os_error());
        std::process::abort();
    }
}

/// Runs `f` on `pool` through `spawn_async` and awaits its result.
pub async fn spawn_async<F, R>(pool: &Pool, f: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    pool.spawn_async(f)
        .await
        .expect("open pool, and the task ran")
}

/// Runs `f` on `pool` through `submit_async`, its result coming back in a
/// tokio `oneshot`, and awaits it.
pub async fn submit_async_oneshot<F, R>(pool: &Pool, f: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    pool.submit_async(move || {
        let _ = tx.send(f());
    })
    .await
    .expect("open pool");
    rx.await.expect("the task ran")
}
