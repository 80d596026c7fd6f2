//! The bytes each memory level moved for a launch, and that level's peak,
//! from the metrics of ncu's hierarchical roofline section: a level's rate
//! times the duration, and its peak bytes per cycle times its clock.

use crate::model::nsight::{NcuKernel, Sourced};
use profiler_core::hardware::MemoryLevel;

/// One level's metrics: its bytes per second, its peak bytes per cycle and
/// the clock those cycles run at.
struct LevelMetrics {
    level: MemoryLevel,
    rate: &'static str,
    peak_per_cycle: &'static str,
    clock: &'static str,
}

/// The levels of `SpeedOfLight_HierarchicalSingleRooflineChart`, fastest
/// first: L1 is what the load/store unit wrote back from global, local and
/// shared memory, L2 what it sent to the SMs.
const LEVELS: [LevelMetrics; 3] = [
    LevelMetrics {
        level: MemoryLevel::L1Cache,
        rate: "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
        peak_per_cycle: "derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.peak_sustained",
        clock: "l1tex__cycles_elapsed.avg.per_second",
    },
    LevelMetrics {
        level: MemoryLevel::L2Cache,
        rate: "derived__lts__lts2xbar_bytes.sum.per_second",
        peak_per_cycle: "derived__lts__lts2xbar_bytes.sum.peak_sustained",
        clock: "lts__cycles_elapsed.avg.per_second",
    },
    LevelMetrics {
        level: MemoryLevel::Dram,
        rate: "dram__bytes.sum.per_second",
        peak_per_cycle: "dram__bytes.sum.peak_sustained",
        clock: "dram__cycles_elapsed.avg.per_second",
    },
];

/// What one memory level carried during a launch, and how fast it can.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LevelTraffic {
    /// The level.
    pub(crate) level: MemoryLevel,
    /// Bytes it moved: its rate times the duration.
    pub(crate) bytes: Sourced,
    /// Its peak, GB/s, as ncu measures it on this device.
    pub(crate) peak_gb_s: Sourced,
}

/// Every level whose rate, peak and clock the export holds, given the
/// launch's duration; none without one.
pub(crate) fn level_traffic(kernel: &NcuKernel, duration_s: Option<f64>) -> Vec<LevelTraffic> {
    let Some(seconds) = duration_s.filter(|s| *s > 0.0) else {
        return Vec::new();
    };
    let value = |name: &str| {
        kernel
            .metric(name)
            .and_then(|m| m.value)
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    LEVELS
        .iter()
        .filter_map(|m| {
            let (rate, per_cycle, hz) = (value(m.rate)?, value(m.peak_per_cycle)?, value(m.clock)?);
            Some(LevelTraffic {
                level: m.level,
                bytes: Sourced::new(rate * seconds, format!("derived: {} x duration", m.rate))?,
                peak_gb_s: Sourced::new(
                    per_cycle * hz / 1e9,
                    format!("measured by ncu: {} x {}", m.peak_per_cycle, m.clock),
                )?,
            })
        })
        .filter(|t| t.peak_gb_s.value > 0.0)
        .collect()
}
