//! Running one case in a child process: the `measure` command line, under perf
//! when it works here, with the hog alongside for the busy cases, and a timeout.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cases::{Case, measure_args};
use crate::hog::Hog;
use crate::perf;

/// Asks the kernel to kill this process when its parent ends, so that a child
/// (or the hog) does not outlive a parent that was interrupted or gave up on it:
/// when the parent is perf, killing perf ends the child too.
pub fn die_with_parent() {
    // SAFETY: PR_SET_PDEATHSIG takes a signal number and no pointers.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
}

/// How children are run.
pub struct Runner {
    /// This executable (it measures the current antpool).
    pub exe: PathBuf,
    /// The baseline executable, for the `@base` cases.
    pub base_exe: Option<PathBuf>,
    /// Whether to wrap children in `perf stat`.
    pub perf: bool,
    /// A child still running after this long is killed; the case fails.
    pub timeout: Duration,
}

impl Runner {
    /// Measures `case` once in a fresh process; its metrics (with perf's
    /// `ctx_switches` and `cpu_ms`, and the hog's `hog_cpu_ms` where they
    /// apply), or why it failed.
    pub fn run(&self, case: &Case) -> Result<Value, String> {
        let exe = match case.base {
            true => self.base_exe.as_ref().ok_or("no --baseline-exe")?,
            false => &self.exe,
        };
        let args = measure_args(case);
        // Before the child starts, after it ends: the hog spins through all of it.
        let hog = match case.busy {
            true => Some(Hog::start(self.timeout + Duration::from_secs(30))?),
            false => None,
        };
        let csv = self.perf.then(perf::csv_path);
        let mut cmd = match &csv {
            Some(csv) => perf::wrap(exe, &args, csv),
            None => {
                let mut cmd = Command::new(exe);
                cmd.args(&args);
                cmd
            }
        };
        let result = self.wait(&mut cmd);
        let hog_cpu = hog.as_ref().map(|h| (h.cpu, h.cpu_ms()));
        drop(hog);
        let counts = csv.as_deref().map(perf::take);
        let mut metrics = result?;
        let obj = metrics.as_object_mut().ok_or("output is not an object")?;
        if let Some(counts) = counts {
            obj.insert("ctx_switches".into(), json!(counts.ctx_switches));
            obj.insert("cpu_ms".into(), json!(counts.cpu_ms));
        }
        if let Some((cpu, ms)) = hog_cpu {
            obj.insert("hog_cpu".into(), json!(cpu));
            obj.insert("hog_cpu_ms".into(), json!(ms));
        }
        Ok(metrics)
    }

    /// Runs `cmd` to its end (or the timeout); the JSON of its last stdout line.
    fn wait(&self, cmd: &mut Command) -> Result<Value, String> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let start = Instant::now();
        loop {
            match child.try_wait().map_err(|e| e.to_string())? {
                Some(_) => break,
                None if start.elapsed() > self.timeout => {
                    // Under perf, the measuring process dies with perf (see
                    // `die_with_parent`).
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("timed out after {:?}", self.timeout));
                }
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let last = stderr
                .lines()
                .rfind(|l| !l.trim().is_empty() && !l.starts_with("note: "));
            return Err(format!("exit {}: {}", out.status, last.unwrap_or("")));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout.lines().last().ok_or("no output")?;
        serde_json::from_str(line).map_err(|e| format!("bad output {line:?}: {e}"))
    }
}
