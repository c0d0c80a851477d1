//! A scenario that changes or ends the whole process runs in a child: this
//! test binary again, running only that scenario's ignored test, with an
//! environment variable set that lets it run.

use std::process::{Command, ExitStatus};

/// Runs the ignored test `name` (its path, as `--exact` takes it) in a child
/// process with `env` set; its exit status and its output (stdout, then
/// stderr).
pub fn run_ignored(name: &str, env: &str) -> (ExitStatus, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(env, "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status, text)
}
