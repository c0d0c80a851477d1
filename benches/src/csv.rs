//! `results.csv`: every measured number, one per line, for a spreadsheet or a
//! data frame (long format: the columns stay the same whatever the metrics).
//!
//! | column | what |
//! |---|---|
//! | `family` | workload family: sleepy, tiny, latency, idle, backpressure, medium, async, tokio |
//! | `variant` | the workload within it ("busy, 4 submitters", "cap 1000") |
//! | `pool` | the pool (`antpool @base` for the baseline build's rows) |
//! | `round` | the round (1…N) the run belonged to: runs of one round are paired |
//! | `slot` | the run's place in that round's shuffled order (1…cases) |
//! | `metric` | what was measured, named as in `results.json` (`ns_per_task`, `p99_us`, `peak_rss_kib`, `ctx_switches`, …; a unit ends the name) |
//! | `value` | the number |
//! | `error` | empty, except on a case's one extra line when it failed: why (round, slot, metric and value are empty there) |
//!
//! Fields holding a comma, a quote or a line break are quoted (RFC 4180).

use std::fmt::Write as _;

use crate::report::Row;

/// The header line's columns.
const HEADER: [&str; 8] = [
    "family", "variant", "pool", "round", "slot", "metric", "value", "error",
];

/// `field` as a CSV field: quoted (quotes doubled) if it needs to be.
fn field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// One line of `fields`.
fn line(out: &mut String, fields: &[&str]) {
    let fields: Vec<String> = fields.iter().map(|f| field(f)).collect();
    let _ = writeln!(out, "{}", fields.join(","));
}

/// Every run's every numeric metric as CSV (header included), in the order of
/// `rows`, then of the runs, then of the metrics' names.
pub fn results_csv(rows: &[Row]) -> String {
    let mut out = String::new();
    line(&mut out, &HEADER);
    for r in rows {
        let case = [r.family.as_str(), r.variant.as_str(), r.pool.as_str()];
        for run in &r.runs {
            let Some(obj) = run.as_object() else {
                continue;
            };
            let place = |key: &str| obj.get(key).map(ToString::to_string).unwrap_or_default();
            let (round, slot) = (place("round"), place("slot"));
            for (metric, value) in obj {
                if matches!(metric.as_str(), "round" | "slot") || !value.is_number() {
                    continue;
                }
                let value = value.to_string();
                line(
                    &mut out,
                    &[case[0], case[1], case[2], &round, &slot, metric, &value, ""],
                );
            }
        }
        if let Some(error) = &r.error {
            line(
                &mut out,
                &[case[0], case[1], case[2], "", "", "", "", error],
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_per_number_and_one_per_failure() {
        let row = |pool: &str, runs, error: Option<&str>| Row {
            family: "tiny".into(),
            variant: "busy, 1 submitter".into(),
            pool: pool.into(),
            note: String::new(),
            runs,
            error: error.map(String::from),
            summary: Default::default(),
        };
        let rows = [
            row(
                "antpool",
                vec![json!({"round": 1, "slot": 3, "ns_per_task": 250.5, "peak_threads": 5})],
                None,
            ),
            row("rayon", vec![], Some("timed out after 120s, \"sleepy\"")),
        ];
        let csv = results_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines,
            [
                "family,variant,pool,round,slot,metric,value,error",
                "tiny,\"busy, 1 submitter\",antpool,1,3,ns_per_task,250.5,",
                "tiny,\"busy, 1 submitter\",antpool,1,3,peak_threads,5,",
                "tiny,\"busy, 1 submitter\",rayon,,,,,\"timed out after 120s, \"\"sleepy\"\"\"",
            ]
        );
    }
}
