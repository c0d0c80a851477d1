//! Progress of a run on stderr: a line per case (round, case, pool, how long)
//! and, on a terminal, a bar over all the runs (rounds × cases) with the time
//! spent and an estimate of the time left, and under it the case running now.
//!
//! When stderr is not a terminal (a CI log, a file) indicatif draws nothing,
//! and the lines are written as before the bar existed: the case's name when
//! it starts, its outcome on the same line when it ends, so a log shows which
//! case is running and never holds a bar's control characters.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// The bar and the line of the case running now.
pub struct Progress {
    /// The bar (hidden when stderr is not a terminal).
    bar: ProgressBar,
    /// The running case's line, written with its outcome when it ends.
    line: String,
}

impl Progress {
    /// Progress over `total` runs.
    pub fn new(total: u64) -> Progress {
        let bar = ProgressBar::new(total);
        if !bar.is_hidden() {
            let style = ProgressStyle::with_template(
                "[{elapsed_precise}] {bar:30.cyan/blue} {pos}/{len} runs, ~{eta} left\nrunning: {wide_msg}",
            )
            .expect("a valid template")
            .progress_chars("=> ");
            bar.set_style(style);
            // The elapsed time moves during a long case too.
            bar.enable_steady_tick(Duration::from_secs(1));
        }
        Progress {
            bar,
            line: String::new(),
        }
    }

    /// A case starts: `line` says which (its log line up to the outcome),
    /// `short` names it on the bar.
    pub fn start(&mut self, line: String, short: String) {
        if self.bar.is_hidden() {
            eprint!("{line} ");
        } else {
            self.bar.set_message(short);
        }
        self.line = line;
    }

    /// The running case ended with `outcome` ("ok 1.20 s (35.10 s in all)").
    pub fn finish(&mut self, outcome: &str) {
        if self.bar.is_hidden() {
            eprintln!("{outcome}");
        } else {
            self.bar.println(format!("{} {outcome}", self.line));
        }
        self.bar.inc(1);
    }

    /// All runs ended: the bar goes, the lines stay.
    pub fn done(self) {
        self.bar.finish_and_clear();
    }
}
