//! Perfetto's native trace format (`trace.pftrace`): a `Trace` protobuf of
//! track descriptors and track events, the format Perfetto's own SDK
//! writes, streamed packet by packet as the profile is walked. It shows
//! what the Chrome trace shows, in about a fifth of the bytes.

mod args;
mod proto;
mod sequence;
mod walk;

use std::io::Write;
use std::path::Path;

use profiler_core::Profile;

use super::run_facts::timeline_warning;
use crate::output::error::ExportError;
use sequence::Sequence;
use walk::Walk;

/// What [`write_perfetto_trace`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PerfettoTraceSummary {
    /// Packets written (track descriptors and track events).
    pub packets: usize,
    /// Track events written: slice begins and ends, instants and counter
    /// values.
    pub events: usize,
    /// What the trace lacks (e.g. the timeline of a run recorded without
    /// trace mode); the same text is an instant event in the file.
    pub warnings: Vec<String>,
}

/// Writes `profile` as a Perfetto trace (the `Trace` protobuf,
/// `trace.pftrace`) to `path` atomically, streamed: memory is the interning
/// tables and one packet, never the whole trace.
///
/// The file holds what [`chrome_trace_json`](crate::output::export::chrome::chrome_trace_json)
/// holds, in Perfetto's track event format:
/// - one process track (the run's pid and name), a thread track per
///   recording thread and per thread's `#[trace_op]` entries (named as in
///   the Chrome trace), and a `stream 7 (device 0)` track when a device
///   timer timed the bricks;
/// - steps, phases, layers and bricks as nested slices (`TYPE_SLICE_BEGIN`
///   and `TYPE_SLICE_END`, same nesting and clamping, same category), their
///   args as debug annotations; `ProfilerStep#N` slices for a rank;
/// - each device-timed brick's kernel on the stream track, linked by a flow
///   (`flow_ids` on the brick, `terminating_flow_ids` on the kernel);
/// - `profiler::counter` values, live memory and op output sizes as
///   counter tracks;
/// - warnings as instant events at time 0 on the process track.
///
/// Event names, categories and arg keys are interned once on the one
/// packet sequence. Times are ns since the run's start.
///
/// ```no_run
/// let written = profiler_report::write_perfetto_trace(&profiler::snapshot(), "trace.pftrace")?;
/// println!("{} events", written.events);
/// # Ok::<(), profiler_report::ExportError>(())
/// ```
///
/// # Errors
/// [`ExportError::Write`] naming the path.
pub fn write_perfetto_trace(
    profile: &Profile,
    path: impl AsRef<Path>,
) -> Result<PerfettoTraceSummary, ExportError> {
    let path = path.as_ref();
    let mut summary = PerfettoTraceSummary::default();
    profiler_core::fs::write_atomic_streamed(path, |out| {
        summary = write_perfetto_trace_to(profile, out)?;
        Ok(())
    })
    .map_err(|source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(summary)
}

/// [`write_perfetto_trace`] into any writer (wrap a file or stdout in a
/// `BufWriter`: each packet is one write).
///
/// ```
/// let mut profile = profiler::Profile::empty();
/// profile.run.name = "demo".into();
/// let mut bytes = Vec::new();
/// let written = profiler_report::export::write_perfetto_trace_to(&profile, &mut bytes)?;
/// assert_eq!(bytes[0], 0x0a, "field 1 of Trace: a packet");
/// assert_eq!(written.warnings.len(), 1, "no timeline: trace mode was off");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
/// The writer's error.
pub fn write_perfetto_trace_to(
    profile: &Profile,
    out: impl Write,
) -> std::io::Result<PerfettoTraceSummary> {
    let seq = Walk::new(profile, Sequence::new(out)).run()?;
    let (packets, events) = seq.counts();
    seq.finish()?;
    Ok(PerfettoTraceSummary {
        packets,
        events,
        warnings: timeline_warning(profile).into_iter().collect(),
    })
}

#[cfg(test)]
mod tests;
