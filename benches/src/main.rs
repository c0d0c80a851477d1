//! antpool against the pools a Rust user would otherwise pick.
//!
//! ```text
//! cargo run --release -p antpool-bench -- all      # everything: tables, JSON, CSV, SVG charts
//! cargo run --release -p antpool-bench -- smoke    # tiny sizes, one round (CI)
//! cargo run --release -p antpool-bench -- all --runs 5 --only tiny,latency --out DIR
//! cargo run --release -p antpool-bench -- all --only medium --medium-us 10,1000
//! cargo run --release -p antpool-bench -- all --only tokio   # offloading from tokio tasks
//! cargo run --release -p antpool-bench -- all --only tokio-wait --runs 30   # where its p99 waits
//! cargo run --release -p antpool-bench -- all --baseline-exe /tmp/antpool-base/target/release/antpool-bench
//! cargo run --release -p antpool-bench --features timings-every -- all --only tiny --baseline-exe …
//! ```
//!
//! The features `timings-one-in-16` and `timings-every` build antpool with its
//! `timings` and make the antpool rows' pools time their tasks (`sampling.rs`):
//! against a `--baseline-exe` built without, that measures what timing costs.
//!
//! Every (workload, pool, run) is measured in a fresh process (this binary, run
//! as `antpool-bench measure …`), so peak memory and thread counts belong to that
//! pool alone and no pool inherits another's warm threads. The runs are
//! interleaved: `--runs N` rounds, each running every case once in an order
//! shuffled per round (`--seed S`). Each child runs under `perf stat` when perf
//! works here (context switches, CPU time); the busy cases run with a hog process
//! spinning on the last CPU. Progress goes to stderr: a line per run, and a bar
//! over all the runs on a terminal (`progress.rs`). The parent prints the ratio
//! tables and a table of medians (min–max) per workload, and writes
//! `results.json`, `results.csv` (every run's numbers, `csv.rs`), `tables.md`
//! and one SVG chart per workload (plotters, `charts.rs`) to the output folder
//! (default `benches/results`); `report [DIR]` redraws all but `results.json`
//! from a `results.json`.

mod cases;
mod charts;
mod child;
mod csv;
mod drain;
mod hog;
mod measure;
mod medium;
mod peers;
mod perf;
mod progress;
mod ratios;
mod report;
mod rounds;
mod sampling;
mod tokio_antpool;
mod tokio_family;
mod tokio_wait;
mod workloads;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use cases::Sizes;
use child::Runner;

/// The command line, for errors.
const USAGE: &str = "usage: antpool-bench all [--runs N] [--only a,b] [--pools p,q] [--out DIR] \
                     [--seed S] [--baseline-exe PATH] [--no-perf] [--medium-us 1,10,100] \
                     | smoke [same options] | report [DIR]";

/// Options of `all` and `smoke`.
struct Opts {
    /// Rounds.
    runs: usize,
    /// Families to run (all when empty).
    only: Vec<String>,
    /// Pools to run, by name (`floor` for the no-pool floor; all when empty).
    pools: Vec<String>,
    /// Output folder.
    out: PathBuf,
    /// Smoke sizes, and any failure fails.
    smoke: bool,
    /// Seed of the shuffled order (default: the clock).
    seed: Option<u64>,
    /// The other build of this harness that measures the `@base` rows.
    baseline_exe: Option<PathBuf>,
    /// Do not use perf even if it works.
    no_perf: bool,
    /// The medium family's task sizes, µs (its default when `None`).
    medium_us: Option<Vec<u64>>,
}

/// The options after `all` or `smoke`.
fn parse_opts(args: &[String], smoke: bool) -> Opts {
    let mut opts = Opts {
        runs: if smoke { 1 } else { 3 },
        only: Vec::new(),
        pools: Vec::new(),
        out: PathBuf::from(if smoke {
            "target/antpool-bench-smoke"
        } else {
            "benches/results"
        }),
        smoke,
        seed: None,
        baseline_exe: None,
        no_perf: false,
        medium_us: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--no-perf" => opts.no_perf = true,
            flag @ ("--runs" | "--only" | "--pools" | "--out" | "--seed" | "--baseline-exe"
            | "--medium-us") => {
                let v = it
                    .next()
                    .unwrap_or_else(|| panic!("{flag} needs a value; {USAGE}"));
                match flag {
                    "--runs" => opts.runs = v.parse().expect("--runs N"),
                    "--only" => opts.only = v.split(',').map(String::from).collect(),
                    "--pools" => opts.pools = v.split(',').map(String::from).collect(),
                    "--out" => opts.out = PathBuf::from(v),
                    "--seed" => opts.seed = Some(v.parse().expect("--seed S (a number)")),
                    "--medium-us" => {
                        let us = v
                            .split(',')
                            .map(|u| u.parse().expect("--medium-us 1,10,100"));
                        opts.medium_us = Some(us.collect());
                    }
                    _ => opts.baseline_exe = Some(PathBuf::from(v)),
                }
            }
            other => panic!("unknown option {other}; {USAGE}"),
        }
    }
    opts
}

/// `all` and `smoke`: every case, in interleaved rounds; tables, JSON and charts.
fn run_all(opts: Opts) {
    let mut sizes = if opts.smoke {
        Sizes::smoke()
    } else {
        Sizes::full()
    };
    if let Some(us) = &opts.medium_us {
        sizes.medium_task_us = us.clone();
    }
    let wanted = |family: &str| opts.only.is_empty() || opts.only.iter().any(|o| o == family);
    let sizes = match wanted("medium") || wanted("async") || wanted("tokio") {
        true => sizes.calibrated(),
        false => sizes,
    };
    if let Some(base) = &opts.baseline_exe
        && !base.is_file()
    {
        eprintln!("--baseline-exe {}: no such file", base.display());
        std::process::exit(2);
    }
    let mut cases = cases::cases(&sizes, &opts.only, opts.baseline_exe.is_some());
    if !opts.pools.is_empty() {
        // By the pool's name, its `@base` twin included.
        cases.retain(|c| {
            let name = c.kind.map_or("floor", |k| k.name());
            opts.pools.iter().any(|p| p == name)
        });
    }
    let perf = !opts.no_perf && perf::available();
    match (perf, opts.no_perf) {
        (true, _) => eprintln!("perf: yes (perf stat -e context-switches,cpu-clock per child)"),
        (false, true) => eprintln!("perf: no (--no-perf); context switches from getrusage"),
        // Smoke mode skips perf silently (CI machines may not have it).
        (false, false) if !opts.smoke => eprintln!(
            "perf: no (`perf stat -e context-switches true` failed); context switches from getrusage"
        ),
        _ => {}
    }
    let seed = opts.seed.unwrap_or_else(rounds::clock_seed);
    eprintln!(
        "seed {seed} (--seed {seed} repeats this order); {} cases × {} round(s)",
        cases.len(),
        opts.runs
    );
    if let Some(base) = &opts.baseline_exe {
        eprintln!("baseline: {} (the \"@base\" rows)", base.display());
    }
    let runner = Runner {
        exe: std::env::current_exe().expect("this executable"),
        base_exe: opts.baseline_exe.clone(),
        perf,
        timeout: Duration::from_secs(if opts.smoke { 60 } else { 120 }),
    };
    let started = Instant::now();
    let outcomes = rounds::run(&cases, opts.runs, seed, &runner);
    let elapsed = started.elapsed();
    let rows: Vec<report::Row> = cases
        .iter()
        .zip(outcomes)
        .map(|(case, o)| report::Row::new(case, o.runs, o.error))
        .collect();
    let run = json!({
        "rounds": opts.runs,
        "runs_per_case": opts.runs,
        "interleaved": true,
        "seed": seed,
        "perf": perf,
        "baseline_exe": opts.baseline_exe.as_ref().map(|p| p.display().to_string()),
        "smoke": opts.smoke,
        "elapsed_s": elapsed.as_secs_f64(),
    });
    let results = report::results_json(&rows, run);
    std::fs::create_dir_all(&opts.out).expect("create the output folder");
    let json_path = opts.out.join("results.json");
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&results).expect("json"),
    )
    .expect("write results.json");
    let table = write_outputs(&rows, &opts.out);
    println!("{table}");
    println!(
        "{} cases × {} round(s) in {:.0} s (seed {seed}, perf {}); wrote {}, results.csv, tables.md and the charts in {}",
        rows.len(),
        opts.runs,
        elapsed.as_secs_f64(),
        if perf { "yes" } else { "no" },
        json_path.display(),
        opts.out.display()
    );
    // A peer that times out is a result (it goes in the table); antpool failing
    // (not the baseline build), or anything failing in smoke mode, is an error.
    let failed = |r: &report::Row| {
        r.error.is_some()
            && (opts.smoke || (r.pool.starts_with("antpool") && !r.pool.ends_with(" @base")))
    };
    if rows.iter().any(failed) {
        eprintln!("some cases failed (see the table)");
        std::process::exit(1);
    }
}

/// Writes what is drawn from the rows into `dir`: the charts, `results.csv`
/// and `tables.md`. Returns the tables.
fn write_outputs(rows: &[report::Row], dir: &Path) -> String {
    charts::write_charts(rows, dir);
    std::fs::write(dir.join("results.csv"), csv::results_csv(rows)).expect("write results.csv");
    let table = report::table(rows);
    std::fs::write(dir.join("tables.md"), &table).expect("write tables.md");
    table
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("measure") => {
            child::die_with_parent();
            let (kind, workload) = cases::parse_measure(&args[1..]);
            let metrics = workloads::run(kind, workload);
            println!("{}", json!(metrics));
            // Some peers keep threads or runtimes; end the process now.
            std::process::exit(0);
        }
        Some("hog") => hog::run(args.get(1).and_then(|s| s.parse().ok()).unwrap_or(600)),
        Some("all") => run_all(parse_opts(&args[1..], false)),
        Some("smoke") => run_all(parse_opts(&args[1..], true)),
        Some("report") => {
            let dir = PathBuf::from(args.get(1).map_or("benches/results", String::as_str));
            let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
            let results: Value = serde_json::from_str(&text).expect("valid json");
            let rows = report::rows_from_json(&results);
            println!("{}", write_outputs(&rows, &dir));
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}
