//! [`Oneshot`]: a result cell that a `static` can hold, filled by a worker and
//! awaited by async code — results from a [`StaticPoolWithFunc`] without `std`
//! or a heap.
//!
//! The protocol is a lock (the platform's, as the pool's own) around three
//! fields: the value, the waiting receiver's `Waker`, and whether a receiver
//! exists. `send` stores the value and takes the waker under the lock, then
//! wakes it after the lock; a poll takes the value, or stores its waker, under
//! the same lock, so a send can never fall between a poll's look and its
//! registration. No user code (a `Waker`, a value's `Drop`) runs under the lock.
//!
//! [`StaticPoolWithFunc`]: crate::StaticPoolWithFunc

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};

use lock_api::{Mutex, RawMutex};

/// What the lock protects.
struct Inner<T> {
    value: Option<T>,
    waker: Option<Waker>,
    /// A [`Recv`] exists (one at a time).
    receiving: bool,
}

/// A one-shot cell for a result: a worker [`send`](Self::send)s a value, and
/// async code awaits it with [`recv`](Self::recv) — on any executor, with no
/// `std` and no heap, so a `static` can hold it. Once received the cell is
/// empty again, ready for the next value.
///
/// `L` is the lock around its three fields, held for a few instructions: the
/// platform's lock (`antpool_freertos::CriticalSection` on FreeRTOS;
/// [`StdLock`](crate::port::StdLock) with `std`; a spin lock only where a
/// spinner cannot starve the holder). A `StaticPoolWithFunc` gets a result
/// back by carrying the cell's address in its argument:
///
/// ```
/// use antpool::{Oneshot, Options, StaticPoolWithFunc};
/// use antpool::port::{StdClock, StdLock, StdSpawner};
/// use std::sync::LazyLock;
///
/// type Answer = Oneshot<u64, StdLock>;
/// static ANSWER: Answer = Oneshot::new();
///
/// fn square((n, reply): (u64, &'static Answer)) {
///     reply.send(n * n).expect("one result per request");
/// }
///
/// static POOL: LazyLock<StaticPoolWithFunc<(u64, &'static Answer), 2, StdClock, StdSpawner>> =
///     LazyLock::new(|| {
///         StaticPoolWithFunc::new(Options::new().capacity(2), square, StdClock::new(), StdSpawner::new())
///     });
///
/// let n = futures_executor::block_on(async {
///     POOL.invoke_async((12, &ANSWER)).await.unwrap();
///     ANSWER.recv().await
/// });
/// assert_eq!(n, 144);
/// ```
pub struct Oneshot<T, L: RawMutex> {
    inner: Mutex<L, Inner<T>>,
}

impl<T, L: RawMutex> Oneshot<T, L> {
    /// An empty cell (`const`: for a `static`).
    ///
    /// ```
    /// use antpool::Oneshot;
    /// use antpool::port::StdLock;
    /// static CELL: Oneshot<u8, StdLock> = Oneshot::new();
    /// assert!(CELL.try_recv().is_none());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_lock(L::INIT)
    }

    /// An empty cell around `lock`, for a lock whose `INIT` cannot be used
    /// (one made at run time).
    ///
    /// ```
    /// use antpool::Oneshot;
    /// use antpool::port::StdLock;
    /// use antpool::port::lock_api::RawMutex;
    /// let cell: Oneshot<u8, StdLock> = Oneshot::with_lock(StdLock::INIT);
    /// cell.send(1).unwrap();
    /// assert_eq!(cell.try_recv(), Some(1));
    /// ```
    #[must_use]
    pub const fn with_lock(lock: L) -> Self {
        Oneshot {
            inner: Mutex::from_raw(
                lock,
                Inner {
                    value: None,
                    waker: None,
                    receiving: false,
                },
            ),
        }
    }

    /// Stores `value` and wakes the receiver waiting for it, if any.
    ///
    /// # Errors
    ///
    /// `Err(value)` if the cell still holds a value nobody has received: it
    /// is kept, and `value` comes back.
    ///
    /// ```
    /// use antpool::Oneshot;
    /// use antpool::port::StdLock;
    /// let cell: Oneshot<u8, StdLock> = Oneshot::new();
    /// assert_eq!(cell.send(1), Ok(()));
    /// assert_eq!(cell.send(2), Err(2));
    /// assert_eq!(cell.try_recv(), Some(1));
    /// ```
    pub fn send(&self, value: T) -> Result<(), T> {
        let mut inner = self.inner.lock();
        if inner.value.is_some() {
            return Err(value);
        }
        inner.value = Some(value);
        let waker = inner.waker.take();
        drop(inner);
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }

    /// Takes the value if it is there (without waiting).
    ///
    /// ```
    /// use antpool::Oneshot;
    /// use antpool::port::StdLock;
    /// let cell: Oneshot<&str, StdLock> = Oneshot::new();
    /// assert_eq!(cell.try_recv(), None);
    /// cell.send("done").unwrap();
    /// assert_eq!(cell.try_recv(), Some("done"));
    /// assert_eq!(cell.try_recv(), None, "taken: empty again");
    /// ```
    pub fn try_recv(&self) -> Option<T> {
        self.inner.lock().value.take()
    }

    /// A future of the next value: ready at once if one is there, else once a
    /// [`send`](Self::send) stores it. Dropping the future leaves any value
    /// in the cell.
    ///
    /// # Panics
    ///
    /// If another `recv` future of this cell is alive: a cell has one
    /// receiver at a time (a second one would take its wake-up).
    ///
    /// ```
    /// use antpool::Oneshot;
    /// use antpool::port::StdLock;
    /// static CELL: Oneshot<u32, StdLock> = Oneshot::new();
    /// let sender = std::thread::spawn(|| CELL.send(7).unwrap());
    /// assert_eq!(futures_executor::block_on(CELL.recv()), 7);
    /// sender.join().unwrap();
    /// ```
    pub fn recv(&self) -> Recv<'_, T, L> {
        let mut inner = self.inner.lock();
        let twice = inner.receiving;
        inner.receiving = true;
        drop(inner);
        if twice {
            panic!("antpool: Oneshot::recv while another recv future of the same cell is alive");
        }
        Recv { cell: self }
    }
}

impl<T, L: RawMutex> Default for Oneshot<T, L> {
    /// An empty cell.
    ///
    /// ```
    /// use antpool::Oneshot;
    /// let cell: Oneshot<u8, antpool::port::StdLock> = Oneshot::default();
    /// assert_eq!(cell.try_recv(), None);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl<T, L: RawMutex> fmt::Debug for Oneshot<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Oneshot").finish_non_exhaustive()
    }
}

/// The future of [`Oneshot::recv`]: the next value the cell gets.
///
/// ```
/// use antpool::Oneshot;
/// use antpool::port::StdLock;
/// let cell: Oneshot<u8, StdLock> = Oneshot::new();
/// cell.send(3).unwrap();
/// let recv: antpool::Recv<'_, u8, StdLock> = cell.recv();
/// assert_eq!(futures_executor::block_on(recv), 3);
/// ```
#[must_use = "a future does nothing unless polled"]
pub struct Recv<'a, T, L: RawMutex> {
    cell: &'a Oneshot<T, L>,
}

impl<T, L: RawMutex> Future for Recv<'_, T, L> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut inner = self.cell.inner.lock();
        if let Some(value) = inner.value.take() {
            // (No waker to clear: a `send` takes it as it stores the value.)
            return Poll::Ready(value);
        }
        // Registered under the lock a `send` takes: it finds this waker.
        let old = match &inner.waker {
            Some(waker) if waker.will_wake(cx.waker()) => None,
            _ => inner.waker.replace(cx.waker().clone()),
        };
        drop(inner);
        drop(old);
        Poll::Pending
    }
}

impl<T, L: RawMutex> Drop for Recv<'_, T, L> {
    fn drop(&mut self) {
        let mut inner = self.cell.inner.lock();
        inner.receiving = false;
        let old = inner.waker.take();
        drop(inner);
        drop(old);
    }
}

impl<T, L: RawMutex> fmt::Debug for Recv<'_, T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recv").finish_non_exhaustive()
    }
}
