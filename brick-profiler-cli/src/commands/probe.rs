//! `probe`: measures this machine's ceilings (bandwidth of every memory
//! level, peak FLOP/s per precision) and says whether other work shared
//! the CPU; `--save` keeps quiet ceilings for every later run.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use profiler_core::profile::MeasuredCeilings;
use profiler_report::hardware::{probe::measure_ceilings, save_measured, saved_ceilings_path};

use crate::context::{Context, Report};
use crate::error::{CliError, Status};
use crate::output::{is_stdout, not_an_input, same_path};

/// Measure this machine's ceilings, optionally saving them.
#[derive(Debug, Args)]
#[command(
    after_help = "The probes take about a second. With --save the ceilings go to \
$XDG_CACHE_HOME/brick-profiler/ceilings-<cpu model>-<cores>.toml (else ~/.cache/...), a hardware \
file that later runs read instead of probing, so their grade does not move with the machine's load. \
Ceilings measured while other work runs are not saved (exit status 1).

Examples:
  brick-profiler probe
  brick-profiler probe --save
  brick-profiler probe --save --path lab-box.toml"
)]
pub(crate) struct ProbeArgs {
    /// Save the ceilings for later runs (refused when the machine was busy).
    #[arg(long)]
    save: bool,
    /// Where to save (default: the user's cache directory, keyed by CPU model and cores).
    #[arg(long, value_name = "FILE", requires = "save")]
    path: Option<PathBuf>,
}

/// `, best three within 1.2%`, or nothing where the spread was not kept.
fn best_three(spread_pct: Option<f64>) -> String {
    spread_pct.map_or_else(String::new, |s| format!(", best three within {s:.1}%"))
}

/// The measured ceilings, as a report.
struct Probed(MeasuredCeilings);

impl Report for Probed {
    fn table(&self) -> String {
        let c = &self.0;
        let mut s = format!(
            "Ceilings of {}:\n",
            if c.cpu.is_empty() {
                "this machine"
            } else {
                &c.cpu
            }
        );
        for b in c.cache_levels.iter().chain(&c.memory_bandwidth) {
            let _ = writeln!(
                s,
                "  {:<5} {:>9.1} GB/s  (best of {}{}, median {:.1}; {}, {} threads)",
                b.level,
                b.gb_s,
                b.repetitions,
                best_three(b.best_spread_pct),
                b.median_gb_s,
                b.method,
                b.threads
            );
        }
        for f in c.peak_flops.iter().chain(&c.other_peaks) {
            let _ = writeln!(
                s,
                "  {:<5} {:>9.1} {:<7}  (best of {}{}, median {:.1}; {} on {}, {} threads)",
                f.precision.to_uppercase(),
                f.gflops,
                f.unit(),
                f.repetitions,
                best_three(f.best_spread_pct),
                f.median_gflops,
                f.method,
                f.isa,
                f.threads
            );
        }
        for cache in &c.caches {
            let _ = writeln!(
                s,
                "  L{} cache {} KiB each, {} instance(s), from {}",
                cache.level,
                cache.bytes >> 10,
                cache.instances,
                cache.source
            );
        }
        if let Some(busy) = c.contention.as_ref().filter(|c| c.busy) {
            let _ = writeln!(
                s,
                "  the machine was busy: {} (these ceilings may be too low)",
                busy.reasons.join("; ")
            );
        }
        for n in &c.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        s
    }

    fn markdown(&self) -> String {
        format!("```text\n{}```\n", self.table())
    }

    fn json(&self) -> String {
        serde_json::to_string_pretty(&self.0).unwrap_or_default()
    }
}

pub(crate) fn run(args: &ProbeArgs, cx: &Context) -> Result<Status, CliError> {
    // Where the ceilings go is settled before the probes run: a file that
    // another argument names is refused before anything is measured.
    let path = if args.save {
        let path = match &args.path {
            Some(p) => p.clone(),
            None => saved_ceilings_path(|k| std::env::var(k).ok()).map_err(CliError::input)?,
        };
        let report = cx.output.as_deref().filter(|o| !is_stdout(o));
        if let Some(report) = report.filter(|o| same_path(o, &path)) {
            return Err(CliError::Input(format!(
                "`{}` is both where the ceilings are saved and `--output` `{}`: the report \
                 would be replaced by the ceilings; give two files",
                path.display(),
                report.display()
            )));
        }
        not_an_input(&path)?;
        Some(path)
    } else {
        None
    };
    let ceilings = measure_ceilings();
    cx.show(&Probed(ceilings.clone()))?;
    let Some(path) = path else {
        return Ok(Status::Ok);
    };
    match save_measured(&ceilings, &path) {
        Ok(_) => {
            eprintln!(
                "saved to {}; later runs judge against these ceilings",
                path.display()
            );
            Ok(Status::Ok)
        }
        Err(e @ profiler_report::hardware::HardwareError::BusyMachine { .. }) => {
            eprintln!("{e}");
            Ok(Status::CheckFailed)
        }
        Err(e @ profiler_report::hardware::HardwareError::WriteFile { .. }) => {
            Err(CliError::Output(e.to_string()))
        }
        Err(e) => Err(CliError::input(e)),
    }
}
