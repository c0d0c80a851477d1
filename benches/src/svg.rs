//! The SVG charts: one horizontal bar chart per workload variant, hand-written
//! SVG so the benchmark crate needs no plotting library to regenerate them.

use std::fmt::Write as _;
use std::path::Path;

use crate::report::{Row, groups};

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

/// `s` as SVG text.
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
        let weight = if r.pool.starts_with("antpool") {
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
