//! Process measurements: resident memory, threads, CPU time, and a sampler
//! thread that records the peaks while a phase runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use serde_json::{Value, json};

/// A field of /proc/self/status, in its unit (kB for memory).
fn status_field(name: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Resident memory now, KiB.
pub fn rss_kib() -> usize {
    status_field("VmRSS:")
}

/// Peak resident memory of this process so far, KiB.
pub fn peak_rss_kib() -> usize {
    status_field("VmHWM:")
}

/// OS threads of this process now.
pub fn threads() -> usize {
    status_field("Threads:")
}

/// This process's resource usage (all its threads, live and ended).
fn rusage() -> libc::rusage {
    // SAFETY: an all-zero `rusage` is a valid value to be overwritten.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable `rusage`; RUSAGE_SELF is a valid target.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(rc, 0, "getrusage failed");
    usage
}

/// CPU time this process has used (user + system), seconds.
pub fn cpu_seconds() -> f64 {
    let usage = rusage();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Context switches of this process so far, voluntary and not (`ru_nvcsw +
/// ru_nivcsw`, summed over all its threads by the kernel). A workload reports
/// the difference over its measured phase as `ctx_rusage`, so the number exists
/// without perf.
pub fn ctx_switches() -> u64 {
    let usage = rusage();
    (usage.ru_nvcsw + usage.ru_nivcsw) as u64
}

/// Samples the thread count every millisecond until dropped, keeping the peak
/// (not counting the sampler itself).
pub struct ThreadSampler {
    /// Set to stop the sampler.
    stop: Arc<AtomicBool>,
    /// The peak thread count seen.
    peak: Arc<AtomicUsize>,
    /// The sampler thread.
    handle: Option<thread::JoinHandle<()>>,
}

impl ThreadSampler {
    /// Starts sampling.
    pub fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let handle = thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(threads().saturating_sub(1), Ordering::Relaxed);
                thread::sleep(Duration::from_millis(1));
            }
        });
        ThreadSampler {
            stop,
            peak,
            handle: Some(handle),
        }
    }

    /// Stops sampling; the peak thread count seen, without the sampler.
    pub fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        self.peak.load(Ordering::Relaxed)
    }
}

/// A measured phase of a workload: its wall time, and over it the peak
/// thread count, CPU time and context switches, with the peak memory at its
/// end.
pub struct Phase {
    /// Samples the thread count meanwhile.
    sampler: ThreadSampler,
    /// CPU seconds at the start.
    cpu0: f64,
    /// Context switches at the start.
    ctx0: u64,
    /// When it started.
    start: Instant,
}

impl Phase {
    /// Starts the phase.
    pub fn start() -> Phase {
        Phase {
            sampler: ThreadSampler::start(),
            cpu0: cpu_seconds(),
            ctx0: ctx_switches(),
            start: Instant::now(),
        }
    }

    /// The wall time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Ends the phase: `metrics` (a JSON object) with the phase's own added:
    /// `peak_rss_kib`, `cpu_s`, `peak_threads` and `ctx_rusage`.
    pub fn finish(self, mut metrics: Value) -> Value {
        let ctx = ctx_switches() - self.ctx0;
        let cpu = cpu_seconds() - self.cpu0;
        let own = json!({
            "peak_rss_kib": peak_rss_kib(),
            "cpu_s": cpu,
            "peak_threads": self.sampler.finish(),
            "ctx_rusage": ctx,
        });
        if let (Some(metrics), Value::Object(own)) = (metrics.as_object_mut(), own) {
            metrics.extend(own);
        }
        metrics
    }
}

/// Counts finished tasks and lets the caller wait for a number of them. A task
/// pays one atomic add; the waiter polls (every 100 µs), so no peer pays for a
/// wake-up it does not need.
///
/// The count has cache lines of its own, and its `Arc`'s reference counts
/// another (`CachePadded` aligns the allocation to them): tasks clone and drop
/// the handle, and where the allocator happens to put a small allocation, next
/// to which of a pool's own, must not decide a pool's time. Unpadded, the same
/// engine's tiny-task time moved by up to 2x with allocations elsewhere in the
/// process.
#[derive(Clone, Default)]
pub struct Done(Arc<CachePadded<AtomicUsize>>);

impl Done {
    /// Marks one task finished.
    pub fn add(&self) {
        self.0.fetch_add(1, Ordering::Release);
    }

    /// Finished tasks so far.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }

    /// Blocks until `n` tasks have finished.
    pub fn wait_for(&self, n: usize) {
        while self.get() < n {
            thread::sleep(Duration::from_micros(100));
        }
    }
}
