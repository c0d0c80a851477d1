//! The multi-pools as [`MetricsSource`]s (feature `metrics`): their sums,
//! with the multi-pool's own count of refusals, as `stats()` and `timings()`
//! give them.

use alloc::boxed::Box;

use crate::clock::Clock;
use crate::exec::WorkFn;
use crate::metrics::MetricsSource;
use crate::metrics::private::{Reader, Sealed};
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

use super::shards::{Shard, Shards};
use super::{MultiPool, MultiPoolWithFunc};

/// The reader of a multi-pool's shards: their engines only (it keeps no pool
/// open), sharing the multi-pool's count of refusals.
fn shards_reader<P: Shard>(shards: &Shards<P>) -> Reader {
    let shards = shards.engines_only();
    // The pools are built alike: the first one's label and levels.
    let first = shards.engines().next();
    let label = first.and_then(|e| e.label());
    let levels = first.is_some_and(|e| e.times_levels());
    Reader {
        read: Box::new(move || (shards.stats(), shards.timings())),
        label,
        levels,
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> MetricsSource for &MultiPool<Q, C, S> {}
impl<Q: WorkerQueue, C: Clock, S: Spawner> Sealed for &MultiPool<Q, C, S> {
    fn reader(self) -> Reader {
        shards_reader(&self.shards)
    }
}

impl<A, F, Q, C, S> MetricsSource for &MultiPoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
}
impl<A, F, Q, C, S> Sealed for &MultiPoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    fn reader(self) -> Reader {
        shards_reader(&self.shards)
    }
}
