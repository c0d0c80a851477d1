//! Where a value that only some pools have lives: [`Boxed`], made by
//! [`boxed`]. With a heap (feature `alloc`) a `Box`; without one an
//! uninhabited stand-in, so an `Option` of one is always `None` and the code
//! that asks folds away. The engine keeps its lanes and histograms per level
//! in one, and so do the timings (`timings/`).

#[cfg(feature = "alloc")]
mod heap {
    use alloc::boxed::Box;

    /// A box.
    pub(crate) type Boxed<T> = Box<T>;

    /// `value`, boxed.
    pub(crate) fn boxed<T>(value: T) -> Option<Boxed<T>> {
        Some(Box::new(value))
    }
}

#[cfg(not(feature = "alloc"))]
mod heap {
    use core::convert::Infallible;
    use core::marker::PhantomData;
    use core::ops::Deref;

    /// A value only a pool with a heap has: none here (uninhabited).
    pub(crate) struct Boxed<T>(Infallible, PhantomData<T>);

    impl<T> Deref for Boxed<T> {
        type Target = T;

        fn deref(&self) -> &T {
            match self.0 {}
        }
    }

    impl<T> Clone for Boxed<T> {
        fn clone(&self) -> Self {
            match self.0 {}
        }
    }

    impl<T> PartialEq for Boxed<T> {
        fn eq(&self, _: &Self) -> bool {
            match self.0 {}
        }
    }

    impl<T> Eq for Boxed<T> {}

    impl<T> core::fmt::Debug for Boxed<T> {
        fn fmt(&self, _: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            match self.0 {}
        }
    }

    /// Nothing can be boxed: `None`. (For the timings' levels.)
    #[cfg_attr(not(feature = "timings"), allow(dead_code))]
    pub(crate) fn boxed<T>(_value: T) -> Option<Boxed<T>> {
        None
    }
}

// (`boxed` is unused without a heap and the timings: nothing is boxed then.)
#[allow(unused_imports)]
pub(crate) use heap::{Boxed, boxed};
