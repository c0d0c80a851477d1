//! `perf stat` around a measuring child: context switches and CPU time of that
//! process alone (perf follows its threads, and only its own children; the hog of
//! the busy cases is a separate process, started by the parent, and not counted).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Whether `perf stat -e context-switches true` works here (checked once, at
/// start: perf may be missing, or not allowed by `perf_event_paranoid`).
pub fn available() -> bool {
    Command::new("perf")
        .args(["stat", "-e", "context-switches", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A fresh path for one run's CSV, in the temporary folder.
pub fn csv_path() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("antpool-bench-perf-{}-{n}.csv", std::process::id()))
}

/// `exe args…` run under `perf stat`, which writes its counts to `csv` (and
/// passes the child's stdout, stderr and exit status through).
pub fn wrap(exe: &Path, args: &[String], csv: &Path) -> Command {
    let mut cmd = Command::new("perf");
    cmd.args(["stat", "-e", "context-switches,cpu-clock", "-x,", "-o"])
        .arg(csv)
        .arg("--")
        .arg(exe)
        .args(args);
    cmd
}

/// What one perf run counted: context switches and CPU milliseconds, each
/// missing when perf did not count it (`<not counted>`, `<not supported>`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    /// `context-switches`.
    pub ctx_switches: Option<f64>,
    /// `cpu-clock`, in ms.
    pub cpu_ms: Option<f64>,
}

/// Parses `perf stat -x,` output: `value,unit,event,run time,share,…` lines
/// after `#` comments.
pub fn parse(csv: &str) -> Counts {
    let mut counts = Counts::default();
    for line in csv.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split(',').collect();
        let (Some(value), Some(unit), Some(event)) = (fields.first(), fields.get(1), fields.get(2))
        else {
            continue;
        };
        let value: Option<f64> = value.trim().parse().ok();
        // The event may carry a modifier, e.g. `context-switches:u`.
        let event = event.split(':').next().unwrap_or_default();
        match event {
            "context-switches" => counts.ctx_switches = value,
            "cpu-clock" => {
                // perf gives cpu-clock in msec; convert anything else it may use.
                let scale = match *unit {
                    "ns" | "nsec" => 1e-6,
                    "us" | "usec" => 1e-3,
                    "s" | "sec" => 1e3,
                    _ => 1.0,
                };
                counts.cpu_ms = value.map(|v| v * scale);
            }
            _ => {}
        }
    }
    counts
}

/// Reads and removes `csv`; the counts in it (none if perf wrote nothing).
pub fn take(csv: &Path) -> Counts {
    let text = std::fs::read_to_string(csv).unwrap_or_default();
    let _ = std::fs::remove_file(csv);
    parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_perf_csv() {
        let csv = "# started on Mon Nov 23 14:32:28 2026\n\n\
                   1234,,context-switches,968189,100.00,1.038,K/sec\n\
                   0.96,msec,cpu-clock,968189,100.00,0.009,CPUs utilized\n";
        let c = parse(csv);
        assert_eq!(c.ctx_switches, Some(1234.0));
        assert_eq!(c.cpu_ms, Some(0.96));
        let c = parse("<not supported>,,context-switches:u,0,100.00,,\n");
        assert_eq!(c.ctx_switches, None);
        assert_eq!(parse(""), Counts::default());
    }
}
