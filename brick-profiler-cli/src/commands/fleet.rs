//! `fleet`: a distributed run's directory (`rank-NNNNN/profile.json` per
//! rank) across ranks: step times, stragglers, imbalance, absent ranks,
//! each rank's step by kind (compute, communication, waiting).
//! Exits 1 when a straggler is further above the median than `--fail-above`.

use std::path::{Path, PathBuf};

use clap::Args;
use profiler_report::fleet::{FleetReport, FleetSettings, rank_profile_at};
use profiler_report::html::FleetPage;
use profiler_report::straggler::StragglerRule;

use crate::context::Context;
use crate::error::{CliError, Status};
use crate::output::{is_stdout, write_file};

/// Analyse a run directory across ranks: stragglers and load imbalance.
#[derive(Debug, Args)]
#[command(
    after_help = "A rank is a straggler when its median step time, or its median call of a brick \
holding at least --min-brick-share of the brick time, is above the median over ranks by more than \
--mad-k robust deviations (1.4826 x MAD) and by at least --min-excess (a brick: at least 200%, its part of its own rank's step against the median rank's). \
When the ranks record a collective phase (a name holding allreduce, allgather, reduce_scatter, alltoall, \
nccl or gloo, or the word broadcast, barrier, send, recv, isend, irecv, sendrecv or p2p), every step \
lasts as long as the slowest rank's, so ranks are judged by their own work: median step less their \
wait at the collectives (their time there beyond the fastest rank's). Each rank's median step is \
also split into compute, communication (transfer, waiting for slower ranks) and outside any phase. \
Each profile is read by the \
same reader as every other command (a FIFO or device is refused, the schema version is checked), \
for its aggregates only (never the timelines), so memory grows with ranks x (steps + bricks). \
Rank directories that are missing (counted as ranges), unreadable, of an unsupported schema, \
without steps, from another run id or duplicated are named and left out; a profile recording \
another rank than its directory's is named and analysed as the rank it records; the other ranks \
are still analysed.

Examples:
  brick-profiler fleet run/
  brick-profiler fleet run/ --html fleet.html --fail-above 0.25 --format markdown

Exit status: 1 when a straggler is more than --fail-above over the median (with --fail-above)."
)]
pub(crate) struct FleetArgs {
    /// The run directory (holds rank-00000/, rank-00001/, ...).
    run_dir: PathBuf,
    /// Robust deviations above the median that make a straggler.
    #[arg(long, default_value_t = StragglerRule::default().mad_k, value_name = "K")]
    mad_k: f64,
    /// Least excess over the median that makes a straggler (0.2 = 20%).
    #[arg(long, default_value_t = StragglerRule::default().min_excess, value_name = "FRACTION")]
    min_excess: f64,
    /// Bricks below this share of the brick time are not judged.
    #[arg(long, default_value_t = FleetSettings::default().min_brick_share, value_name = "FRACTION")]
    min_brick_share: f64,
    /// Exit 1 when a straggler is more than FRACTION over the median (0: any straggler).
    #[arg(long, value_name = "FRACTION")]
    fail_above: Option<f64>,
    /// Also write the fleet page: each rank's step split by phase, step-time
    /// spread, rank x step heat map, bricks across ranks, links to each
    /// rank's files.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

pub(crate) fn run(args: &FleetArgs, cx: &Context) -> Result<Status, CliError> {
    for (name, v) in [
        ("--mad-k", args.mad_k),
        ("--min-excess", args.min_excess),
        ("--min-brick-share", args.min_brick_share),
        ("--fail-above", args.fail_above.unwrap_or(0.0)),
    ] {
        if !v.is_finite() || v < 0.0 {
            return Err(CliError::Input(format!(
                "fleet: {name} must be a finite number >= 0, not {v}"
            )));
        }
    }
    let settings = FleetSettings {
        rule: StragglerRule {
            mad_k: args.mad_k,
            min_excess: args.min_excess,
        },
        min_brick_share: args.min_brick_share,
    };
    for output in [args.html.as_deref(), cx.output.as_deref()]
        .into_iter()
        .flatten()
    {
        not_a_rank_profile(&args.run_dir, output)?;
    }
    let report = FleetReport::from_dir(&args.run_dir, settings).map_err(CliError::input)?;
    for problem in &report.problems {
        // The message shows the files' text escaped: safe on a terminal.
        let kind = if problem.leaves_out() {
            "left out"
        } else {
            "warning"
        };
        eprintln!("brick-profiler: fleet: {kind}: {problem}");
    }
    if let Some(path) = &args.html {
        let page = FleetPage::new(&report)
            .run_dir(run_dir_from(path, &args.run_dir))
            .render();
        write_file(path, page.as_bytes())?;
    }
    cx.show(&report)?;
    Ok(match args.fail_above {
        Some(limit) if !report.stragglers.is_empty() && report.worst_excess() > limit => {
            Status::CheckFailed
        }
        _ => Status::Ok,
    })
}

/// The run directory as seen from the folder `page` is written to,
/// `/`-separated (`run`, `../runs/7`, or empty inside it), for the page's
/// links; as given when either cannot be resolved (stdout: the current
/// folder).
fn run_dir_from(page: &Path, run_dir: &Path) -> String {
    let given = || run_dir.to_string_lossy().replace('\\', "/");
    let folder = match page.parent() {
        Some(p) if !p.as_os_str().is_empty() && !is_stdout(page) => p,
        _ => Path::new("."),
    };
    let (Ok(from), Ok(to)) = (
        std::fs::canonicalize(folder),
        std::fs::canonicalize(run_dir),
    ) else {
        return given();
    };
    let (from, to): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let parts: Vec<String> = std::iter::repeat_n("..".to_owned(), from.len() - common)
        .chain(
            to[common..]
                .iter()
                .map(|c| c.as_os_str().to_string_lossy().into_owned()),
        )
        .collect();
    parts.join("/")
}

/// Refuses an `output` that is a rank's profile in `run_dir` (one the
/// analysis reads, or would read next time), however spelled or linked:
/// writing it would replace that rank's profile.
fn not_a_rank_profile(run_dir: &Path, output: &Path) -> Result<(), CliError> {
    if is_stdout(output) {
        return Ok(());
    }
    match rank_profile_at(run_dir, output) {
        Some(rank) => Err(CliError::Input(format!(
            "`{}` is `{rank}` of the run directory `{}`, an input of this command, and \
             cannot also be its output: writing it would replace that rank's profile; \
             write outside the rank directories",
            output.display(),
            run_dir.display()
        ))),
        None => Ok(()),
    }
}
