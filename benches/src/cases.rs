//! What is measured: the cases (workload variant × pool), their sizes, and the
//! `measure` command line that rebuilds a case in a child process.

use crate::peers::Kind;
use crate::workloads::Workload;

/// One measured configuration: a workload's variant and the peer it runs on.
#[derive(Clone, Debug)]
pub struct Case {
    /// Workload family: sleepy, tiny, latency, idle, backpressure, medium,
    /// async, tokio.
    pub family: &'static str,
    /// The variant's label, e.g. "cap 10000".
    pub variant: String,
    /// What is measured.
    pub workload: Workload,
    /// The pool, or `None` for the no-pool floor.
    pub kind: Option<Kind>,
    /// A note on sizes for this row (a share of the tasks, say).
    pub note: String,
    /// Measured on a busy machine: a hog process spins on the last CPU meanwhile.
    pub busy: bool,
    /// Measured by the baseline executable (`--baseline-exe`), not this one.
    pub base: bool,
}

impl Case {
    /// The pool's name in tables: the peer's, "floor (no pool)", and " @base"
    /// after it when the baseline executable measures it.
    pub fn pool_name(&self) -> String {
        let name = self.kind.map_or("floor (no pool)", Kind::name);
        match self.base {
            true => format!("{name} @base"),
            false => name.to_string(),
        }
    }
}

/// Sizes of the full and the smoke run.
pub struct Sizes {
    /// sleepy: tasks.
    sleepy_tasks: usize,
    /// sleepy: each task's sleep, ms.
    sleepy_ms: u64,
    /// sleepy: the capacities.
    sleepy_caps: Vec<usize>,
    /// tiny: tasks (thread-per-task peers run a share).
    tiny_tasks: usize,
    /// latency: submissions.
    latency_n: usize,
    /// idle: workers made idle.
    idle_workers: usize,
    /// idle: how long CPU is measured while idle, ms.
    idle_ms: u64,
    /// backpressure: tasks.
    backpressure_tasks: usize,
    /// medium: each variant's task, µs of CPU (as calibrated; `--medium-us`).
    pub medium_task_us: Vec<u64>,
    /// medium: the CPU work of a run, µs (tasks = this ÷ the task's µs).
    medium_work_us: u64,
    /// medium: ns a round of the checksum takes here (`medium::calibrate`;
    /// set by `calibrated`).
    medium_ns_per_round: f64,
    /// tokio: each variant's work per offload, µs (0: a tiny closure), its
    /// tokio tasks (C) and its offloads over all of them (N).
    tokio: Vec<(u64, usize, usize)>,
    /// tokio-wait: each variant's tokio tasks (C) and offloads (N), of a
    /// tiny closure each.
    tokio_wait: Vec<(usize, usize)>,
}

impl Sizes {
    /// The sizes of `all`.
    pub fn full() -> Self {
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
            medium_task_us: vec![1, 10, 100],
            // 1 s of CPU a run: 100 000 tasks of 10 µs.
            medium_work_us: 1_000_000,
            medium_ns_per_round: 1.0,
            // ~0.3-1 s a run for most pools here (2 CPUs). One task waits
            // for each offload in turn: a wake-up each way, ~10-20 µs.
            tokio: vec![
                (0, 1, 50_000),
                (0, 16, 200_000),
                (0, 256, 200_000),
                (10, 1, 20_000),
                (10, 16, 60_000),
                (10, 256, 60_000),
                (1000, 1, 600),
                (1000, 16, 1_000),
                (1000, 256, 1_000),
            ],
            // Where the tiny offloads' p99 waits, at the two Cs where
            // offloads queue (~50 ms a run).
            tokio_wait: vec![(16, 200_000), (256, 200_000)],
        }
    }

    /// The sizes of `smoke`: every case, quickly.
    pub fn smoke() -> Self {
        Sizes {
            sleepy_tasks: 2_000,
            sleepy_ms: 1,
            sleepy_caps: vec![100],
            tiny_tasks: 20_000,
            latency_n: 300,
            idle_workers: 50,
            idle_ms: 100,
            backpressure_tasks: 2_000,
            medium_task_us: vec![1, 10, 100],
            medium_work_us: 20_000,
            medium_ns_per_round: 1.0,
            tokio: [0, 10, 1000]
                .into_iter()
                .flat_map(|us| [1, 16, 256].map(|c| (us, c, if us < 1000 { 300 } else { 8 })))
                .collect(),
            tokio_wait: vec![(16, 300), (256, 300)],
        }
    }

    /// These sizes with the checksum of the medium family calibrated on this
    /// machine (see `medium::calibrate`), and said so on stderr.
    pub fn calibrated(mut self) -> Self {
        self.medium_ns_per_round = crate::medium::calibrate();
        eprintln!(
            "medium: a checksum round takes {:.3} ns here; tasks of {}",
            self.medium_ns_per_round,
            self.medium_task_us
                .iter()
                .map(|&us| format!("{us} µs = {} rounds", self.medium_rounds(us)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        self
    }

    /// The checksum's rounds for a task of `us` µs.
    fn medium_rounds(&self, us: u64) -> u64 {
        ((us as f64 * 1e3 / self.medium_ns_per_round).round() as u64).max(1)
    }

    /// The checksum's rounds for a task of `us` µs, none for 0 (a tiny task),
    /// and the ns they took when calibrated.
    fn work(&self, us: u64) -> (u64, u64) {
        let rounds = match us {
            0 => 0,
            _ => self.medium_rounds(us),
        };
        let ns = (rounds as f64 * self.medium_ns_per_round).round() as u64;
        (rounds, ns)
    }
}

/// Thread-per-task peers run this share of the tiny workload (a million threads
/// would take minutes); the table says so.
const TINY_THREAD_SHARE: usize = 50;

/// "1 submitter", "4 submitters".
fn submitters_label(n: usize) -> String {
    format!("{n} submitter{}", if n > 1 { "s" } else { "" })
}

/// Every case of the families in `only` (all when empty), in table order; with
/// `base`, each antpool case is followed by the same case for the baseline
/// executable.
pub fn cases(sizes: &Sizes, only: &[String], base: bool) -> Vec<Case> {
    let wanted = |family: &str| only.is_empty() || only.iter().any(|o| o == family);
    let mut cases = Vec::new();
    let mut push = |family: &'static str, variant: String, workload, kind, note, busy| {
        cases.push(Case {
            family,
            variant,
            workload,
            kind,
            note,
            busy,
            base: false,
        })
    };
    if wanted("sleepy") {
        for &cap in &sizes.sleepy_caps {
            let variant = format!("cap {cap}");
            let (tasks, sleep_ms) = (sizes.sleepy_tasks, sizes.sleepy_ms);
            for kind in Kind::ALL {
                // Bounded queues are for the tiny and backpressure workloads.
                use Kind::*;
                if matches!(
                    kind,
                    BlockingThreadpool | AntpoolQueue | CbBounded | CbExact | CbBounded64
                ) {
                    continue;
                }
                let workload = Workload::Sleepy {
                    cap,
                    tasks,
                    sleep_ms,
                };
                push(
                    "sleepy",
                    variant.clone(),
                    workload,
                    Some(kind),
                    String::new(),
                    false,
                );
            }
            let workload = Workload::SleepyFloor {
                cap,
                tasks,
                sleep_ms,
            };
            let note = format!("{cap} threads, no pool");
            push("sleepy", variant, workload, None, note, false);
        }
    }
    if wanted("tiny") {
        for busy in [false, true] {
            for submitters in [1, 4] {
                let variant = match busy {
                    false => submitters_label(submitters),
                    true => format!("busy, {}", submitters_label(submitters)),
                };
                for kind in Kind::ALL {
                    if kind == Kind::BlockingThreadpool {
                        continue;
                    }
                    let (tasks, mut note) = match kind.is_thread_per_task() {
                        true => (
                            sizes.tiny_tasks / TINY_THREAD_SHARE,
                            format!("1/{TINY_THREAD_SHARE} of the tasks"),
                        ),
                        false => (sizes.tiny_tasks, String::new()),
                    };
                    if busy {
                        let sep = if note.is_empty() { "" } else { "; " };
                        note = format!("{note}{sep}a hog spins on the last CPU");
                    }
                    let workload = Workload::Tiny {
                        cap: 4,
                        tasks,
                        submitters,
                    };
                    push("tiny", variant.clone(), workload, Some(kind), note, busy);
                }
            }
        }
    }
    if wanted("latency") {
        for kind in Kind::ALL {
            use Kind::*;
            if matches!(kind, BlockingThreadpool | AntpoolQueue | CbBounded64) {
                continue; // an idle pool never fills a queue: the same as their siblings
            }
            let workload = Workload::Latency {
                cap: 4,
                n: sizes.latency_n,
                gap_us: 50,
            };
            push(
                "latency",
                "cap 4".into(),
                workload,
                Some(kind),
                String::new(),
                false,
            );
        }
    }
    if wanted("idle") {
        for kind in Kind::ALL {
            use Kind::*;
            // Queue modes are left out: every idle task waits for all the others
            // to start, which needs `workers` threads at once, not a queue.
            let queue = matches!(
                kind,
                BlockingThreadpool
                    | AntpoolQueue
                    | AntpoolUnbounded
                    | CbBounded
                    | CbExact
                    | CbBounded64
            );
            if kind.is_thread_per_task() || queue {
                continue;
            }
            let workload = Workload::Idle {
                workers: sizes.idle_workers,
                idle_ms: sizes.idle_ms,
            };
            let variant = format!("{} workers", sizes.idle_workers);
            push("idle", variant, workload, Some(kind), String::new(), false);
        }
    }
    if wanted("backpressure") {
        use Kind::*;
        for kind in [
            Antpool,
            AntpoolQueue,
            CbBounded,
            CbExact,
            CbBounded64,
            BlockingThreadpool,
            Threadpool,
            Rayon,
        ] {
            let workload = Workload::Backpressure {
                cap: 8,
                tasks: sizes.backpressure_tasks,
                submitters: 4,
                task_us: 20,
            };
            let note = match kind {
                Threadpool | Rayon => "unbounded queue (no backpressure)",
                _ => "bounded",
            };
            let variant = "cap 8, 4 submitters".to_string();
            push(
                "backpressure",
                variant,
                workload,
                Some(kind),
                note.into(),
                false,
            );
        }
    }
    if wanted("medium") {
        let cap = std::thread::available_parallelism().map_or(1, |n| n.get());
        for &us in &sizes.medium_task_us {
            let rounds = sizes.medium_rounds(us);
            let task_ns = (rounds as f64 * sizes.medium_ns_per_round).round() as u64;
            let tasks = (sizes.medium_work_us / us.max(1)).max(1) as usize;
            let workload = Workload::Medium {
                cap,
                tasks,
                rounds,
                task_ns,
            };
            let variant = format!("{us} µs tasks, cap {cap}");
            let note = format!("{tasks} tasks × {rounds} rounds (~{task_ns} ns)");
            for kind in crate::medium::POOLS {
                push(
                    "medium",
                    variant.clone(),
                    workload,
                    Some(kind),
                    note.clone(),
                    false,
                );
            }
        }
    }
    if wanted("async") {
        // submit_async against submit on the same pool, on ~1 µs tasks at
        // capacity 2 (saturated: one submitter outpaces two workers) and on
        // tiny ones (the future's own cost per call).
        let cap = 2;
        for us in [1, 0] {
            let (rounds, task_ns) = sizes.work(us);
            let tasks = sizes.tiny_tasks;
            let workload = Workload::Medium {
                cap,
                tasks,
                rounds,
                task_ns,
            };
            let variant = match us {
                0 => format!("tiny tasks, cap {cap}"),
                _ => format!("{us} µs tasks, cap {cap}"),
            };
            for kind in [
                Kind::Antpool,
                Kind::AntpoolAsync,
                Kind::AntpoolQueue,
                Kind::AntpoolQueueAsync,
            ] {
                push(
                    "async",
                    variant.clone(),
                    workload,
                    Some(kind),
                    format!("{tasks} tasks, one submitter"),
                    false,
                );
            }
        }
    }
    if wanted("tokio") {
        // C tokio tasks offloading W of CPU work each time on a runtime of two
        // workers, capacity 4 (see `tokio_family.rs`).
        for &(us, tasks, offloads) in &sizes.tokio {
            let (rounds, work_ns) = sizes.work(us);
            let workload = Workload::Tokio {
                tasks,
                offloads,
                rounds,
                work_ns,
            };
            let variant = crate::tokio_family::variant(us, tasks);
            let note = match rounds {
                0 => format!("{offloads} offloads of a tiny closure"),
                _ => format!("{offloads} offloads of {rounds} rounds (~{work_ns} ns)"),
            };
            for kind in crate::tokio_family::POOLS {
                push(
                    "tokio",
                    variant.clone(),
                    workload,
                    Some(kind),
                    note.clone(),
                    false,
                );
            }
        }
    }
    if wanted("tokio-wait") {
        // The tokio family's tiny offloads, each timed one cut at its task's
        // last wake-up (see `tokio_wait.rs`).
        for &(tasks, offloads) in &sizes.tokio_wait {
            let workload = Workload::TokioWait {
                tasks,
                offloads,
                rounds: 0,
                work_ns: 0,
            };
            for kind in crate::tokio_family::POOLS {
                push(
                    "tokio-wait",
                    crate::tokio_family::variant(0, tasks),
                    workload,
                    Some(kind),
                    format!("{offloads} offloads of a tiny closure, watched"),
                    false,
                );
            }
        }
    }
    if base {
        let mut with_base = Vec::with_capacity(cases.len() * 2);
        for case in cases {
            let antpool = case.kind.is_some_and(Kind::is_antpool);
            with_base.push(case.clone());
            if antpool {
                with_base.push(Case { base: true, ..case });
            }
        }
        cases = with_base;
    }
    cases
}

/// The arguments of `measure` that rebuild `case` in a child process.
pub fn measure_args(case: &Case) -> Vec<String> {
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
        } => format!("sleepy-floor {cap} {tasks} {sleep_ms}"),
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
        } => format!("backpressure {cap} {tasks} {submitters} {task_us}"),
        Workload::Drain { cap, tasks } => format!("drain {cap} {tasks}"),
        Workload::Medium {
            cap,
            tasks,
            rounds,
            task_ns,
        } => format!("medium {cap} {tasks} {rounds} {task_ns}"),
        Workload::Tokio {
            tasks,
            offloads,
            rounds,
            work_ns,
        } => format!("tokio {tasks} {offloads} {rounds} {work_ns}"),
        Workload::TokioWait {
            tasks,
            offloads,
            rounds,
            work_ns,
        } => format!("tokio-wait {tasks} {offloads} {rounds} {work_ns}"),
    };
    let mut args = vec!["measure".to_string(), pool];
    args.extend(w.split(' ').map(String::from));
    args
}

/// The pool and workload of `measure POOL WORKLOAD NUMBERS…` (arguments after
/// `measure`).
pub fn parse_measure(args: &[String]) -> (Option<Kind>, Workload) {
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
        "drain" => Workload::Drain {
            cap: n(2),
            tasks: n(3),
        },
        "medium" => Workload::Medium {
            cap: n(2),
            tasks: n(3),
            rounds: num(4),
            task_ns: num(5),
        },
        "tokio" => Workload::Tokio {
            tasks: n(2),
            offloads: n(3),
            rounds: num(4),
            work_ns: num(5),
        },
        "tokio-wait" => Workload::TokioWait {
            tasks: n(2),
            offloads: n(3),
            rounds: num(4),
            work_ns: num(5),
        },
        other => panic!("unknown workload {other}"),
    };
    (kind, workload)
}
