//! The kinds that keep their engine on the heap (feature `alloc`): pools of
//! [`Closures`], and [`Calls`] pools whose engine is [`Shared`] by the
//! handle's clones behind an `Arc`; the last clone dropped releases the pool.

// The sealed traits' items name the engine's types, which nothing outside
// the crate can reach: the lints that guard what users can reach have
// nothing to guard here.
#![allow(private_bounds, private_interfaces)]

use alloc::boxed::Box;
use alloc::sync::Arc;

use super::SlotsOf;
use super::sealed::{Reaches, Sealed, Storage, StorageReach};
use super::{Closures, Kind, Reach, Shared};
use crate::clock::Clock;
use crate::engine::{Engine, EngineRef, Flavor, Slot, Tuned};
use crate::exec::{Guarded, RunTask};
use crate::owner::Owner;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::task::{SmallTask, Task};

impl<Q: WorkerQueue, C: Clock, S: Spawner> Flavor for Closures<Q, C, S> {
    type Task = SmallTask;
    type Queue = Q;
    type Slots = Box<[Slot<SmallTask>]>;
    type Clock = C;
    type Spawner = S;
    type Exec = Guarded<RunTask>;
    type Policy = Tuned;
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Kind for Closures<Q, C, S> {}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Sealed for Closures<Q, C, S> {
    type Home = SharedHome<Self>;
    type Input = Task;
    const NAME: &'static str = "Pool";
    const MAX_CAP: usize = usize::MAX;

    fn engine(home: &Self::Home) -> &Engine<Self> {
        &home.engine.0
    }

    fn input(task: SmallTask) -> Task {
        task.into_box()
    }
}

impl<'a, Q: WorkerQueue, C: Clock, S: Spawner> Reaches<'a> for Closures<Q, C, S> {
    type Ref = ArcRef<Self>;

    #[inline]
    fn reach<R>(home: &'a Self::Home, f: impl FnOnce(&Self::Ref) -> R) -> R {
        f(&home.engine)
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> Reach<'_> for Closures<Q, C, S> {}

impl SlotsOf for Shared {
    type Slots<T: Send + 'static> = Box<[Slot<T>]>;
}

impl Storage for Shared {
    type Home<K: Sealed> = SharedHome<K>;
    const NAME: &'static str = "PoolWithFunc";
    const MAX_CAP: usize = usize::MAX;

    fn engine<K: Sealed>(home: &Self::Home<K>) -> &Engine<K> {
        &home.engine.0
    }
}

impl<'a> StorageReach<'a> for Shared {
    type Ref<K: Sealed> = ArcRef<K>;

    #[inline]
    fn reach<K: Sealed, R>(home: &'a SharedHome<K>, f: impl FnOnce(&ArcRef<K>) -> R) -> R {
        f(&home.engine)
    }
}

/// A heap pool's engine, and the owner its handle's clones share: the last
/// one dropped releases the pool (`owner.rs`). The engine beside the owner
/// spares every submit the hop through it.
pub struct SharedHome<K: Sealed> {
    engine: ArcRef<K>,
    owner: Arc<Owner<K>>,
}

impl<K: Sealed> SharedHome<K> {
    /// The home of a new pool's engine.
    pub(crate) fn new(engine: Engine<K>) -> Self {
        let engine = Arc::new(engine);
        SharedHome {
            owner: Owner::new(engine.clone()),
            engine: ArcRef(engine),
        }
    }
}

/// A heap pool's engine as its workers hold it: an `Arc` (a type of its own
/// so that the sealed traits can name it).
pub struct ArcRef<K: Sealed>(Arc<Engine<K>>);

impl<K: Sealed> Clone for ArcRef<K> {
    fn clone(&self) -> Self {
        ArcRef(self.0.clone())
    }
}

impl<K: Sealed> EngineRef<Engine<K>> for ArcRef<K> {
    const HANDSHAKE: bool = false;

    #[inline]
    fn engine(&self) -> &Engine<K> {
        &self.0
    }
}

impl<K: Sealed> Clone for SharedHome<K> {
    fn clone(&self) -> Self {
        SharedHome {
            engine: self.engine.clone(),
            owner: self.owner.clone(),
        }
    }
}
