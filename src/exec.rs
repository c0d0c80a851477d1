//! How a worker executes a task: [`RunTask`] calls a boxed closure, [`CallFn`]
//! calls the pool's one function; with `std`, [`Guarded`] wraps either to catch
//! panics and hand their payload to the panic handler.

use crate::engine::Execute;

/// Calls a boxed closure ([`Pool`](crate::Pool)'s tasks).
#[cfg(feature = "alloc")]
pub(crate) struct RunTask;

#[cfg(feature = "alloc")]
impl Execute<crate::Task> for RunTask {
    fn execute(&self, task: crate::Task) {
        task()
    }
}

/// Calls the pool's function on an argument ([`PoolWithFunc`](crate::PoolWithFunc)).
pub(crate) struct CallFn<F>(F);

impl<F> CallFn<F> {
    pub(crate) const fn new(func: F) -> Self {
        CallFn(func)
    }
}

impl<A, F> Execute<A> for CallFn<F>
where
    F: Fn(A) + Send + Sync + 'static,
{
    fn execute(&self, arg: A) {
        (self.0)(arg)
    }
}

/// `X`, guarded as the build's features allow: with `std`, panics are caught and
/// handed to the panic handler; without, `X` runs as is (embedded targets abort on
/// panic, and an unwinding panic still gives the worker's slot back).
#[cfg(feature = "std")]
pub(crate) type Guarded<X> = crate::std::panic::Catching<X>;
/// `X`, guarded as the build's features allow (without `std`: as is).
#[cfg(not(feature = "std"))]
pub(crate) type Guarded<X> = X;

/// The panic policy a builder collected, to wrap the executor with.
#[cfg(all(feature = "alloc", feature = "std"))]
pub(crate) struct Exec(Option<crate::PanicHandler>);

/// The panic policy a builder collected (none without `std`).
#[cfg(all(feature = "alloc", not(feature = "std")))]
pub(crate) struct Exec;

#[cfg(feature = "alloc")]
impl Exec {
    #[cfg(feature = "std")]
    pub(crate) fn new(handler: Option<crate::PanicHandler>) -> Self {
        Exec(handler)
    }

    #[cfg(not(feature = "std"))]
    pub(crate) fn new() -> Self {
        Exec
    }

    pub(crate) fn wrap<X>(self, inner: X) -> Guarded<X> {
        #[cfg(feature = "std")]
        return crate::std::panic::Catching::new(inner, self.0);
        #[cfg(not(feature = "std"))]
        return inner;
    }
}

/// `X` guarded with the default panic policy, in a `const` context.
pub(crate) const fn guard_default<X>(inner: X) -> Guarded<X> {
    #[cfg(feature = "std")]
    return crate::std::panic::Catching::new_default(inner);
    #[cfg(not(feature = "std"))]
    return inner;
}
