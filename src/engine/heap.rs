//! What only a pool with a heap has (feature `alloc`): the faces behind an
//! `Arc`, rings whose slots are allocated at build, the unbounded spill queue
//! behind a ring, the slots of a pool's lanes per level (`lanes.rs`; the box
//! that holds them is the crate's `boxed.rs`), a new worker's job record on the heap
//! (`launch.rs`), and the calls only the heap faces make.
//!
//! Without the feature, `no_heap.rs` stands in for this file under the same
//! name: a `Spill` that never spills. The engine's
//! code is the same either way; what the stand-ins say is constant, so it
//! folds away.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::list::TaskList;
use super::ring::{Slot, Slots};
use super::timed::{StampAt, Stamped};
use super::{Config, Engine, EngineRef, Flavor, MAX_WORKERS};
use crate::clock::{Clock, Instant};
use crate::sync::{AtomicBool, Ordering};

/// The slots of a lane added at build: boxed.
pub(crate) type LevelSlots<T> = Box<[Slot<T>]>;

/// The largest ring the heap faces allocate for a spilling lane (one slot per
/// task the pool admits, at most this many); more spill.
pub(crate) const MAX_RING: usize = 1024;

impl<E: Send + Sync + 'static> EngineRef<E> for Arc<E> {
    const HANDSHAKE: bool = false;

    fn engine(&self) -> &E {
        self
    }
}

impl<T: Send + 'static> Slots<T> for Box<[Slot<T>]> {
    #[inline]
    fn slots(&self) -> &[Slot<T>] {
        self
    }
}

/// `n` empty slots on the heap.
pub(crate) fn boxed_slots<T>(n: usize) -> Box<[Slot<T>]> {
    (0..n).map(|_| Slot::new()).collect()
}

impl Config {
    /// The size of the lane's ring for a heap face: a bounded queue's limit; a
    /// hand-off pool's capacity (an unbounded pool's worker limit), at most
    /// [`MAX_RING`]; one slot for an unbounded queue (it spills at once).
    pub(crate) const fn ring_size(&self) -> usize {
        match self.queue_limit {
            0 => {
                let cap = match self.capacity {
                    Some(cap) => cap,
                    None => MAX_WORKERS,
                };
                if cap < MAX_RING { cap } else { MAX_RING }
            }
            usize::MAX => 1,
            limit => limit,
        }
    }
}

impl<F: Flavor> Engine<F> {
    /// The pool clock's time.
    pub(crate) fn now(&self) -> Instant {
        self.clock.now()
    }

    /// Gives a heap pool with `priorities(true)` its `High` and `Low` lanes,
    /// like its `Normal` one (`ring_size` slots each), before it serves
    /// (feature `timings`: and its queue waits' histograms per level).
    pub(crate) fn add_levels(&mut self, ring_size: usize) {
        if self.config.priorities {
            self.lane.add_levels(ring_size, self.config.growth());
            self.recorder.add_levels();
        }
    }

    /// Closes the pool (if it is open) and takes out the tasks waiting in the
    /// lane, to be returned instead of run — also after a plain `release`, for
    /// the tasks not started yet. A paused pool's tasks are taken out before
    /// the release ends the pause, so none of them starts.
    pub(crate) fn release_drain<H: EngineRef<Self>>(handle: &H) -> Vec<F::Task> {
        let this = handle.engine();
        let mut drained = Vec::new();
        if this.is_paused() {
            this.drain_lane(handle, &mut drained);
        }
        this.release();
        this.drain_lane(handle, &mut drained);
        this.maybe_quiet();
        if this.config.lane_closes() {
            // The last worker may have stayed, parked, for a task we took
            // (handshake 2); a releaser may wait for the lane to empty
            // (`drained`).
            this.settle_closed();
        }
        drained
    }

    /// Pops every task in the lane into `drained`; a hand-off pool gives
    /// their admissions back.
    fn drain_lane<H: EngineRef<Self>>(&self, handle: &H, drained: &mut Vec<F::Task>) {
        while let Some((task, _)) = self.lane.pop() {
            drained.push(task);
            if self.config.handoff() {
                // Never to finish: its admission goes now.
                self.task_done(handle);
            }
        }
    }
}

/// How a worker of a pool behind an `Arc` gets its first task: a job record
/// on the heap (`launch.rs`, the boxed kind). (Without a heap every handle is
/// a `&'static`, and hands its first task over on the spawner's stack.)
pub(super) use boxed_job::spawn as spawn_boxed;

mod boxed_job {
    use alloc::boxed::Box;
    use core::marker::PhantomData;
    use core::ptr::NonNull;

    use crate::engine::{Engine, EngineRef, First, Flavor, check_returned, worker};
    use crate::spawner::{Job, JobHeader, JobVTable, Spawner};

    #[repr(C)]
    struct Record<H, T> {
        header: JobHeader,
        handle: H,
        task: T,
    }

    /// The vtable of boxed records for workers of an engine of flavor `F`,
    /// reached through `H`.
    struct VTable<H, F>(PhantomData<fn(H, F)>);

    impl<H, F> VTable<H, F>
    where
        H: EngineRef<Engine<F>>,
        F: Flavor,
    {
        const VTABLE: JobVTable = JobVTable {
            run: Self::run,
            abandon: Self::abandon,
        };

        /// # Safety
        ///
        /// `header` heads a `Record<H, T>` made by `spawn` below, consumed once.
        unsafe fn take(header: NonNull<JobHeader>) -> Record<H, First<F>> {
            // SAFETY: per the contract, the record was boxed by `spawn` and is ours.
            *unsafe { Box::from_raw(header.cast::<Record<H, First<F>>>().as_ptr()) }
        }

        unsafe fn run(header: NonNull<JobHeader>) {
            // SAFETY: the vtable is only reachable from records made by `spawn`,
            // and `Job` calls `run` at most once.
            let index = unsafe { header.as_ref().index };
            // SAFETY: as above.
            let record = unsafe { Self::take(header) };
            worker::run(record.handle, record.task, index);
        }

        unsafe fn abandon(header: NonNull<JobHeader>) {
            // SAFETY: as for `run`.
            let record = unsafe { Self::take(header) };
            // The spawner dropped the job: give back the reservation made for it.
            // Its task is dropped (documented on `Spawner::spawn`).
            let carried = record.task.is_some();
            drop(record.task);
            record.handle.engine().unreserve(&record.handle, carried);
        }
    }

    /// Starts a worker through `spawner` with a boxed record of `handle` and
    /// `task`: see `launch::spawn`.
    pub(in crate::engine) fn spawn<H, F>(
        handle: &H,
        spawner: &F::Spawner,
        task: First<F>,
    ) -> Result<(), First<F>>
    where
        H: EngineRef<Engine<F>>,
        F: Flavor,
    {
        let record = Box::new(Record {
            header: JobHeader {
                vtable: &VTable::<H, F>::VTABLE,
                index: handle.engine().next_worker_index(),
            },
            handle: handle.clone(),
            task,
        });
        let header = NonNull::from(Box::leak(record)).cast::<JobHeader>();
        // SAFETY: `header` heads the record just leaked, which the job now owns.
        let job = unsafe { Job::from_header(header) };
        match spawner.spawn(job) {
            Ok(()) => Ok(()),
            Err(job) => {
                check_returned(job, header);
                // SAFETY: the spawner handed the job back unrun, so the record is
                // ours again, and is taken once.
                let record = unsafe { VTable::<H, F>::take(header) };
                Err(record.task)
            }
        }
    }
}

/// The unbounded queue behind a lane's ring (see `transport.rs`): whether
/// the lane may spill, whether it does, and the [`TaskList`] it spills to.
pub(crate) struct Spill<T> {
    may_spill: bool,
    spilling: AtomicBool,
    list: TaskList<T>,
}

impl<T> Spill<T> {
    maybe_const_fn! {
        /// The spill queue of a lane that `may_spill` (is not bounded), used
        /// from the start if `at_once` (an unbounded queue's).
        pub(crate) fn new(may_spill: bool, at_once: bool) -> Self {
            Spill {
                may_spill,
                spilling: AtomicBool::new(at_once),
                list: TaskList::new(),
            }
        }
    }

    /// Whether the lane may spill (it is not bounded).
    #[inline]
    pub(crate) fn may_spill(&self) -> bool {
        self.may_spill
    }

    /// Whether the lane spills, read with `order`.
    #[inline]
    pub(crate) fn is_spilling(&self, order: Ordering) -> bool {
        self.spilling.load(order)
    }

    /// From now on every push spills (for good).
    #[inline]
    pub(crate) fn start(&self) {
        self.spilling.store(true, Ordering::Release);
    }

    /// See [`TaskList::push`].
    #[inline]
    pub(crate) fn push(&self, value: T, stamp_at: impl StampAt) -> Result<(), T> {
        self.list.push(value, stamp_at)
    }

    /// See [`TaskList::pop`].
    #[inline]
    pub(crate) fn pop(&self) -> Option<Stamped<T>> {
        self.list.pop()
    }

    /// See [`TaskList::is_empty`].
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// See [`TaskList::len`].
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }

    /// See [`TaskList::close`].
    pub(crate) fn close(&self) {
        self.list.close();
    }

    /// See [`TaskList::reopen`].
    pub(crate) fn reopen(&self) {
        self.list.reopen();
    }
}
