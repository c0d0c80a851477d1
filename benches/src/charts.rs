//! The SVG charts, drawn with plotters: one horizontal bar chart per workload
//! (a family and variant: "tiny, 4 submitters"). A row per pool; in it a bar per
//! metric at its median over the rounds, a whisker from the smallest run to the
//! largest, and the median written beside them. antpool's rows (its `@base` rows
//! too) are shaded. The value axis has ticks and the unit; it is logarithmic when
//! the values span more than 30×. A legend under the axis names the metrics.

use std::error::Error;
use std::ops::Range;
use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{
    AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged, ValueFormatter,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::{Row, groups};

/// What one family's chart shows.
struct Spec {
    /// The metrics drawn (one bar each per pool) and their legend labels.
    series: &'static [(&'static str, &'static str)],
    /// What is measured, for the title.
    what: &'static str,
    /// The value axis: quantity, unit, and which way is better.
    axis: &'static str,
    /// The unit written after each median.
    unit: &'static str,
}

/// The chart of `family`.
fn spec(family: &str) -> Spec {
    match family {
        "sleepy" => Spec {
            series: &[("wall_s", "wall time")],
            what: "wall time",
            axis: "wall time, s (lower is better)",
            unit: "s",
        },
        "tiny" => Spec {
            series: &[("ns_per_task", "time per task")],
            what: "time per task",
            axis: "ns per task (lower is better)",
            unit: "ns",
        },
        "tokio" => Spec {
            series: &[("ns_per_offload", "time per offload")],
            what: "offload from C tokio tasks, 2 workers, capacity 4",
            axis: "ns per offload, wall time ÷ offloads (lower is better)",
            unit: "ns",
        },
        "tokio-wait" => Spec {
            series: &[
                ("slowest_pool_us", "in the pool"),
                ("slowest_after_wake_us", "after the wake"),
            ],
            what: "where the slowest 1 % of offloads waited",
            axis: "µs, median of the slowest percent (lower is better)",
            unit: "µs",
        },
        "medium" => Spec {
            series: &[("ns_per_task", "time per task")],
            what: "time per task, 1 submitter",
            axis: "ns per task, wall time ÷ tasks (lower is better)",
            unit: "ns",
        },
        "latency" => Spec {
            series: &[("p50_us", "p50"), ("p99_us", "p99")],
            what: "submit → task start",
            axis: "µs from submit to task start (lower is better)",
            unit: "µs",
        },
        "idle" => Spec {
            series: &[("rss_per_idle_worker_kib", "RSS per idle worker")],
            what: "memory per idle worker",
            axis: "KiB of RSS per idle worker (lower is better)",
            unit: "KiB",
        },
        _ => Spec {
            series: &[("tasks_per_s", "throughput")],
            what: "throughput",
            axis: "tasks per second (higher is better)",
            unit: "tasks/s",
        },
    }
}

/// The series' colours, in order.
const COLORS: [RGBColor; 2] = [RGBColor(0x2f, 0x6f, 0xb0), RGBColor(0xe0, 0x8a, 0x1e)];
/// The background of antpool's rows, see-through so the grid shows.
fn shade() -> ShapeStyle {
    RGBColor(0xf2, 0xc9, 0x4c).mix(0.3).filled()
}
/// The text of a missing value.
const MISSING: RGBColor = RGBColor(0x80, 0x80, 0x80);
/// Failed rows' text.
const FAILED: RGBColor = RGBColor(0xb0, 0x00, 0x00);
/// The font of every label.
const FONT: &str = "sans-serif";
/// Width of a chart, pixels.
const WIDTH: u32 = 900;
/// Font size of the labels as plotters takes it (its SVG says 1/1.24 of
/// that: 12 px).
const LABEL_PX: u32 = 15;
/// Height of the legend strip under the chart, pixels.
const LEGEND_H: u32 = 34;

/// The width of `text` at plotters' font size `size` (the SVG's is
/// `size / 1.24`): a generous guess (0.6 em a character), since an SVG does not
/// say which font the viewer uses, and plotters' own guess without a font
/// library is narrower than common fonts.
fn text_width(text: &str, size: u32) -> i32 {
    (text.chars().count() as f64 * f64::from(size) / 1.24 * 0.6).ceil() as i32
}

/// `v` with `sig` significant digits (k and M above 10 000), trailing zeros
/// after the point dropped if `trim`.
fn fmt_num(v: f64, sig: i32, trim: bool) -> String {
    let (v, suffix) = match v.abs() {
        a if a >= 1e7 => (v / 1e6, "M"),
        a if a >= 1e4 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let digits = if v == 0.0 {
        0
    } else {
        (sig - 1 - v.abs().log10().floor() as i32).max(0) as usize
    };
    let mut s = format!("{v:.digits$}");
    if trim && s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    s + suffix
}

/// The value axis: where it starts and ends, and whether it is logarithmic.
struct Axis {
    /// The bars' base (0, or a power of ten on a log axis).
    lo: f64,
    /// The end, with room for the values written beside the whiskers.
    hi: f64,
    /// Logarithmic.
    log: bool,
}

/// The axis for `group`'s values of `spec`, `plot_w` pixels wide, the
/// largest whisker ending `room` pixels before the axis does.
fn axis(group: &[&Row], spec: &Spec, plot_w: f64, room: f64) -> Axis {
    let ends: Vec<f64> = group
        .iter()
        .flat_map(|r| spec.series.iter().filter_map(|(m, _)| r.get(m)))
        .map(|s| s.max.max(s.median))
        .filter(|v| *v > 0.0)
        .collect();
    let max = ends.iter().copied().fold(0.0_f64, f64::max);
    if max <= 0.0 {
        return Axis {
            lo: 0.0,
            hi: 1.0,
            log: false,
        };
    }
    let min = group
        .iter()
        .flat_map(|r| spec.series.iter().filter_map(|(m, _)| r.get(m)))
        .map(|s| s.min)
        .filter(|v| *v > 0.0)
        .fold(max, f64::min);
    let stretch = plot_w / (plot_w - room).max(plot_w / 2.0);
    if max / min > 30.0 {
        let lo = 10f64.powf((min * 0.8).log10().floor());
        let hi = 10f64.powf(lo.log10() + (max.log10() - lo.log10()) * stretch);
        Axis { lo, hi, log: true }
    } else {
        Axis {
            lo: 0.0,
            hi: max * stretch,
            log: false,
        }
    }
}

/// The pools' axis for `.0` rows: row `i` (counted from the bottom) spans
/// `i..i + 1`, with a tick (and the pool's name) at its centre.
struct RowAxis(usize);

impl Ranged for RowAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = value / self.0.max(1) as f64;
        limit.0 + (f64::from(limit.1 - limit.0) * share).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        (0..self.0).map(|i| i as f64 + 0.5).collect()
    }

    fn range(&self) -> Range<f64> {
        0.0..self.0 as f64
    }
}

/// What a legend entry shows before its label.
enum Key {
    /// A bar of series `.0`'s colour.
    Bar(usize),
    /// A min–max whisker.
    Whisker,
    /// antpool's shading.
    Shade,
    /// Nothing: the label alone.
    Nothing,
}

/// The title, the plotting area's rows and the value axis of one chart.
struct Chart<'a> {
    /// The title.
    title: String,
    /// One row per pool, top to bottom.
    rows: &'a [&'a Row],
    /// Each row's name on the chart (its pool's, or more).
    labels: Vec<String>,
    /// What is drawn.
    spec: Spec,
    /// Runs per pool (the most any row has), for the legend.
    rounds: usize,
}

impl Chart<'_> {
    /// Where row `i`'s band starts on the y axis (rows are 1 apart, the first
    /// at the top).
    fn row_base(&self, i: usize) -> f64 {
        (self.rows.len() - 1 - i) as f64
    }

    /// The bottom and top of series `j`'s bar in row `i`.
    fn bar_span(&self, i: usize, j: usize) -> (f64, f64) {
        let inner = 0.7 / self.spec.series.len() as f64;
        let bottom = self.row_base(i) + 0.15 + inner * (self.spec.series.len() - 1 - j) as f64;
        (bottom, bottom + inner * 0.9)
    }

    /// The text written beside a bar: its median and unit.
    fn value_label(&self, median: f64) -> String {
        format!("{} {}", fmt_num(median, 3, false), self.spec.unit)
    }

    /// The name of the row centred at `y`.
    fn label_at(&self, y: f64) -> String {
        let from_bottom = y.floor();
        let n = self.rows.len() as f64;
        if from_bottom < 0.0 || from_bottom >= n {
            return String::new();
        }
        self.labels[(n - 1.0 - from_bottom) as usize].clone()
    }

    /// Draws the chart on `area` with the value axis `x` (linear or log).
    fn draw<X>(
        &self,
        area: &DrawingArea<SVGBackend<'_>, Shift>,
        x: X,
        y_label_w: u32,
    ) -> Result<(), Box<dyn Error>>
    where
        X: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
    {
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 21).into_font().style(FontStyle::Bold))
            .margin(12)
            .margin_right(24)
            .x_label_area_size(48)
            .y_label_area_size(y_label_w)
            .build_cartesian_2d(x, RowAxis(self.rows.len()))?;
        let label_at = |y: &f64| self.label_at(*y);
        let tick = |v: &f64| fmt_num(*v, 4, true);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_labels(8)
            .x_label_formatter(&tick)
            .y_label_formatter(&label_at)
            .x_desc(self.spec.axis)
            .label_style((FONT, LABEL_PX))
            .axis_desc_style((FONT, LABEL_PX + 1))
            .x_max_light_lines(1)
            .light_line_style(BLACK.mix(0.05))
            .bold_line_style(BLACK.mix(0.12))
            .draw()?;
        let (x_lo, x_hi) = {
            let r = chart.x_range();
            (r.start, r.end)
        };
        // antpool's rows, shaded, under everything else.
        chart.draw_series(self.rows.iter().enumerate().filter_map(|(i, r)| {
            let base = self.row_base(i);
            r.pool
                .starts_with("antpool")
                .then(|| Rectangle::new([(x_lo, base + 0.03), (x_hi, base + 0.97)], shade()))
        }))?;
        let label =
            TextStyle::from((FONT, LABEL_PX).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        for (i, r) in self.rows.iter().enumerate() {
            let mid = self.row_base(i) + 0.5;
            if let Some(error) = &r.error {
                let text = format!("did not finish: {error}");
                let style = label.color(&FAILED);
                chart.draw_series([
                    EmptyElement::at((x_lo, mid)) + Text::new(text, (6, 0), style)
                ])?;
                continue;
            }
            for (j, (metric, _)) in self.spec.series.iter().enumerate() {
                let (bottom, top) = self.bar_span(i, j);
                let y = (bottom + top) / 2.0;
                let Some(s) = r.get(metric) else {
                    let style = label.color(&MISSING);
                    chart.draw_series([
                        EmptyElement::at((x_lo, y)) + Text::new("n/a", (6, 0), style)
                    ])?;
                    continue;
                };
                let color = COLORS[j % COLORS.len()];
                let end = s.median.max(x_lo);
                chart
                    .draw_series([Rectangle::new([(x_lo, bottom), (end, top)], color.filled())])?;
                let cap = (top - bottom) * 0.35;
                let whisker = BLACK.stroke_width(1);
                chart.draw_series([
                    PathElement::new(vec![(s.min, y), (s.max, y)], whisker),
                    PathElement::new(vec![(s.min, y - cap), (s.min, y + cap)], whisker),
                    PathElement::new(vec![(s.max, y - cap), (s.max, y + cap)], whisker),
                ])?;
                let text = self.value_label(s.median);
                chart.draw_series([EmptyElement::at((s.max.max(s.median), y))
                    + Text::new(text, (6, 0), label.clone())])?;
            }
        }
        Ok(())
    }

    /// The legend under the chart, centred: the series, the whisker, the
    /// shading, and whether the axis is logarithmic.
    fn legend(
        &self,
        area: &DrawingArea<SVGBackend<'_>, Shift>,
        log: bool,
    ) -> Result<(), Box<dyn Error>> {
        let runs = match self.rounds {
            1 => "1 run".to_string(),
            n => format!("{n} rounds"),
        };
        let mut items: Vec<(Key, String)> = (self.spec.series.iter().enumerate())
            .map(|(j, (_, name))| (Key::Bar(j), format!("{name}: median of {runs}")))
            .collect();
        items.push((Key::Whisker, "min–max".into()));
        items.push((Key::Shade, "antpool".into()));
        if log {
            items.push((Key::Nothing, "log scale".into()));
        }
        let (key_w, key_gap, gap) = (20, 6, 28);
        let key_room = |key: &Key| match key {
            Key::Nothing => 0,
            _ => key_w + key_gap,
        };
        let widths: Vec<i32> = (items.iter())
            .map(|(key, label)| key_room(key) + text_width(label, LABEL_PX))
            .collect();
        let total = widths.iter().sum::<i32>() + gap * (widths.len() as i32 - 1);
        let mut x = ((WIDTH as i32 - total) / 2).max(8);
        let y = (LEGEND_H / 2) as i32;
        let style =
            TextStyle::from((FONT, LABEL_PX).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        let whisker = BLACK.stroke_width(1);
        for ((key, label), width) in items.iter().zip(widths) {
            match key {
                Key::Bar(j) => {
                    let color = COLORS[j % COLORS.len()].filled();
                    area.draw(&Rectangle::new([(x, y - 6), (x + key_w, y + 6)], color))?;
                }
                Key::Whisker => {
                    area.draw(&PathElement::new(vec![(x, y), (x + key_w, y)], whisker))?;
                    for end in [x, x + key_w] {
                        area.draw(&PathElement::new(vec![(end, y - 4), (end, y + 4)], whisker))?;
                    }
                }
                Key::Shade => {
                    area.draw(&Rectangle::new([(x, y - 9), (x + key_w, y + 9)], shade()))?;
                }
                Key::Nothing => {}
            }
            let color = if matches!(key, Key::Nothing) {
                MISSING
            } else {
                BLACK
            };
            let text = Text::new(label.as_str(), (x + key_room(key), y), style.color(&color));
            area.draw(&text)?;
            x += width + gap;
        }
        Ok(())
    }

    /// The chart as an SVG document.
    fn svg(&self) -> Result<String, Box<dyn Error>> {
        let series = self.spec.series.len() as u32;
        let row_px = 14 + 16 * series;
        let height = 56 + 48 + row_px * self.rows.len() as u32 + LEGEND_H;
        let longest = self
            .labels
            .iter()
            .map(|label| text_width(label, LABEL_PX))
            .max()
            .unwrap_or(0);
        let y_label_w = longest as u32 + 16;
        let plot_w = f64::from(WIDTH - y_label_w - 12 - 24);
        let values = (self.rows.iter())
            .flat_map(|r| self.spec.series.iter().filter_map(|(m, _)| r.get(m)))
            .map(|s| text_width(&self.value_label(s.median), LABEL_PX));
        let room = f64::from(values.max().unwrap_or(0) + 12);
        let axis = axis(self.rows, &self.spec, plot_w, room);
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE)?;
            let (plot, legend) = root.split_vertically(height - LEGEND_H);
            if axis.log {
                self.draw(&plot, (axis.lo..axis.hi).log_scale(), y_label_w)?;
            } else {
                self.draw(&plot, axis.lo..axis.hi, y_label_w)?;
            }
            self.legend(&legend, axis.log)?;
            root.present()?;
        }
        Ok(out)
    }
}

/// One chart to draw: its family, the variant that names it, and its rows,
/// each with its name on the chart.
struct Drawn<'a> {
    /// The family.
    family: String,
    /// The variant ("4 submitters"; "10 µs" for the tokio family).
    variant: String,
    /// The rows, top to bottom, and their names.
    rows: Vec<&'a Row>,
    /// Each row's name.
    labels: Vec<String>,
}

/// The charts to draw: one per workload, except for the tokio family: one
/// per task size ("10 µs"), its rows those of every C, named "C=16: pool".
fn charts(rows: &[Row]) -> Vec<Drawn<'_>> {
    let mut out: Vec<Drawn<'_>> = Vec::new();
    for (family, variant, group) in groups(rows) {
        if family != "tokio" {
            let labels = group.iter().map(|r| r.pool.clone()).collect();
            out.push(Drawn {
                family,
                variant,
                rows: group,
                labels,
            });
            continue;
        }
        let (work, tasks) = crate::tokio_family::split_variant(&variant);
        let labels = group.iter().map(|r| format!("{tasks}: {}", r.pool));
        match out
            .iter_mut()
            .find(|d| d.family == family && d.variant == work)
        {
            Some(drawn) => {
                drawn.labels.extend(labels);
                drawn.rows.extend(group);
            }
            None => out.push(Drawn {
                variant: work.to_string(),
                family,
                labels: labels.collect(),
                rows: group,
            }),
        }
    }
    out
}

/// Writes one SVG per workload into `dir`, named after it
/// (`tiny-busy-4-submitters.svg`; `tokio-10-us.svg` for the tokio family's
/// task sizes).
pub fn write_charts(rows: &[Row], dir: &Path) {
    for Drawn {
        family,
        variant,
        rows,
        labels,
    } in charts(rows)
    {
        let spec = spec(&family);
        let chart = Chart {
            title: format!("{family}, {variant}: {}", spec.what),
            rounds: rows.iter().map(|r| r.runs.len()).max().unwrap_or(0),
            rows: &rows,
            labels,
            spec,
        };
        let file = format!(
            "{family}-{}.svg",
            variant
                .replace([' ', ','], "-")
                .replace("--", "-")
                .replace('µ', "u")
                .to_lowercase()
        );
        let svg = chart
            .svg()
            .unwrap_or_else(|e| panic!("drawing {file}: {e}"));
        std::fs::write(dir.join(&file), svg).unwrap_or_else(|e| panic!("writing {file}: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(fmt_num(269.4, 3, false), "269");
        assert_eq!(fmt_num(10.99, 3, false), "11.0");
        assert_eq!(fmt_num(0.665, 3, false), "0.665");
        assert_eq!(fmt_num(80_150.0, 3, false), "80.2k");
        assert_eq!(fmt_num(12_500_000.0, 3, false), "12.5M");
        assert_eq!(fmt_num(50.0, 4, true), "50");
        assert_eq!(fmt_num(0.5, 4, true), "0.5");
        assert_eq!(fmt_num(0.0, 4, true), "0");
        assert_eq!(fmt_num(20_000.0, 4, true), "20k");
    }

    /// The tokio family draws a chart per task size, its rows those of every
    /// C; the other families one per workload.
    #[test]
    fn a_tokio_chart_per_task_size() {
        let rows = |family: &str, variants: &[&str]| {
            let rows: Vec<_> = (variants.iter())
                .flat_map(|v| ["rayon+oneshot", "spawn_blocking"].map(|p| (v, p)))
                .map(|(v, p)| serde_json::json!({"family": family, "variant": v, "pool": p}))
                .collect();
            crate::report::rows_from_json(&serde_json::json!({ "rows": rows }))
        };
        let mut all = rows("tokio", &["tiny, C=1", "tiny, C=16", "1 ms, C=1"]);
        all.extend(rows("tiny", &["1 submitter", "4 submitters"]));
        let drawn = charts(&all);
        let names: Vec<_> = (drawn.iter()).map(|d| (&*d.family, &*d.variant)).collect();
        assert_eq!(
            names,
            [
                ("tokio", "tiny"),
                ("tokio", "1 ms"),
                ("tiny", "1 submitter"),
                ("tiny", "4 submitters")
            ]
        );
        assert_eq!(
            drawn[0].labels,
            [
                "C=1: rayon+oneshot",
                "C=1: spawn_blocking",
                "C=16: rayon+oneshot",
                "C=16: spawn_blocking"
            ]
        );
        assert_eq!(drawn[0].rows.len(), 4);
        assert_eq!(drawn[3].labels, ["rayon+oneshot", "spawn_blocking"]);
    }
}
