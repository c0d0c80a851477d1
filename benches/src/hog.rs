//! The busy machine: a separate process (`antpool-bench hog`) that spins on the
//! last CPU while a child measures. The parent starts it before the child and
//! kills it after; it is not under perf and not part of the child's `getrusage`,
//! so none of its work is counted against the pool.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The highest CPU this process may run on.
fn last_allowed_cpu() -> usize {
    // SAFETY: an all-zero `cpu_set_t` is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a valid, writable `cpu_set_t` of `size` bytes; pid 0 is
    // this thread.
    let rc = unsafe { libc::sched_getaffinity(0, size, &mut set) };
    if rc != 0 {
        return std::thread::available_parallelism().map_or(0, |n| n.get() - 1);
    }
    (0..libc::CPU_SETSIZE as usize)
        .rev()
        // SAFETY: `cpu` is below CPU_SETSIZE, inside `set`.
        .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .unwrap_or(0)
}

/// Pins this thread (the hog's only one) to `cpu`.
fn pin(cpu: usize) -> std::io::Result<()> {
    // SAFETY: an all-zero `cpu_set_t` is a valid (empty) set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu` came from `last_allowed_cpu`, below CPU_SETSIZE.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a valid `cpu_set_t` of `size` bytes; pid 0 is this thread.
    match unsafe { libc::sched_setaffinity(0, size, &set) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// The hog process's body: pin to the last CPU, say `ready CPU` on stdout, then
/// spin until killed (or, should the parent forget it, for `max_s` seconds).
pub fn run(max_s: u64) -> ! {
    crate::child::die_with_parent();
    let cpu = last_allowed_cpu();
    if let Err(e) = pin(cpu) {
        eprintln!("hog: cannot pin to CPU {cpu}: {e}");
        std::process::exit(1);
    }
    println!("ready {cpu}");
    let _ = std::io::stdout().flush();
    let until = Instant::now() + Duration::from_secs(max_s);
    let mut x = 1u64;
    while Instant::now() < until {
        for _ in 0..100_000 {
            x = black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
    std::process::exit(0)
}

/// A running hog, killed when dropped.
pub struct Hog {
    /// The hog process.
    child: Child,
    /// The CPU it spins on.
    pub cpu: usize,
}

impl Hog {
    /// Starts `antpool-bench hog` (this executable) and waits until it spins.
    pub fn start(max: Duration) -> Result<Hog, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let mut child = Command::new(exe)
            .args(["hog", &max.as_secs().max(1).to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("hog: {e}"))?;
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        let _ = BufReader::new(stdout).read_line(&mut line);
        let hog = |cpu| Hog { child, cpu };
        match line.trim().strip_prefix("ready ").map(str::parse) {
            Some(Ok(cpu)) => Ok(hog(cpu)),
            _ => {
                let mut hog = hog(0);
                let _ = hog.child.kill();
                let out = hog.child.stderr.take().map(std::io::read_to_string);
                Err(format!("hog did not start: {:?}", out.and_then(Result::ok)))
            }
        }
    }

    /// CPU time the hog has used so far, ms (from /proc; `None` if unreadable).
    pub fn cpu_ms(&self) -> Option<f64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).ok()?;
        // Fields after the command name in parentheses; utime and stime are the
        // 14th and 15th of the line, in clock ticks.
        let rest = &stat[stat.rfind(')')? + 1..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks: f64 =
            fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        Some(ticks * 1e3 / if hz > 0 { hz as f64 } else { 100.0 })
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
