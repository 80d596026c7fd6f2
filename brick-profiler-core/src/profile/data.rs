//! The [`Profile`] struct and its accessors, and per-category totals.

use serde::{Deserialize, Serialize};

use super::counters::Counters;
use super::device::DeviceKernels;
use super::generation::GenerationLog;
use super::layer::{Direction, LayerStats};
use super::memory::MemoryProfile;
use super::run::{RunInfo, ThreadInfo};
use super::sites::SiteInfo;
use super::steps::{PhaseStats, StepSummary};
use super::timeline::{CounterTrack, Timeline};
use super::trace::RecordedExecutionTrace;
use crate::catalogue::{BrickCategory, BrickId};
use crate::counter::saturating_sum;
use crate::kernel_data::{ExecutionGraph, KernelChecksum, PtxRegistry, TileStats};
use crate::stats::{BrickStats, CategoryStats};

/// Schema version written by this crate: `MAJOR.MINOR`. Readers accept any
/// minor version of the same major (unknown fields are ignored, missing ones
/// default) and reject a newer major.
pub const SCHEMA_VERSION: &str = "1.4";

/// A snapshot of everything the profiler recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// `MAJOR.MINOR` of the format.
    pub schema_version: String,
    /// Facts about the run.
    #[serde(default, deserialize_with = "super::run::read_run")]
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
    /// Counters (`profiler::counter`), one track per name.
    #[serde(default)]
    pub counter_tracks: Vec<CounterTrack>,
    /// Tile statistics per level (`kernel::start_tile`), levels with samples.
    #[serde(default)]
    pub tiles: Vec<TileStats>,
    /// Kernel output checksums (`kernel::record_checksum`), in call order.
    #[serde(default)]
    pub checksums: Vec<KernelChecksum>,
    /// The execution graph, when it was on (`Config::execution_graph`).
    #[serde(default)]
    pub graph: Option<ExecutionGraph>,
    /// PTX sources registered by hash (`kernel::register_ptx`).
    #[serde(default)]
    pub ptx: PtxRegistry,
    /// `#[trace_op]` entries of all threads, by start time.
    #[serde(default)]
    pub trace: RecordedExecutionTrace,
    /// Records dropped, pending or lost: never silently discarded.
    #[serde(default)]
    pub counters: Counters,
    /// Memory charged by the tracking allocator and device allocators
    /// (`None` when neither was installed; added in schema 1.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryProfile>,
    /// Each occurrence of the `prefill` and `decode` phases, for token
    /// latencies (empty when the run generated nothing).
    #[serde(default, skip_serializing_if = "GenerationLog::is_empty")]
    pub generation: GenerationLog,
    /// Kernels, copies and sets captured on the device, under the bricks
    /// that launched them (`None` unless a capture such as CUPTI ran;
    /// added in schema 1.4, absent from files without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_kernels: Option<DeviceKernels>,
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
            counter_tracks: Vec::new(),
            tiles: Vec::new(),
            checksums: Vec::new(),
            graph: None,
            ptx: PtxRegistry::default(),
            trace: RecordedExecutionTrace::default(),
            counters: Counters::default(),
            memory: None,
            generation: GenerationLog::default(),
            device_kernels: None,
        }
    }

    /// Sum of elements over all bricks.
    #[must_use]
    pub fn total_tokens(&self) -> u64 {
        let total = saturating_sum(self.bricks.iter().map(|b| b.total_elements));
        crate::contract::contract_post_token_accounting!(total, self);
        total
    }

    /// Sum of time over all bricks, ns.
    #[must_use]
    pub fn total_ns(&self) -> u64 {
        let total = saturating_sum(self.bricks.iter().map(|b| b.total_ns));
        crate::contract::contract_post_wall_coverage!(total, self);
        total
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
        let canonical = BrickId::from_str(name).map_or(name, |id| id.name());
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
        let covered = saturating_sum(self.phases.iter().map(|p| p.in_steps_ns));
        Some((covered as f64 / self.steps.total_ns as f64).clamp(0.0, 1.0))
    }
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

impl CategoryEntry {
    /// Category totals over `bricks`, one entry per category in index order.
    #[must_use]
    pub fn all_of(bricks: &[BrickStats]) -> Vec<CategoryEntry> {
        BrickCategory::ALL
            .iter()
            .map(|&category| {
                let mut stats = CategoryStats::default();
                for b in bricks.iter().filter(|b| b.category == category) {
                    stats.total_ns = stats.total_ns.saturating_add(b.total_ns);
                    stats.total_elements = stats.total_elements.saturating_add(b.total_elements);
                    stats.count = stats.count.saturating_add(b.count);
                }
                CategoryEntry { category, stats }
            })
            .collect()
    }
}
