//! The run section: the warnings a reader must see before trusting the
//! numbers, then the run's facts (host, clock, sync mode, overhead,
//! hardware).

use std::fmt::Write as _;

use profiler_core::hardware::{Hardware, MemoryLevel};
use profiler_core::{
    Profile,
    profile::{ClockSource, RunInfo},
    sync::SyncMode,
};

use super::parts::facts;
use crate::base::escape;
use crate::base::textfmt::{DASH, duration, num, pct, utc_iso8601};

/// Lines a reader must see before trusting the numbers: lost, dropped and
/// pending records first, then the run's notes.
pub(crate) fn warnings(profile: &Profile) -> Vec<String> {
    // The timeline keeps its own drop count; report the larger of the two.
    let mut counters = profile.counters;
    counters.timeline_dropped = counters.timeline_dropped.max(profile.timeline.dropped);
    let mut lines = counters.warnings();
    lines.extend(profile.run.notes.iter().cloned());
    lines
}

/// Run facts, preceded by the warning box when there is anything to warn about.
pub(crate) fn run(profile: &Profile) -> String {
    let mut s = alerts(&warnings(profile));
    let rows: Vec<(String, String)> = rows(&profile.run)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    facts(&mut s, &rows);
    s
}

/// The alert box listing `lines`; nothing when there are none.
fn alerts(lines: &[String]) -> String {
    let mut s = String::new();
    if !lines.is_empty() {
        let _ = writeln!(
            s,
            "<div class=\"alert\" role=\"alert\">\n<p class=\"alert-title\">⚠ {} warning{}: read before trusting the numbers</p>\n<ul>",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        );
        for line in lines {
            let _ = writeln!(s, "<li>{}</li>", escape::html(line));
        }
        s.push_str("</ul>\n</div>\n");
    }
    s
}

/// The run's facts, label and HTML value, in order.
fn rows(run: &RunInfo) -> Vec<(&'static str, String)> {
    let text = |v: &str| {
        if v.is_empty() {
            DASH.to_owned()
        } else {
            escape::html(v)
        }
    };
    let mut rows: Vec<(&str, String)> = vec![
        ("Run", text(&run.name)),
        ("Host", text(&run.host)),
        ("Process id", run.pid.to_string()),
    ];
    if let Some(rank) = run.rank {
        let world = run
            .world_size
            .map_or_else(|| "?".to_owned(), |w| w.to_string());
        rows.push(("Rank", format!("{rank} of {world}")));
    }
    rows.push(("Started (UTC)", utc_iso8601(run.started_at_unix_ns)));
    rows.push(("Wall time", duration(run.wall_ns as f64)));
    rows.push(("Threads", run.threads_seen.to_string()));
    rows.push(("Clock", clock(run)));
    rows.push(("Sync mode", sync(run)));
    rows.push(("Profiler overhead", overhead(run)));
    if let Some(hw) = &run.hardware {
        rows.push(("Hardware", hardware(hw)));
    }
    if let Some(rate) = run.l2_cache_hit_rate {
        rows.push(("L2 hit rate", pct(f64::from(rate) * 100.0)));
    }
    rows
}

/// The clock source and its tick.
fn clock(run: &RunInfo) -> String {
    let clock = match run.clock.source {
        ClockSource::Tsc => "TSC",
        ClockSource::CntVct => "CNTVCT",
        ClockSource::Monotonic => "monotonic (Instant)",
    };
    format!("{clock}, {} ns/tick", num(run.clock.ns_per_tick))
}

/// The sync mode and whether a device timer was installed.
fn sync(run: &RunInfo) -> String {
    let sync = match run.sync_mode {
        SyncMode::Immediate => "immediate",
        SyncMode::PerLayer => "per layer",
        SyncMode::Deferred => "deferred",
        SyncMode::None => "none (CPU timestamps)",
    };
    let timer = if run.device_timer {
        "device timer installed"
    } else {
        "no device timer"
    };
    format!("{sync}, {timer}")
}

/// The profiler's calibrated overhead per call, and whether it was
/// subtracted.
fn overhead(run: &RunInfo) -> String {
    run.overhead.map_or_else(
        || "not calibrated".to_owned(),
        |o| {
            format!(
                "{} ns per call, floor {} ns ({})",
                num(o.per_call_ns),
                num(o.floor_ns),
                if o.subtracted {
                    "subtracted from every sample"
                } else {
                    "not subtracted"
                }
            )
        },
    )
}

/// The recorded hardware in one cell: name, DRAM bandwidth, dense peak.
fn hardware(hw: &Hardware) -> String {
    let mut v = escape::html(&hw.name);
    if let Some(bw) = hw.memory(MemoryLevel::Dram).map(|f| f.value) {
        let _ = write!(v, ", {} GB/s", num(bw));
    }
    if let Some(tf) = hw.dense_peak_tflops() {
        let _ = write!(v, ", {} TFLOP/s", num(tf));
    }
    v
}
