//! The command line: global options, the subcommands, and the help text
//! with exit statuses and examples.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands::{
    contracts, diff, fleet, html, import, parity, probe, roofline, scorecard, trace,
};
use crate::context::Context;
use crate::error::{CliError, Status};
use crate::output::Format;

/// The help text after the options; `{devices}` stands for the names of
/// the preset table, which the library lists.
const AFTER_HELP: &str = "\
Every subcommand reads saved files: a profile.json written by the profiler, Nsight Compute CSVs \
(`ncu --csv`), Nsight Systems kernel summaries (`nsys stats`), parity profiles and traces. The kind \
of a file is told from its content.

--hardware takes a device name ({devices}) or a .toml/.json file:
    name = \"lab box\"            # optional display name
    device = \"h100\"             # optional: start from a device of the table
    bytes_per_token = 14e9      # optional: bytes a token moves (scorecard grading)
    [bandwidth_gb_s]            # GB/s per level: l1, l2, l3, dram, pcie
    dram = 3000
    [peak_tflops]               # dense TFLOP/s per precision: fp64, fp32, tf32, fp16, bf16, int8
    bf16 = 800
    [cache_bytes]               # optional: cache size per core, l1, l2, l3 (rooflines per level)
    l2 = 1048576

Exit status:
    0  the report was produced and every check passed
    1  a check failed: a regression (scorecard --baseline, diff), a contract not passed,
       a parity gap (parity --require-parity), a straggler (fleet --fail-above)
    2  usage or input error: a missing, unreadable or malformed file, an unknown device,
       preset or contract (the message names the file and the problem)
    3  ncu or nsys is not on PATH, failed, or cannot read the GPU counters (ERR_NVGPUCTRPERM)
    4  an output file could not be written

Examples:
    brick-profiler scorecard target/profile/profile.json --baseline baseline.json
    brick-profiler roofline target/profile/profile.json --hardware h100 --svg roofline.svg
    brick-profiler parity target/profile/profile.json torch_trace.json --mapping ops.toml
    brick-profiler diff main.json branch.json --format markdown >> \"$GITHUB_STEP_SUMMARY\"
    brick-profiler trace flamegraph target/profile/profile.json -o flamegraph.svg
    brick-profiler import ncu gemm.csv --hardware 4090 --kernel gemm --gemm 4096
    brick-profiler import nsys --run -- ./train --steps 20
    brick-profiler contracts verify target/profile/profile.json --contract brick-profiler-v1
    brick-profiler html target/profile/profile.json -o report.html
    brick-profiler probe --save
    brick-profiler fleet run/ --html fleet.html --fail-above 0.25";

/// [`AFTER_HELP`] with the devices of the preset table.
fn after_help() -> String {
    AFTER_HELP.replace(
        "{devices}",
        &profiler_report::hardware::DeviceSpec::known_names(),
    )
}

/// Reports of the brick profiler from saved files: scorecard, roofline,
/// parity, diff, traces, Nsight imports, contracts, HTML.
#[derive(Debug, Parser)]
#[command(name = "brick-profiler", version, after_help = after_help(), max_term_width = 100)]
pub(crate) struct Cli {
    /// Output format of text reports.
    #[arg(long, global = true, value_enum, default_value_t = Format::Table, help_heading = "Global options")]
    format: Format,
    /// Hardware to judge against: a device name or a .toml/.json file (see `brick-profiler --help`).
    #[arg(
        long,
        global = true,
        value_name = "NAME|FILE",
        help_heading = "Global options"
    )]
    hardware: Option<String>,
    /// Write the report to FILE instead of stdout (atomically).
    #[arg(
        short,
        long,
        global = true,
        value_name = "FILE",
        help_heading = "Global options"
    )]
    output: Option<PathBuf>,
    /// Which kernel summary (1-based) to read from `nsys stats` output that holds several runs
    /// (per input: `FILE#N`).
    #[arg(long, global = true, value_name = "N", help_heading = "Global options")]
    report: Option<usize>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Training scorecard of a saved run, optionally against a baseline scorecard.
    Scorecard(scorecard::ScorecardArgs),
    /// Per-brick roofline of a saved run (--svg for the plot).
    Roofline(roofline::RooflineArgs),
    /// Per-op parity of our run against baselines (profiles, parity JSON, PyTorch traces).
    Parity(parity::ParityArgs),
    /// Noise-aware per-brick comparison of a run against baselines; exit 1 on a real regression.
    Diff(diff::DiffArgs),
    /// A distributed run's directory across ranks: stragglers, imbalance, absent ranks.
    Fleet(fleet::FleetArgs),
    /// Trace summary, flamegraph, Chrome trace or speedscope export.
    Trace(trace::TraceArgs),
    /// Import Nsight Compute (ncu) or Nsight Systems (nsys) output, or run the tool.
    Import(import::ImportArgs),
    /// Check a run against YAML contracts.
    Contracts(contracts::ContractsArgs),
    /// One self-contained HTML report from saved files.
    Html(html::HtmlArgs),
    /// Measure this machine's ceilings (every memory level, peak per precision); --save keeps them.
    Probe(probe::ProbeArgs),
}

impl Cli {
    /// Runs the chosen subcommand.
    pub(crate) fn run(self) -> Result<Status, CliError> {
        crate::input::pick_report(self.report);
        let cx = Context {
            format: self.format,
            hardware: self.hardware,
            output: self.output,
        };
        match &self.command {
            Command::Scorecard(a) => scorecard::run(a, &cx),
            Command::Roofline(a) => roofline::run(a, &cx),
            Command::Parity(a) => parity::run(a, &cx),
            Command::Diff(a) => diff::run(a, &cx),
            Command::Fleet(a) => fleet::run(a, &cx),
            Command::Trace(a) => trace::run(a, &cx),
            Command::Import(a) => import::run(a, &cx),
            Command::Contracts(a) => contracts::run(a, &cx),
            Command::Html(a) => html::run(a, &cx),
            Command::Probe(a) => probe::run(a, &cx),
        }
    }
}
