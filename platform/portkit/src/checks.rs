//! [`Checks`]: the tally of named checks, printed as they happen.

use core::fmt::{self, Arguments};

/// A tally of named checks: each prints one line (`ok` or `FAIL`, what was
/// checked and what was seen) through the port's printer, and the run ends
/// with `N passed, N failed`. A port's own checks use the same tally, so its
/// program prints one summary.
///
/// ```
/// use antpool_portkit::Checks;
///
/// fn print(line: core::fmt::Arguments<'_>) { println!("{line}") }
///
/// let mut checks = Checks::new(print);
/// checks.check("two and two", 2 + 2 == 4, format_args!("{}", 2 + 2));
/// checks.check("one is even", 1 % 2 == 0, format_args!("1 % 2 = 1"));
/// assert_eq!((checks.passed(), checks.failed()), (1, 1));
/// assert!(!checks.all_passed());
/// ```
pub struct Checks {
    print: fn(Arguments<'_>),
    passed: usize,
    failed: usize,
}

impl Checks {
    /// An empty tally that prints through `print` (the port's console).
    ///
    /// ```
    /// let checks = antpool_portkit::Checks::new(|line| println!("{line}"));
    /// assert_eq!(checks.passed() + checks.failed(), 0);
    /// ```
    #[must_use]
    pub const fn new(print: fn(Arguments<'_>)) -> Self {
        Checks {
            print,
            passed: 0,
            failed: 0,
        }
    }

    /// Records whether `what` held, and prints it with `detail`.
    ///
    /// ```
    /// let mut checks = antpool_portkit::Checks::new(|line| println!("{line}"));
    /// checks.check("one is odd", 1 % 2 == 1, format_args!("1 % 2 = {}", 1 % 2));
    /// assert_eq!(checks.passed(), 1);
    /// ```
    pub fn check(&mut self, what: &str, ok: bool, detail: Arguments<'_>) {
        let mark = if ok { "ok  " } else { "FAIL" };
        (self.print)(format_args!("  {mark} {what} ({detail})"));
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
    }

    /// Prints a line that is not a check (a heading, a measurement).
    ///
    /// ```
    /// let checks = antpool_portkit::Checks::new(|line| println!("{line}"));
    /// checks.say(format_args!("2000 jobs in {} ticks", 34));
    /// ```
    pub fn say(&self, line: Arguments<'_>) {
        (self.print)(line);
    }

    /// How many checks held.
    ///
    /// ```
    /// let checks = antpool_portkit::Checks::new(|line| println!("{line}"));
    /// assert_eq!(checks.passed(), 0);
    /// ```
    #[must_use]
    pub const fn passed(&self) -> usize {
        self.passed
    }

    /// How many checks did not.
    ///
    /// ```
    /// let checks = antpool_portkit::Checks::new(|line| println!("{line}"));
    /// assert_eq!(checks.failed(), 0);
    /// ```
    #[must_use]
    pub const fn failed(&self) -> usize {
        self.failed
    }

    /// Whether no check failed (and at least one ran).
    ///
    /// ```
    /// let mut checks = antpool_portkit::Checks::new(|line| println!("{line}"));
    /// assert!(!checks.all_passed()); // nothing ran
    /// checks.check("true", true, format_args!(""));
    /// assert!(checks.all_passed());
    /// ```
    #[must_use]
    pub const fn all_passed(&self) -> bool {
        self.failed == 0 && self.passed > 0
    }
}

impl fmt::Debug for Checks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checks")
            .field("passed", &self.passed)
            .field("failed", &self.failed)
            .finish()
    }
}
