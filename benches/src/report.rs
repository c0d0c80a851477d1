//! Summaries, the table, `results.json`, and the SVG charts (hand-written SVG, so
//! the benchmark crate needs no plotting library to regenerate them).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::Case;

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

fn summarize(runs: &[Value]) -> BTreeMap<String, Stat> {
    let mut by_metric: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for run in runs {
        if let Some(obj) = run.as_object() {
            for (k, v) in obj {
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
    pub fn new(case: &Case, pool: &str, runs: Vec<Value>, error: Option<String>) -> Row {
        Row {
            family: case.family.to_string(),
            variant: case.variant.clone(),
            pool: pool.to_string(),
            note: case.note.clone(),
            summary: summarize(&runs),
            runs,
            error,
        }
    }

    fn get(&self, metric: &str) -> Option<Stat> {
        self.summary.get(metric).copied()
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
            ];
            if wanted.contains(&name.as_str()) {
                out.insert(name.clone(), json!(v.trim_matches('"')));
            }
        }
    }
    Value::Object(out)
}

/// Everything measured, as written to `results.json`.
pub fn results_json(rows: &[Row], runs: usize, smoke: bool, elapsed: Duration) -> Value {
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
    json!({
        "machine": machine(),
        "versions": versions(),
        "runs_per_case": runs,
        "smoke": smoke,
        "elapsed_s": elapsed.as_secs_f64(),
        "command": "cargo run --release -p antpool-bench -- all",
        "rows": rows,
    })
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

fn fmt_stat(s: Option<Stat>, digits: usize) -> String {
    match s {
        None => "—".into(),
        Some(s) => format!("{:.d$} ({:.d$}–{:.d$})", s.median, s.min, s.max, d = digits),
    }
}

fn fmt_med(s: Option<Stat>, digits: usize) -> String {
    s.map_or("—".into(), |s| format!("{:.d$}", s.median, d = digits))
}

/// Columns of each family: header and how to render a row.
type Column = (&'static str, fn(&Row, &[&Row]) -> String);

fn columns(family: &str) -> Vec<Column> {
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
fn groups(rows: &[Row]) -> Vec<(String, String, Vec<&Row>)> {
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

/// The results as Markdown tables, one per workload variant.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::new();
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

/// The metrics each chart shows (series), its title and unit.
fn chart_spec(
    family: &str,
) -> (
    Vec<(&'static str, &'static str)>,
    &'static str,
    &'static str,
) {
    match family {
        "sleepy" => (vec![("wall_s", "wall time")], "s, lower is better", "s"),
        "tiny" => (
            vec![("ns_per_task", "ns per task")],
            "ns per task, lower is better",
            "ns",
        ),
        "latency" => (
            vec![("p50_us", "p50"), ("p99_us", "p99")],
            "submit → task start, µs, lower is better",
            "µs",
        ),
        "idle" => (
            vec![("rss_per_idle_worker_kib", "RSS per idle worker")],
            "KiB per idle worker, lower is better",
            "KiB",
        ),
        _ => (
            vec![("tasks_per_s", "throughput")],
            "tasks per second, higher is better",
            "/s",
        ),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One horizontal bar chart (median bars, min–max whiskers), log-scaled when the
/// values span more than 30×.
fn svg_chart(title: &str, rows: &[&Row], series: &[(&str, &str)], unit: &str) -> String {
    let colors = ["#2f6fb0", "#e08a1e"];
    let label_w = 230.0;
    let plot_w = 520.0;
    let bar_h = 14.0;
    let row_h = bar_h * series.len() as f64 + 10.0;
    let top = 46.0;
    let height = top + row_h * rows.len() as f64 + 40.0;
    let values: Vec<f64> = rows
        .iter()
        .flat_map(|r| series.iter().filter_map(|(m, _)| r.get(m).map(|s| s.max)))
        .filter(|v| *v > 0.0)
        .collect();
    let max = values.iter().copied().fold(0.0_f64, f64::max).max(1e-9);
    let min = values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .min(max);
    let log = max / min > 30.0;
    let lo = if log { (min / 2.0).log10() } else { 0.0 };
    let x = |v: f64| -> f64 {
        if log {
            ((v.max(min / 2.0)).log10() - lo) / (max.log10() - lo) * plot_w
        } else {
            v / max * plot_w
        }
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" font-family="sans-serif" font-size="12">"#,
        w = label_w + plot_w + 110.0
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="10" y="20" font-size="15" font-weight="bold">{}</text>"#,
        escape(title)
    );
    let scale = if log { " (log scale)" } else { "" };
    let mut lx = 10.0;
    for (j, (_, label)) in series.iter().enumerate() {
        let _ = writeln!(
            svg,
            r#"<rect x="{lx}" y="28" width="10" height="10" fill="{}"/>"#,
            colors[j % colors.len()]
        );
        let _ = writeln!(
            svg,
            r##"<text x="{tx}" y="37" fill="#333">{}</text>"##,
            escape(label),
            tx = lx + 14.0
        );
        lx += 24.0 + 7.0 * label.chars().count() as f64;
    }
    let _ = writeln!(
        svg,
        r##"<text x="{lx}" y="37" fill="#555">{scale} — bars: median, lines: min–max</text>"##
    );
    for (i, r) in rows.iter().enumerate() {
        let y0 = top + row_h * i as f64;
        let weight = if r.pool == "antpool" {
            "bold"
        } else {
            "normal"
        };
        let _ = writeln!(
            svg,
            r#"<text x="{lx}" y="{ty}" text-anchor="end" font-weight="{weight}">{}</text>"#,
            escape(&r.pool),
            lx = label_w - 8.0,
            ty = y0 + row_h / 2.0
        );
        if let Some(error) = &r.error {
            let _ = writeln!(
                svg,
                r##"<text x="{lx}" y="{ty}" fill="#b00">did not finish: {}</text>"##,
                escape(error),
                lx = label_w + 4.0,
                ty = y0 + row_h / 2.0
            );
            continue;
        }
        for (j, (metric, _)) in series.iter().enumerate() {
            let y = y0 + j as f64 * bar_h;
            let Some(s) = r.get(metric) else {
                let _ = writeln!(
                    svg,
                    r##"<text x="{lx}" y="{ty}" fill="#999">n/a</text>"##,
                    lx = label_w + 4.0,
                    ty = y + bar_h - 3.0
                );
                continue;
            };
            let _ = writeln!(
                svg,
                r#"<rect x="{label_w}" y="{y}" width="{w:.1}" height="{h}" fill="{c}"/>"#,
                w = x(s.median).max(1.0),
                h = bar_h - 2.0,
                c = colors[j % colors.len()]
            );
            let wy = y + (bar_h - 2.0) / 2.0;
            let _ = writeln!(
                svg,
                r#"<line x1="{a:.1}" x2="{b:.1}" y1="{wy}" y2="{wy}" stroke="black" stroke-width="1"/>"#,
                a = label_w + x(s.min),
                b = label_w + x(s.max)
            );
            let digits = if s.median >= 100.0 {
                0
            } else if s.median >= 1.0 {
                2
            } else {
                3
            };
            let _ = writeln!(
                svg,
                r#"<text x="{tx:.1}" y="{ty}">{:.d$} {unit}</text>"#,
                s.median,
                tx = label_w + x(s.max).max(x(s.median)) + 6.0,
                ty = y + bar_h - 3.0,
                d = digits
            );
        }
    }
    let _ = writeln!(svg, "</svg>");
    svg
}

/// Writes one SVG per workload variant into `dir`.
pub fn write_charts(rows: &[Row], dir: &Path) {
    for (family, variant, group) in groups(rows) {
        let (series, subtitle, unit) = chart_spec(&family);
        let title = format!("{family}, {variant}: {subtitle}");
        let svg = svg_chart(&title, &group, &series, unit);
        let file = format!(
            "{family}-{}.svg",
            variant
                .replace([' ', ','], "-")
                .replace("--", "-")
                .to_lowercase()
        );
        std::fs::write(dir.join(file), svg).expect("write a chart");
    }
}
