//! How a worker executes a task: [`RunTask`] calls a closure (inline or boxed), [`CallFn`]
//! calls the pool's one function; with `std`, [`Guarded`] wraps either to catch
//! panics and hand their payload to the panic handler.

use crate::engine::{Execute, Outcome};

/// Calls a closure ([`Pool`](crate::Pool)'s tasks).
#[cfg(feature = "alloc")]
pub(crate) struct RunTask;

#[cfg(feature = "alloc")]
impl Execute<crate::task::SmallTask> for RunTask {
    // Inlined into the worker's loop, with `Catching::execute`: see there.
    #[inline(always)]
    fn execute(&self, task: crate::task::SmallTask) -> Outcome {
        task.run();
        Outcome::Completed
    }
}

/// The function a [`PoolWithFunc`](crate::PoolWithFunc) runs on each argument.
///
/// Implemented for every `Fn(A) -> R + Send + Sync + 'static` closure or
/// function, so you rarely name it; implement it yourself for a function object
/// (a struct that carries its own state).
///
/// ```
/// use antpool::{PoolWithFunc, WorkFn};
///
/// struct Scale(u64);
/// impl WorkFn<u64> for Scale {
///     type Output = u64;
///     fn call(&self, n: u64) -> u64 {
///         n * self.0
///     }
/// }
///
/// let pool = PoolWithFunc::new(2, Scale(10)).unwrap();
/// assert_eq!(pool.call(4).unwrap().join().unwrap(), 40);
/// ```
pub trait WorkFn<A>: Send + Sync + 'static {
    /// What one call returns ([`PoolWithFunc::call`](crate::PoolWithFunc::call)
    /// hands it to a `JoinHandle`; `invoke` drops it).
    type Output: Send + 'static;

    /// Runs the function on one argument.
    fn call(&self, arg: A) -> Self::Output;
}

impl<A, R, F> WorkFn<A> for F
where
    F: Fn(A) -> R + Send + Sync + 'static,
    R: Send + 'static,
{
    type Output = R;

    fn call(&self, arg: A) -> R {
        self(arg)
    }
}

/// One task of a `PoolWithFunc`: the argument, and with `std` perhaps a
/// `JoinHandle` waiting for the result.
pub(crate) struct Call<A, R> {
    arg: A,
    #[cfg(feature = "std")]
    reply: Option<crate::join::handle::Reply<R>>,
    #[cfg(not(feature = "std"))]
    _result: core::marker::PhantomData<fn() -> R>,
}

impl<A, R> Call<A, R> {
    /// A call whose result is dropped.
    pub(crate) const fn new(arg: A) -> Self {
        Call {
            arg,
            #[cfg(feature = "std")]
            reply: None,
            #[cfg(not(feature = "std"))]
            _result: core::marker::PhantomData,
        }
    }

    /// A call whose result goes to `reply`'s `JoinHandle`.
    #[cfg(feature = "std")]
    pub(crate) fn with_reply(arg: A, reply: crate::join::handle::Reply<R>) -> Self {
        Call {
            arg,
            reply: Some(reply),
        }
    }

    /// The argument, for handing back (a waiting `JoinHandle` learns that the
    /// call was cancelled).
    pub(crate) fn into_arg(self) -> A {
        self.arg
    }
}

/// Calls the pool's function on an argument ([`PoolWithFunc`](crate::PoolWithFunc)).
pub(crate) struct CallFn<F>(F);

impl<F> CallFn<F> {
    pub(crate) const fn new(func: F) -> Self {
        CallFn(func)
    }
}

impl<A, F> Execute<Call<A, F::Output>> for CallFn<F>
where
    F: WorkFn<A>,
{
    fn execute(&self, call: Call<A, F::Output>) -> Outcome {
        #[cfg(feature = "std")]
        if let Some(reply) = call.reply {
            if !reply.begin() {
                // Aborted: its handle reports cancelled; the argument is dropped.
                return Outcome::Skipped;
            }
            let arg = call.arg;
            return reply.run(|| self.0.call(arg));
        }
        self.0.call(call.arg);
        Outcome::Completed
    }
}

/// `X`, guarded as the build's features allow: with `std`, panics are caught and
/// handed to the panic handler; without, `X` runs as is (embedded targets abort on
/// panic, and an unwinding panic still gives the worker's slot back).
#[cfg(feature = "std")]
pub(crate) type Guarded<X> = crate::guard::panic::Catching<X>;
/// `X`, guarded as the build's features allow (without `std`: as is).
#[cfg(not(feature = "std"))]
pub(crate) type Guarded<X> = X;

/// The panic handler and worker hooks a builder collected, to wrap the
/// executor with.
#[cfg(all(feature = "alloc", feature = "std"))]
pub(crate) struct Exec(crate::guard::policy::Policy);

/// The panic policy a builder collected (none without `std`).
#[cfg(all(feature = "alloc", not(feature = "std")))]
pub(crate) struct Exec;

#[cfg(feature = "alloc")]
impl Exec {
    #[cfg(feature = "std")]
    pub(crate) fn new(policy: crate::guard::policy::Policy) -> Self {
        Exec(policy)
    }

    #[cfg(not(feature = "std"))]
    pub(crate) fn new() -> Self {
        Exec
    }

    pub(crate) fn wrap<X>(self, inner: X) -> Guarded<X> {
        #[cfg(feature = "std")]
        return crate::guard::panic::Catching::new(inner, self.0);
        #[cfg(not(feature = "std"))]
        return inner;
    }
}

/// Worker hooks that are plain functions, around `X`: what a pool without a
/// heap can hold ([`StaticPoolWithFunc`](crate::StaticPoolWithFunc)'s
/// `on_worker_start` / `on_worker_stop`). With `std` the [`Guarded`] wrapper
/// outside catches their panics; without, a panic in one is a panic on the
/// worker's thread, as a task's is.
pub(crate) struct FnHooks<X> {
    inner: X,
    start: Option<fn()>,
    stop: Option<fn()>,
}

impl<X> FnHooks<X> {
    pub(crate) const fn new(inner: X) -> Self {
        FnHooks {
            inner,
            start: None,
            stop: None,
        }
    }

    pub(crate) const fn set_start(&mut self, hook: fn()) {
        self.start = Some(hook);
    }

    pub(crate) const fn set_stop(&mut self, hook: fn()) {
        self.stop = Some(hook);
    }
}

impl<T, X: Execute<T>> Execute<T> for FnHooks<X> {
    #[inline]
    fn execute(&self, task: T) -> Outcome {
        self.inner.execute(task)
    }

    fn worker_started(&self, index: usize) {
        if let Some(hook) = self.start {
            hook();
        }
        self.inner.worker_started(index);
    }

    fn worker_stopping(&self) {
        self.inner.worker_stopping();
        if let Some(hook) = self.stop {
            hook();
        }
    }
}

/// The function hooks inside a guarded executor.
pub(crate) const fn hooks_mut<X>(exec: &mut Guarded<FnHooks<X>>) -> &mut FnHooks<X> {
    #[cfg(feature = "std")]
    return exec.inner_mut();
    #[cfg(not(feature = "std"))]
    return exec;
}

/// `X` guarded with the default panic policy, in a `const` context.
pub(crate) const fn guard_default<X>(inner: X) -> Guarded<X> {
    #[cfg(feature = "std")]
    return crate::guard::panic::Catching::new_default(inner);
    #[cfg(not(feature = "std"))]
    return inner;
}
