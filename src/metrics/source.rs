//! [`MetricsSource`]: the pools a [`MetricsReporter`](super::MetricsReporter)
//! can read — every pool type, by reference.

use alloc::boxed::Box;

use crate::engine::{Engine, EngineRef, Flavor};
use crate::kind::Reach;
use crate::pool::PoolOf;

/// A pool [`MetricsReporter::new`](super::MetricsReporter::new) can report:
/// `&Pool`, `&PoolWithFunc`, and `&'static StaticPoolWithFunc` (a pool that
/// can start workers through the reference). Sealed: implemented here only.
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
fn engine_reader<F: Flavor, H: EngineRef<Engine<F>>>(handle: H) -> Reader {
    let engine = handle.engine();
    let (label, levels) = (engine.label(), engine.times_levels());
    Reader {
        read: Box::new(move || (handle.engine().stats(), handle.engine().timings())),
        label,
        levels,
    }
}

impl<'a, K: Reach<'a>> MetricsSource for &'a PoolOf<K> {}
impl<'a, K: Reach<'a>> Sealed for &'a PoolOf<K> {
    fn reader(self) -> Reader {
        engine_reader(self.reach())
    }
}
