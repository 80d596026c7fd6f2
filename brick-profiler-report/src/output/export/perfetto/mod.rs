//! Perfetto's native trace format (`trace.pftrace`): a `Trace` protobuf of
//! track descriptors and track events as Perfetto's SDK writes them
//! (interned names, one sequence per thread with an incremental clock),
//! compressed in chunks as Perfetto's tracing service does, streamed as
//! the profile is walked. It shows what the Chrome trace shows in a small
//! fraction of the bytes (see `docs/PERFORMANCE.md`).

mod args;
mod proto;
mod sequence;
mod walk;

use std::io::Write;
use std::path::Path;

use profiler_core::Profile;

use super::run_facts::timeline_warning;
use crate::output::error::ExportError;
use sequence::Packets;
use walk::{Process, Walk};

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
/// tables and one chunk of packets, never the whole trace.
///
/// The file holds what [`chrome_trace_json`](crate::output::export::chrome::chrome_trace_json)
/// holds, in Perfetto's track event format:
/// - one process track (the run's pid and name), a thread track per
///   recording thread and per thread's `#[trace_op]` entries (named as in
///   the Chrome trace), and a `stream 7 (device 0)` track when a device
///   timer timed the bricks;
/// - steps, phases, layers and bricks as nested slices (`TYPE_SLICE_BEGIN`
///   and `TYPE_SLICE_END`, same nesting and clamping, same category), their
///   args as debug annotations, the rates the Chrome trace derives
///   (`gflop_per_s`, `gb_per_s`, `flop_per_byte`, `tokens_per_s`) included;
///   `ProfilerStep#N` slices for a rank;
/// - each device-timed brick's kernel on a `stream 7 (device 0)` track of
///   its launching thread (kernels of two threads never mis-nest), linked
///   by a flow (`flow_ids` on the brick, `terminating_flow_ids` on the
///   kernel);
/// - `profiler::counter` values, live memory and op output sizes as
///   counter tracks;
/// - warnings as instant events at time 0 on the process track.
///
/// Each timeline thread is one packet sequence (its track the default,
/// timestamps deltas on Perfetto's incremental clock); descriptors,
/// kernels, ops and counters are another. Event names, categories, arg keys
/// and string values are interned once per sequence. Packets are written
/// in zlib-compressed chunks (`compressed_packets`, as `traced` writes with
/// `compression_type: COMPRESSION_TYPE_DEFLATE`); Perfetto's UI and trace
/// processor inflate them. Times are ns since the run's start.
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
    let (written, ..) = Walk::new(profile, Packets::new(out), Process::of(profile)).run()?;
    let (packets, events) = written.counts();
    written.finish()?;
    Ok(PerfettoTraceSummary {
        packets,
        events,
        warnings: timeline_warning(profile).into_iter().collect(),
    })
}

/// Several ranks' profiles as one Perfetto trace, each `(rank, profile,
/// offset ns)` one process (pid = rank) named `rank N (host)` (or `rank N`
/// without a host), its times `offset` later than the trace's zero, as
/// `merge_ranked` lays out the Chrome trace.
/// The warnings are each rank's, prefixed with `rank N: `.
pub(crate) fn write_ranks_to(
    ranked: &[(u32, &Profile, u64)],
    out: impl Write,
) -> std::io::Result<PerfettoTraceSummary> {
    let mut packets = Packets::new(out);
    let (mut first_seq, mut correlation) = (1, 0);
    let mut warnings = Vec::new();
    for &(rank, profile, offset) in ranked {
        let host = &profile.run.host;
        let name = if host.is_empty() {
            format!("rank {rank}")
        } else {
            format!("rank {rank} ({host})")
        };
        let process = Process {
            pid: rank,
            name,
            offset,
            first_seq,
            correlation,
        };
        (packets, first_seq, correlation) = Walk::new(profile, packets, process).run()?;
        let warning = timeline_warning(profile);
        warnings.extend(warning.map(|w| format!("rank {rank}: {w}")));
    }
    let (packets_written, events) = packets.counts();
    packets.finish()?;
    Ok(PerfettoTraceSummary {
        packets: packets_written,
        events,
        warnings,
    })
}

#[cfg(test)]
mod tests;
