//! hotpath `#[hotpath::measure]`, really recording (cargo feature
//! `hotpath`; without it the attribute compiles to nothing).
//!
//! A measured call pushes an event onto a per-thread queue; a background
//! worker drains the queues every 50 ms (at most 65 536 events per queue per
//! sweep) and aggregates them. Each batch therefore waits until the worker
//! has had time to drain it, inside the all-in CPU window, and the cost of
//! the final report (written when the guard drops) is spread over every
//! hotpath call. Call counts come from that report.

use std::hint::black_box;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Barrier;
use std::time::Duration;

use hotpath::{Format, HotpathGuard, HotpathGuardBuilder};

use crate::measure::{Timing, call_n, ns_per_call, process_cpu_ns};
use crate::team::Team;
use crate::variant::{Batch, Expect, Recorded, Variant};

/// Most events the worker takes from one queue per sweep (hotpath-drain).
const EVENTS_PER_SWEEP: u64 = 65_536;
/// The worker's default sweep interval.
const DEFAULT_DRAIN_MS: u64 = 50;

const SINGLE: &str = concat!(module_path!(), "::measured");
const MULTI: &str = concat!(module_path!(), "::measured_threads");

#[hotpath::measure]
#[inline(never)]
fn measured(x: u64) -> u64 {
    black_box(x)
}

/// Same body; a separate name so the report counts the two variants apart.
#[hotpath::measure]
#[inline(never)]
fn measured_threads(x: u64) -> u64 {
    black_box(x)
}

fn job(calls: u64, start: &Barrier) -> Timing {
    start.wait();
    ns_per_call(calls, |n| call_n(n, measured_threads))
}

/// Sleeps until the worker has swept a batch of `calls` events per queue.
fn settle(calls: u64) {
    let interval = std::env::var("HOTPATH_DRAIN_INTERVAL_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_DRAIN_MS);
    let sweeps = calls.div_ceil(EVENTS_PER_SWEEP) + 2;
    std::thread::sleep(Duration::from_millis(sweeps * interval));
}

/// The live hotpath guard; its report is read in [`Session::finish`].
pub struct Session {
    guard: Option<HotpathGuard>,
    report: PathBuf,
}

/// What hotpath's own report said.
#[derive(Debug, Clone)]
pub struct Report {
    /// Where the JSON report was written.
    pub path: PathBuf,
    /// (function, calls, calls timed, average) for each measured function.
    pub functions: Vec<(String, u64, u64, String)>,
    /// Process CPU spent writing the report, ns.
    pub cpu_ns: u64,
}

/// Starts hotpath (its metrics server off) and returns the single- and
/// multi-thread variants.
///
/// # Panics
/// If a hotpath guard already exists.
#[must_use]
pub fn start(team: Rc<Team>) -> (Session, Variant, Variant) {
    let report = std::env::temp_dir().join(format!(
        "overhead-bench-hotpath-{}.json",
        std::process::id()
    ));
    let guard = HotpathGuardBuilder::new("overhead-bench")
        .format(Format::Json)
        .output_path(&report)
        .functions_limit(0)
        .build();
    let single = Variant::new("hotpath", "hotpath #[measure]", 1, Expect::Every, |calls| {
        let timing = ns_per_call(calls, |n| call_n(n, measured));
        settle(calls);
        Batch {
            timing,
            recorded: Recorded::AtEnd,
        }
    });
    let threads = team.size() as u32;
    let multi = Variant::new(
        "hotpath-threads",
        "hotpath #[measure]",
        threads,
        Expect::Every,
        move |calls| {
            let timing = team.run(job, calls);
            settle(calls);
            Batch {
                timing,
                recorded: Recorded::AtEnd,
            }
        },
    );
    let session = Session {
        guard: Some(guard),
        report,
    };
    (session, single, multi)
}

impl Session {
    /// Drops the guard (hotpath drains everything and writes its report),
    /// reads the call counts into the two variants and charges the report's
    /// CPU time to their calls.
    ///
    /// # Errors
    /// If the report cannot be read or parsed.
    pub fn finish(mut self, variants: &mut [Variant]) -> Result<Report, String> {
        let before = process_cpu_ns();
        drop(self.guard.take());
        let cpu_ns = process_cpu_ns()
            .zip(before)
            .map_or(0, |(a, b)| a.saturating_sub(b));
        let text = std::fs::read_to_string(&self.report)
            .map_err(|e| format!("read hotpath report {}: {e}", self.report.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("parse hotpath report: {e}"))?;
        let functions: Vec<(String, u64, u64, String)> = json["functions_timing"]["data"]
            .as_array()
            .ok_or("hotpath report has no functions_timing.data")?
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap_or("?").to_owned(),
                    f["calls"].as_u64().unwrap_or(0),
                    f["sampled_calls"].as_u64().unwrap_or(0),
                    f["avg"].as_str().unwrap_or("?").to_owned(),
                )
            })
            .collect();
        let recorded = |name: &str| {
            functions
                .iter()
                .find(|f| f.0 == name)
                .map_or(0, |f| f.1.min(f.2))
        };
        let ours: Vec<&mut Variant> = variants
            .iter_mut()
            .filter(|v| v.key.starts_with("hotpath"))
            .collect();
        let calls: u64 = ours.iter().map(|v| v.made).sum();
        for v in ours {
            v.recorded = Some(recorded(if v.threads == 1 { SINGLE } else { MULTI }));
            v.charge_cpu(cpu_ns as f64 / calls.max(1) as f64);
        }
        Ok(Report {
            path: self.report.clone(),
            functions,
            cpu_ns,
        })
    }
}
