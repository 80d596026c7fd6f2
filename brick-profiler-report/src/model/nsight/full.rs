//! [`FullProfile`]: one imported kernel launch as a versioned JSON document
//! (`"version": "3.0"`; 3.0 records the ceilings as the hardware model) with hardware, kernel, timing, throughput, roofline,
//! compute and memory sections. Every number says where it came from.

use std::collections::BTreeMap;

use profiler_core::hardware::Hardware;
use serde::{Deserialize, Serialize};

use crate::model::hardware::Bound;

/// A number and where it came from: the metric read, or how it was derived
/// or assumed. Every number of a `FullProfile`
/// carries one, so a reader can tell a measurement from an estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sourced {
    /// The value, in the unit its field names.
    pub value: f64,
    /// Where it came from.
    pub source: String,
}

impl Sourced {
    pub(crate) fn new(value: f64, source: impl Into<String>) -> Option<Self> {
        value.is_finite().then(|| Self {
            value,
            source: source.into(),
        })
    }
}

/// The `version` a [`FullProfile`] is written with.
pub const FULL_PROFILE_VERSION: &str = "3.0";

/// One kernel launch with everything the reports derive from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FullProfile {
    /// Always [`FULL_PROFILE_VERSION`].
    pub version: String,
    /// Where it was read from.
    pub source: SourceSection,
    /// The device and the ceilings the kernel is judged against.
    pub hardware: HardwareSection,
    /// What ran.
    pub kernel: KernelSection,
    /// How long it ran.
    pub timing: TimingSection,
    /// Throughput as shares of the device's peaks.
    pub throughput: ThroughputSection,
    /// Where it sits on the device's roofline.
    pub roofline: RooflineSection,
    /// Arithmetic work and how busy the SMs were.
    pub compute: ComputeSection,
    /// Memory traffic and cache behaviour.
    pub memory: MemorySection,
    /// Metrics of the standard set the export lacks (their fields are null).
    pub missing: Vec<String>,
    /// Caveats: assumptions, derived values, values that were unusable.
    pub notes: Vec<String>,
}

/// Where a profile was read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSection {
    /// The tool: `ncu`.
    pub tool: String,
    /// File (or stream) read.
    pub file: String,
    /// `details` or `raw`.
    pub layout: String,
    /// 1-based line of the kernel's first row.
    pub line: usize,
}

/// The device and its ceilings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HardwareSection {
    /// The ceilings the kernel is judged against, each figure with where it
    /// came from (`None` when the device is unknown, and in files of
    /// version 2.0, which listed them in another shape).
    #[serde(default)]
    pub ceilings: Option<Hardware>,
    /// How they were chosen: given (`--hardware h100`), detected from the
    /// device name, or unknown.
    pub origin: String,
    /// `Device` as the export gives it (an index or a name).
    pub device: Option<String>,
    /// The device the export names (`device__attribute_display_name`, or a
    /// `Device` column holding a name), whether or not the hardware table
    /// knows it.
    #[serde(default)]
    pub device_name: Option<String>,
    /// Compute capability (`CC`).
    pub compute_capability: Option<String>,
}

/// What ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelSection {
    /// `ID` in the report.
    pub id: String,
    /// Kernel name as printed.
    pub name: String,
    /// Process name.
    pub process: Option<String>,
    /// Process id.
    pub process_id: Option<String>,
    /// Host name.
    pub host: Option<String>,
    /// CUDA context.
    pub context: Option<String>,
    /// CUDA stream.
    pub stream: Option<String>,
    /// Grid size (x, y, z).
    pub grid: Option<[u64; 3]>,
    /// Block size (x, y, z).
    pub block: Option<[u64; 3]>,
    /// Threads per block.
    pub threads_per_block: Option<u64>,
    /// Blocks in the grid, when the export gives their number but not the
    /// grid's shape (`launch__grid_size`, the Launch Statistics row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<u64>,
    /// Registers per thread.
    pub registers_per_thread: Option<Sourced>,
}

/// How long the launch ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingSection {
    /// GPU duration, ns.
    pub duration_ns: Option<Sourced>,
}

/// Throughput as shares of peak.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThroughputSection {
    /// SM throughput, % of peak sustained.
    pub sm_pct: Option<Sourced>,
    /// DRAM throughput, % of peak sustained.
    pub dram_pct: Option<Sourced>,
    /// DRAM bandwidth achieved, GB/s.
    pub dram_gb_s: Option<Sourced>,
    /// Tensor pipe active, % of peak sustained.
    pub tensor_pipe_pct: Option<Sourced>,
}

/// Where the kernel sits on the roofline; numeric fields are null and
/// `unavailable` says why when it cannot be placed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RooflineSection {
    /// Precision of the compute roof (`fp32`, `fp16`, ...).
    pub precision: Option<String>,
    /// Memory level of the bandwidth roof (`dram`).
    pub level: String,
    /// Ridge point, FLOP/byte.
    pub ridge_point: Option<f64>,
    /// FLOPs per DRAM byte.
    pub arithmetic_intensity: Option<f64>,
    /// Achieved TFLOP/s.
    pub achieved_tflops: Option<f64>,
    /// The roof at this intensity, TFLOP/s.
    pub attainable_tflops: Option<f64>,
    /// Memory- or compute-bound.
    pub bound: Option<Bound>,
    /// Achieved over attainable, %.
    pub efficiency_pct: Option<f64>,
    /// Ridge point minus intensity, FLOP/byte.
    pub distance_to_ridge: Option<f64>,
    /// Achieved exceeds the roof: the roof does not bound this kernel.
    pub above_roof: bool,
    /// Whether a ceiling or input used is an estimate.
    pub estimate: bool,
    /// Why the kernel could not be placed.
    pub unavailable: Option<String>,
    /// The hierarchical roofline: each memory level the export measured,
    /// fastest first, with the kernel's intensity against it and its roof
    /// (empty when the export has no per-level metrics).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<LevelPoint>,
    /// The level whose roof is lowest at the kernel's intensity there, when
    /// that roof is below the compute peak: the level that bounds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding_level: Option<String>,
}

/// A kernel on one memory level's roof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelPoint {
    /// The level (`l1`, `l2`, `dram`).
    pub level: String,
    /// Bytes the level moved.
    pub bytes: Sourced,
    /// FLOPs per byte of this level.
    pub arithmetic_intensity: f64,
    /// The level's peak bandwidth, GB/s.
    pub bandwidth_gb_s: Sourced,
    /// The roof at this intensity: the lower of the compute peak and
    /// intensity × bandwidth, TFLOP/s.
    pub attainable_tflops: f64,
    /// Achieved over attainable, %.
    pub efficiency_pct: f64,
    /// Memory- or compute-bound at this level.
    pub bound: Bound,
}

/// Arithmetic work and SM activity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComputeSection {
    /// Floating-point operations of the launch.
    pub flops: Option<Sourced>,
    /// FLOPs per precision, when counted from instruction counters.
    pub flops_by_precision: BTreeMap<String, f64>,
    /// Achieved TFLOP/s.
    pub achieved_tflops: Option<Sourced>,
    /// Warps active, % of peak.
    pub warps_active_pct: Option<Sourced>,
    /// Threads executing per instruction, % of a full warp.
    pub thread_inst_per_inst_pct: Option<Sourced>,
    /// Tensor pipe active, % of peak.
    pub tensor_pipe_pct: Option<Sourced>,
}

/// Memory traffic and caches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemorySection {
    /// DRAM bytes moved.
    pub dram_bytes: Option<Sourced>,
    /// L2 hit rate, %.
    pub l2_hit_rate_pct: Option<Sourced>,
    /// Bytes used per sector of global loads, % (coalescing).
    pub global_load_bytes_per_sector_pct: Option<Sourced>,
    /// Sectors per global load request.
    pub sectors_per_request: Option<Sourced>,
    /// Shared memory the driver reserves per block, bytes.
    pub shared_mem_driver_bytes: Option<Sourced>,
    /// Static shared memory per block, bytes.
    pub shared_mem_static_bytes: Option<Sourced>,
    /// Dynamic shared memory per block, bytes.
    pub shared_mem_dynamic_bytes: Option<Sourced>,
}
