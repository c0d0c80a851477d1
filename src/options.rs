//! Options and builders, validated into [`BuildError`].
//!
//! [`Options`] is the plain, `const` set of choices every pool shares; the
//! builders ([`PoolBuilder`], [`PoolWithFuncBuilder`]) wrap it with the pieces
//! that are not plain data: the clock, the spawner, the queue type and (with
//! `std`) the panic handler and thread settings.

use core::time::Duration;

use crate::engine::Config;
use crate::error::BuildError;

/// The most workers any pool runs at once: 65 534 on targets with 64-bit
/// atomics, 510 on those with only 32-bit ones (microcontrollers). A larger
/// capacity is [`BuildError::CapacityTooLarge`]; an unbounded pool stops
/// starting workers here (further tasks wait in its queue for a free one).
///
/// ```
/// use antpool::{BuildError, MAX_CAPACITY, Pool};
/// assert!(MAX_CAPACITY >= 127);
/// assert_eq!(Pool::new(MAX_CAPACITY + 1).unwrap_err(), BuildError::CapacityTooLarge);
/// ```
pub const MAX_CAPACITY: usize = crate::engine::MAX_WORKERS;

/// How long an idle worker lives before it retires, unless told otherwise: 1 s.
///
/// ```
/// assert_eq!(antpool::DEFAULT_EXPIRY, core::time::Duration::from_secs(1));
/// ```
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Capacity {
    Unset,
    Bounded(usize),
    Unbounded,
}

/// The choices every pool shares. `const`, so a pool in a `static` can be
/// configured at compile time; the builders expose the same setters.
///
/// | option | default | meaning |
/// |---|---|---|
/// | `capacity(n)` / `unbounded()` | none: one must be chosen | at most `n` workers at once, or no limit |
/// | `expiry(d)` | 1 s | an idle worker retires after `d` |
/// | `disable_purge(b)` | `false` | `true`: idle workers never expire |
/// | `prealloc(b)` | `false` | `true`: the idle queue is one FIFO ring sized to the capacity, allocated at build; `tune` is then ignored |
/// | `nonblocking(b)` | `false` | `true`: a saturated pool rejects instead of blocking the submitter |
/// | `max_blocking_tasks(n)` | 0 (no limit) | at most `n` submitters block at once; more are rejected |
/// | `max_queued_tasks(n)` / `unbounded_queue()` | off | queue mode: a saturated pool queues up to `n` tasks (or any number) before blocking or rejecting |
/// | `min_idle(n)` | 0 | `n` warm workers: started at build, and expiry never leaves fewer than `n` idle |
/// | `priorities(b)` | `false` | `true`: a queue and a line of blocked submitters per [`Priority`](crate::Priority) |
/// | `reserve_for_high(r)` | 0 | a hand-off pool with priorities admits `Normal` and `Low` only while fewer than `cap - r` tasks are in flight |
/// | `starvation_bound(k)` | 0 (strict) | after `k` takes from higher levels while a lower one waits, a worker takes the lower one's oldest |
/// | `timings(s)` (feature `timings`) | `Sampling::Off` | which tasks are timed for the pool's `Timings` |
/// | `metrics_label(l)` (feature `metrics`) | none | the `pool` label of the metrics a `metrics::MetricsReporter` emits |
///
/// Validation, in this order: an expiry of zero is [`BuildError::InvalidExpiry`]
/// (whatever the capacity); no capacity chosen is [`BuildError::MissingCapacity`];
/// a capacity of 0 is [`BuildError::InvalidCapacity`], one above
/// [`MAX_CAPACITY`] [`BuildError::CapacityTooLarge`]; `prealloc` with an
/// unbounded pool is [`BuildError::InvalidPreAllocSize`]; a `min_idle` above the
/// capacity (or above [`MAX_CAPACITY`] for an unbounded pool) is
/// [`BuildError::InvalidMinIdle`]; a `reserve_for_high` without
/// `priorities(true)`, on a pool with a queue or unbounded, or not below the
/// capacity is [`BuildError::InvalidReserve`].
/// [`BuildError::InvalidMinIdle`]; a `Sampling::OneIn(n)` whose `n` is not a
/// power of two is [`BuildError::InvalidSampling`].
///
/// ```
/// use antpool::{BuildError, Options};
/// use core::time::Duration;
///
/// const OPTIONS: Options = Options::new().capacity(4).expiry(Duration::from_millis(500));
/// assert_eq!(OPTIONS.validate(), Ok(()));
/// assert_eq!(Options::new().capacity(0).validate(), Err(BuildError::InvalidCapacity));
/// assert_eq!(Options::new().validate(), Err(BuildError::MissingCapacity));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Options<X = ()> {
    choices: Choices,
    /// What a builder holds besides the choices (`()` for plain options):
    /// its `Pieces`, which `builder.rs` reaches into.
    pub(crate) extra: X,
}

/// The plain choices of an [`Options`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Choices {
    capacity: Capacity,
    expiry: Duration,
    disable_purge: bool,
    prealloc: bool,
    nonblocking: bool,
    max_blocking_tasks: usize,
    queue_limit: usize,
    min_idle: usize,
    priorities: bool,
    reserve_for_high: usize,
    starvation_bound: u32,
    #[cfg(feature = "timings")]
    sampling: crate::timings::Sampling,
    #[cfg(feature = "metrics")]
    label: Option<&'static str>,
}

/// Prints the choices (a builder's pieces are not plain data).
impl<X> core::fmt::Debug for Options<X> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.choices.fmt(f)
    }
}

impl Default for Options {
    fn default() -> Self {
        Self::new()
    }
}

impl Options {
    /// The defaults, with no capacity chosen yet.
    ///
    /// ```
    /// let o = antpool::Options::new().unbounded();
    /// assert_eq!(o.validate(), Ok(()));
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn new() -> Self {
        Options::with(())
    }
}

impl<X> Options<X> {
    /// The default choices around `extra` (a builder's pieces).
    pub(crate) const fn with(extra: X) -> Self {
        Options {
            choices: Choices::DEFAULT,
            extra,
        }
    }

    /// Every choice of `options`, in place of these (a builder keeps its
    /// pieces: what it runs, its platform and hooks).
    ///
    /// ```
    /// use antpool::{Options, Pool};
    /// let options = Options::new().capacity(3).nonblocking(true);
    /// let pool = Pool::builder().options(options).build().unwrap();
    /// assert_eq!(pool.cap(), Some(3));
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn options(mut self, options: Options) -> Self {
        self.choices = options.choices;
        self
    }

    /// At most `n` workers at once (0 is rejected at validation).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(8).validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn capacity(mut self, n: usize) -> Self {
        self.choices.capacity = Capacity::Bounded(n);
        self
    }

    /// No limit on the number of workers.
    ///
    /// ```
    /// assert!(antpool::Options::new().unbounded().validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn unbounded(mut self) -> Self {
        self.choices.capacity = Capacity::Unbounded;
        self
    }

    /// An idle worker retires after `d` (default 1 s; zero is rejected).
    ///
    /// ```
    /// use antpool::{BuildError, Options};
    /// use core::time::Duration;
    /// let o = Options::new().capacity(1).expiry(Duration::ZERO);
    /// assert_eq!(o.validate(), Err(BuildError::InvalidExpiry));
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn expiry(mut self, d: Duration) -> Self {
        self.choices.expiry = d;
        self
    }

    /// `true`: idle workers never expire (they live until release).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(1).disable_purge(true).validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn disable_purge(mut self, disable: bool) -> Self {
        self.choices.disable_purge = disable;
        self
    }

    /// `true`: the idle queue is a FIFO ring sized to the capacity, allocated once
    /// at build time; the capacity can then not be tuned.
    ///
    /// ```
    /// use antpool::{BuildError, Options};
    /// let o = Options::new().unbounded().prealloc(true);
    /// assert_eq!(o.validate(), Err(BuildError::InvalidPreAllocSize));
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn prealloc(mut self, prealloc: bool) -> Self {
        self.choices.prealloc = prealloc;
        self
    }

    /// `true`: when every worker is busy and the pool is at capacity, `submit`
    /// returns [`SubmitError::Overload`](crate::SubmitError::Overload) instead of
    /// blocking. Wins over `max_blocking_tasks`.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(1).nonblocking(true).validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn nonblocking(mut self, nonblocking: bool) -> Self {
        self.choices.nonblocking = nonblocking;
        self
    }

    /// At most `n` submitters may block at once; one more gets
    /// [`SubmitError::Overload`](crate::SubmitError::Overload). 0: no limit.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(1).max_blocking_tasks(16).validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn max_blocking_tasks(mut self, n: usize) -> Self {
        self.choices.max_blocking_tasks = n;
        self
    }

    /// Queue mode with room for `n` tasks: a saturated pool (every worker busy, at
    /// capacity) queues a submitted task instead of blocking or rejecting it, and
    /// workers drain the queue before they go idle. Only when the queue is full do
    /// the blocking and `nonblocking` rules apply. 0 turns queue mode off (the
    /// default). Needs a [`Pool`](crate::Pool) or [`PoolWithFunc`](crate::PoolWithFunc):
    /// a [`StaticPoolWithFunc`](crate::StaticPoolWithFunc) has no heap for a queue.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(2).max_queued_tasks(100).validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn max_queued_tasks(mut self, n: usize) -> Self {
        self.choices.queue_limit = n;
        self
    }

    /// Queue mode with no limit: a saturated pool queues every task (and memory
    /// grows with the queue; `max_queued_tasks` bounds it).
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(2).unbounded_queue().validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn unbounded_queue(mut self) -> Self {
        self.choices.queue_limit = usize::MAX;
        self
    }

    /// Keeps `n` workers warm: the builders start `n` workers when they build
    /// the pool (a [`StaticPoolWithFunc`](crate::StaticPoolWithFunc), built in a
    /// `const` context, starts them with
    /// [`start_min_idle`](crate::StaticPoolWithFunc::start_min_idle)), and idle
    /// expiry (and [`purge`](crate::Pool::purge)) never retires a worker when that
    /// would leave fewer than `n` idle: the first tasks after a quiet spell find
    /// a thread waiting instead of paying for a new one. `tune` and release are
    /// not held back by it (after `tune(c)` with `c < n` at most `c` workers stay).
    /// In a multi-pool the floor is per pool.
    /// 0 (the default): no floor, no thread before the first task. Above the
    /// capacity: [`BuildError::InvalidMinIdle`].
    ///
    /// ```
    /// use antpool::{BuildError, Options};
    /// assert!(Options::new().capacity(4).min_idle(2).validate().is_ok());
    /// assert_eq!(Options::new().capacity(4).min_idle(5).validate(), Err(BuildError::InvalidMinIdle));
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn min_idle(mut self, n: usize) -> Self {
        self.choices.min_idle = n;
        self
    }

    /// `true`: tasks and blocked submitters wait per [`Priority`](crate::Priority)
    /// — a queue (queue mode: `max_queued_tasks(n)` gives each level `n`) and
    /// a line of blocked submitters per level, served `High` first, FIFO
    /// within a level; submit at a level through `with_priority`. `false`
    /// (the default): every level maps to the one queue and the one line. A
    /// [`StaticPoolWithFunc`](crate::StaticPoolWithFunc) keeps its one ring
    /// (three would take three times its inline slots): the lines and the
    /// reserve are per level there, the queue is not.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(4).priorities(true).validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn priorities(mut self, on: bool) -> Self {
        self.choices.priorities = on;
        self
    }

    /// Keeps `r` of a hand-off pool's capacity for `High` tasks: `Normal` and
    /// `Low` are admitted only while fewer than `cap - r` tasks are in flight,
    /// `High` up to the capacity (after `tune(c)`, the reserve is at most
    /// `c - 1`, so every level keeps a place). Needs `priorities(true)` and a
    /// hand-off pool (a queue pool's levels have a queue each instead), and
    /// `r` below the capacity: else [`BuildError::InvalidReserve`].
    ///
    /// ```
    /// use antpool::{BuildError, Options};
    /// let o = Options::new().capacity(4).priorities(true).reserve_for_high(1);
    /// assert!(o.validate().is_ok());
    /// let no_levels = Options::new().capacity(4).reserve_for_high(1);
    /// assert_eq!(no_levels.validate(), Err(BuildError::InvalidReserve));
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn reserve_for_high(mut self, r: usize) -> Self {
        self.choices.reserve_for_high = r;
        self
    }

    /// A floor for lower levels: a worker that took `k` tasks in a row from
    /// higher levels while a lower level held tasks takes the oldest task of
    /// the highest such lower level next (so each busy worker gives waiting
    /// lower levels at least one take in `k + 1`); room for blocked
    /// submitters is granted by the same rule. 0 (the default): strict —
    /// `Low` runs only when no `Normal` or `High` task waits. Without
    /// `priorities(true)` it does nothing.
    ///
    /// ```
    /// let o = antpool::Options::new().capacity(2).priorities(true).starvation_bound(8);
    /// assert!(o.validate().is_ok());
    /// ```
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn starvation_bound(mut self, k: u32) -> Self {
        self.choices.starvation_bound = k;
        self
    }

    /// Which tasks the pool times (default [`Sampling::Off`]: none); see
    /// [`Sampling`] and [`Timings`](crate::Timings). A `OneIn(n)` whose `n`
    /// is not a power of two is rejected at validation. (Feature `timings`.)
    ///
    /// [`Sampling`]: crate::Sampling
    /// [`Sampling::Off`]: crate::Sampling::Off
    ///
    /// ```
    /// use antpool::{BuildError, Options, Sampling};
    /// assert!(Options::new().capacity(2).timings(Sampling::OneIn(16)).validate().is_ok());
    /// let o = Options::new().capacity(2).timings(Sampling::OneIn(3));
    /// assert_eq!(o.validate(), Err(BuildError::InvalidSampling));
    /// ```
    #[cfg(feature = "timings")]
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn timings(mut self, sampling: crate::timings::Sampling) -> Self {
        self.choices.sampling = sampling;
        self
    }

    /// The value of the `pool` label on every metric a
    /// [`MetricsReporter`](crate::metrics::MetricsReporter) emits for this
    /// pool (default: no `pool` label). A name for the pool's role
    /// (`"db"`, `"thumbnails"`), fixed: one label value per pool, never per
    /// task. (Feature `metrics`.)
    ///
    /// ```
    /// use antpool::Options;
    /// assert!(Options::new().capacity(2).metrics_label("db").validate().is_ok());
    /// ```
    #[cfg(feature = "metrics")]
    #[must_use = "options and builders are values: use the one this returns"]
    pub const fn metrics_label(mut self, pool: &'static str) -> Self {
        self.choices.label = Some(pool);
        self
    }

    /// Checks the options (see the [type docs](Options) for the rules and order).
    ///
    /// # Errors
    ///
    /// The [`BuildError`] of the first invalid option, in the order the type docs give.
    ///
    /// ```
    /// assert!(antpool::Options::new().capacity(2).validate().is_ok());
    /// ```
    pub const fn validate(&self) -> Result<(), BuildError> {
        match self.choices.config() {
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The validated configuration.
    pub(crate) const fn config(&self) -> Result<Config, BuildError> {
        self.choices.config()
    }
}

/// What a builder (feature `alloc`) needs of its options.
#[cfg(feature = "alloc")]
impl<X> Options<X> {
    /// The same choices around what `f` makes of the extra: a builder's
    /// pieces, retyped.
    pub(crate) fn map_extra<Y>(self, f: impl FnOnce(X) -> Y) -> Options<Y> {
        Options {
            choices: self.choices,
            extra: f(self.extra),
        }
    }
}

impl Choices {
    /// The defaults, with no capacity chosen yet.
    const DEFAULT: Choices = Choices {
        capacity: Capacity::Unset,
        expiry: DEFAULT_EXPIRY,
        disable_purge: false,
        prealloc: false,
        nonblocking: false,
        max_blocking_tasks: 0,
        queue_limit: 0,
        min_idle: 0,
        priorities: false,
        reserve_for_high: 0,
        starvation_bound: 0,
        #[cfg(feature = "timings")]
        sampling: crate::timings::Sampling::Off,
        #[cfg(feature = "metrics")]
        label: None,
    };

    /// The validated configuration.
    const fn config(&self) -> Result<Config, BuildError> {
        if self.expiry.is_zero() {
            return Err(BuildError::InvalidExpiry);
        }
        let capacity = match self.capacity {
            Capacity::Unset => return Err(BuildError::MissingCapacity),
            Capacity::Bounded(0) => return Err(BuildError::InvalidCapacity),
            Capacity::Bounded(n) if n > MAX_CAPACITY => return Err(BuildError::CapacityTooLarge),
            Capacity::Bounded(n) => Some(n),
            Capacity::Unbounded => None,
        };
        if self.prealloc && capacity.is_none() {
            return Err(BuildError::InvalidPreAllocSize);
        }
        let most = match capacity {
            Some(n) => n,
            None => MAX_CAPACITY,
        };
        if self.min_idle > most {
            return Err(BuildError::InvalidMinIdle);
        }
        if self.reserve_for_high > 0 {
            let fits = match capacity {
                Some(cap) => self.reserve_for_high < cap,
                None => false,
            };
            if !self.priorities || self.queue_limit != 0 || !fits {
                return Err(BuildError::InvalidReserve);
            }
        }
        #[cfg(feature = "timings")]
        let Ok(sample) = self.sampling.mask() else {
            return Err(BuildError::InvalidSampling);
        };
        Ok(Config {
            capacity,
            expiry: self.expiry,
            purge: !self.disable_purge,
            prealloc: self.prealloc,
            nonblocking: self.nonblocking,
            max_blocking: self.max_blocking_tasks,
            queue_limit: self.queue_limit,
            min_idle: self.min_idle,
            priorities: self.priorities,
            reserve_for_high: self.reserve_for_high,
            starvation_bound: self.starvation_bound,
            #[cfg(feature = "timings")]
            sample,
            #[cfg(feature = "metrics")]
            label: self.label,
        })
    }
}
