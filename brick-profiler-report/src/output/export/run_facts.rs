//! What a Chrome trace says about the run besides its events: the facts in
//! `otherData` and the lost-record warnings shown as instant events.

use profiler_core::{
    Profile,
    profile::{ClockSource, Counters},
    sync::SyncMode,
};
use serde::Serialize;

/// Facts about one run for `otherData`.
#[derive(Serialize)]
pub(crate) struct RunFacts<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    world_size: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local_rank: Option<u32>,
    #[serde(skip_serializing_if = "str::is_empty")]
    run_id: &'a str,
    run: &'a str,
    host: &'a str,
    pid: u32,
    schema_version: &'a str,
    started_at_unix_ns: u64,
    wall_ns: u64,
    threads_seen: u32,
    sync_mode: SyncMode,
    clock_source: ClockSource,
    ns_per_tick: f64,
    steps: u64,
    timeline_dropped: u64,
    trace_entries_dropped: u64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    /// What the trace lacks, e.g. the timeline of a run without trace mode.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

impl<'a> RunFacts<'a> {
    pub(crate) fn of(profile: &'a Profile, rank: Option<u32>) -> Self {
        let counters = counters(profile);
        Self {
            // A merged trace's position, else the rank the profile recorded.
            rank: rank.or(profile.run.rank),
            world_size: profile.run.world_size,
            local_rank: profile.run.local_rank,
            run_id: &profile.run.run_id,
            run: &profile.run.name,
            host: &profile.run.host,
            pid: profile.run.pid,
            schema_version: &profile.schema_version,
            started_at_unix_ns: profile.run.started_at_unix_ns,
            wall_ns: profile.run.wall_ns,
            threads_seen: profile.run.threads_seen,
            sync_mode: profile.run.sync_mode,
            clock_source: profile.run.clock.source,
            ns_per_tick: profile.run.clock.ns_per_tick,
            steps: profile.steps.count,
            timeline_dropped: counters.timeline_dropped,
            trace_entries_dropped: counters.trace_entries_dropped,
            notes: &profile.run.notes,
            warnings: timeline_warning(profile).into_iter().collect(),
        }
    }
}

/// Lost-record counters, with the timeline's own drop count folded in.
pub(crate) fn counters(profile: &Profile) -> Counters {
    let mut c = profile.counters;
    c.timeline_dropped = c.timeline_dropped.max(profile.timeline.dropped);
    c
}

/// The warning for a profile without timeline events (trace mode was off):
/// its Chrome trace has no steps, phases, layers or bricks.
pub(crate) fn timeline_warning(profile: &Profile) -> Option<String> {
    if profile.timeline.event_count() > 0 {
        return None;
    }
    let shown = if profile.trace.entries.is_empty() {
        "this trace has no events"
    } else {
        "only #[trace_op] entries are shown"
    };
    Some(format!(
        "no timeline events: trace mode was off, so {shown}; for steps, phases, layers and \
         bricks, enable it with profiler::Config::new().trace_mode(true) before the run"
    ))
}

/// Non-zero lost-record counters as `(message, count)`.
pub(crate) fn warnings(profile: &Profile) -> Vec<(String, u64)> {
    // Each line of `Counters::warnings` is "{count} {what}".
    counters(profile)
        .warnings()
        .into_iter()
        .map(|line| {
            let count = line
                .split_once(' ')
                .and_then(|(n, _)| n.parse().ok())
                .unwrap_or(0);
            (format!("warning: {line}"), count)
        })
        .collect()
}

/// The generator named in every export and the HTML report.
pub(crate) const EXPORTER: &str = "brick-profiler-report";
