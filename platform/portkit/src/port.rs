//! [`Port`]: what the kit needs from a port's test program — its spawner and
//! clock, and a handful of kernel services the checks cannot do without.

use core::fmt::Arguments;

use antpool::port::{Clock, Spawner};

/// A port under test: the spawner and clock the kit's pools run on, and the
/// kernel services the checks use.
///
/// Everything is an associated item, not a method: the kit's pools live in a
/// `static` ([`Pools`](crate::Pools)), and their task functions are plain
/// `fn`s, so they reach the port through its type alone.
///
/// A port implements it once in its test program (the FreeRTOS simulator
/// test, a QEMU demo, the ThreadX Linux-port test) and hands the kit a
/// `static` [`Pools`](crate::Pools) of its type:
///
/// ```
/// use antpool::port::{Job, Signal, Spawner, SpinLock};
/// use antpool_portkit::Port;
/// use core::fmt::Arguments;
/// # use antpool::port::{Clock, Instant};
/// # use core::time::Duration;
/// # pub struct MySignal;
/// # impl Signal for MySignal {
/// #     fn wait(&self) {}
/// #     fn wait_timeout(&self, _: Duration) -> bool { true }
/// #     unsafe fn notify(_: *const Self) {}
/// # }
/// # pub struct MySpawner;
/// # impl Spawner for MySpawner {
/// #     type Signal = MySignal;
/// #     type Lock = SpinLock;
/// #     fn spawn(&self, job: Job) -> Result<(), Job> { Err(job) }
/// #     fn signal(&self) -> MySignal { MySignal }
/// # }
/// # pub struct MyClock;
/// # impl Clock for MyClock { fn now(&self) -> Instant { Instant::from_ticks(0, 1_000) } }
///
/// /// The port's test program's port: an imaginary RTOS.
/// struct MyRtos;
///
/// impl Port for MyRtos {
///     type Clock = MyClock;
///     type Spawner = MySpawner;
///     type Refusing = MySpawner; // a spawner that cannot start a thread
///     const NAME: &'static str = "MyRTOS 1.0 (simulator)";
///     const CLOCK: MyClock = MyClock;
///     const SPAWNER: MySpawner = MySpawner;
///     const REFUSING: MySpawner = MySpawner;
///     fn print(line: Arguments<'_>) { /* the console */ }
///     fn sleep(ticks: u32) { /* rtos_delay(ticks) */ }
///     fn ticks() -> u64 { 0 /* the tick count, never wrapping */ }
///     fn tick_hz() -> u32 { 1_000 }
///     fn worker_threads() -> usize { 0 /* threads made for workers, still there */ }
///     fn start_interrupts(hz: u32) -> Result<(), &'static str> {
///         Err("no timer") // or: a timer whose handler calls antpool_portkit::interrupt()
///     }
///     fn stop_interrupts() {}
///     fn in_interrupt() -> bool { false }
/// }
/// # let _ = MyRtos::NAME;
/// ```
pub trait Port: Sized + Send + Sync + 'static {
    /// The clock the kit's pools run on (the kernel's tick, usually).
    type Clock: Clock;
    /// The spawner under test: the kit's pools start their workers with it,
    /// block on its signals and take its lock.
    type Spawner: Spawner;
    /// A spawner of the same port that cannot start a thread (every slot
    /// taken, a stack larger than the kernel's heap, no slots at all): the
    /// kit checks that a refused spawn hands the argument back.
    type Refusing: Spawner;

    /// The kernel and where it runs, for the output (`"FreeRTOS V11.2.0,
    /// Posix simulator"`).
    const NAME: &'static str;
    /// The clock every pool of the kit gets (a copy each).
    const CLOCK: Self::Clock;
    /// The spawner every pool of the kit gets (a copy each).
    const SPAWNER: Self::Spawner;
    /// The spawner of the kit's pool whose spawns must fail.
    const REFUSING: Self::Refusing;

    /// Prints one line (the kit adds no newline).
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// MyRtos::print(format_args!("{} workers", 4));
    /// ```
    fn print(line: Arguments<'_>);

    /// Blocks the calling thread for `ticks` ticks of the kernel's clock,
    /// letting other threads run.
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// MyRtos::sleep(1);
    /// ```
    fn sleep(ticks: u32);

    /// The kernel's tick count, as a count that never wraps (extend a
    /// 32-bit one).
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// let (a, b) = (MyRtos::ticks(), MyRtos::ticks());
    /// assert!(b >= a);
    /// ```
    fn ticks() -> u64;

    /// The ticks of [`ticks`](Self::ticks) in a second.
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// assert!(MyRtos::tick_hz() > 0);
    /// ```
    fn tick_hz() -> u32;

    /// How many threads the spawners of the kit's pools have made that still
    /// hold a pool's job: threads made for workers and not yet gone (a
    /// spawner that makes a thread per worker), or busy slots (a spawner
    /// over a fixed set of threads that park between jobs). It must reach 0
    /// once every pool has released its workers: "release leaves no thread".
    /// Call it only from a thread (the kit does).
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// assert_eq!(MyRtos::worker_threads(), 0); // no pool has started one
    /// ```
    fn worker_threads() -> usize;

    /// The smallest stack reserve, in bytes, the calling thread has had so
    /// far, if the port can tell (a kernel's stack high-water mark, or a
    /// scan of a painted stack). The kit's jobs call it, so the kit can say
    /// how much of a worker's stack they used. The default: it cannot.
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// if let Some(left) = MyRtos::stack_unused() {
    ///     println!("{left} bytes of stack never used");
    /// }
    /// ```
    #[must_use]
    fn stack_unused() -> Option<usize> {
        None
    }

    /// Starts calling [`crate::interrupt`] from an interrupt handler (a
    /// hardware timer's, or the kernel's tick, or the simulator's way of
    /// interrupting a thread), about `hz` times a second, until it returns
    /// `false` or [`stop_interrupts`](Self::stop_interrupts) is called. The
    /// rate need not be exact: the kit waits for a count, not a time.
    ///
    /// The handler must be one that may call the kernel (on Cortex-M: at or
    /// below the kernel's syscall priority), as any handler that submits to
    /// a pool must be.
    ///
    /// # Errors
    ///
    /// Why this port cannot interrupt a thread; the kit then reports its
    /// interrupt check as failed, saying why.
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// if let Err(why) = MyRtos::start_interrupts(2_000) {
    ///     println!("no interrupts: {why}");
    /// }
    /// ```
    fn start_interrupts(hz: u32) -> Result<(), &'static str>;

    /// Stops the interrupts [`start_interrupts`](Self::start_interrupts)
    /// started.
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// MyRtos::stop_interrupts();
    /// ```
    fn stop_interrupts();

    /// Whether the caller runs in an interrupt handler, as the port's lock
    /// and signal decide it (they must take their interrupt-safe path
    /// there).
    ///
    /// ```
    /// # use antpool_portkit::doc_support::NullPort as MyRtos;
    /// use antpool_portkit::Port;
    /// assert!(!MyRtos::in_interrupt()); // on a thread
    /// ```
    fn in_interrupt() -> bool;
}
