//! [`MetricsSource`]: the pools a [`MetricsReporter`](super::MetricsReporter)
//! can read — every pool type, by reference.

use alloc::boxed::Box;

use crate::clock::Clock;
use crate::engine::{Engine, Flavor};
use crate::exec::WorkFn;
use crate::func::PoolWithFunc;
use crate::pool::Pool;
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;
use crate::static_func::StaticPoolWithFunc;

/// A pool [`MetricsReporter::new`](super::MetricsReporter::new) can report:
/// `&Pool`, `&PoolWithFunc`, `&MultiPool`, `&MultiPoolWithFunc` (their sums)
/// and `&'static StaticPoolWithFunc`. Sealed: implemented here only.
///
/// The reporter keeps the pool's engine (as its workers do), not a handle:
/// it never keeps a pool open, and a released pool's numbers stay readable.
///
/// ```
/// use antpool::metrics::{MetricsReporter, MetricsSource};
/// fn reporter_for(pool: impl MetricsSource) -> MetricsReporter {
///     MetricsReporter::new(pool)
/// }
/// let pool = antpool::Pool::new(2).unwrap();
/// let mut reporter = reporter_for(&pool);
/// reporter.record();
/// ```
pub trait MetricsSource: private::Sealed {}

pub(crate) mod private {
    use alloc::boxed::Box;

    use crate::stats::Stats;
    use crate::timings::Timings;

    /// How a reporter reads its pool: a snapshot of the counters and the
    /// timings, the pool's `metrics_label`, and whether its timings keep
    /// `queue_wait` per level. (Not nameable outside.)
    #[doc(hidden)]
    pub struct Reader {
        pub(crate) read: Box<dyn Fn() -> (Stats, Timings) + Send + Sync>,
        pub(crate) label: Option<&'static str>,
        pub(crate) levels: bool,
    }

    /// Seals [`MetricsSource`](super::MetricsSource). (Not nameable outside.)
    #[doc(hidden)]
    pub trait Sealed {
        /// The reader of this pool.
        fn reader(self) -> Reader;
    }
}

use private::{Reader, Sealed};

/// The reader of one engine, kept alive by `handle` (an `Arc` or a `&'static`).
fn engine_reader<F: Flavor, H>(handle: H) -> Reader
where
    H: core::ops::Deref<Target = Engine<F>> + Send + Sync + 'static,
{
    let (label, levels) = (handle.label(), handle.times_levels());
    Reader {
        read: Box::new(move || (handle.stats(), handle.timings())),
        label,
        levels,
    }
}

/// A `&'static` as something that derefs (for [`engine_reader`]).
struct Static<E: 'static>(&'static E);

impl<E> core::ops::Deref for Static<E> {
    type Target = E;
    fn deref(&self) -> &E {
        self.0
    }
}

impl<Q: WorkerQueue, C: Clock, S: Spawner> MetricsSource for &Pool<Q, C, S> {}
impl<Q: WorkerQueue, C: Clock, S: Spawner> Sealed for &Pool<Q, C, S> {
    fn reader(self) -> Reader {
        engine_reader(self.engine().clone())
    }
}

impl<A, F, Q, C, S> MetricsSource for &PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
}
impl<A, F, Q, C, S> Sealed for &PoolWithFunc<A, F, Q, C, S>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
{
    fn reader(self) -> Reader {
        engine_reader(self.engine().clone())
    }
}

impl<A, const N: usize, C, S> MetricsSource for &'static StaticPoolWithFunc<A, N, C, S>
where
    A: Send + 'static,
    C: Clock,
    S: Spawner,
{
}
impl<A, const N: usize, C, S> Sealed for &'static StaticPoolWithFunc<A, N, C, S>
where
    A: Send + 'static,
    C: Clock,
    S: Spawner,
{
    fn reader(self) -> Reader {
        engine_reader(Static(self.engine()))
    }
}
