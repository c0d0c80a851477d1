//! [`Sampling`]: which tasks a pool times.

/// Which tasks a pool times, set with `.timings(..)` on a builder (or
/// [`Options::timings`](crate::Options::timings)); read back with `timings()`
/// on the pool.
///
/// Timing a task costs a clock read on the submitter's side (the moment it
/// entered the queue) and one or two on the worker's (when it began and ended):
/// with `std`'s clock, about what a tiny task costs in all. So the default
/// times nothing, `OneIn(16)` is the setting for production (its overhead is
/// within the noise of the `tiny` benchmark), and `Every` is for tasks of
/// 100 µs or more (on shorter ones its clock reads and shared counters are a
/// share of the task's time you can measure: see "Timings: what they cost" in
/// the crate's `BENCHMARKS.md`), or for tests.
///
/// | setting | what is timed |
/// |---|---|
/// | `Off` (default) | nothing: the histograms stay empty, and no clock is read for them |
/// | `OneIn(n)` | tasks that took a multiple of `n`'s position in the queue (about one in `n`), every task a new worker carried or a blocked submitter was let in with, and every blocked submit that got in |
/// | `Every` | every task, and every blocked submit that got in |
///
/// Sampling goes by a task's position in the queue: the submitter that
/// pushed it and the worker that takes it both know that position, so they
/// agree on which tasks are timed without sharing a counter. `n` must be a
/// power of two (`OneIn(1)` is `Every`): any other `n`, 0 included, is
/// [`BuildError::InvalidSampling`](crate::BuildError::InvalidSampling) — a
/// rounded `n` would time a share other than the one asked for, silently.
/// Tasks submitted from an interrupt
/// ([`try_invoke_from_isr`](crate::StaticPoolWithFunc::try_invoke_from_isr))
/// are never timed: that path reads no clock.
///
/// ```
/// use antpool::{BuildError, Pool, Sampling};
///
/// let pool = Pool::builder().capacity(2).timings(Sampling::OneIn(16)).build().unwrap();
/// pool.submit(|| ()).unwrap();
/// assert_eq!(Sampling::default(), Sampling::Off);
/// assert_eq!(
///     Pool::builder().capacity(2).timings(Sampling::OneIn(10)).build().unwrap_err(),
///     BuildError::InvalidSampling
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Sampling {
    /// Time nothing (the default).
    #[default]
    Off,
    /// Time about one task in `n` (`n` a power of two), and every task that
    /// did not go through the queue.
    OneIn(u32),
    /// Time every task.
    Every,
}

impl Sampling {
    /// The mask a position is tested with (sampled when `position & mask ==
    /// 0`): `None` for `Off`, 0 for `Every`; `Err` for an `n` that is not a
    /// power of two.
    pub(crate) const fn mask(self) -> Result<Option<usize>, ()> {
        match self {
            Sampling::Off => Ok(None),
            Sampling::Every => Ok(Some(0)),
            Sampling::OneIn(n) if n.is_power_of_two() => Ok(Some(n as usize - 1)),
            Sampling::OneIn(_) => Err(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sampling;

    #[test]
    fn powers_of_two_give_a_mask_others_are_refused() {
        assert_eq!(Sampling::Off.mask(), Ok(None));
        assert_eq!(Sampling::Every.mask(), Ok(Some(0)));
        assert_eq!(Sampling::OneIn(1).mask(), Ok(Some(0)));
        assert_eq!(Sampling::OneIn(16).mask(), Ok(Some(15)));
        assert_eq!(Sampling::OneIn(1 << 31).mask(), Ok(Some((1 << 31) - 1)));
        assert_eq!(Sampling::OneIn(0).mask(), Err(()));
        assert_eq!(Sampling::OneIn(12).mask(), Err(()));
    }
}
