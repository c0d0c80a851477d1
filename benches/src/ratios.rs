//! The ratio tables: each antpool mode against the peer doing the same job and
//! against the best peers, with the absolute numbers beside the ratios. A ratio
//! is antpool ÷ reference: below 1, antpool is ahead (all these metrics are
//! lower-is-better).
//!
//! A ratio is *paired*: the median, over the rounds, of antpool's run ÷ the
//! reference's run of the same round — which the schedule runs back to back
//! (`rounds.rs`). The ratio of the two medians would compare runs that may
//! have fallen minutes apart, in different states of a drifting machine.

use std::fmt::Write as _;

use crate::peers::Kind;
use crate::report::{Row, Stat, groups};

/// The antpool mode a row measured (an `@base` row too), if it is one.
fn mode_of(pool: &str) -> Option<Kind> {
    Kind::parse(pool.strip_suffix(" @base").unwrap_or(pool)).filter(|k| k.is_antpool())
}

/// Whether a row is a peer (not antpool, not the no-pool floor).
fn is_peer(row: &Row) -> bool {
    mode_of(&row.pool).is_none() && Kind::parse(&row.pool).is_some()
}

/// A measured row's median of `metric`.
fn median(row: &Row, metric: &str) -> Option<f64> {
    row.ok()
        .then(|| row.get(metric))
        .flatten()
        .map(|s: Stat| s.median)
}

/// The row of `group` with the lowest median `metric` among those `pick` accepts.
fn best<'a>(group: &[&'a Row], metric: &str, pick: impl Fn(&Row) -> bool) -> Option<&'a Row> {
    group
        .iter()
        .copied()
        .filter(|r| pick(r))
        .filter_map(|r| median(r, metric).map(|m| (r, m)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _)| r)
}

/// A number, or a dash.
fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("—".into(), |x| format!("{x:.digits$}"))
}

/// The paired ratio of `row` over `reference` for `metric`, in bold: the
/// median over the rounds both measured of the ratio of their runs in that
/// round (or, with no round in common, the ratio of their medians); a dash if
/// either is missing.
fn ratio(row: &Row, reference: Option<&Row>, metric: &str) -> String {
    let Some(reference) = reference.filter(|r| r.ok() && row.ok()) else {
        return "—".into();
    };
    match paired(row, reference, metric) {
        Some(x) => format!("**{x:.2}**"),
        None => match (median(row, metric), median(reference, metric)) {
            (Some(a), Some(b)) if b > 0.0 => format!("**{:.2}**", a / b),
            _ => "—".into(),
        },
    }
}

/// A run's round and its value of `metric`.
fn by_round(row: &Row, metric: &str) -> Vec<(u64, f64)> {
    row.runs
        .iter()
        .filter_map(|r| Some((r.get("round")?.as_u64()?, r.get(metric)?.as_f64()?)))
        .collect()
}

/// The median over the rounds both rows measured of `row`'s value ÷ the
/// reference's, or `None` if they share no round.
fn paired(row: &Row, reference: &Row, metric: &str) -> Option<f64> {
    let theirs = by_round(reference, metric);
    let mut ratios: Vec<f64> = by_round(row, metric)
        .into_iter()
        .filter_map(|(round, mine)| {
            let (_, t) = theirs.iter().find(|(r, _)| *r == round)?;
            (*t > 0.0).then(|| mine / t)
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    // The lower middle for an even count, as the medians of `report.rs`.
    Some(ratios[(ratios.len() - 1) / 2])
}

/// A Markdown table's header.
fn header(out: &mut String, cols: &[&str]) {
    let _ = writeln!(out, "| {} |", cols.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(cols.len()));
}

/// The context-switch metric of a set of rows: perf's when every measured row
/// has it, else getrusage's (which always exists); and how to say so.
fn ctx_metric(rows: &[&Row]) -> (&'static str, &'static str) {
    let measured = rows.iter().filter(|r| r.ok());
    match measured.clone().count() > 0 && measured.clone().all(|r| r.get("ctx_switches").is_some())
    {
        true => ("ctx_switches", "perf, whole child process"),
        false => ("ctx_rusage", "getrusage, measured phase"),
    }
}

/// tiny: ns/task and context switches of each antpool mode over its same-job
/// reference and over the fastest unbounded peer.
fn tiny(rows: &[Row], out: &mut String) {
    let all: Vec<&Row> = rows.iter().filter(|r| r.family == "tiny").collect();
    if !all.iter().any(|r| mode_of(&r.pool).is_some()) {
        return;
    }
    let (ctx, source) = ctx_metric(&all);
    let _ = writeln!(
        out,
        "\n### tiny: antpool against the same job and the fastest unbounded peer\n"
    );
    let _ = writeln!(
        out,
        "Medians of ns/task and context switches ({source}). Same job: `antpool` ↔ \
         `cb-bounded(cap)`, `antpool (queue 64)` ↔ `cb-bounded(64)`, `antpool (unbounded \
         queue)` ↔ the fastest of threadpool, rusty_pool, rayon and cb-unbounded (also the \
         last columns). × = antpool ÷ reference, paired: the median over the rounds of the \
         ratio of the two runs of one round, which ran back to back; below 1, antpool is \
         ahead.\n"
    );
    header(
        out,
        &[
            "variant",
            "antpool mode",
            "ns/task",
            "ctx sw",
            "same job",
            "its ns/task",
            "its ctx sw",
            "× ns",
            "× ctx",
            "fastest unbounded",
            "its ns/task",
            "its ctx sw",
            "× ns",
            "× ctx",
        ],
    );
    for (_, variant, group) in groups(rows).into_iter().filter(|(f, _, _)| f == "tiny") {
        let unbounded = |r: &Row| Kind::UNBOUNDED.iter().any(|k| k.name() == r.pool);
        let fastest = best(&group, "ns_per_task", unbounded);
        for row in group.iter().filter(|r| mode_of(&r.pool).is_some()) {
            let mode = mode_of(&row.pool).expect("filtered");
            let same = match mode.same_job() {
                Some(kind) => group.iter().copied().find(|r| r.pool == kind.name()),
                None => fastest,
            };
            let mut cells = vec![variant.clone(), row.pool.clone()];
            let (ns, sw) = (median(row, "ns_per_task"), median(row, ctx));
            match &row.error {
                Some(e) => cells.extend([format!("FAILED: {e}"), "—".into()]),
                None => cells.extend([num(ns, 0), num(sw, 0)]),
            }
            for reference in [same, fastest] {
                let name = reference.map_or("—".into(), |r| r.pool.clone());
                let (rns, rsw) = match reference {
                    Some(r) => (median(r, "ns_per_task"), median(r, ctx)),
                    None => (None, None),
                };
                cells.extend([
                    name,
                    num(rns, 0),
                    num(rsw, 0),
                    ratio(row, reference, "ns_per_task"),
                    ratio(row, reference, ctx),
                ]);
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
}

/// latency: p50 and p99 of each antpool row over the best peer's.
fn latency(rows: &[Row], out: &mut String) {
    for (_, variant, group) in groups(rows).into_iter().filter(|(f, _, _)| f == "latency") {
        let antpool: Vec<&&Row> = group
            .iter()
            .filter(|r| mode_of(&r.pool).is_some())
            .collect();
        if antpool.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n### latency ({variant}): antpool against the best peer\n"
        );
        header(
            out,
            &[
                "pool",
                "p50 µs",
                "best peer (p50)",
                "its p50 µs",
                "× p50",
                "p99 µs",
                "best peer (p99)",
                "its p99 µs",
                "× p99",
            ],
        );
        for row in antpool {
            let mut cells = vec![row.pool.clone()];
            for metric in ["p50_us", "p99_us"] {
                let peer = best(&group, metric, is_peer);
                let (mine, theirs) = (median(row, metric), peer.and_then(|p| median(p, metric)));
                cells.extend([
                    num(mine, 1),
                    peer.map_or("—".into(), |p| p.pool.clone()),
                    num(theirs, 1),
                    ratio(row, peer, metric),
                ]);
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
}

/// sleepy: wall time and peak RSS of each antpool row over threadpool's.
fn sleepy(rows: &[Row], out: &mut String) {
    let sleepy: Vec<_> = groups(rows)
        .into_iter()
        .filter(|(f, _, _)| f == "sleepy")
        .collect();
    if !sleepy
        .iter()
        .flat_map(|(_, _, g)| g)
        .any(|r| mode_of(&r.pool).is_some())
    {
        return;
    }
    let _ = writeln!(out, "\n### sleepy: antpool against threadpool\n");
    header(
        out,
        &[
            "variant",
            "pool",
            "wall s",
            "threadpool wall s",
            "× wall",
            "peak RSS MiB",
            "threadpool RSS MiB",
            "× RSS",
        ],
    );
    for (_, variant, group) in sleepy {
        let threadpool = group.iter().find(|r| r.pool == Kind::Threadpool.name());
        for row in group.iter().filter(|r| mode_of(&r.pool).is_some()) {
            let mib = |r: &Row| median(r, "peak_rss_kib").map(|k| k / 1024.0);
            let (wall, rss) = (median(row, "wall_s"), mib(row));
            let (twall, trss) = match threadpool {
                Some(t) => (median(t, "wall_s"), mib(t)),
                None => (None, None),
            };
            let cells = [
                variant.clone(),
                row.pool.clone(),
                num(wall, 3),
                num(twall, 3),
                ratio(row, threadpool.copied(), "wall_s"),
                num(rss, 1),
                num(trss, 1),
                ratio(row, threadpool.copied(), "peak_rss_kib"),
            ];
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
}

/// medium: every pool's ns/task and context switches, over the fastest pool
/// of the same workload (paired), and over the ideal.
fn medium(rows: &[Row], out: &mut String) {
    let medium: Vec<_> = groups(rows)
        .into_iter()
        .filter(|(f, _, _)| f == "medium")
        .collect();
    if medium.is_empty() {
        return;
    }
    let all: Vec<&Row> = medium.iter().flat_map(|(_, _, g)| g.clone()).collect();
    let (ctx, source) = ctx_metric(&all);
    let _ = writeln!(out, "\n### medium: every pool against the fastest\n");
    let _ = writeln!(
        out,
        "Medians of ns/task (wall time ÷ tasks, one submitter) and context switches \
         ({source}). × fastest = the pool ÷ the fastest pool of the workload, paired: \
         the median over the rounds of the ratio of the two runs of one round. × ideal = \
         ns/task ÷ (the calibrated cost of a task ÷ the CPUs).\n"
    );
    header(
        out,
        &[
            "variant",
            "pool",
            "ns/task",
            "× fastest",
            "× ideal",
            "ctx sw",
            "× fastest ctx sw",
        ],
    );
    for (_, variant, group) in medium {
        let fastest = best(&group, "ns_per_task", |_| true);
        for row in &group {
            let ns = median(row, "ns_per_task");
            let ideal = median(row, "ideal_ns_per_task");
            let cells = [
                variant.clone(),
                row.pool.clone(),
                num(ns, 0),
                ratio(row, fastest, "ns_per_task"),
                num(ns.zip(ideal).map(|(n, i)| n / i), 2),
                num(median(row, ctx), 0),
                ratio(row, fastest, ctx),
            ];
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
}

/// tokio: each antpool row's ns/offload, p99 latency and context switches
/// over the best of the family's peers, and the hand-off rows' also over
/// `Semaphore+spawn_blocking` (the same job: exactly cap in flight).
fn tokio(rows: &[Row], out: &mut String) {
    let tokio: Vec<_> = groups(rows)
        .into_iter()
        .filter(|(f, _, _)| f == "tokio")
        .collect();
    let all: Vec<&Row> = tokio.iter().flat_map(|(_, _, g)| g.clone()).collect();
    if !all.iter().any(|r| mode_of(&r.pool).is_some()) {
        return;
    }
    let (ctx, source) = ctx_metric(&all);
    let _ = writeln!(
        out,
        "\n### tokio: antpool against the fastest peer and against Semaphore+spawn_blocking\n"
    );
    let _ = writeln!(
        out,
        "C tokio tasks on 2 workers offload W of CPU work each and await it; capacity 4. \
         Medians of ns per offload (wall ÷ offloads), p99 of one offload's latency, and \
         context switches ({source}). Peers: rayon+oneshot, spawn_blocking, \
         Semaphore+spawn_blocking; \"fastest\" is the one with the lowest median ns/offload, \
         \"best p99\" the one with the lowest median p99. × = antpool ÷ reference, paired: \
         the median over the rounds of the ratio of the two runs of one round; below 1, \
         antpool is ahead. × sem: the hand-off rows over Semaphore+spawn_blocking, the \
         same job (exactly 4 in flight).\n"
    );
    header(
        out,
        &[
            "variant",
            "antpool row",
            "ns/offload",
            "fastest peer",
            "its ns",
            "× ns",
            "× sem ns",
            "p99 µs",
            "best p99 peer",
            "its p99 µs",
            "× p99",
            "× sem p99",
            "ctx sw",
            "× ctx",
        ],
    );
    let peer = |r: &Row| {
        crate::tokio_family::PEERS
            .iter()
            .any(|k| k.name() == r.pool)
    };
    for (_, variant, group) in tokio {
        let fastest = best(&group, "ns_per_offload", peer);
        let best_p99 = best(&group, "p99_us", peer);
        let sem = (group.iter().copied()).find(|r| r.pool == Kind::TokioSemaphore.name());
        for row in group.iter().filter(|r| mode_of(&r.pool).is_some()) {
            let hand_off = mode_of(&row.pool).is_some_and(crate::tokio_family::is_hand_off);
            let same_job = sem.filter(|_| hand_off);
            let mut cells = vec![variant.clone(), row.pool.clone()];
            for (metric, digits, reference) in
                [("ns_per_offload", 0, fastest), ("p99_us", 1, best_p99)]
            {
                cells.extend([
                    num(median(row, metric), digits),
                    reference.map_or("—".into(), |r| r.pool.clone()),
                    num(reference.and_then(|r| median(r, metric)), digits),
                    ratio(row, reference, metric),
                    ratio(row, same_job, metric),
                ]);
            }
            cells.extend([num(median(row, ctx), 0), ratio(row, fastest, ctx)]);
            if let Some(e) = &row.error {
                cells[2] = format!("FAILED: {e}");
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
    }
}

/// All ratio tables for the families present in `rows` (empty if none).
pub fn tables(rows: &[Row]) -> String {
    let mut out = String::new();
    tiny(rows, &mut out);
    latency(rows, &mut out);
    sleepy(rows, &mut out);
    medium(rows, &mut out);
    tokio(rows, &mut out);
    match out.is_empty() {
        true => out,
        false => format!("\n## Ratios\n{out}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(pool: &str, runs: &[(u64, f64)]) -> Row {
        let results = json!({ "rows": [{
            "family": "tiny", "variant": "1 submitter", "pool": pool, "note": "",
            "runs": runs.iter().map(|(round, ns)| json!({"round": round, "ns_per_task": ns}))
                .collect::<Vec<_>>(),
        }]});
        crate::report::rows_from_json(&results).remove(0)
    }

    #[test]
    fn a_ratio_pairs_the_runs_of_one_round() {
        // The machine drifts: round 2 is slow for both. Paired, antpool is
        // twice as slow in every round; the ratio of medians would say 1.
        let antpool = row("antpool", &[(1, 200.0), (2, 800.0), (3, 220.0)]);
        let peer = row(
            "cb-bounded(cap)",
            &[(1, 100.0), (2, 400.0), (3, 110.0), (4, 900.0)],
        );
        assert_eq!(paired(&antpool, &peer, "ns_per_task"), Some(2.0));
        assert_eq!(ratio(&antpool, Some(&peer), "ns_per_task"), "**2.00**");
    }

    #[test]
    fn without_a_common_round_it_falls_back_to_the_medians() {
        let antpool = row("antpool", &[(1, 300.0)]);
        let peer = row("cb-bounded(cap)", &[(2, 100.0)]);
        assert_eq!(paired(&antpool, &peer, "ns_per_task"), None);
        assert_eq!(ratio(&antpool, Some(&peer), "ns_per_task"), "**3.00**");
        assert_eq!(ratio(&antpool, None, "ns_per_task"), "—");
    }

    /// A tokio row of one run: ns per offload and p99 µs.
    fn tokio_row(variant: &str, pool: &str, ns: f64, p99: f64) -> Row {
        let results = json!({ "rows": [{
            "family": "tokio", "variant": variant, "pool": pool, "note": "",
            "runs": [{"round": 1, "ns_per_offload": ns, "p99_us": p99, "ctx_rusage": 10}],
        }]});
        crate::report::rows_from_json(&results).remove(0)
    }

    /// Each antpool row is divided by the fastest peer (by ns) and the peer
    /// with the best p99, which may differ; only the hand-off rows by
    /// Semaphore+spawn_blocking too.
    #[test]
    fn the_fastest_peer_the_best_p99_and_the_same_job() {
        let v = "tiny, C=16";
        let rows = [
            tokio_row(v, "antpool hand-off spawn_async", 400.0, 40.0),
            tokio_row(v, "antpool queue-64 spawn_async", 100.0, 10.0),
            tokio_row(v, "rayon+oneshot", 100.0, 20.0),
            tokio_row(v, "spawn_blocking", 300.0, 5.0),
            tokio_row(v, "Semaphore+spawn_blocking", 200.0, 80.0),
        ];
        let mut out = String::new();
        tokio(&rows, &mut out);
        let line = |pool: &str| -> Vec<String> {
            let line = (out.lines()).find(|l| l.starts_with("| tiny") && l.contains(pool));
            let line = line.expect("a row");
            line.split(" | ").map(String::from).collect()
        };
        let hand_off = line("hand-off");
        assert_eq!(
            hand_off[3..7],
            ["rayon+oneshot", "100", "**4.00**", "**2.00**"]
        );
        assert_eq!(
            hand_off[8..12],
            ["spawn_blocking", "5.0", "**8.00**", "**0.50**"]
        );
        let queue = line("queue-64");
        assert_eq!(queue[5..7], ["**1.00**", "—"]);
        assert_eq!(queue[10..12], ["**2.00**", "—"]);
    }
}
