//! `Shards<P>`: the pools of a multi-pool, and the load balancing and the sums
//! over them, shared by [`MultiPool`](super::MultiPool) and
//! [`MultiPoolWithFunc`](super::MultiPoolWithFunc).

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::future::Future;
use core::time::Duration;

use crate::sync::{AtomicBool, AtomicUsize, Ordering};

use crate::clock::Clock;
use crate::engine::{Admit, Awaited, Engine, Flavor, Mode};
use crate::error::{BuildError, ReleaseError, SubmitError};
use crate::exec::WorkFn;
use crate::func::PoolWithFunc;
use crate::pool::Pool;
use crate::priority::Priority;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::stats::Stats;

use super::LoadBalancing;
use crate::release::MultiDrain;

/// A pool face the multi-pools are made of.
pub(crate) trait Shard {
    type Flavor: Flavor;
    fn handle(&self) -> &Arc<Engine<Self::Flavor>>;
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Shard for Pool<Q, C, S> {
    type Flavor = crate::pool::PoolFlavor<Q, C, S>;
    fn handle(&self) -> &Arc<Engine<Self::Flavor>> {
        self.engine()
    }
}

impl<A, F, Q, C, S> Shard for PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    type Flavor = crate::func::FuncFlavor<A, F, Q, C, S>;
    fn handle(&self) -> &Arc<Engine<Self::Flavor>> {
        self.engine()
    }
}

/// A pool's engine alone: what a multi-pool's task group submits through
/// (see `Shards::engines_only`).
#[cfg(feature = "std")]
impl<F: Flavor> Shard for Arc<Engine<F>> {
    type Flavor = F;
    fn handle(&self) -> &Arc<Engine<F>> {
        self
    }
}

type TaskOf<P> = <<P as Shard>::Flavor as Flavor>::Task;

/// The pools of a multi-pool, and the balancing and sums over them.
pub(crate) struct Shards<P> {
    pools: Box<[P]>,
    balancing: LoadBalancing,
    /// The round robin's turn, and whether the multi-pool is released: shared
    /// with the multi-pool's engines-only twin ([`Shards::engines_only`]).
    next: Arc<AtomicUsize>,
    closed: Arc<AtomicBool>,
    /// Submissions the multi-pool refused (a pool's refusal that another pool
    /// then took is not one). Shared with the async submits' futures, which
    /// outlive any borrow of the multi-pool.
    rejected: Arc<AtomicUsize>,
}

impl<P: Shard> Shards<P> {
    pub(super) fn build(
        n: usize,
        balancing: LoadBalancing,
        mut make: impl FnMut() -> Result<P, BuildError>,
    ) -> Result<Self, BuildError> {
        if n == 0 {
            return Err(BuildError::InvalidMultiPoolSize);
        }
        let pools = (0..n).map(|_| make()).collect::<Result<Vec<P>, _>>()?;
        Ok(Shards {
            pools: pools.into_boxed_slice(),
            balancing,
            next: Arc::new(AtomicUsize::new(0)),
            closed: Arc::new(AtomicBool::new(false)),
            rejected: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// The same multi-pool by its engines only — not the pools' handles, so
    /// it keeps none of them open — submitting as this one does: the same
    /// turn, closed flag and refusal count. (A task group holds it.)
    #[cfg(feature = "std")]
    pub(crate) fn engines_only(&self) -> Shards<Arc<Engine<P::Flavor>>> {
        Shards {
            pools: self.engines().cloned().collect(),
            balancing: self.balancing,
            next: self.next.clone(),
            closed: self.closed.clone(),
            rejected: self.rejected.clone(),
        }
    }

    /// How many pools.
    pub(super) fn len(&self) -> usize {
        self.pools.len()
    }

    /// Whether the multi-pool was released (and not rebooted).
    pub(super) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// How tasks are spread.
    pub(super) fn balancing(&self) -> LoadBalancing {
        self.balancing
    }

    pub(super) fn engines(&self) -> impl Iterator<Item = &Arc<Engine<P::Flavor>>> {
        self.pools.iter().map(Shard::handle)
    }

    /// The pool with the fewest running workers, the first on ties.
    pub(super) fn least(&self) -> usize {
        let mut best = 0;
        let mut fewest = usize::MAX;
        for (i, engine) in self.engines().enumerate() {
            let running = engine.running();
            if running < fewest {
                best = i;
                fewest = running;
            }
        }
        best
    }

    pub(super) fn pick(&self) -> usize {
        match self.balancing {
            LoadBalancing::RoundRobin => {
                self.next.fetch_add(1, Ordering::Relaxed) % self.pools.len()
            }
            LoadBalancing::LeastTasks => self.least(),
        }
    }

    pub(crate) fn submit(
        &self,
        task: TaskOf<P>,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<TaskOf<P>>> {
        let result = self.place(task, mode, priority);
        if result.is_err() {
            self.rejected.fetch_add(1, Ordering::Relaxed);
        }
        result
    }

    /// [`submit`](Self::submit), before the rejection is counted.
    fn place(
        &self,
        task: TaskOf<P>,
        mode: Mode,
        priority: Priority,
    ) -> Result<(), SubmitError<TaskOf<P>>> {
        if self.closed.load(Ordering::Acquire) {
            return Err(SubmitError::Closed(task));
        }
        let first = self.pick();
        match Engine::submit(self.pools[first].handle(), task, mode, priority) {
            Err(SubmitError::Overload(task)) if self.balancing == LoadBalancing::RoundRobin => {
                Engine::submit(self.pools[self.least()].handle(), task, mode, priority)
            }
            other => other,
        }
    }

    /// [`submit`](Self::submit) for async code: waits for room on the pool the
    /// rule picks (in its waiters' FIFO, as `submit` blocks on it), without a
    /// thread; round robin tries the least loaded pool (as it was when the
    /// future was made) next if the first refuses with `Overload`
    /// (`nonblocking`, `max_blocking_tasks`). The future holds the pools'
    /// engines, not the multi-pool: it is `'static`. `wake_served`: see
    /// [`Admit::new`].
    pub(crate) fn submit_async(
        &self,
        task: TaskOf<P>,
        wake_served: bool,
        priority: Priority,
    ) -> impl Future<Output = Result<(), SubmitError<TaskOf<P>>>> + Send + 'static + use<P> {
        let closed = self.closed.load(Ordering::Acquire);
        let first = self.pools[self.pick()].handle().clone();
        let fallback = match self.balancing {
            LoadBalancing::RoundRobin if !closed => Some(self.pools[self.least()].handle().clone()),
            _ => None,
        };
        let rejected = self.rejected.clone();
        async move {
            let result = match closed {
                true => Err(SubmitError::Closed(task)),
                false => match Admit::new(first, task, wake_served, priority).await {
                    Err(SubmitError::Overload(task)) if fallback.is_some() => {
                        let Some(fallback) = fallback else {
                            unreachable!("antpool: checked just above")
                        };
                        Admit::new(fallback, task, wake_served, priority).await
                    }
                    other => other,
                },
            };
            if result.is_err() {
                rejected.fetch_add(1, Ordering::Relaxed);
            }
            result
        }
    }

    /// Resolves once no pool has a task running, queued or on its way.
    pub(super) async fn wait_idle_async(&self) {
        for engine in self.engines() {
            engine.wait_idle_async().await;
        }
    }

    pub(super) fn sum(&self, f: impl Fn(&Engine<P::Flavor>) -> usize) -> usize {
        self.engines().map(|e| f(e)).sum()
    }

    /// The sum of `f` over the pools; `None` if any pool says `None` (unbounded).
    pub(super) fn sum_bounded(
        &self,
        f: impl Fn(&Engine<P::Flavor>) -> Option<usize>,
    ) -> Option<usize> {
        self.engines().map(|e| f(e)).sum()
    }

    pub(super) fn by_index<R>(
        &self,
        index: usize,
        f: impl Fn(&Engine<P::Flavor>) -> R,
    ) -> Option<R> {
        self.pools.get(index).map(|p| f(p.handle()))
    }

    /// The pools' timings, summed.
    #[cfg(feature = "timings")]
    pub(crate) fn timings(&self) -> crate::timings::Timings {
        // From the first pool's: the sum keeps its levels, if it has any.
        let mut engines = self.engines();
        let mut sum = engines.next().map(|e| e.timings()).unwrap_or_default();
        for engine in engines {
            sum.add(&engine.timings());
        }
        sum
    }

    pub(crate) fn stats(&self) -> Stats {
        let mut sum = self
            .engines()
            .map(|e| e.stats())
            .fold(Stats::default(), |a, b| Stats {
                running: a.running + b.running,
                idle: a.idle + b.idle,
                waiting: a.waiting + b.waiting,
                queued: a.queued + b.queued,
                completed: a.completed.wrapping_add(b.completed),
                panicked: a.panicked.wrapping_add(b.panicked),
                spawned: a.spawned.wrapping_add(b.spawned),
                retired: a.retired.wrapping_add(b.retired),
                rejected: 0,
                busy: a.busy + b.busy,
                skipped: a.skipped.wrapping_add(b.skipped),
            });
        // Not the pools' sum: a pool's refusal that another took is no rejection.
        sum.rejected = self.rejected.load(Ordering::Relaxed);
        sum
    }

    pub(super) fn tune(&self, capacity: usize) {
        for engine in self.engines() {
            Engine::tune(engine, capacity);
        }
    }

    pub(super) fn release(&self) {
        self.closed.store(true, Ordering::Release);
        for engine in self.engines() {
            engine.release();
        }
    }

    /// Closes every pool first, then waits for them together: each gets what is
    /// left of `timeout` by the pools' clock, so the whole call takes about
    /// `timeout` at most, as if they were released concurrently.
    pub(super) fn release_timeout(&self, timeout: Duration) -> Result<(), ReleaseError> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Err(ReleaseError::Closed);
        }
        let mut errors = Vec::new();
        let mut awaited = Vec::with_capacity(self.len());
        for (index, engine) in self.engines().enumerate() {
            awaited.push(match engine.close() {
                Some(reboots) => Awaited::Since(reboots),
                None => {
                    errors.push((index, ReleaseError::Closed));
                    Awaited::Any
                }
            });
        }
        let start = self.pools[0].handle().now();
        for ((index, engine), awaited) in self.engines().enumerate().zip(awaited) {
            let spent = engine.now().saturating_duration_since(start);
            let left = timeout.saturating_sub(spent);
            if let Err(e) = engine.wait_released(awaited, Some(left)) {
                errors.push((index, e));
            }
        }
        if errors.is_empty() {
            return Ok(());
        }
        errors.sort_by_key(|(index, _)| *index);
        Err(ReleaseError::Pools(errors))
    }

    /// Closes every pool now (as [`release`](Self::release)) and returns the
    /// future that waits for them all; `Closed` if the multi-pool was
    /// released already.
    pub(super) fn release_async(&self) -> MultiDrain<'_> {
        match self.closed.swap(true, Ordering::AcqRel) {
            true => MultiDrain::closed(),
            false => MultiDrain::new(self.engines().map(|e| e.release_async())),
        }
    }

    /// The future that waits for every pool's release (or, open, its next)
    /// to end.
    pub(super) fn wait_released_async(&self) -> MultiDrain<'_> {
        MultiDrain::new(self.engines().map(|e| e.wait_released_async()))
    }

    /// Waits for every pool's release (or, open, its next) to end, the pools
    /// together, as [`release_timeout`](Self::release_timeout) waits: `true` if
    /// every pool was released and drained in time.
    pub(super) fn wait_released_timeout(&self, timeout: Duration) -> bool {
        let start = self.pools[0].handle().now();
        self.engines().all(|engine| {
            let left = timeout.saturating_sub(engine.now().saturating_duration_since(start));
            engine.wait_released(Awaited::Any, Some(left)).is_ok()
        })
    }

    pub(super) fn reboot(&self) {
        for engine in self.engines() {
            engine.reboot();
        }
        self.next.store(0, Ordering::Relaxed);
        self.closed.store(false, Ordering::Release);
    }

    /// Pauses every pool first, then waits for them together (as `wait_idle`):
    /// `true` if every pool paused with no task running.
    pub(super) fn pause(&self, timeout: Option<Duration>) -> bool {
        let mut all = true;
        for engine in self.engines() {
            all &= engine.pause_begin();
        }
        let start = self.pools[0].handle().now();
        for engine in self.engines() {
            let left =
                timeout.map(|t| t.saturating_sub(engine.now().saturating_duration_since(start)));
            all &= engine.pause_wait(left);
        }
        all
    }

    pub(super) fn resume(&self) {
        for engine in self.engines() {
            Engine::resume(engine);
        }
    }

    pub(super) fn is_paused(&self) -> bool {
        self.engines().all(|engine| engine.is_paused())
    }

    pub(super) fn wait_idle(&self, timeout: Option<Duration>) -> bool {
        let Some(timeout) = timeout else {
            for engine in self.engines() {
                engine.wait_idle(None);
            }
            return true;
        };
        let start = self.pools[0].handle().now();
        self.engines().all(|engine| {
            let left = timeout.saturating_sub(engine.now().saturating_duration_since(start));
            engine.wait_idle(Some(left))
        })
    }
}
