//! Chrome Trace Event JSON (the JSON Object Format) from a [`Profile`]:
//! opens in Perfetto (ui.perfetto.dev) and chrome://tracing.
//!
//! Events of one or more profiles are walked per track by a [`ChromeTrace`](trace::ChromeTrace),
//! nested with the rule of [`nesting`](crate::analysis::trace::nesting), merged in time order
//! as they are printed, one event per line (diffable golden files): memory is bounded by the
//! tracks and their open slices, not by the events.

pub(crate) mod event;
mod feeds;
pub(crate) mod kineto;
mod order;
pub(crate) mod trace;

use std::path::Path;

use profiler_core::Profile;
use serde::Serialize;

use super::run_facts::{EXPORTER, RunFacts, timeline_warning};
use crate::output::error::ExportError;
pub(crate) use event::to_json;
pub(crate) use trace::ChromeTrace;

/// A Chrome trace of one profile, as JSON text (the JSON Object Format:
/// `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`).
///
/// - pid = the profile's process id, named after the run (`process_name`);
///   tid = the dense thread number (`thread_name`: its name, or `thread N`).
/// - Timeline events are complete `X` events, `cat` = `step`, `phase`,
///   `layer` or `brick`, with what each knows in `args` (Perfetto's details
///   pane): a brick's `category`, `layer`, `direction`, `elements`,
///   `bytes`, `flops` and this call's `gflop_per_s`, `gb_per_s` and
///   `flop_per_byte`; a layer scope's `layer` and `direction`; a step's
///   `step` index, `tokens` and `tokens_per_s`. Amounts that were not
///   recorded are left out, never written as 0.
/// - `#[trace_op]` entries are `X` events with `cat` = `op` and their step,
///   device and shapes in `args`, on the thread's companion track tid
///   `1_000_000 + thread` (`... ops`). Entries without `start_us` follow the
///   previous entry on their track.
/// - Each `profiler::counter` sample is a counter event (`ph: "C"`, `cat:
///   "counter"`, `args.value`) named after its counter, on the recording
///   thread's tid; Perfetto draws one track per name.
/// - Counters `output bytes, thread N` (`args.bytes`; counters are per
///   process, hence one series per thread) give each op's output size at its
///   end, when any op has one.
/// - A rank's profile (`run.rank` set) follows Kineto's conventions, as
///   Holistic Trace Analysis expects: `distributedInfo` (`rank`,
///   `world_size`) and `schemaVersion` before `traceEvents`, and a
///   `ProfilerStep#N` slice (`cat: "user_annotation"`) over each step `N`.
///   With a known device (hardware name or a device timer),
///   `deviceProperties` lists it. When a device timer timed the bricks,
///   each brick's device side is a `cat: "kernel"` slice on the track
///   `stream 7 (device 0)` (tid `2_000_007`, `args.stream`, `args.device`),
///   linked to its brick by `args.correlation` (also on the brick) and an
///   `ac2g` flow (`ph` `s` at the brick, `f` with `bp: "e"` at the kernel).
///   When the timer said when the device began the brick's work (the
///   profile's `timeline.device_starts`), the kernel starts there (device
///   clock anchored to the host's; `args.start` says so) and lasts the
///   device time, so queueing after the launch shows as the flow's length;
///   otherwise it is drawn from the brick's launch, and `args.start` says
///   that instead (queueing before the kernel ran is not shown).
/// - `otherData` names the rank, world size, local rank and run id when
///   the profile has them, with the host.
/// - `ts`/`dur` are µs with ns precision.
/// - Nesting, per track: events are ordered by start, then longer first,
///   then coarser kind (step, phase, layer, brick); an event that starts
///   before the innermost open event ends is its child, and a child that
///   ends after its parent (rounding, or clock mismatch) is clamped to the
///   parent's end. Events are written by ts, longer first.
/// - Lost records (dropped timeline events and `#[trace_op]` entries, ...)
///   are in `otherData` with the run facts and, when non-zero, appear as
///   process-scoped instant events (`ph: "i"`) at ts 0.
/// - A profile without timeline events (recorded without trace mode) still
///   gives a valid trace, never a silently empty one: a warning instant
///   event at ts 0 (`cat: "warning"`) and `otherData.warnings` say that
///   trace mode was off and how to turn it on; [`write_chrome_trace`]
///   returns the same warning.
///
/// ```
/// let mut profile = profiler::Profile::empty();
/// profile.run.name = "demo".into();
/// let json: serde_json::Value =
///     serde_json::from_str(&profiler_report::chrome_trace_json(&profile)).unwrap();
/// assert_eq!(json["traceEvents"][0]["args"]["name"], "demo");
/// assert_eq!(json["displayTimeUnit"], "ns");
/// ```
#[must_use]
pub fn chrome_trace_json(profile: &Profile) -> String {
    render(profile)
}

/// The trace of `profile`, gathered and ready to print.
fn gather(profile: &Profile) -> ChromeTrace<'_> {
    let mut trace = ChromeTrace::default();
    let name = if profile.run.name.is_empty() {
        "process".to_owned()
    } else {
        profile.run.name.clone()
    };
    trace.add_profile(profile, (profile.run.pid, 0), name, None);
    trace.kineto_header(profile);
    trace
}

/// The trace's JSON.
fn render(profile: &Profile) -> String {
    gather(profile).finish(&other(profile))
}

fn other(profile: &Profile) -> SingleOther<'_> {
    SingleOther {
        exporter: EXPORTER,
        facts: RunFacts::of(profile, None),
    }
}

/// What [`write_chrome_trace`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChromeTraceSummary {
    /// Timed events written (spans, ops and counters; no metadata).
    pub events: usize,
    /// What the trace lacks, e.g. "no timeline events: trace mode was
    /// off, ..."; the same text is in the file. Worth printing.
    pub warnings: Vec<String>,
}

/// Writes [`chrome_trace_json`] to `path` atomically, streamed (the text is
/// written event by event through a buffer), and says what it
/// wrote: a profile recorded without trace mode gives a trace with no
/// steps, phases, layers or bricks, and the returned warnings (and the
/// file's own warning event) say so rather than leaving a silently empty
/// file.
///
/// ```no_run
/// let written = profiler_report::write_chrome_trace(&profiler::snapshot(), "trace.json")?;
/// for warning in &written.warnings {
///     eprintln!("trace.json: {warning}");
/// }
/// # Ok::<(), profiler_report::ExportError>(())
/// ```
///
/// # Errors
/// [`ExportError::Write`] naming the path.
pub fn write_chrome_trace(
    profile: &Profile,
    path: impl AsRef<Path>,
) -> Result<ChromeTraceSummary, ExportError> {
    let path = path.as_ref();
    let mut events = 0;
    profiler_core::fs::write_atomic_streamed(path, |out| {
        events = gather(profile).write_to(out, &other(profile))?;
        Ok(())
    })
    .map_err(|source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(ChromeTraceSummary {
        events,
        warnings: timeline_warning(profile).into_iter().collect(),
    })
}
#[derive(Serialize)]
struct SingleOther<'a> {
    exporter: &'static str,
    #[serde(flatten)]
    facts: RunFacts<'a>,
}
