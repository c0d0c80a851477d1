//! [`StdClock`]: `std::time::Instant` as a [`Clock`].

use crate::clock::{Clock, Instant};

/// The std monotonic clock, counted from when this `StdClock` was made.
///
/// ```
/// use antpool::port::{Clock, StdClock};
/// let clock = StdClock::new();
/// let a = clock.now();
/// std::thread::sleep(std::time::Duration::from_millis(2));
/// assert!(clock.now().saturating_duration_since(a) >= std::time::Duration::from_millis(2));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct StdClock {
    origin: ::std::time::Instant,
}

impl StdClock {
    /// A clock whose origin is now.
    ///
    /// ```
    /// use antpool::port::{Clock, StdClock};
    /// assert!(StdClock::new().now().as_nanos() < 1_000_000_000);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        StdClock {
            origin: ::std::time::Instant::now(),
        }
    }
}

impl Default for StdClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for StdClock {
    fn now(&self) -> Instant {
        let nanos = self.origin.elapsed().as_nanos();
        Instant::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}
