//! A minimal on-target test harness: counts checks, prints each failure (and each group) over
//! semihosting, and ends with the `N passed, N failed` line.

use core::cell::Cell;
use core::fmt::Debug;

use cortex_m_semihosting::hprintln;

/// Pass/fail counters for one firmware test run.
pub struct Harness {
    passed: Cell<u32>,
    failed: Cell<u32>,
    group: Cell<&'static str>,
}

// SAFETY: the firmware is single-threaded and no interrupt handler touches a harness, so the
// `Cell`s are never accessed concurrently; this lets a harness live in a `static` that the C
// test file reaches through `extern "C"` callbacks.
unsafe impl Sync for Harness {}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    /// Empty counters.
    pub const fn new() -> Self {
        Self {
            passed: Cell::new(0),
            failed: Cell::new(0),
            group: Cell::new(""),
        }
    }

    /// Starts a named group of checks (printed, and prefixed to failures).
    pub fn group(&self, name: &'static str) {
        self.group.set(name);
        hprintln!("test {} ...", name);
    }

    /// Records one check; prints it if it failed.
    #[track_caller]
    pub fn check(&self, ok: bool, what: &str) {
        if ok {
            self.passed.set(self.passed.get() + 1);
        } else {
            self.failed.set(self.failed.get() + 1);
            let loc = core::panic::Location::caller();
            hprintln!(
                "FAILED {}: {} ({}:{})",
                self.group.get(),
                what,
                loc.file(),
                loc.line()
            );
        }
    }

    /// Records `left == right`; prints both values if they differ.
    #[track_caller]
    pub fn eq<T: PartialEq + Debug>(&self, left: T, right: T, what: &str) {
        if left == right {
            self.passed.set(self.passed.get() + 1);
        } else {
            self.failed.set(self.failed.get() + 1);
            let loc = core::panic::Location::caller();
            hprintln!(
                "FAILED {}: {}: {:?} != {:?} ({}:{})",
                self.group.get(),
                what,
                left,
                right,
                loc.file(),
                loc.line()
            );
        }
    }

    /// Adds counts from elsewhere (e.g. the C test file).
    pub fn add(&self, passed: u32, failed: u32) {
        self.passed.set(self.passed.get() + passed);
        self.failed.set(self.failed.get() + failed);
    }

    /// Checks passed so far.
    pub fn passed(&self) -> u32 {
        self.passed.get()
    }

    /// Checks failed so far.
    pub fn failed(&self) -> u32 {
        self.failed.get()
    }

    /// Prints `N passed, N failed` and exits QEMU: status 0 only if nothing failed and
    /// something passed.
    pub fn finish(&self) -> ! {
        hprintln!("{} passed, {} failed", self.passed(), self.failed());
        crate::exit(self.failed() == 0 && self.passed() > 0)
    }
}
