//! Reads a large Kineto trace (a real one repeated to `--size-mb`) with this
//! project's streamed import and with Holistic Trace Analysis's parser, each
//! in its own process, and prints both wall times and peak resident
//! memories. Not a default member: run it with
//! `cargo run --release -p kineto-import-bench -- --size-mb 1024`
//! (`--no-hta` for ours alone, at sizes HTA's memory cannot reach).

mod generate;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clap::Parser;
use profiler_report::parity::{ChromeTrace, OpMapping, import_chrome_trace};

/// Import benchmark of a large Kineto trace.
#[derive(Debug, Parser)]
struct Args {
    /// Size of the generated trace, MB.
    #[arg(long, default_value_t = 1024)]
    size_mb: u64,
    /// The real trace to repeat.
    #[arg(
        long,
        default_value = "tests/fixtures/real/kineto/hta_sampled_rank0.json"
    )]
    source: PathBuf,
    /// Where to write the generated trace (removed afterwards).
    #[arg(long, default_value = "target/kineto-import-bench.json")]
    out: PathBuf,
    /// Python with HolisticTraceAnalysis installed.
    #[arg(long, default_value = ".venv/bin/python")]
    python: PathBuf,
    /// Keep the generated trace.
    #[arg(long)]
    keep: bool,
    /// Only this project's import: sizes whose HTA run would not fit in
    /// memory, to show the import's peak does not grow with the file.
    #[arg(long)]
    no_hta: bool,
    /// Child mode: import this trace and print the result.
    #[arg(long, hide = true)]
    import: Option<PathBuf>,
}

/// Peak resident memory of this process, kB (`VmHWM`).
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// How many times faster than HTA the import is to be.
const SPEEDUP_GOAL: f64 = 10.0;
/// The share of HTA's peak memory the import is to stay under.
const MEMORY_GOAL: f64 = 0.25;

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

/// The load averages (1, 5, 15 minutes): the machine may be shared, and
/// the figures mean little without them.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// One side's result, parsed from its child's output line.
#[derive(Debug)]
struct Run {
    wall_s: f64,
    peak_rss_kb: u64,
    line: String,
}

fn field(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

fn child(mut cmd: Command, what: &str) -> Result<Run, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{what}: exited with {}: {}{}",
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let line = stdout.lines().last().unwrap_or_default().to_owned();
    match (field(&line, "wall_s"), field(&line, "peak_rss_kb")) {
        (Some(wall_s), Some(peak)) => Ok(Run {
            wall_s,
            peak_rss_kb: peak as u64,
            line,
        }),
        _ => Err(format!("{what}: no result line in its output: {stdout}")),
    }
}

fn import_child(path: &Path) -> Result<(), String> {
    let start = Instant::now();
    // The two halves of `import_pytorch_trace`, timed apart.
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let trace =
        ChromeTrace::from_reader(file, &path.display().to_string()).map_err(|e| e.to_string())?;
    let read = start.elapsed().as_secs_f64();
    let read_rss = peak_rss_kb();
    let i = import_chrome_trace(&trace, &OpMapping::defaults()).map_err(|e| e.to_string())?;
    let wall = start.elapsed().as_secs_f64();
    println!(
        "events={} runs={} steps={} device_events={} ops={} read_s={read:.3} \
         read_peak_rss_kb={read_rss} wall_s={wall:.3} peak_rss_kb={}",
        trace.event_count(),
        trace.spilled_runs(),
        i.steps,
        i.device_events,
        i.summary.ops.len(),
        peak_rss_kb()
    );
    Ok(())
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    if let Some(path) = &args.import {
        return import_child(path);
    }
    let start = Instant::now();
    let (copies, bytes) =
        generate::repeat_trace(&args.source, &args.out, args.size_mb * 1024 * 1024)?;
    println!(
        "generated {} ({copies} copies of {}, {:.0} MB) in {:.1} s",
        args.out.display(),
        args.source.display(),
        bytes as f64 / 1048576.0,
        start.elapsed().as_secs_f64()
    );
    println!("load average before: {}", load_average());
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut ours = Command::new(exe);
    ours.arg("--import").arg(&args.out);
    let ours = child(ours, "our import")?;
    println!("ours: {}", ours.line);
    if args.no_hta {
        println!("load average: {}", load_average());
        if !args.keep {
            let _ = std::fs::remove_file(&args.out);
        }
        return Ok(());
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("hta_parse.py");
    let mut hta = Command::new(&args.python);
    hta.arg(script).arg(&args.out);
    let hta = child(hta, "HTA")?;
    println!("hta:  {}", hta.line);
    let speedup = hta.wall_s / ours.wall_s.max(1e-9);
    let memory = ours.peak_rss_kb as f64 / hta.peak_rss_kb.max(1) as f64;
    println!(
        "ours {:.2} s, {:.0} MB peak; HTA {:.2} s, {:.0} MB peak: {speedup:.1}x faster, {:.1}% of \
         HTA's memory",
        ours.wall_s,
        ours.peak_rss_kb as f64 / 1024.0,
        hta.wall_s,
        hta.peak_rss_kb as f64 / 1024.0,
        100.0 * memory
    );
    println!(
        "goal: at least {SPEEDUP_GOAL}x faster: {}; goal: under {:.0}% of HTA's peak memory: {}",
        met(speedup >= SPEEDUP_GOAL),
        100.0 * MEMORY_GOAL,
        met(memory < MEMORY_GOAL)
    );
    println!("load average: {}", load_average());
    if !args.keep {
        let _ = std::fs::remove_file(&args.out);
    }
    Ok(())
}
