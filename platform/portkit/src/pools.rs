//! [`Pools`]: the kit's pools, one `static` of the port's types.
//!
//! A `static` cannot be generic, so the kit cannot declare its pools itself:
//! the port's program declares one `static Pools<ItsPort>`, and every check
//! reaches its pools through that `&'static`. Each pool is a
//! [`StaticPoolWithFunc`] over the port's own spawner and clock: no heap,
//! anywhere.

use core::time::Duration;

use antpool::port::Spawner;
use antpool::{Oneshot, Options, StaticPoolWithFunc};

use crate::port::Port;
use crate::{batch, interrupts, results, submit};

/// The capacity of the kit's main pool and of its interrupt pool: a port's
/// spawner must be able to run this many workers at once (a spawner over a
/// fixed set of threads needs at least this many).
///
/// ```
/// assert_eq!(antpool_portkit::CAP, 4);
/// ```
pub const CAP: usize = 4;

/// How long an idle worker of the main pool lives.
pub(crate) const EXPIRY: Duration = Duration::from_millis(100);

/// The result cells the async check awaits, and what a request carries.
pub(crate) const CELLS: usize = 4;
pub(crate) type Cell<P> = Oneshot<u32, <<P as Port>::Spawner as Spawner>::Lock>;
pub(crate) type Request<P> = (u32, &'static Cell<P>);

/// Every pool the kit's checks use, over `P`'s spawner and clock: declare one
/// in a `static` and hand it to [`run`](crate::run).
///
/// * the main pool (capacity [`CAP`], idle workers expire after 100 ms): the
///   batch, expiry, blocking and non-blocking submits, `tune`, release;
/// * a helper pool of one worker, whose job submits to the main pool (a
///   second thread that blocks there, made with the port's own spawner);
/// * the interrupt pool (capacity [`CAP`], two warm workers that do not
///   expire): `try_invoke_from_isr`;
/// * the results pool (capacity 2) and four [`Oneshot`] cells: results
///   awaited by a small executor;
/// * a pool over the port's [`Refusing`](Port::Refusing) spawner: a spawn
///   that fails hands the argument back.
///
/// ```
/// # use antpool_portkit::doc_support::NullPort as MyRtos;
/// use antpool_portkit::Pools;
///
/// // `MyRtos` implements `antpool_portkit::Port` (see its docs).
/// static POOLS: Pools<MyRtos> = Pools::new();
/// # let _ = &POOLS;
/// ```
pub struct Pools<P: Port> {
    pub(crate) main: StaticPoolWithFunc<usize, CAP, P::Clock, P::Spawner>,
    pub(crate) helper: StaticPoolWithFunc<submit::PoolsRef, 1, P::Clock, P::Spawner>,
    pub(crate) interrupt: StaticPoolWithFunc<usize, CAP, P::Clock, P::Spawner>,
    pub(crate) results: StaticPoolWithFunc<Request<P>, 2, P::Clock, P::Spawner>,
    pub(crate) cells: [Cell<P>; CELLS],
    pub(crate) refusing: StaticPoolWithFunc<usize, 1, P::Clock, P::Refusing>,
    /// How [`interrupt`](crate::interrupt) reaches this `static` from a handler.
    pub(crate) entry: interrupts::Entry,
}

impl<P: Port> Pools<P> {
    /// The kit's pools over `P::SPAWNER`, `P::CLOCK` (and `P::REFUSING`):
    /// `const`, for a `static`.
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// // In the port's test program (`MyRtos: antpool_portkit::Port`):
    /// static POOLS: antpool_portkit::Pools<MyRtos> = antpool_portkit::Pools::new();
    /// # let _ = &POOLS;
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Pools {
            main: StaticPoolWithFunc::new(
                Options::new().capacity(CAP).expiry(EXPIRY),
                batch::job::<P>,
                P::CLOCK,
                P::SPAWNER,
            ),
            helper: StaticPoolWithFunc::new(
                Options::new().capacity(1),
                submit::helper::<P>,
                P::CLOCK,
                P::SPAWNER,
            ),
            interrupt: StaticPoolWithFunc::new(
                Options::new()
                    .capacity(CAP)
                    .min_idle(interrupts::WARM)
                    .expiry(Duration::from_secs(60)),
                interrupts::job::<P>,
                P::CLOCK,
                P::SPAWNER,
            ),
            results: StaticPoolWithFunc::new(
                Options::new().capacity(2),
                results::cube::<P>,
                P::CLOCK,
                P::SPAWNER,
            ),
            cells: [const { Oneshot::new() }; CELLS],
            refusing: StaticPoolWithFunc::new(
                Options::new().capacity(1),
                batch::job::<P>,
                P::CLOCK,
                P::REFUSING,
            ),
            entry: interrupts::Entry::new(interrupts::step::<P>),
        }
    }
}

impl<P: Port> Default for Pools<P> {
    /// [`Pools::new`].
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// let pools = antpool_portkit::Pools::<MyRtos>::default();
    /// # drop(pools);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Port> core::fmt::Debug for Pools<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Pools")
            .field("port", &P::NAME)
            .field("main_running", &self.main.running())
            .field("interrupt_running", &self.interrupt.running())
            .finish_non_exhaustive()
    }
}
