//! [`Profile`]: the versioned, serialisable snapshot every report reads.
//!
//! A profile is plain data. It round-trips through JSON, is written
//! atomically (temp file + rename), and a reader rejects a newer major schema
//! with a clear error while filling missing optional fields with defaults.

mod ceilings;
mod counters;
mod io;

use serde::{Deserialize, Serialize};

use crate::catalogue::BrickCategory;
use crate::clock::ClockSource;
use crate::layers::{Direction, LayerStats};
use crate::session::Schedule;
use crate::site::SiteInfo;
use crate::stats::{BrickStats, CategoryStats};
use crate::sync::SyncMode;
use crate::timeline::Timeline;
use crate::trace::RecordedExecutionTrace;

pub use ceilings::{BandwidthCeiling, FlopsCeiling, MeasuredCeilings};
pub use counters::Counters;
pub use io::{ProfileError, SCHEMA_VERSION, write_atomic};

/// A snapshot of everything the profiler recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// `MAJOR.MINOR` of the format.
    pub schema_version: String,
    /// Facts about the run.
    #[serde(default)]
    pub run: RunInfo,
    /// Bricks with at least one sample, by total time descending.
    #[serde(default)]
    pub bricks: Vec<BrickStats>,
    /// Totals per category, in category index order.
    #[serde(default)]
    pub categories: Vec<CategoryEntry>,
    /// Every `#[brick]` call site linked into the program.
    #[serde(default)]
    pub sites: Vec<SiteInfo>,
    /// Training/inference steps.
    #[serde(default)]
    pub steps: StepSummary,
    /// Phases, in first-seen order.
    #[serde(default)]
    pub phases: Vec<PhaseStats>,
    /// Layers by index, forward before backward.
    #[serde(default)]
    pub layers: Vec<LayerStats>,
    /// Threads that recorded.
    #[serde(default)]
    pub threads: Vec<ThreadInfo>,
    /// Trace-mode timeline (empty unless trace mode was on).
    #[serde(default)]
    pub timeline: Timeline,
    /// `#[trace_op]` entries of all threads, by start time.
    #[serde(default)]
    pub trace: RecordedExecutionTrace,
    /// Records dropped, pending or lost: never silently discarded.
    #[serde(default)]
    pub counters: Counters,
}

/// Facts about the run a profile came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run name (program name unless set).
    #[serde(default)]
    pub name: String,
    /// When recording started, ns since the Unix epoch (aligns the timelines
    /// of several processes or ranks).
    #[serde(default)]
    pub started_at_unix_ns: u64,
    /// This process's rank in a distributed run (`set_rank`, or `RANK`).
    #[serde(default)]
    pub rank: Option<u32>,
    /// Number of ranks in the run (`set_rank`, or `WORLD_SIZE`).
    #[serde(default)]
    pub world_size: Option<u32>,
    /// Wall time from the first `enable()` to the snapshot, ns.
    #[serde(default)]
    pub wall_ns: u64,
    /// Host name, if known.
    #[serde(default)]
    pub host: String,
    /// Process id.
    #[serde(default)]
    pub pid: u32,
    /// Threads that recorded since the last reset.
    #[serde(default)]
    pub threads_seen: u32,
    /// Sync mode at snapshot time.
    #[serde(default)]
    pub sync_mode: SyncMode,
    /// Whether a device timer was installed.
    #[serde(default)]
    pub device_timer: bool,
    /// Clock behind the timestamps.
    #[serde(default)]
    pub clock: ClockInfo,
    /// Measured cost of the profiler itself, when calibrated.
    #[serde(default)]
    pub overhead: Option<Overhead>,
    /// Hardware the run used, when known.
    #[serde(default)]
    pub hardware: Option<HardwareInfo>,
    /// Bandwidth and peak FLOP/s measured on this machine, when probed.
    #[serde(default)]
    pub measured_ceilings: Option<MeasuredCeilings>,
    /// L2 cache hit rate in `[0, 1]`, when measured.
    #[serde(default)]
    pub l2_cache_hit_rate: Option<f32>,
    /// Whether zero-copy transfers were used.
    #[serde(default)]
    pub zero_copy: bool,
    /// Caveats a reader must know (e.g. overhead subtracted).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The clock behind a profile's timestamps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// Counter used.
    pub source: ClockSource,
    /// Calibrated nanoseconds per tick.
    pub ns_per_tick: f64,
}

/// The profiler's own per-call cost, measured at run time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// Time an enabled `#[brick]` adds to its caller, ns per call.
    pub per_call_ns: f64,
    /// Time an empty brick records as its own duration, ns: the bias in every
    /// sample, and what subtraction removes.
    pub floor_ns: f64,
    /// Whether `floor_ns` was subtracted from every sample in this profile.
    pub subtracted: bool,
}

/// Hardware a run used (set with `set_hardware`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HardwareInfo {
    /// Device name, e.g. "RTX 4090".
    pub name: String,
    /// Peak memory bandwidth, GB/s.
    #[serde(default)]
    pub peak_bw_gb_s: Option<f64>,
    /// Dense peak, TFLOP/s.
    #[serde(default)]
    pub peak_tflops: Option<f64>,
    /// Bytes moved per token (for memory-bound throughput ceilings).
    #[serde(default)]
    pub bytes_per_token: Option<f64>,
}

/// One category's totals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CategoryEntry {
    /// The category.
    pub category: BrickCategory,
    /// Its totals.
    #[serde(flatten)]
    pub stats: CategoryStats,
}

/// Recorded steps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSummary {
    /// Steps recorded.
    pub count: u64,
    /// Steps skipped by the schedule (wait and warm-up) while enabled.
    #[serde(default)]
    pub skipped: u64,
    /// Tokens of recorded steps.
    #[serde(default)]
    pub tokens: u64,
    /// Wall time of recorded steps, ns.
    #[serde(default)]
    pub total_ns: u64,
    /// Per-step wall times, ns (the first 100 000 steps).
    #[serde(default)]
    pub samples_ns: Vec<u64>,
    /// Steps beyond the sample cap (counted in totals, not in `samples_ns`).
    #[serde(default)]
    pub samples_dropped: u64,
    /// The schedule in force.
    #[serde(default)]
    pub schedule: Option<Schedule>,
}

impl StepSummary {
    /// Mean step time, ms (0 without steps).
    #[must_use]
    pub fn avg_step_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64 / 1e6
        }
    }

    /// Tokens per second over recorded steps (0 without time).
    #[must_use]
    pub fn tokens_per_s(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.tokens as f64 / (self.total_ns as f64 / 1e9)
        }
    }
}

/// Time spent in one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseStats {
    /// Phase name.
    pub name: String,
    /// Times the phase ran.
    pub count: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Shortest occurrence, ns.
    #[serde(default)]
    pub min_ns: u64,
    /// Longest occurrence, ns.
    #[serde(default)]
    pub max_ns: u64,
    /// Time of top-level occurrences inside recorded steps, ns (wall coverage).
    #[serde(default)]
    pub in_steps_ns: u64,
}

impl PhaseStats {
    /// Mean time per occurrence, ms.
    #[must_use]
    pub fn avg_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64 / 1e6
        }
    }
}

/// A thread that recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadInfo {
    /// Dense thread number, 1-based in registration order.
    pub thread: u32,
    /// Thread name, if it had one.
    #[serde(default)]
    pub name: Option<String>,
    /// Whether the thread had exited by the snapshot.
    #[serde(default)]
    pub exited: bool,
}

impl Profile {
    /// An empty profile of the current schema.
    #[must_use]
    pub fn empty() -> Self {
        Self {
            schema_version: SCHEMA_VERSION.to_owned(),
            run: RunInfo::default(),
            bricks: Vec::new(),
            categories: Vec::new(),
            sites: Vec::new(),
            steps: StepSummary::default(),
            phases: Vec::new(),
            layers: Vec::new(),
            threads: Vec::new(),
            timeline: Timeline::default(),
            trace: RecordedExecutionTrace::default(),
            counters: Counters::default(),
        }
    }

    /// Sum of elements over all bricks.
    #[must_use]
    pub fn total_tokens(&self) -> u64 {
        self.bricks
            .iter()
            .fold(0u64, |acc, b| acc.saturating_add(b.total_elements))
    }

    /// Sum of time over all bricks, ns.
    #[must_use]
    pub fn total_ns(&self) -> u64 {
        self.bricks
            .iter()
            .fold(0u64, |acc, b| acc.saturating_add(b.total_ns))
    }

    /// `total_tokens / (total_ns / 1e9)` (0 without time).
    #[must_use]
    pub fn total_throughput(&self) -> f64 {
        let ns = self.total_ns();
        if ns == 0 {
            0.0
        } else {
            self.total_tokens() as f64 / (ns as f64 / 1e9)
        }
    }

    /// The brick named `name` (built-in aliases resolve), if it has samples.
    #[must_use]
    pub fn brick(&self, name: &str) -> Option<&BrickStats> {
        let canonical = crate::BrickId::from_str(name).map_or(name, |id| id.name());
        self.bricks.iter().find(|b| b.name == canonical)
    }

    /// Totals of one category (zeros if absent).
    #[must_use]
    pub fn category(&self, category: BrickCategory) -> CategoryStats {
        self.categories
            .iter()
            .find(|c| c.category == category)
            .map(|c| c.stats)
            .unwrap_or_default()
    }

    /// Registered call sites whose brick never recorded a sample.
    #[must_use]
    pub fn uncalled_sites(&self) -> Vec<&SiteInfo> {
        self.sites
            .iter()
            .filter(|s| self.brick(&s.name).is_none())
            .collect()
    }

    /// The layer `index` in `direction`, if recorded.
    #[must_use]
    pub fn layer(&self, index: u32, direction: Direction) -> Option<&LayerStats> {
        self.layers
            .iter()
            .find(|l| l.index == index && l.direction == direction)
    }

    /// Time inside top-level phases over step wall time, in `[0, 1]`;
    /// `None` without recorded steps.
    #[must_use]
    pub fn wall_coverage(&self) -> Option<f64> {
        if self.steps.total_ns == 0 {
            return None;
        }
        let covered = self
            .phases
            .iter()
            .fold(0u64, |acc, p| acc.saturating_add(p.in_steps_ns));
        Some((covered as f64 / self.steps.total_ns as f64).clamp(0.0, 1.0))
    }
}
