//! `fleet` at scale: generates a run directory of `--ranks` ranks x
//! `--steps` steps x `--bricks` bricks (one slow rank), times `fleet` on it
//! in a child process with its peak memory, and times Holistic Trace
//! Analysis loading `--hta-ranks` of the ranks' Chrome traces (only those
//! ranks' profiles keep their timeline, to keep the run directory small).
//!
//! ```text
//! cargo run --release -p fleet-bench -- --out /tmp/fleet-run
//! cargo build --release -p fleet-bench
//! taskset -c 0 target/release/fleet-bench --ranks 100000 --hta-ranks 0 --out /tmp/fleet-100k
//! ```
//!
//! The analysis fails unless it names the planted straggler, and it alone.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clap::{Parser, Subcommand};
use profiler_core::trace::{EventKind, ThreadTimeline, Timeline, TimelineEvent};
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::fleet::{FleetReport, FleetSettings};
use profiler_report::html::FleetPage;

/// Generate a large run and time `fleet` and HTA on it.
#[derive(Debug, Parser)]
struct Args {
    /// Ranks in the run.
    #[arg(long, default_value_t = 1024)]
    ranks: u32,
    /// Recorded steps per rank.
    #[arg(long, default_value_t = 200)]
    steps: u64,
    /// Bricks per rank.
    #[arg(long, default_value_t = 30)]
    bricks: u64,
    /// Ranks whose Chrome traces HTA loads (0: skip HTA).
    #[arg(long, default_value_t = 64)]
    hta_ranks: u32,
    /// The run directory (made if missing; reused when it has every rank).
    #[arg(long, default_value = "target/fleet-run")]
    out: PathBuf,
    /// Python with HolisticTraceAnalysis installed.
    #[arg(long, default_value = ".venv/bin/python3")]
    python: PathBuf,
    #[command(subcommand)]
    child: Option<Child>,
}

#[derive(Debug, Subcommand)]
enum Child {
    /// Internal: analyse a run directory and print the time and peak memory.
    Analyse {
        /// The run directory.
        dir: PathBuf,
    },
}

/// The slow rank of the generated run.
const SLOW_RANK: u32 = 7;

/// One rank's profile with a timeline of every step and brick call.
fn rank_profile(rank: u32, args: &Args) -> Profile {
    let mut p = Profile::empty();
    p.run.rank = Some(rank);
    p.run.world_size = Some(args.ranks);
    p.run.run_id = "bench".into();
    p.run.host = format!("node{}", rank / 8);
    p.run.pid = 1000 + rank;
    let slow = if rank == SLOW_RANK { 3 } else { 2 };
    let brick_ns = |b: u64, step: u64| {
        (10_000 + b * 1_000 + (step * 7 + u64::from(rank) * 13) % 500) * slow / 2
    };
    let mut names: Vec<String> = (0..args.steps).map(|s| format!("step {s}")).collect();
    let first_brick = names.len() as u32;
    names.extend((0..args.bricks).map(|b| format!("Brick{b:02}")));
    let mut events = Vec::new();
    let mut t = 0u64;
    let mut totals = vec![0u64; args.bricks as usize];
    for step in 0..args.steps {
        let start = t;
        for b in 0..args.bricks {
            let ns = brick_ns(b, step);
            events.push(TimelineEvent::span(
                EventKind::Brick,
                first_brick + b as u32,
                t,
                ns,
            ));
            totals[b as usize] += ns;
            t += ns;
        }
        events.push(TimelineEvent::span(
            EventKind::Step,
            step as u32,
            start,
            t - start,
        ));
        p.steps.samples_ns.push(t - start);
        p.steps.samples_index.push(step);
    }
    p.steps.count = args.steps;
    p.steps.total_ns = t;
    p.bricks = totals
        .iter()
        .enumerate()
        .map(|(b, &total)| {
            let mut s = BrickStats::new(format!("Brick{b:02}"), BrickCategory::Ffn);
            s.total_ns = total;
            s.count = args.steps;
            s
        })
        .collect();
    // Only the ranks HTA loads keep their timeline: the others' files
    // would hold hundreds of MB that `fleet` skips unread anyway.
    if rank >= args.hta_ranks {
        return p;
    }
    p.timeline = Timeline {
        names,
        threads: vec![ThreadTimeline {
            thread: 1,
            name: Some("main".into()),
            events,
        }],
        ..Timeline::default()
    };
    p
}

fn generate(args: &Args) -> Result<(), String> {
    let last = args
        .out
        .join(format!("rank-{:05}/profile.json", args.ranks - 1));
    if last.exists() {
        println!("reusing {}", args.out.display());
        return Ok(());
    }
    let started = Instant::now();
    for rank in 0..args.ranks {
        let dir = args.out.join(format!("rank-{rank:05}"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let p = rank_profile(rank, args);
        // A plain write: the atomic, synced one costs a disk flush per rank,
        // which makes 100,000 ranks take half an hour to generate.
        let file = dir.join("profile.json");
        std::fs::write(&file, p.to_json()).map_err(|e| format!("{}: {e}", file.display()))?;
        if rank < args.hta_ranks {
            profiler_report::write_chrome_trace(&p, dir.join("trace.json"))
                .map_err(|e| e.to_string())?;
        }
    }
    println!(
        "generated {} ranks x {} steps x {} bricks in {:.1} s",
        args.ranks,
        args.steps,
        args.bricks,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Peak resident memory of this process, bytes (Linux `VmHWM`).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn analyse(dir: &Path) -> Result<(), String> {
    let started = Instant::now();
    let report = FleetReport::from_dir(dir, FleetSettings::default()).map_err(|e| e.to_string())?;
    let html = FleetPage::new(&report).render();
    let seconds = started.elapsed().as_secs_f64();
    if report.straggler_ranks() != [SLOW_RANK] {
        return Err(format!(
            "the planted straggler is rank {SLOW_RANK}, fleet named {:?}",
            report.straggler_ranks()
        ));
    }
    println!(
        "fleet: {} ranks in {seconds:.2} s, peak memory {:.0} MB, stragglers {:?}, html {} KB",
        report.ranks_analysed,
        peak_rss().unwrap_or(0) as f64 / 1e6,
        report.straggler_ranks(),
        html.len() / 1024
    );
    Ok(())
}

const HTA_SCRIPT: &str = "
import glob, os, sys, time
from hta.trace_analysis import TraceAnalysis
run, n = sys.argv[1], int(sys.argv[2])
files = {r: os.path.join(run, 'rank-%05d' % r, 'trace.json') for r in range(n)}
t = time.perf_counter()
ta = TraceAnalysis(trace_files=files, trace_dir=run)
print('hta: %d ranks in %.2f s' % (len(ta.t.traces), time.perf_counter() - t))
";

fn main() -> Result<(), String> {
    let args = Args::parse();
    if let Some(Child::Analyse { dir }) = &args.child {
        return analyse(dir);
    }
    generate(&args)?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // A fresh process, so the peak memory is the analysis's alone.
    let status = Command::new(exe)
        .arg("analyse")
        .arg(&args.out)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("fleet failed: {status}"));
    }
    if args.hta_ranks > 0 {
        let status = Command::new(&args.python)
            .args(["-c", HTA_SCRIPT])
            .arg(&args.out)
            .arg(args.hta_ranks.min(args.ranks).to_string())
            .status()
            .map_err(|e| format!("{}: {e}", args.python.display()))?;
        if !status.success() {
            return Err(format!("HTA failed: {status}"));
        }
    }
    Ok(())
}
