//! Job records: how a new worker's first task reaches its thread.
//!
//! A [`Job`] is one pointer to a record that starts with a [`JobHeader`]. Two
//! kinds of record exist:
//!
//! * **Boxed** (pools behind an `Arc`; in `heap.rs`): the record — engine
//!   handle and first task — is allocated, and the spawning thread returns at
//!   once. One allocation per thread started, nothing per task.
//! * **Handshake** (pools in a `static`, no heap): the record lives on the
//!   spawning thread's stack, and that thread parks on its own signal until the
//!   new worker has moved the task out (or the spawner gave the job up). Threads
//!   start rarely, so the wait costs little, and no heap is needed.

use core::cell::UnsafeCell;
use core::ptr::NonNull;

use crate::sync::{AtomicU8, Ordering};

use super::{
    AbortOnUnwind, Engine, EngineRef, First, Flavor, SignalOf, check_returned, heap, worker,
};
use crate::spawner::{Job, JobHeader, JobVTable, Signal, Spawner};

/// Starts a worker through `spawner`, carrying `task` as its first (or none: it
/// takes a queued task's place); `Err(task)` if none started. The caller holds
/// a reservation for it in the control word and undoes it on `Err`.
pub(super) fn spawn<H, F>(handle: &H, spawner: &F::Spawner, task: First<F>) -> Result<(), First<F>>
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    if !H::HANDSHAKE {
        // Only `Arc` handles (a heap) skip the handshake.
        return heap::spawn_boxed(handle, spawner, task);
    }
    handshake::<H, F>(handle, spawner, task)
}

/// Record states of a handshake.
const SENT: u8 = 0;
const STARTED: u8 = 1;
const ABANDONED: u8 = 2;

#[repr(C)]
struct Handshake<H, T, Sig> {
    header: JobHeader,
    handle: H,
    task: UnsafeCell<T>,
    state: AtomicU8,
    /// The spawning thread's signal: notified once the worker took the task.
    signal: Sig,
}

/// The vtable of handshake records for workers of an engine of flavor `F`,
/// reached through `H`.
struct HandshakeVTable<H, F>(core::marker::PhantomData<fn(H, F)>);

impl<H, F> HandshakeVTable<H, F>
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    const VTABLE: JobVTable = JobVTable {
        run: Self::run,
        abandon: Self::abandon,
    };

    unsafe fn run(header: NonNull<JobHeader>) {
        // SAFETY: this vtable is only reachable from a record made by `handshake`,
        // whose thread waits (record live) until we finish it below.
        let (handle, task, index) = unsafe {
            let record = header
                .cast::<Handshake<H, First<F>, SignalOf<F>>>()
                .as_ptr();
            let index = (*record).header.index;
            let handle = (*record).handle.clone();
            let task = (*(*record).task.get()).take();
            (*record).state.store(STARTED, Ordering::Release);
            // Our last touch of the record; no reference into it outlives the
            // token (Signal rule 6).
            SignalOf::<F>::notify(core::ptr::addr_of!((*record).signal));
            (handle, task, index)
        };
        worker::run(handle, task, index);
    }

    unsafe fn abandon(header: NonNull<JobHeader>) {
        // SAFETY: as for `run`; the spawning thread takes the task back.
        unsafe {
            let record = header
                .cast::<Handshake<H, First<F>, SignalOf<F>>>()
                .as_ptr();
            (*record).state.store(ABANDONED, Ordering::Release);
            SignalOf::<F>::notify(core::ptr::addr_of!((*record).signal));
        }
    }
}

fn handshake<H, F>(handle: &H, spawner: &F::Spawner, task: First<F>) -> Result<(), First<F>>
where
    H: EngineRef<Engine<F>>,
    F: Flavor,
{
    let record = Handshake {
        header: JobHeader {
            vtable: &HandshakeVTable::<H, F>::VTABLE,
            index: handle.engine().next_worker_index(),
        },
        handle: handle.clone(),
        task: UnsafeCell::new(task),
        state: AtomicU8::new(SENT),
        signal: spawner.signal(),
    };
    let header = NonNull::from(&record).cast::<JobHeader>();
    let bomb = AbortOnUnwind;
    // SAFETY: `header` heads `record`, which stays on this stack, unmoved, until the
    // job has run or been abandoned and we consumed its notify's token below.
    let job = unsafe { Job::from_header(header) };
    let started = match spawner.spawn(job) {
        Ok(()) => {
            record.signal.wait();
            record.state.load(Ordering::Acquire) == STARTED
        }
        Err(job) => {
            check_returned(job, header);
            false
        }
    };
    bomb.disarm();
    if started {
        Ok(())
    } else {
        // The job was handed back or abandoned, so the task was never taken.
        Err(record.task.into_inner())
    }
}
