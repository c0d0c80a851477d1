//! Time for the pool: the [`Clock`] trait, its [`Instant`], and [`ManualClock`].
//!
//! The engine only ever asks "what time is it now?" — to stamp a worker when it
//! goes idle, and to decide which idle workers have outlived the expiry. It never
//! sleeps on a clock: waiting is the job of the platform's [`Signal`](crate::spawner::Signal).
//! So a clock is a single method, and an RTOS port implements it by reading its
//! tick counter.

use core::time::Duration;

use spin::mutex::SpinMutex;

/// A point in time, in nanoseconds from an arbitrary origin chosen by the [`Clock`].
///
/// `u64` nanoseconds cover 584 years, so a clock never wraps in practice. An RTOS
/// whose tick counter is 32 bits wide must extend it to 64 bits before converting
/// (for example by counting overflows).
///
/// ```
/// use antpool::port::Instant;
/// use core::time::Duration;
///
/// let start = Instant::from_nanos(1_000);
/// let later = start.checked_add(Duration::from_micros(1)).unwrap();
/// assert_eq!(later.as_nanos(), 2_000);
/// assert_eq!(later.saturating_duration_since(start), Duration::from_micros(1));
/// assert_eq!(start.saturating_duration_since(later), Duration::ZERO);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    nanos: u64,
}

impl Instant {
    /// The clock's origin.
    ///
    /// ```
    /// assert_eq!(antpool::port::Instant::ZERO.as_nanos(), 0);
    /// ```
    pub const ZERO: Instant = Instant { nanos: 0 };

    /// An instant `nanos` nanoseconds after the clock's origin.
    ///
    /// ```
    /// assert_eq!(antpool::port::Instant::from_nanos(7).as_nanos(), 7);
    /// ```
    #[must_use]
    pub const fn from_nanos(nanos: u64) -> Self {
        Instant { nanos }
    }

    /// An instant from a tick count of a clock that ticks `hz` times per second
    /// (an RTOS tick counter, say). `hz` of 0 is treated as 1.
    ///
    /// ```
    /// // 1 500 ticks of a 1 kHz tick are 1.5 s.
    /// let t = antpool::port::Instant::from_ticks(1_500, 1_000);
    /// assert_eq!(t.as_nanos(), 1_500_000_000);
    /// ```
    #[must_use]
    pub const fn from_ticks(ticks: u64, hz: u32) -> Self {
        let hz = if hz == 0 { 1 } else { hz as u128 };
        let nanos = (ticks as u128 * 1_000_000_000) / hz;
        Instant {
            nanos: if nanos > u64::MAX as u128 {
                u64::MAX
            } else {
                nanos as u64
            },
        }
    }

    /// Nanoseconds since the clock's origin.
    ///
    /// ```
    /// assert_eq!(antpool::port::Instant::from_nanos(42).as_nanos(), 42);
    /// ```
    #[must_use]
    pub const fn as_nanos(self) -> u64 {
        self.nanos
    }

    /// `self + d`, or `None` if that is past the end of time.
    ///
    /// ```
    /// use core::time::Duration;
    /// let end = antpool::port::Instant::from_nanos(u64::MAX);
    /// assert_eq!(end.checked_add(Duration::from_nanos(1)), None);
    /// ```
    pub fn checked_add(self, d: Duration) -> Option<Instant> {
        let d = u64::try_from(d.as_nanos()).ok()?;
        self.nanos.checked_add(d).map(Instant::from_nanos)
    }

    /// `self - d`, or `None` if that is before the clock's origin.
    ///
    /// ```
    /// use core::time::Duration;
    /// let t = antpool::port::Instant::from_nanos(10);
    /// assert_eq!(t.checked_sub(Duration::from_nanos(11)), None);
    /// assert_eq!(t.checked_sub(Duration::from_nanos(4)).unwrap().as_nanos(), 6);
    /// ```
    pub fn checked_sub(self, d: Duration) -> Option<Instant> {
        let d = u64::try_from(d.as_nanos()).ok()?;
        self.nanos.checked_sub(d).map(Instant::from_nanos)
    }

    /// How long after `earlier` this instant is; zero if it is not after it.
    ///
    /// ```
    /// use antpool::port::Instant;
    /// use core::time::Duration;
    /// let (a, b) = (Instant::from_nanos(5), Instant::from_nanos(8));
    /// assert_eq!(b.saturating_duration_since(a), Duration::from_nanos(3));
    /// assert_eq!(a.saturating_duration_since(b), Duration::ZERO);
    /// ```
    #[must_use]
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.nanos.saturating_sub(earlier.nanos))
    }
}

/// How many ticks of a `hz` tick counter to block for so that **at least** `d`
/// passes: `d` rounded up to whole ticks, plus one, because the tick that is
/// running when the wait starts is already partly over. Zero for a zero `d`;
/// saturates at `u64::MAX`. `hz` of 0 is treated as 1.
///
/// This is what an RTOS port's [`Signal::wait_timeout`](crate::spawner::Signal::wait_timeout)
/// needs: a kernel's "block for n ticks" wakes anywhere from n − 1 to n tick
/// periods later, and the pool relies on a timed wait not returning early
/// (`release_timeout`, expiry). A port must not pass the result straight to a
/// kernel whose "wait forever" value is the counter's maximum (FreeRTOS's
/// `portMAX_DELAY`): clamp it below that, and wait again for the rest.
///
/// ```
/// use antpool::port::ticks_at_least;
/// use core::time::Duration;
///
/// assert_eq!(ticks_at_least(Duration::ZERO, 1_000), 0);
/// assert_eq!(ticks_at_least(Duration::from_millis(50), 1_000), 51);
/// assert_eq!(ticks_at_least(Duration::from_micros(1), 1_000), 2); // part of a tick: a whole one
/// assert_eq!(ticks_at_least(Duration::from_millis(15), 100), 3); // 1.5 ticks at 100 Hz
/// assert_eq!(ticks_at_least(Duration::MAX, 1_000), u64::MAX);
/// ```
#[must_use]
pub const fn ticks_at_least(d: Duration, hz: u32) -> u64 {
    if d.is_zero() {
        return 0;
    }
    let hz = if hz == 0 { 1 } else { hz as u128 };
    let whole = (d.as_nanos() * hz).div_ceil(1_000_000_000) + 1;
    if whole > u64::MAX as u128 {
        u64::MAX
    } else {
        whole as u64
    }
}

/// A monotonic time source.
///
/// The pool reads it when a worker goes idle and when it looks for workers that
/// have been idle longer than the expiry. It must not go backwards; if it does
/// anyway (a buggy tick extension, a clock that is set by hand), the idle queues
/// clamp the stamps they store so their ordering — and so expiry — stays sound.
///
/// `now` is called outside the pool's lock, once per worker that goes idle, so it
/// should be cheap (a register or vDSO read), but it may take a lock of its own.
///
/// ```
/// use antpool::port::{Clock, Instant};
///
/// /// A clock that reads a (pretend) 1 kHz RTOS tick counter.
/// struct TickClock;
/// impl Clock for TickClock {
///     fn now(&self) -> Instant {
///         let ticks: u64 = 1_234; // xTaskGetTickCount(), extended to 64 bits
///         Instant::from_ticks(ticks, 1_000)
///     }
/// }
/// assert_eq!(TickClock.now().as_nanos(), 1_234_000_000);
/// ```
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> Instant;
}

impl<C: Clock + ?Sized> Clock for &'static C {
    fn now(&self) -> Instant {
        (**self).now()
    }
}

#[cfg(feature = "alloc")]
impl<C: Clock + ?Sized> Clock for alloc::sync::Arc<C> {
    fn now(&self) -> Instant {
        (**self).now()
    }
}

/// A clock that only moves when told to: for tests and simulations.
///
/// Share it with the pool through an `Arc` (or a `&'static`), then move time
/// forward with [`advance`](ManualClock::advance) and ask the pool to
/// [`purge`](crate::Pool::purge) to see idle workers expire without sleeping.
///
/// ```
/// use antpool::port::{Clock, ManualClock};
/// use core::time::Duration;
///
/// static CLOCK: ManualClock = ManualClock::new();
/// let clock: &'static ManualClock = &CLOCK;
/// assert_eq!(clock.now().as_nanos(), 0);
/// clock.advance(Duration::from_secs(2));
/// assert_eq!(clock.now().as_nanos(), 2_000_000_000);
/// ```
///
/// (It keeps its time behind a tiny spin lock rather than in an `AtomicU64`,
/// which 32-bit targets lack.)
#[derive(Debug, Default)]
pub struct ManualClock {
    nanos: SpinMutex<u64>,
}

impl ManualClock {
    /// A clock standing at its origin.
    ///
    /// ```
    /// use antpool::port::{Clock, ManualClock};
    /// assert_eq!(ManualClock::new().now(), antpool::port::Instant::ZERO);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        ManualClock {
            nanos: SpinMutex::new(0),
        }
    }

    /// Moves the clock forward by `d` (saturating at the end of time).
    ///
    /// ```
    /// use antpool::port::{Clock, ManualClock};
    /// use core::time::Duration;
    /// let clock = ManualClock::new();
    /// clock.advance(Duration::from_millis(3));
    /// assert_eq!(clock.now().as_nanos(), 3_000_000);
    /// ```
    pub fn advance(&self, d: Duration) {
        let d = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let mut nanos = self.nanos.lock();
        *nanos = nanos.saturating_add(d);
    }

    /// Sets the clock to `t`. Setting it backwards is allowed (that is what it is
    /// for: testing how the pool copes with a clock that steps back).
    ///
    /// ```
    /// use antpool::port::{Clock, Instant, ManualClock};
    /// let clock = ManualClock::new();
    /// clock.set(Instant::from_nanos(99));
    /// assert_eq!(clock.now(), Instant::from_nanos(99));
    /// ```
    pub fn set(&self, t: Instant) {
        *self.nanos.lock() = t.as_nanos();
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        Instant::from_nanos(*self.nanos.lock())
    }
}
