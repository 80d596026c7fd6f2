//! `probe`: measures this machine's ceilings (bandwidth of every memory
//! level, peak FLOP/s per precision) and says whether other work shared
//! the CPU; `--save` keeps quiet ceilings for every later run.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use profiler_core::hardware::{Hardware, MemoryLevel};
use profiler_report::hardware::{
    HardwareError, measure, probe::ProbeOptions, save_measured, saved_ceilings_path,
};

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
struct Probed(Hardware);

impl Report for Probed {
    fn table(&self) -> String {
        let hw = &self.0;
        let mut s = format!("Ceilings of {}:\n", hw.name);
        // The caches fastest first, then DRAM.
        for (level, f) in hw
            .memory_ceilings()
            .filter(|(l, _)| *l <= MemoryLevel::Dram)
        {
            let Some(how) = f.source.measurement() else {
                continue;
            };
            let _ = writeln!(
                s,
                "  {:<5} {:>9.1} GB/s  (best of {}{}, median {:.1}; {}, {} threads)",
                level.name(),
                f.value,
                how.repetitions,
                best_three(how.best_spread_pct),
                how.median,
                how.method,
                how.threads
            );
        }
        for (precision, f) in hw.compute_ceilings() {
            let Some(how) = f.source.measurement() else {
                continue;
            };
            let unit = format!("G{}/s", precision.operation());
            let _ = writeln!(
                s,
                "  {:<5} {:>9.1} {unit:<7}  (best of {}{}, median {:.1}; {} on {}, {} threads)",
                precision.name(),
                f.value * 1e3,
                how.repetitions,
                best_three(how.best_spread_pct),
                how.median * 1e3,
                how.method,
                how.isa.as_deref().unwrap_or("?"),
                how.threads
            );
        }
        let instances = hw.probe.as_ref().map(|p| &p.cache_instances);
        for (level, f) in hw.cache_sizes() {
            let n = instances.and_then(|i| i.get(&level)).copied().unwrap_or(1);
            let _ = writeln!(
                s,
                "  {level} cache {} KiB each, {n} instance(s), from {}",
                f.value as u64 >> 10,
                f.source
            );
        }
        if let Some(why) = &hw.busy {
            let _ = writeln!(
                s,
                "  the machine was busy: {why} (these ceilings may be too low)"
            );
        }
        for n in hw.probe.iter().flat_map(|p| &p.notes) {
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
    let ceilings = measure(&ProbeOptions::default()).map_err(CliError::input)?;
    cx.show(&Probed(ceilings.clone()))?;
    let Some(path) = path else {
        return Ok(Status::Ok);
    };
    match save_measured(&ceilings, &path) {
        Ok(()) => {
            eprintln!(
                "saved to {}; later runs judge against these ceilings",
                path.display()
            );
            Ok(Status::Ok)
        }
        Err(e @ HardwareError::BusyMachine { .. }) => {
            eprintln!("{e}");
            Ok(Status::CheckFailed)
        }
        Err(e @ HardwareError::WriteFile { .. }) => Err(CliError::Output(e.to_string())),
        Err(e) => Err(CliError::input(e)),
    }
}
