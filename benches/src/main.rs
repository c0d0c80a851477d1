//! antpool against the pools a Rust user would otherwise pick.
//!
//! ```text
//! cargo run --release -p antpool-bench -- all      # everything: table, JSON, SVG charts
//! cargo run --release -p antpool-bench -- smoke    # tiny sizes, one run each (CI)
//! cargo run --release -p antpool-bench -- all --runs 5 --only tiny,latency --out DIR
//! ```
//!
//! Every (workload, pool, run) is measured in a fresh process (this binary, run
//! as `antpool-bench measure …`), so peak memory and thread counts belong to that
//! pool alone and no pool inherits another's warm threads. The parent prints a
//! table of medians (min–max), and writes `results.json`, `tables.md` and one SVG
//! chart per workload to the output folder (default `benches/results`);
//! `report [DIR]` redraws the tables and charts from a `results.json`.

mod measure;
mod peers;
mod report;
mod workloads;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use peers::Kind;
use workloads::Workload;

/// One measured configuration: a workload's variant and the peers it runs on.
#[derive(Clone, Debug)]
pub struct Case {
    /// Workload family: sleepy, tiny, latency, idle, backpressure.
    pub family: &'static str,
    /// The variant's label, e.g. "cap 10000".
    pub variant: String,
    /// What is measured.
    pub workload: Workload,
    /// The pool, or `None` for the no-pool floor.
    pub kind: Option<Kind>,
    /// A note on sizes for this row (a share of the tasks, say).
    pub note: String,
}

/// Sizes of the full and the smoke run.
struct Sizes {
    sleepy_tasks: usize,
    sleepy_ms: u64,
    sleepy_caps: Vec<usize>,
    tiny_tasks: usize,
    latency_n: usize,
    idle_workers: usize,
    idle_ms: u64,
    backpressure_tasks: usize,
}

impl Sizes {
    fn full() -> Self {
        Sizes {
            sleepy_tasks: 100_000,
            sleepy_ms: 10,
            sleepy_caps: vec![10_000, 1_000],
            tiny_tasks: 1_000_000,
            latency_n: 20_000,
            idle_workers: 1_000,
            // Ends before the 1 s expiry of the pools that have one, so it
            // measures idling, not threads exiting.
            idle_ms: 800,
            backpressure_tasks: 40_000,
        }
    }

    fn smoke() -> Self {
        Sizes {
            sleepy_tasks: 2_000,
            sleepy_ms: 1,
            sleepy_caps: vec![100],
            tiny_tasks: 20_000,
            latency_n: 300,
            idle_workers: 50,
            idle_ms: 100,
            backpressure_tasks: 2_000,
        }
    }
}

/// Thread-per-task peers run this share of the tiny workload (a million threads
/// would take minutes); the table says so.
const TINY_THREAD_SHARE: usize = 50;

fn cases(sizes: &Sizes, only: &[String]) -> Vec<Case> {
    let wanted = |family: &str| only.is_empty() || only.iter().any(|o| o == family);
    let mut cases = Vec::new();
    if wanted("sleepy") {
        for &cap in &sizes.sleepy_caps {
            let variant = format!("cap {cap}");
            let (tasks, sleep_ms) = (sizes.sleepy_tasks, sizes.sleepy_ms);
            for kind in Kind::ALL {
                if matches!(kind, Kind::BlockingThreadpool | Kind::AntpoolQueue) {
                    continue; // bounded queues are for the tiny and backpressure workloads
                }
                cases.push(Case {
                    family: "sleepy",
                    variant: variant.clone(),
                    workload: Workload::Sleepy {
                        cap,
                        tasks,
                        sleep_ms,
                    },
                    kind: Some(kind),
                    note: String::new(),
                });
            }
            cases.push(Case {
                family: "sleepy",
                variant,
                workload: Workload::SleepyFloor {
                    cap,
                    tasks,
                    sleep_ms,
                },
                kind: None,
                note: format!("{cap} threads, no pool"),
            });
        }
    }
    if wanted("tiny") {
        for submitters in [1, 4] {
            for kind in Kind::ALL {
                if kind == Kind::BlockingThreadpool {
                    continue;
                }
                let (tasks, note) = match kind.is_thread_per_task() {
                    true => (
                        sizes.tiny_tasks / TINY_THREAD_SHARE,
                        format!("1/{TINY_THREAD_SHARE} of the tasks"),
                    ),
                    false => (sizes.tiny_tasks, String::new()),
                };
                cases.push(Case {
                    family: "tiny",
                    variant: format!(
                        "{submitters} submitter{}",
                        if submitters > 1 { "s" } else { "" }
                    ),
                    workload: Workload::Tiny {
                        cap: 4,
                        tasks,
                        submitters,
                    },
                    kind: Some(kind),
                    note,
                });
            }
        }
    }
    if wanted("latency") {
        for kind in Kind::ALL {
            if matches!(kind, Kind::BlockingThreadpool | Kind::AntpoolQueue) {
                continue;
            }
            cases.push(Case {
                family: "latency",
                variant: "cap 4".into(),
                workload: Workload::Latency {
                    cap: 4,
                    n: sizes.latency_n,
                    gap_us: 50,
                },
                kind: Some(kind),
                note: String::new(),
            });
        }
    }
    if wanted("idle") {
        for kind in Kind::ALL {
            if kind.is_thread_per_task()
                || matches!(kind, Kind::BlockingThreadpool | Kind::AntpoolQueue)
            {
                continue;
            }
            cases.push(Case {
                family: "idle",
                variant: format!("{} workers", sizes.idle_workers),
                workload: Workload::Idle {
                    workers: sizes.idle_workers,
                    idle_ms: sizes.idle_ms,
                },
                kind: Some(kind),
                note: String::new(),
            });
        }
    }
    if wanted("backpressure") {
        for kind in [
            Kind::Antpool,
            Kind::BlockingThreadpool,
            Kind::Threadpool,
            Kind::Rayon,
        ] {
            cases.push(Case {
                family: "backpressure",
                variant: "cap 8, 4 submitters".into(),
                workload: Workload::Backpressure {
                    cap: 8,
                    tasks: sizes.backpressure_tasks,
                    submitters: 4,
                    task_us: 20,
                },
                kind: Some(kind),
                note: match kind {
                    Kind::Antpool | Kind::AntpoolQueue | Kind::BlockingThreadpool => {
                        "bounded".into()
                    }
                    _ => "unbounded queue (no backpressure)".into(),
                },
            });
        }
    }
    cases
}

/// The arguments of `measure` that rebuild `case` in a child process.
fn measure_args(case: &Case) -> Vec<String> {
    let pool = case.kind.map_or("floor", Kind::name).to_string();
    let w = match case.workload {
        Workload::Sleepy {
            cap,
            tasks,
            sleep_ms,
        } => format!("sleepy {cap} {tasks} {sleep_ms}"),
        Workload::SleepyFloor {
            cap,
            tasks,
            sleep_ms,
        } => {
            format!("sleepy-floor {cap} {tasks} {sleep_ms}")
        }
        Workload::Tiny {
            cap,
            tasks,
            submitters,
        } => format!("tiny {cap} {tasks} {submitters}"),
        Workload::Latency { cap, n, gap_us } => format!("latency {cap} {n} {gap_us}"),
        Workload::Idle { workers, idle_ms } => format!("idle {workers} {idle_ms}"),
        Workload::Backpressure {
            cap,
            tasks,
            submitters,
            task_us,
        } => {
            format!("backpressure {cap} {tasks} {submitters} {task_us}")
        }
    };
    let mut args = vec!["measure".to_string(), pool];
    args.extend(w.split(' ').map(String::from));
    args
}

fn parse_measure(args: &[String]) -> (Option<Kind>, Workload) {
    let num = |i: usize| -> u64 {
        args.get(i)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("measure: argument {i} must be a number: {args:?}"))
    };
    let kind = match args[0].as_str() {
        "floor" => None,
        name => Some(Kind::parse(name).unwrap_or_else(|| panic!("unknown pool {name}"))),
    };
    let n = |i| num(i) as usize;
    let workload = match args[1].as_str() {
        "sleepy" => Workload::Sleepy {
            cap: n(2),
            tasks: n(3),
            sleep_ms: num(4),
        },
        "sleepy-floor" => Workload::SleepyFloor {
            cap: n(2),
            tasks: n(3),
            sleep_ms: num(4),
        },
        "tiny" => Workload::Tiny {
            cap: n(2),
            tasks: n(3),
            submitters: n(4),
        },
        "latency" => Workload::Latency {
            cap: n(2),
            n: n(3),
            gap_us: num(4),
        },
        "idle" => Workload::Idle {
            workers: n(2),
            idle_ms: num(3),
        },
        "backpressure" => Workload::Backpressure {
            cap: n(2),
            tasks: n(3),
            submitters: n(4),
            task_us: num(5),
        },
        other => panic!("unknown workload {other}"),
    };
    (kind, workload)
}

/// Runs one case in a child process; its metrics, or an error.
fn measure_in_child(case: &Case, timeout: Duration) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .args(measure_args(case))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(_) => break,
            None if start.elapsed() > timeout => {
                let _ = child.kill();
                return Err(format!("timed out after {timeout:?}"));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "exit {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().ok_or("no output")?;
    serde_json::from_str(line).map_err(|e| format!("bad output {line:?}: {e}"))
}

struct Opts {
    runs: usize,
    only: Vec<String>,
    out: PathBuf,
    smoke: bool,
}

fn parse_opts(args: &[String], smoke: bool) -> Opts {
    let mut opts = Opts {
        runs: if smoke { 1 } else { 3 },
        only: Vec::new(),
        out: PathBuf::from(if smoke {
            "target/antpool-bench-smoke"
        } else {
            "benches/results"
        }),
        smoke,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--runs" => opts.runs = it.next().and_then(|v| v.parse().ok()).expect("--runs N"),
            "--only" => {
                opts.only = it
                    .next()
                    .expect("--only a,b")
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--out" => opts.out = PathBuf::from(it.next().expect("--out DIR")),
            other => panic!("unknown option {other} (try --runs N --only tiny,latency --out DIR)"),
        }
    }
    opts
}

fn run_all(opts: Opts) {
    let sizes = if opts.smoke {
        Sizes::smoke()
    } else {
        Sizes::full()
    };
    let cases = cases(&sizes, &opts.only);
    let timeout = Duration::from_secs(if opts.smoke { 60 } else { 120 });
    let mut rows = Vec::new();
    let started = Instant::now();
    for (i, case) in cases.iter().enumerate() {
        let name = case.kind.map_or("floor (no pool)", Kind::name);
        eprint!(
            "[{:>3}/{}] {:<12} {:<20} {:<24} ",
            i + 1,
            cases.len(),
            case.family,
            case.variant,
            name
        );
        let mut runs = Vec::new();
        let mut error = None;
        for _ in 0..opts.runs {
            match measure_in_child(case, timeout) {
                Ok(metrics) => runs.push(metrics),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        eprintln!("{}", error.as_deref().unwrap_or("ok"));
        rows.push(report::Row::new(case, name, runs, error));
    }
    let elapsed = started.elapsed();
    let results = report::results_json(&rows, opts.runs, opts.smoke, elapsed);
    std::fs::create_dir_all(&opts.out).expect("create the output folder");
    let json_path = opts.out.join("results.json");
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&results).expect("json"),
    )
    .expect("write results.json");
    report::write_charts(&rows, &opts.out);
    let table = report::table(&rows);
    std::fs::write(opts.out.join("tables.md"), &table).expect("write tables.md");
    println!("{table}");
    println!(
        "{} cases × {} run(s) in {:.0} s; wrote {} and the charts in {}",
        rows.len(),
        opts.runs,
        elapsed.as_secs_f64(),
        json_path.display(),
        opts.out.display()
    );
    // A peer that times out is a result (it goes in the table); antpool failing,
    // or anything failing in smoke mode, is an error.
    let failed =
        |r: &report::Row| r.error.is_some() && (opts.smoke || r.pool.starts_with("antpool"));
    if rows.iter().any(failed) {
        eprintln!("some cases failed (see the table)");
        std::process::exit(1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("measure") => {
            let (kind, workload) = parse_measure(&args[1..]);
            let metrics = workloads::run(kind, workload);
            println!("{}", json!(metrics));
            // Some peers keep threads or runtimes; end the process now.
            std::process::exit(0);
        }
        Some("all") => run_all(parse_opts(&args[1..], false)),
        Some("smoke") => run_all(parse_opts(&args[1..], true)),
        Some("report") => {
            let dir = PathBuf::from(args.get(1).map_or("benches/results", String::as_str));
            let text = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
            let results: Value = serde_json::from_str(&text).expect("valid json");
            let rows = report::rows_from_json(&results);
            report::write_charts(&rows, &dir);
            let table = report::table(&rows);
            std::fs::write(dir.join("tables.md"), &table).expect("write tables.md");
            println!("{table}");
        }
        _ => {
            eprintln!(
                "usage: antpool-bench all [--runs N] [--only a,b] [--out DIR] | smoke | report [DIR]"
            );
            std::process::exit(2);
        }
    }
}
