//! How the probes measured a machine: [`Measurement`], the facts behind
//! one measured figure (kernel, threads, repetitions, spread), carried by
//! `Source::Measured`, and [`ProbeRun`], the facts of the whole run of the
//! probes (when, what else ran, caveats), kept on `Hardware::probe`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::units::MemoryLevel;

/// How one figure was measured, so a reader can judge it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Median repetition, in the figure's unit: how far the best (the
    /// figure) stands from the typical run.
    #[serde(default)]
    pub median: f64,
    /// The kernel, and for a bandwidth the byte-counting convention.
    #[serde(default)]
    pub method: String,
    /// Instruction set of a compute kernel: `"avx512f"`, `"avx2+fma"`,
    /// `"neon"`, `"portable"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isa: Option<String>,
    /// Threads that ran the kernel at once.
    #[serde(default)]
    pub threads: u32,
    /// Independent accumulator chains per thread, for a compute kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chains: Option<u32>,
    /// Floating-point lanes per chain (vector width), for a compute kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lanes: Option<u32>,
    /// Size of each of a bandwidth kernel's arrays, summed over threads,
    /// bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u64>,
    /// Cache size a bandwidth kernel's buffers were sized against, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    /// Where `cache_bytes` came from: `"sysfs"` or `"assumed"`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cache_bytes_source: String,
    /// Timed repetitions (the best is the figure).
    #[serde(default)]
    pub repetitions: u32,
    /// Spread of the best three repetitions, % (third-best below best):
    /// how far the best had converged; absent before three.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_spread_pct: Option<f64>,
    /// Wall time of the whole probe, allocation included, ns.
    #[serde(default)]
    pub duration_ns: u64,
}

/// The facts of one run of the probes that belong to no single figure:
/// when it ran, what else shared the CPU meanwhile, the caches it read and
/// the caveats a reader must know. Whether the machine was busy is
/// `Hardware::busy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeRun {
    /// When the probes ran, ns since the Unix epoch (0 when unknown).
    #[serde(default)]
    pub measured_at_unix_ns: u64,
    /// Fewest other runnable tasks seen while probing (`procs_running` in
    /// `/proc/stat`, less the probe itself), when readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_runnable: Option<u32>,
    /// CPU time stolen by the hypervisor while probing, % of all CPU time,
    /// when readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_pct: Option<f64>,
    /// Largest spread between repetitions of one probe, % (median below
    /// best): noise the bests rise above, not a sign of other work by
    /// itself.
    #[serde(default)]
    pub spread_pct: f64,
    /// Largest spread of one probe's best three repetitions, % (third-best
    /// below best): how well the bests converged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_spread_pct: Option<f64>,
    /// Lowest share of its CPU time a probe's best repetition ran with, %,
    /// when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_cpu_pct: Option<f64>,
    /// Probes whose best did not settle, in words: their own ceilings may
    /// be low; the machine is not called busy for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsettled: Vec<String>,
    /// Instances of each cache level across the machine (one per core for
    /// L1, per socket or core complex for L3), as the OS gave them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cache_instances: BTreeMap<MemoryLevel, u64>,
    /// Caveats a reader must know (e.g. buffers capped below the STREAM
    /// rule, a build without optimisations).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
