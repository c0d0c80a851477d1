//! Summaries, the tables and `results.json` (the charts are in `charts.rs`, the
//! ratio tables in `ratios.rs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::cases::Case;

/// Median, min and max of one metric over the runs.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    /// Median (the lower of the two middle values for an even count).
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
}

/// One measured configuration and its runs.
pub struct Row {
    /// Workload family.
    pub family: String,
    /// Variant label.
    pub variant: String,
    /// Pool name.
    pub pool: String,
    /// A note on the sizes.
    pub note: String,
    /// Each run's metrics.
    pub runs: Vec<Value>,
    /// Why the case failed, if it did.
    pub error: Option<String>,
    /// Per metric: median, min, max.
    pub summary: BTreeMap<String, Stat>,
}

/// Median, min and max of every numeric metric over the runs.
fn summarize(runs: &[Value]) -> BTreeMap<String, Stat> {
    let mut by_metric: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for run in runs {
        if let Some(obj) = run.as_object() {
            // `round` and `slot` say where the run was in the schedule.
            for (k, v) in obj
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "round" | "slot"))
            {
                if let Some(x) = v.as_f64() {
                    by_metric.entry(k.clone()).or_default().push(x);
                }
            }
        }
    }
    by_metric
        .into_iter()
        .map(|(k, mut xs)| {
            xs.sort_by(|a, b| a.total_cmp(b));
            let stat = Stat {
                median: xs[(xs.len() - 1) / 2],
                min: xs[0],
                max: xs[xs.len() - 1],
            };
            (k, stat)
        })
        .collect()
}

impl Row {
    /// A row for `case`, measured `runs` times (or failed with `error`).
    pub fn new(case: &Case, runs: Vec<Value>, error: Option<String>) -> Row {
        Row {
            family: case.family.to_string(),
            variant: case.variant.clone(),
            pool: case.pool_name(),
            note: case.note.clone(),
            summary: summarize(&runs),
            runs,
            error,
        }
    }

    /// The summary of `metric`, if measured.
    pub fn get(&self, metric: &str) -> Option<Stat> {
        self.summary.get(metric).copied()
    }

    /// Whether the row measured fine.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

/// The machine: CPU, cores, kernel, compiler.
fn machine() -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("unknown", str::trim)
        .to_string();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .unwrap_or_default()
        .trim()
        .to_string();
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    json!({ "cpu": cpu, "cores": cores, "kernel": kernel, "rustc": rustc })
}

/// Versions of the compared crates, read from `Cargo.lock`.
fn versions() -> Value {
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let mut out = serde_json::Map::new();
    let mut name = String::new();
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"').to_string();
        } else if let Some(v) = line.strip_prefix("version = ") {
            let wanted = [
                "antpool",
                "threadpool",
                "rayon",
                "tokio",
                "rusty_pool",
                "blocking",
                "blocking-threadpool",
                "crossbeam-channel",
            ];
            if wanted.contains(&name.as_str()) {
                out.insert(name.clone(), json!(v.trim_matches('"')));
            }
        }
    }
    Value::Object(out)
}

/// Everything measured, as written to `results.json`; `run` describes the run
/// (rounds, seed, perf, …) and is merged in at the top level.
pub fn results_json(rows: &[Row], run: Value) -> Value {
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let summary: serde_json::Map<String, Value> = r
                .summary
                .iter()
                .map(|(k, s)| {
                    (
                        k.clone(),
                        json!({"median": s.median, "min": s.min, "max": s.max}),
                    )
                })
                .collect();
            json!({
                "family": r.family, "variant": r.variant, "pool": r.pool, "note": r.note,
                "error": r.error, "runs": r.runs, "summary": summary,
            })
        })
        .collect();
    let mut out = json!({
        "machine": machine(),
        "versions": versions(),
        "command": "cargo run --release -p antpool-bench -- all",
    });
    if let (Some(out), Some(run)) = (out.as_object_mut(), run.as_object()) {
        out.extend(run.clone());
        out.insert("rows".into(), Value::Array(rows));
    }
    out
}

/// Rows back from a `results.json` (to redraw the charts and the table).
pub fn rows_from_json(results: &Value) -> Vec<Row> {
    let rows = results["rows"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .map(|r| {
            let runs = r["runs"].as_array().cloned().unwrap_or_default();
            Row {
                family: r["family"].as_str().unwrap_or_default().into(),
                variant: r["variant"].as_str().unwrap_or_default().into(),
                pool: r["pool"].as_str().unwrap_or_default().into(),
                note: r["note"].as_str().unwrap_or_default().into(),
                error: r["error"].as_str().map(String::from),
                summary: summarize(&runs),
                runs,
            }
        })
        .collect()
}

/// "median (min–max)", or a dash.
fn fmt_stat(s: Option<Stat>, digits: usize) -> String {
    match s {
        None => "—".into(),
        Some(s) => format!("{:.d$} ({:.d$}–{:.d$})", s.median, s.min, s.max, d = digits),
    }
}

/// The median alone, or a dash.
fn fmt_med(s: Option<Stat>, digits: usize) -> String {
    s.map_or("—".into(), |s| format!("{:.d$}", s.median, d = digits))
}

/// The context-switch column: perf's count (whole child process) / getrusage's
/// (the measured phase), medians.
const CTX_COLUMN: Column = ("ctx sw perf / rusage", |r, _| {
    format!(
        "{} / {}",
        fmt_med(r.get("ctx_switches"), 0),
        fmt_med(r.get("ctx_rusage"), 0)
    )
});

/// Columns of each family: header and how to render a row.
type Column = (&'static str, fn(&Row, &[&Row]) -> String);

/// The columns of a family's table: its own, then context switches.
fn columns(family: &str) -> Vec<Column> {
    let mut cols = family_columns(family);
    cols.push(CTX_COLUMN);
    cols
}

/// The columns particular to a family.
fn family_columns(family: &str) -> Vec<Column> {
    match family {
        "sleepy" => vec![
            ("wall s (min–max)", |r, _| fmt_stat(r.get("wall_s"), 3)),
            ("× ideal", |r, _| {
                match (r.get("wall_s"), r.get("ideal_s")) {
                    (Some(w), Some(i)) => format!("{:.1}", w.median / i.median),
                    _ => "—".into(),
                }
            }),
            ("× floor", |r, group| {
                let floor = group.iter().find(|g| g.pool.starts_with("floor"));
                match (r.get("wall_s"), floor.and_then(|f| f.get("wall_s"))) {
                    (Some(w), Some(f)) => format!("{:.2}", w.median / f.median),
                    _ => "—".into(),
                }
            }),
            ("peak threads", |r, _| fmt_med(r.get("peak_threads"), 0)),
            ("peak RSS MiB", |r, _| {
                r.get("peak_rss_kib")
                    .map_or("—".into(), |s| format!("{:.1}", s.median / 1024.0))
            }),
            ("CPU s", |r, _| fmt_med(r.get("cpu_s"), 2)),
        ],
        "tiny" => vec![
            ("ns/task (min–max)", |r, _| {
                fmt_stat(r.get("ns_per_task"), 0)
            }),
            ("peak RSS MiB", |r, _| {
                r.get("peak_rss_kib")
                    .map_or("—".into(), |s| format!("{:.1}", s.median / 1024.0))
            }),
            ("CPU s", |r, _| fmt_med(r.get("cpu_s"), 2)),
            ("peak threads", |r, _| fmt_med(r.get("peak_threads"), 0)),
        ],
        "medium" => vec![
            ("ns/task (min–max)", |r, _| {
                fmt_stat(r.get("ns_per_task"), 0)
            }),
            ("tasks/s", |r, _| fmt_med(r.get("tasks_per_s"), 0)),
            ("× ideal", |r, _| {
                match (r.get("ns_per_task"), r.get("ideal_ns_per_task")) {
                    (Some(n), Some(i)) => format!("{:.2}", n.median / i.median),
                    _ => "—".into(),
                }
            }),
            ("peak RSS MiB", |r, _| {
                r.get("peak_rss_kib")
                    .map_or("—".into(), |s| format!("{:.1}", s.median / 1024.0))
            }),
            ("CPU s", |r, _| fmt_med(r.get("cpu_s"), 2)),
            ("peak threads", |r, _| fmt_med(r.get("peak_threads"), 0)),
        ],
        "tokio" => vec![
            ("ns/offload (min–max)", |r, _| {
                fmt_stat(r.get("ns_per_offload"), 0)
            }),
            ("p50 µs", |r, _| fmt_med(r.get("p50_us"), 1)),
            ("p99 µs (min–max)", |r, _| fmt_stat(r.get("p99_us"), 1)),
            ("CPU s", |r, _| fmt_med(r.get("cpu_s"), 2)),
            ("peak threads", |r, _| fmt_med(r.get("peak_threads"), 0)),
        ],
        "tokio-wait" => vec![
            ("p50 µs", |r, _| fmt_med(r.get("p50_us"), 1)),
            ("p99 µs (min–max)", |r, _| fmt_stat(r.get("p99_us"), 1)),
            ("slowest 1 %: in the pool µs", |r, _| {
                fmt_med(r.get("slowest_pool_us"), 1)
            }),
            ("after the wake µs", |r, _| {
                fmt_med(r.get("slowest_after_wake_us"), 1)
            }),
            ("pool's share", |r, _| {
                fmt_med(r.get("slowest_pool_share"), 2)
            }),
            ("the rest: in the pool µs", |r, _| {
                fmt_med(r.get("rest_pool_us"), 1)
            }),
            ("after the wake µs", |r, _| {
                fmt_med(r.get("rest_after_wake_us"), 1)
            }),
        ],
        "latency" => vec![
            ("p50 µs (min–max)", |r, _| fmt_stat(r.get("p50_us"), 1)),
            ("p99 µs (min–max)", |r, _| fmt_stat(r.get("p99_us"), 1)),
            ("p99.9 µs", |r, _| fmt_med(r.get("p999_us"), 1)),
            ("mean µs", |r, _| fmt_med(r.get("mean_us"), 1)),
        ],
        "idle" => vec![
            ("RSS KiB / idle worker", |r, _| {
                fmt_stat(r.get("rss_per_idle_worker_kib"), 1)
            }),
            ("CPU while idle %", |r, _| {
                fmt_med(r.get("idle_cpu_percent"), 2)
            }),
            ("idle threads", |r, _| fmt_med(r.get("idle_threads"), 0)),
            ("threads after expiry", |r, _| {
                fmt_med(r.get("threads_after_expiry"), 0)
            }),
        ],
        _ => vec![
            ("tasks/s (min–max)", |r, _| {
                fmt_stat(r.get("tasks_per_s"), 0)
            }),
            ("peak RSS MiB", |r, _| {
                r.get("peak_rss_kib")
                    .map_or("—".into(), |s| format!("{:.1}", s.median / 1024.0))
            }),
            ("try_submit rejection ns", |r, _| {
                fmt_med(r.get("rejection_ns"), 0)
            }),
        ],
    }
}

/// Groups rows by (family, variant), in their order.
pub fn groups(rows: &[Row]) -> Vec<(String, String, Vec<&Row>)> {
    let mut out: Vec<(String, String, Vec<&Row>)> = Vec::new();
    for r in rows {
        match out
            .iter_mut()
            .find(|(f, v, _)| *f == r.family && *v == r.variant)
        {
            Some((_, _, g)) => g.push(r),
            None => out.push((r.family.clone(), r.variant.clone(), vec![r])),
        }
    }
    out
}

/// The results as Markdown: the ratio tables, then one table per workload
/// variant.
pub fn table(rows: &[Row]) -> String {
    let mut out = crate::ratios::tables(rows);
    if !out.is_empty() {
        let _ = writeln!(out, "\n## All results");
    }
    for (family, variant, group) in groups(rows) {
        let cols = columns(&family);
        let _ = writeln!(out, "\n### {family} — {variant}\n");
        let _ = write!(out, "| pool |");
        for (h, _) in &cols {
            let _ = write!(out, " {h} |");
        }
        let _ = writeln!(out, " note |");
        let _ = writeln!(out, "|---|{}---|", "---|".repeat(cols.len()));
        for r in &group {
            let _ = write!(out, "| {} |", r.pool);
            for (_, f) in &cols {
                let cell = match &r.error {
                    Some(_) => "—".to_string(),
                    None => f(r, &group),
                };
                let _ = write!(out, " {cell} |");
            }
            let note = match &r.error {
                Some(e) => format!("FAILED: {e}"),
                None => r.note.clone(),
            };
            let _ = writeln!(out, " {note} |");
        }
    }
    out
}
