//! [`Priority`]: three levels of urgency a task can be submitted at, and
//! [`Prioritized`], the view of a pool that submits at one of them.
//!
//! A pool built with `priorities(true)` keeps a queue and a line of blocked
//! submitters per level: a worker takes the oldest task of the highest level
//! that has one, and room that frees goes to the oldest waiter of the highest
//! level. It is never preemptive: a task handed to an idle or new worker
//! starts at once whatever its level, and a running task is never
//! interrupted. Without `priorities(true)`, every level maps to the one queue
//! and the one line, so code written for levels runs on any pool.

/// How urgent a task is: `Low < Normal < High`. Plain submits are `Normal`.
///
/// ```
/// use antpool::Priority;
/// assert!(Priority::Low < Priority::Normal && Priority::Normal < Priority::High);
/// assert_eq!(Priority::default(), Priority::Normal);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// Runs when no `Normal` or `High` task waits (see the pool's
    /// `starvation_bound` for a floor).
    Low,
    /// The level of every plain submit.
    #[default]
    Normal,
    /// Runs before any waiting `Normal` or `Low` task; a hand-off pool can keep
    /// room for it (`reserve_for_high`).
    High,
}

impl Priority {
    /// Every level, most urgent first: the order workers take tasks in.
    pub(crate) const ALL: [Priority; 3] = [Priority::High, Priority::Normal, Priority::Low];

    /// The level's place in [`ALL`](Self::ALL): 0 for `High`.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        match self {
            Priority::High => 0,
            Priority::Normal => 1,
            Priority::Low => 2,
        }
    }
}

/// A pool seen through one [`Priority`]: its submit methods submit at that
/// level (`pool.with_priority(Priority::High).submit(f)`), with the pool's
/// own signatures, errors and semantics. `Copy`: make one per call or keep it.
///
/// ```
/// use antpool::{Pool, Priority};
/// let pool = Pool::builder().capacity(2).priorities(true).build().unwrap();
/// let urgent = pool.with_priority(Priority::High);
/// urgent.submit(|| println!("first in line")).unwrap();
/// assert_eq!(urgent.priority(), Priority::High);
/// # pool.release_timeout(std::time::Duration::from_secs(5)).unwrap();
/// ```
#[derive(Debug)]
pub struct Prioritized<'a, P: ?Sized> {
    pub(crate) pool: &'a P,
    pub(crate) priority: Priority,
}

impl<P: ?Sized> Clone for Prioritized<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ?Sized> Copy for Prioritized<'_, P> {}

impl<'a, P: ?Sized> Prioritized<'a, P> {
    #[cfg(feature = "alloc")]
    pub(crate) fn new(pool: &'a P, priority: Priority) -> Self {
        Prioritized { pool, priority }
    }

    /// The level this view submits at.
    ///
    /// ```
    /// let pool = antpool::Pool::new(1).unwrap();
    /// assert_eq!(pool.with_priority(antpool::Priority::Low).priority(), antpool::Priority::Low);
    /// ```
    #[must_use]
    pub fn priority(&self) -> Priority {
        self.priority
    }
}
