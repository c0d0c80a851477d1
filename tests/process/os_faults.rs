//! Faults of the real OS, not of a fake spawner: the std spawner asks for a
//! thread the kernel will not give — a stack it cannot map, or a process out
//! of address space — and the pool must hand the task back
//! (`SubmitError::SpawnFailed`), restore its counts, lose no task and no
//! thread, and work again once the OS has room.
//!
//! Linux, 64-bit: the stack sizes and the address-space limit are chosen for
//! that; the rest of the suite already assumes Linux (`/proc/self/task`).
#![cfg(all(target_os = "linux", target_pointer_width = "64"))]

use crate::{child, common};

use std::time::Duration;

use antpool::{Pool, PoolWithFunc};
use common::{Counter, Gate, eventually, os_threads, worker_threads};

/// A stack no 64-bit Linux process can map: 1 PiB, past the 47-bit user
/// address space (and past any RAM with overcommit on).
const UNMAPPABLE: usize = 1 << 50;

#[test]
fn a_stack_the_os_cannot_map_hands_every_task_back_in_every_mode() {
    let _alone = common::serial();
    let mut modes = common::bounded_modes(2, 8).to_vec();
    modes.push(("unbounded".to_owned(), Pool::builder().unbounded()));
    let threads_before = worker_threads();
    for (name, builder) in modes {
        let pool = builder.stack_size(UNMAPPABLE).build().unwrap();
        let ran = Counter::new();

        let r = ran.clone();
        let err = pool.submit(move || r.add()).unwrap_err();
        assert!(err.is_spawn_failed(), "{name}: {err}");
        err.into_inner().run();

        let r = ran.clone();
        let err = pool.try_submit(move || r.add()).unwrap_err();
        assert!(err.is_spawn_failed(), "{name}: {err}");
        err.into_inner().run();

        let owned = String::from("handed back");
        let err = pool.spawn(move || owned.len()).unwrap_err();
        assert!(err.is_spawn_failed(), "{name}: {err}");
        assert_eq!(err.into_closure()(), 11, "{name}: the very closure");

        assert_eq!(ran.get(), 2, "{name}: both tasks came back and ran once");
        assert_eq!(pool.running(), 0, "{name}");
        assert_eq!(
            pool.queued(),
            0,
            "{name}: nothing left queued for no worker"
        );
        let stats = pool.stats();
        assert_eq!(
            (stats.spawned, stats.completed),
            (0, 0),
            "{name}: {stats:?}"
        );
        assert!(pool.wait_idle_timeout(Duration::from_secs(5)), "{name}");
        pool.release_timeout(Duration::from_secs(5)).unwrap();
    }

    let pool = PoolWithFunc::builder(|n: u64| assert!(n < 100))
        .capacity(2)
        .stack_size(UNMAPPABLE)
        .build()
        .unwrap();
    let err = pool.invoke(7).unwrap_err();
    assert!(err.is_spawn_failed());
    assert_eq!(err.into_inner(), 7, "the argument comes back");
    let err = pool.call(8).unwrap_err();
    assert_eq!(err.into_inner(), 8);
    assert_eq!(pool.running(), 0);
    pool.release_timeout(Duration::from_secs(5)).unwrap();

    assert!(
        eventually(|| worker_threads() <= threads_before),
        "no thread was started or left behind"
    );
}

/// Set in the child process that runs under an address-space limit.
const CHILD: &str = "ANTPOOL_OS_FAULT_CHILD";

#[test]
fn a_process_out_of_address_space_refuses_workers_then_recovers() {
    let _alone = common::serial();
    // The limit is process-wide, so the scenario runs in a child process.
    let (status, text) = child::run_ignored("os_faults::out_of_address_space_child", CHILD);
    assert!(status.success(), "the child failed:\n{text}");
    assert!(
        text.contains("refused after") && text.contains("recovered"),
        "the child did not run the scenario:\n{text}"
    );
}

/// Stack of each worker in the child: large, so that a few workers fill the
/// room left under the limit.
const STACK: usize = 32 << 20;

/// The child's half of the test above: ignored in a normal run, run by the
/// parent with `--ignored` and `ANTPOOL_OS_FAULT_CHILD` set (without it, it
/// refuses to limit the process it is in).
#[test]
#[ignore = "run in a child process by a_process_out_of_address_space_refuses_workers_then_recovers"]
fn out_of_address_space_child() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "run only as the child of a_process_out_of_address_space_refuses_workers_then_recovers"
    );
    let pool = Pool::builder()
        .capacity(64)
        .stack_size(STACK)
        .expiry(Duration::from_millis(20))
        .build()
        .unwrap();
    // All of this process's threads: it runs this test alone (reading thread
    // names allocates, which the limit below may refuse).
    let threads_before = os_threads();
    // Room for a few workers' stacks (and a malloc arena or two) above what the
    // process maps now; 64 workers would need 2 GiB.
    limit_address_space(vm_size() + 6 * STACK);

    let ran = Counter::new();
    // Each task holds its worker, so each submit needs a new thread, until
    // the OS refuses one.
    let gate = Gate::new();
    let (started, refused) = fill(&pool, &gate, &ran, 64);
    let refused = refused.expect("the limit never refused a thread");
    assert!(started >= 1, "no worker started under the limit");
    assert_eq!(pool.running(), started, "the refused spawn left no count");
    assert_eq!(os_threads(), threads_before + started);
    println!("refused after {started} workers");

    // Nothing lost: the workers finish, the refused task runs here.
    gate.open();
    refused.run();
    assert!(pool.wait_idle_timeout(Duration::from_secs(10)));
    assert_eq!(ran.get(), started + 1);

    // Once idle workers expire and their threads end, their stacks are
    // unmapped, and the pool starts workers again under the same limit (not
    // necessarily as many: the first threads may have left malloc arenas).
    assert!(eventually(|| pool.running() == 0), "idle workers expire");
    assert!(
        eventually(|| os_threads() == threads_before),
        "their threads end"
    );
    let gate = Gate::new();
    let (again, refused) = fill(&pool, &gate, &ran, started);
    assert!(again >= 1, "no worker started after the old ones left");
    gate.open();
    if let Some(task) = refused {
        task.run();
    }
    pool.release_timeout(Duration::from_secs(10)).unwrap();
    let expected = started + 1 + again + usize::from(again < started);
    assert_eq!(ran.get(), expected, "every task ran once");
    assert!(eventually(|| os_threads() == threads_before));
    println!("recovered: {again} workers started again");
}

/// Submits tasks that wait for `gate` (then count themselves in `ran`) until
/// `max` are taken or the pool refuses one: how many it took, and the refused
/// task, handed back.
fn fill(pool: &Pool, gate: &Gate, ran: &Counter, max: usize) -> (usize, Option<antpool::Task>) {
    for taken in 0..max {
        let (gate, ran) = (gate.clone(), ran.clone());
        if let Err(err) = pool.submit(move || {
            gate.wait();
            ran.add();
        }) {
            assert!(err.is_spawn_failed(), "{err}");
            return (taken, Some(err.into_inner()));
        }
    }
    (max, None)
}

/// This process's mapped address space, in bytes (`VmSize`).
fn vm_size() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("VmSize:"))
        .expect("VmSize in /proc/self/status");
    let kib: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmSize in kB");
    kib * 1024
}

/// Caps this process's address space (`RLIMIT_AS`) at `bytes`.
fn limit_address_space(bytes: usize) {
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: `setrlimit` reads the struct we pass and nothing else.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    assert_eq!(rc, 0, "setrlimit: {}", std::io::Error::last_os_error());
}
