//! [`MeasuredCeilings`]: memory bandwidth and peak FLOP/s of the machine a
//! run used, measured by micro-benchmarks, together with how they were
//! measured so a reader can judge the numbers. Plain data: the probes live in
//! `brick-profiler-report`.

use serde::{Deserialize, Serialize};

/// Empirical ceilings of the machine a profile was recorded on.
///
/// Set with `Config::measured_ceilings`; every
/// later snapshot carries them in `RunInfo::measured_ceilings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MeasuredCeilings {
    /// The processor the probes ran on, as the OS names it (may be empty).
    #[serde(default)]
    pub cpu: String,
    /// When the probes ran, ns since the Unix epoch.
    #[serde(default)]
    pub measured_at_unix_ns: u64,
    /// Main-memory bandwidth: a triad over buffers larger than the last-level
    /// cache.
    #[serde(default)]
    pub memory_bandwidth: Option<BandwidthCeiling>,
    /// Bandwidth of a cache level (buffers sized to stay resident in it).
    #[serde(default)]
    pub cache_bandwidth: Option<BandwidthCeiling>,
    /// Peak floating-point rate.
    #[serde(default)]
    pub peak_flops: Option<FlopsCeiling>,
    /// Bandwidth of every cache level probed (L1, L2, L3...), fastest first;
    /// `cache_bandwidth` repeats the L2 figure for readers of earlier files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cache_levels: Vec<BandwidthCeiling>,
    /// Peaks of the other precisions the CPU supports (FP64, ...), measured
    /// like `peak_flops`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_peaks: Vec<FlopsCeiling>,
    /// Data and unified caches of the machine, fastest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caches: Vec<CacheSize>,
    /// What else ran on the machine while it was probed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<Contention>,
    /// Caveats a reader must know (e.g. buffers capped below the STREAM rule).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One cache level of the machine and where its size came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheSize {
    /// Cache level: 1, 2, 3...
    pub level: u32,
    /// Size of one instance (what one core sees), bytes.
    pub bytes: u64,
    /// Instances across the machine (one per core for L1, per socket or
    /// core complex for L3).
    pub instances: u64,
    /// Where the size came from, e.g. `sysfs /sys/devices/system/cpu/cpu0/cache/index2`.
    pub source: String,
}

/// Signs that other work shared the CPU while the ceilings were measured,
/// which lowers every ceiling and every figure judged against them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Contention {
    /// Whether any sign passed its threshold: the ceilings are then too
    /// low, and a grade against them is withheld.
    pub busy: bool,
    /// Fewest other runnable tasks seen while probing (`procs_running` in
    /// `/proc/stat`, less the probe itself), when readable.
    #[serde(default)]
    pub other_runnable: Option<u32>,
    /// CPU time stolen by the hypervisor while probing, % of all CPU time,
    /// when readable.
    #[serde(default)]
    pub steal_pct: Option<f64>,
    /// Largest spread between repetitions of one probe, % (median below
    /// best): noise the best of the repetitions rises above; reported, not
    /// a sign of other work by itself.
    #[serde(default)]
    pub spread_pct: f64,
    /// Largest spread of one probe's best three repetitions, % (third-best
    /// below best): how well the reported bests converged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_spread_pct: Option<f64>,
    /// Lowest share of its CPU time a probe's best repetition ran with, %
    /// (thread CPU time over wall time; time the hypervisor steals is not
    /// CPU time), when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_cpu_pct: Option<f64>,
    /// Each sign that passed its threshold, in words.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// Probes whose best did not settle (it did not converge, or its best
    /// repetition lost CPU time) on which no grade rests, in words: their
    /// own ceilings may be low, and say so; the machine is not called busy
    /// for them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsettled: Vec<String>,
}

/// A measured bandwidth and how it was measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BandwidthCeiling {
    /// Best repetition, GB/s (10^9 bytes per second).
    pub gb_s: f64,
    /// Median repetition, GB/s: how far the best stands from the typical run.
    #[serde(default)]
    pub median_gb_s: f64,
    /// Memory level measured: `"DRAM"`, `"L2"`, ...
    pub level: String,
    /// The kernel and the byte-counting convention.
    pub method: String,
    /// Threads that ran the kernel at once.
    pub threads: u32,
    /// Size of each of the kernel's arrays, summed over threads, bytes.
    pub buffer_bytes: u64,
    /// Cache size the buffers were sized against, bytes.
    #[serde(default)]
    pub cache_bytes: Option<u64>,
    /// Where `cache_bytes` came from: `"sysfs"` or `"assumed"`.
    #[serde(default)]
    pub cache_bytes_source: String,
    /// Timed repetitions (the best is reported).
    pub repetitions: u32,
    /// Spread of the best three repetitions, % (third-best below best):
    /// how far the reported best had converged; absent before three.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_spread_pct: Option<f64>,
    /// Wall time of the whole probe, allocation included, ns.
    pub duration_ns: u64,
}

/// A measured peak FLOP rate and how it was measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FlopsCeiling {
    /// Best repetition, GFLOP/s (an FMA counts as two FLOPs).
    pub gflops: f64,
    /// Median repetition, GFLOP/s.
    #[serde(default)]
    pub median_gflops: f64,
    /// Precision measured: `"fp32"`.
    pub precision: String,
    /// The kernel.
    pub method: String,
    /// Instruction set of the kernel: `"avx512f"`, `"avx2+fma"`, `"neon"`,
    /// `"portable"`.
    pub isa: String,
    /// Threads that ran the kernel at once.
    pub threads: u32,
    /// Independent accumulator chains per thread.
    pub chains: u32,
    /// Floating-point lanes per chain (vector width).
    pub lanes: u32,
    /// Timed repetitions (the best is reported).
    pub repetitions: u32,
    /// Spread of the best three repetitions, % (third-best below best):
    /// how far the reported best had converged; absent before three.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_spread_pct: Option<f64>,
    /// Wall time of the whole probe, ns.
    pub duration_ns: u64,
}

impl FlopsCeiling {
    /// The rate's unit: `"GOP/s"` for integer precisions (their operations
    /// are not floating-point ones), else `"GFLOP/s"`.
    #[must_use]
    pub fn unit(&self) -> &'static str {
        if self.precision.starts_with("int") {
            "GOP/s"
        } else {
            "GFLOP/s"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_default_and_round_trip() {
        let c: MeasuredCeilings = serde_json::from_str("{}").unwrap();
        assert_eq!(c, MeasuredCeilings::default());
        let c = MeasuredCeilings {
            cpu: "test cpu".into(),
            peak_flops: Some(FlopsCeiling {
                gflops: 123.5,
                precision: "fp32".into(),
                isa: "portable".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let back: MeasuredCeilings =
            serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
    }
}
