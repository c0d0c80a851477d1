//! What a pool runs, and where its engine lives: the [`Kind`] of a
//! [`PoolOf`](crate::PoolOf).
//!
//! One handle type, [`PoolOf<K>`](crate::PoolOf), carries every method a pool
//! has; its kind `K` says what a task is and who owns the engine:
//!
//! | kind | a task is | the engine lives | alias |
//! |---|---|---|---|
//! | [`Closures<Q, C, S>`] | a boxed closure (inline when small) | behind an `Arc` shared by the handle's clones | [`Pool`](crate::Pool) |
//! | [`Calls<A, F, Q, C, S>`] | an argument of type `A` for the pool's function `F` | behind an `Arc` | [`PoolWithFunc`](crate::PoolWithFunc) |
//! | [`Calls<A, fn(A), WorkerRing<N>, C, S, Inline<N>>`](Calls) | an argument | inside the handle itself: no heap, a `static` | [`StaticPoolWithFunc`](crate::StaticPoolWithFunc) |
//!
//! `Q` is the idle-worker policy, `C` the clock and `S` the platform (see
//! [`port`](crate::port)). The traits are sealed: the kinds above are all
//! there are. [`Reach`] says through which borrow a pool can start workers:
//! any borrow of a heap pool, a `&'static` of a pool in a `static`.

// The sealed traits' items name the engine's types, which nothing outside
// the crate can reach: the lints that guard what users can reach have
// nothing to guard here.
#![allow(private_bounds, private_interfaces)]

use core::marker::PhantomData;

#[cfg(feature = "alloc")]
pub(crate) mod heap;

use crate::clock::Clock;
use crate::engine::{Engine, Flavor, Slot, Slots, Tuned};
use crate::exec::{Call, CallFn, FnHooks, Guarded, WorkFn};
use crate::queue::WorkerQueue;
use crate::spawner::Spawner;

/// What a pool runs and where its engine lives (see the [module](self)).
/// Sealed: implemented by [`Closures`] and [`Calls`] only.
///
/// Code that works with any pool names it as a bound:
///
/// ```
/// use antpool::{PoolOf, kind::Kind};
/// fn busy<K: Kind>(pool: &PoolOf<K>) -> bool {
///     pool.running() > pool.idle()
/// }
/// let pool = antpool::Pool::new(2).unwrap();
/// let squares = antpool::PoolWithFunc::new(2, |n: u64| n * n).unwrap();
/// assert!(!busy(&pool) && !busy(&squares));
/// ```
///
/// What a caller hands the pool for one task, and gets back when the pool
/// refuses it or `release_drain` takes it back, is the kind's input: a
/// [`Task`](crate::Task) (a closure) for [`Closures`], the argument `A` for
/// [`Calls`].
pub trait Kind: sealed::Sealed {}

/// A kind whose pool can start workers through a borrow of lifetime `'a`:
/// every heap pool through any borrow, a pool without a heap through a
/// `&'static` (its workers hold that reference for as long as they live).
/// Sealed.
///
/// ```
/// use antpool::kind::{Kind, Reach};
/// fn grow<'a, K: Reach<'a>>(pool: &'a antpool::PoolOf<K>) {
///     pool.tune(pool.cap().unwrap_or(1) * 2);
/// }
/// let pool = antpool::Pool::new(2).unwrap();
/// grow(&pool);
/// assert_eq!(pool.cap(), Some(4));
/// ```
pub trait Reach<'a>: Kind + sealed::Reaches<'a> {}

/// A type-level marker: never made as a value, `Send + Sync` whatever `T`.
type Marker<T> = PhantomData<fn() -> T>;

/// The kind of a pool of closures ([`Pool`](crate::Pool)): each task is a
/// closure, travelling inline in the task queue when it fits in three words
/// and boxed otherwise. The engine is shared by the handle's clones.
///
/// ```
/// let pool: antpool::PoolOf<antpool::kind::Closures<_, _, _>> = antpool::Pool::new(1).unwrap();
/// pool.submit(|| ()).unwrap();
/// ```
pub struct Closures<Q, C, S>(Marker<(Q, C, S)>);

/// The kind of a pool that runs one function `F` over arguments of type `A`
/// ([`PoolWithFunc`](crate::PoolWithFunc), and with `H` = [`Inline<N>`]
/// [`StaticPoolWithFunc`](crate::StaticPoolWithFunc)): a task is the
/// argument itself, carried by value, with no allocation per task.
///
/// ```
/// let pool: antpool::PoolOf<antpool::kind::Calls<u8, _, _, _, _>> =
///     antpool::PoolWithFunc::new(1, |n: u8| assert!(n < 9)).unwrap();
/// pool.invoke(3).unwrap();
/// ```
pub struct Calls<A, F, Q, C, S, H = Shared>(Marker<(A, F, Q, C, S, H)>);

/// Where a [`Calls`] pool keeps its engine: behind an `Arc` that the handle's
/// clones share (the heap pools). The last handle dropped releases the pool.
///
/// ```
/// let pool: antpool::PoolOf<antpool::kind::Calls<u8, _, _, _, _, antpool::kind::Shared>> =
///     antpool::PoolWithFunc::new(1, |n: u8| drop(n)).unwrap();
/// let other = pool.clone(); // the same pool
/// assert_eq!(other.cap(), Some(1));
/// ```
pub struct Shared;

/// Where a [`Calls`] pool keeps its engine: inline, with `N` slots for its
/// workers and its task queue — no heap, `const`-constructible, for a
/// `static` ([`StaticPoolWithFunc`](crate::StaticPoolWithFunc)).
///
/// ```
/// use antpool::{Options, StaticPoolWithFunc};
/// use antpool::port::{StdClock, StdSpawner};
/// let pool: &'static StaticPoolWithFunc<u8, 2, StdClock, StdSpawner> = Box::leak(Box::new(
///     StaticPoolWithFunc::new(Options::new().capacity(2), |_| (), StdClock::new(), StdSpawner::new()),
/// ));
/// pool.invoke(1).unwrap();
/// ```
pub struct Inline<const N: usize>;

impl<A, F, Q, C, S, H> Flavor for Calls<A, F, Q, C, S, H>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: sealed::Storage,
{
    type Task = Call<A, F::Output>;
    type Queue = Q;
    type Slots = <H as SlotsOf>::Slots<Call<A, F::Output>>;
    type Clock = C;
    type Spawner = S;
    type Exec = Guarded<FnHooks<CallFn<F>>>;
    type Policy = Tuned;
}

impl<A, F, Q, C, S, H> Kind for Calls<A, F, Q, C, S, H>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: sealed::Storage,
{
}

impl<A, F, Q, C, S, H> sealed::Sealed for Calls<A, F, Q, C, S, H>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: sealed::Storage,
{
    type Home = H::Home<Self>;
    type Input = A;
    const NAME: &'static str = H::NAME;
    const MAX_CAP: usize = H::MAX_CAP;

    fn engine(home: &Self::Home) -> &Engine<Self> {
        H::engine(home)
    }

    fn input(task: Self::Task) -> A {
        task.into_arg()
    }
}

impl<'a, A, F, Q, C, S, H> sealed::Reaches<'a> for Calls<A, F, Q, C, S, H>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: sealed::StorageReach<'a>,
{
    type Ref = H::Ref<Self>;

    #[inline]
    fn reach<R>(home: &'a Self::Home, f: impl FnOnce(&Self::Ref) -> R) -> R {
        H::reach(home, f)
    }
}

impl<'a, A, F, Q, C, S, H> Reach<'a> for Calls<A, F, Q, C, S, H>
where
    A: Send + 'static,
    F: WorkFn<A>,
    Q: WorkerQueue,
    C: Clock,
    S: Spawner,
    H: sealed::StorageReach<'a>,
{
}

/// Where a [`Calls`] pool's task queue keeps its slots: in a box sized at
/// build (heap pools), or inline (`N` of them).
pub(crate) trait SlotsOf {
    type Slots<T: Send + 'static>: Slots<T>;
}

impl<const N: usize> SlotsOf for Inline<N> {
    type Slots<T: Send + 'static> = [Slot<T>; N];
}

/// The sealed side of the kinds: what the one handle needs of each.
pub(crate) mod sealed {
    use crate::engine::{Engine, EngineRef, Flavor};

    /// What [`PoolOf`](crate::PoolOf) needs of its kind.
    pub trait Sealed: Flavor + Sized {
        /// Where the engine lives.
        type Home: Send + Sync;
        /// What a caller hands in for one task and gets back (see [`Kind`](super::Kind)).
        type Input;
        /// The pool type's name, for `Debug`.
        const NAME: &'static str;
        /// The most `tune` may set the capacity to (a static pool's `N`).
        const MAX_CAP: usize;
        /// The engine in `home`.
        fn engine(home: &Self::Home) -> &Engine<Self>;
        /// A task handed back (refused, or drained), as the caller gave it.
        fn input(task: Self::Task) -> Self::Input;
    }

    /// How workers started through a borrow of lifetime `'a` refer to the
    /// engine: `f` gets that reference (borrowed, so a submit clones nothing).
    pub trait Reaches<'a>: Sealed {
        type Ref: EngineRef<Engine<Self>>;
        fn reach<R>(home: &'a Self::Home, f: impl FnOnce(&Self::Ref) -> R) -> R;
    }

    /// Where a [`Calls`](super::Calls) pool keeps its engine (and, by
    /// [`SlotsOf`](super::SlotsOf), its slots).
    pub trait Storage: super::SlotsOf + 'static {
        type Home<K: Sealed>: Send + Sync;
        const NAME: &'static str;
        const MAX_CAP: usize;
        fn engine<K: Sealed>(home: &Self::Home<K>) -> &Engine<K>;
    }

    /// How a [`Storage`]'s engine is reached through a borrow of lifetime
    /// `'a` (see [`Reaches`]): said of the storage, not of the kind, so that
    /// a `where` clause naming it leaves the kind's own types known.
    pub trait StorageReach<'a>: Storage {
        type Ref<K: Sealed>: EngineRef<Engine<K>>;
        fn reach<K: Sealed, R>(home: &'a Self::Home<K>, f: impl FnOnce(&Self::Ref<K>) -> R) -> R;
    }

    impl<const N: usize> StorageReach<'static> for super::Inline<N> {
        type Ref<K: Sealed> = StaticRef<K>;

        #[inline]
        fn reach<K: Sealed, R>(
            home: &'static InlineHome<K>,
            f: impl FnOnce(&StaticRef<K>) -> R,
        ) -> R {
            f(&StaticRef(&home.engine))
        }
    }

    impl<const N: usize> Storage for super::Inline<N> {
        type Home<K: Sealed> = InlineHome<K>;
        const NAME: &'static str = "StaticPoolWithFunc";
        const MAX_CAP: usize = N;

        fn engine<K: Sealed>(home: &Self::Home<K>) -> &Engine<K> {
            &home.engine
        }
    }

    /// A pool's engine kept in the handle itself (no heap).
    pub struct InlineHome<K: Sealed> {
        pub(crate) engine: Engine<K>,
    }

    /// A static pool's engine as its workers hold it: a `&'static` (a type of
    /// its own so that the sealed traits can name it).
    pub struct StaticRef<K: Sealed>(&'static Engine<K>);

    impl<K: Sealed> Clone for StaticRef<K> {
        fn clone(&self) -> Self {
            *self
        }
    }

    impl<K: Sealed> Copy for StaticRef<K> {}

    impl<K: Sealed> EngineRef<Engine<K>> for StaticRef<K> {
        const HANDSHAKE: bool = true;

        #[inline]
        fn engine(&self) -> &Engine<K> {
            self.0
        }
    }
}
