//! `trace`: the summary of an execution trace, a saved profile (or an
//! execution trace) exported as a flamegraph, Chrome trace, Perfetto trace
//! or speedscope file, and the ranks of a distributed run merged into one
//! Chrome and/or Perfetto trace.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use profiler_core::Profile;
use profiler_core::profile::TraceFormat;
use profiler_core::trace::RecordedExecutionTrace;
use profiler_report::export::{
    merge_ranked, write_perfetto_trace_to, write_ranked_perfetto_trace_to,
};
use profiler_report::input::Input;
use profiler_report::straggler::StragglerRule;
use profiler_report::trace::TraceSummary;
use profiler_report::{chrome_trace_json, flamegraph_svg, folded_stacks, speedscope_json, trace};

use crate::context::Context;
use crate::error::{CliError, Status};
use crate::input::{load, stem};
use crate::output::{emit, emit_streamed};

/// Summarise or export a trace.
#[derive(Debug, Args)]
pub(crate) struct TraceArgs {
    #[command(subcommand)]
    command: TraceCommand,
}

#[derive(Debug, Subcommand)]
enum TraceCommand {
    /// Ops by time, devices, load balance, communication, slowest entries.
    #[command(
        after_help = "Example:\n  brick-profiler trace summary target/profile/profile.json --format markdown"
    )]
    Summary {
        /// A profile.json or an execution-trace JSON.
        file: PathBuf,
    },
    /// A flamegraph SVG (or folded stacks with --folded).
    #[command(
        after_help = "Example:\n  brick-profiler trace flamegraph target/profile/profile.json -o flame.svg"
    )]
    Flamegraph {
        /// A profile.json or an execution-trace JSON.
        file: PathBuf,
        /// Title of the graph (default: the run's name).
        #[arg(long)]
        title: Option<String>,
        /// Print folded stacks instead of the SVG.
        #[arg(long)]
        folded: bool,
    },
    /// Chrome Trace Event JSON (Perfetto, chrome://tracing).
    #[command(
        after_help = "Example:\n  brick-profiler trace chrome target/profile/profile.json -o trace.json"
    )]
    Chrome {
        /// A profile.json or an execution-trace JSON.
        file: PathBuf,
    },
    /// Perfetto's protobuf trace (trace.pftrace): what `trace chrome`
    /// writes, a fifteenth of the size or less, streamed (for long runs).
    #[command(
        after_help = "Example:\n  brick-profiler trace perfetto target/profile/profile.json -o trace.pftrace"
    )]
    Perfetto {
        /// A profile.json or an execution-trace JSON.
        file: PathBuf,
    },
    /// The ranks of a distributed run (one profile.json each) merged into
    /// one timeline: a process per rank, times aligned on the earliest
    /// start. `--trace-format both` writes OUT.json and OUT.pftrace (-o OUT
    /// names them, without the extension).
    #[command(
        after_help = "Example:\n  brick-profiler trace ranks run/rank-*/profile.json --trace-format both -o merged"
    )]
    Ranks {
        /// The ranks' profile.json files: a file's rank is its profile's
        /// `run.rank`, else the number after `rank` in its name.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// json (Chrome's trace, for HTA and chrome://tracing), perfetto
        /// (Perfetto's protobuf trace, for long runs) or both.
        #[arg(long, default_value_t = TraceFormat::Json, value_parser = |s: &str| s.parse::<TraceFormat>())]
        trace_format: TraceFormat,
    },
    /// speedscope JSON of a profile's trace-mode timeline.
    #[command(
        after_help = "Example:\n  brick-profiler trace speedscope target/profile/profile.json -o run.speedscope.json"
    )]
    Speedscope {
        /// A profile.json recorded with trace mode on.
        file: PathBuf,
    },
}

/// A profile, or a bare execution trace.
enum Traced {
    Profile(Box<Profile>),
    Trace(RecordedExecutionTrace),
}

/// The profile a timeline export draws: a profile, or an execution trace
/// as a profile named after its file.
fn timeline(path: &Path) -> Result<Profile, CliError> {
    Ok(match traced(path)? {
        Traced::Profile(p) => *p,
        Traced::Trace(t) => {
            let mut p = Profile::empty();
            p.run.name = stem(path);
            p.trace = t;
            p
        }
    })
}

fn traced(path: &Path) -> Result<Traced, CliError> {
    match load(path)? {
        Input::Profile(p) => Ok(Traced::Profile(p)),
        Input::ExecutionTrace(t) => Ok(Traced::Trace(t)),
        other => Err(CliError::Input(format!(
            "`{}` holds {}: trace takes a profile.json or an execution trace",
            path.display(),
            other.what()
        ))),
    }
}

pub(crate) fn run(args: &TraceArgs, cx: &Context) -> Result<Status, CliError> {
    match &args.command {
        TraceCommand::Summary { file } => {
            let summary = match traced(file)? {
                Traced::Profile(p) => TraceSummary::of(&trace::trace_of(&p)),
                Traced::Trace(t) => TraceSummary::of(&t),
            };
            if summary.entries == 0 {
                eprintln!(
                    "brick-profiler: `{}` has no trace entries (record with #[trace_op] or trace mode)",
                    file.display()
                );
            }
            cx.show(&summary)?;
        }
        TraceCommand::Flamegraph {
            file,
            title,
            folded,
        } => {
            let (stacks, name) = match traced(file)? {
                Traced::Profile(p) => (folded_stacks(&p), p.run.name.clone()),
                Traced::Trace(t) => (trace::flamegraph_collapsed(&t), String::new()),
            };
            let title = title
                .clone()
                .unwrap_or_else(|| if name.is_empty() { stem(file) } else { name });
            let text = if *folded {
                stacks
            } else {
                flamegraph_svg(&stacks, &title)
                    .map_err(|e| CliError::Input(format!("`{}`: {e}", file.display())))?
            };
            emit(&text, cx.output.as_deref())?;
        }
        TraceCommand::Chrome { file } => {
            emit(&chrome_trace_json(&timeline(file)?), cx.output.as_deref())?;
        }
        TraceCommand::Perfetto { file } => {
            let profile = timeline(file)?;
            let mut warnings = Vec::new();
            emit_streamed(cx.output.as_deref(), true, |out| {
                warnings = write_perfetto_trace_to(&profile, out)?.warnings;
                Ok(())
            })?;
            for warning in warnings {
                eprintln!("brick-profiler: `{}`: {warning}", file.display());
            }
        }
        TraceCommand::Ranks {
            files,
            trace_format,
        } => merged(files, *trace_format, cx.output.as_deref())?,
        TraceCommand::Speedscope { file } => match traced(file)? {
            Traced::Profile(p) => {
                if p.timeline.event_count() == 0 {
                    eprintln!(
                        "brick-profiler: `{}` has no trace-mode timeline: the speedscope file holds no profiles",
                        file.display()
                    );
                }
                emit(&speedscope_json(&p), cx.output.as_deref())?;
            }
            Traced::Trace(_) => {
                return Err(CliError::Input(format!(
                    "`{}` is an execution trace without nesting; speedscope needs a profile \
                     recorded with trace mode (use `trace chrome` for this file)",
                    file.display()
                )));
            }
        },
    }
    Ok(Status::Ok)
}

/// Writes the merge of the ranks in `files` as `format` says: to `output`
/// (stdout when absent) for one format, to `output` with the extensions
/// `.json` and `.pftrace` for both.
fn merged(files: &[PathBuf], format: TraceFormat, output: Option<&Path>) -> Result<(), CliError> {
    let profiles = profiler_report::trace::read_rank_profiles(files).map_err(CliError::input)?;
    let ranked: Vec<(u32, &Profile)> = profiles.iter().map(|(r, p)| (*r, p)).collect();
    let (json, pftrace) = match (format, output) {
        (TraceFormat::Both, Some(out)) if !crate::output::is_stdout(out) => (
            Some(out.with_extension("json")),
            Some(out.with_extension("pftrace")),
        ),
        (TraceFormat::Both, _) => {
            return Err(CliError::Input(
                "--trace-format both writes two files: pass -o OUT (OUT.json and OUT.pftrace)"
                    .to_owned(),
            ));
        }
        (TraceFormat::Json, out) => (
            Some(out.map_or_else(|| "-".into(), Path::to_path_buf)),
            None,
        ),
        (TraceFormat::Perfetto, out) => (
            None,
            Some(out.map_or_else(|| "-".into(), Path::to_path_buf)),
        ),
    };
    if let Some(path) = json {
        let merged = merge_ranked(&ranked, StragglerRule::default());
        emit(&merged.chrome_json, Some(&path))?;
    }
    if let Some(path) = pftrace {
        let mut warnings = Vec::new();
        emit_streamed(Some(&path), true, |out| {
            warnings = write_ranked_perfetto_trace_to(&ranked, out)?.warnings;
            Ok(())
        })?;
        for warning in warnings {
            eprintln!("brick-profiler: {warning}");
        }
    }
    Ok(())
}
