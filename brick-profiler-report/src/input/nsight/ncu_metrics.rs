//! The metrics an imported kernel is judged by, found in an [`NcuKernel`]
//! under their raw names (`gpu__time_duration.sum`) or details-page labels
//! (`Duration`), scaled to base units, each with the metric it came from.

use super::flop_counters::{CountedFlops, counted_flops};
use super::metric_lookup::{ACTIVE_THREADS_PER_WARP, Candidate, THREADS_PER_WARP, find, plain};
use super::ncu_aliases::{Meaning, candidates};
use super::ncu_levels::{LevelTraffic, level_traffic};
use super::number::{Quantity, not_available};
use crate::model::nsight::{NcuKernel, Sourced};

/// The metrics of one kernel launch the reports use.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KernelMetrics {
    pub(crate) duration_ns: Option<Sourced>,
    pub(crate) sm_pct: Option<Sourced>,
    pub(crate) dram_pct: Option<Sourced>,
    pub(crate) warps_active_pct: Option<Sourced>,
    pub(crate) thread_inst_pct: Option<Sourced>,
    pub(crate) tensor_pipe_pct: Option<Sourced>,
    pub(crate) registers_per_thread: Option<Sourced>,
    pub(crate) grid_blocks: Option<Sourced>,
    pub(crate) block_threads: Option<Sourced>,
    pub(crate) shared_mem_driver_bytes: Option<Sourced>,
    pub(crate) shared_mem_static_bytes: Option<Sourced>,
    pub(crate) shared_mem_dynamic_bytes: Option<Sourced>,
    pub(crate) l2_hit_pct: Option<Sourced>,
    pub(crate) ld_bytes_per_sector_pct: Option<Sourced>,
    pub(crate) sectors_per_request: Option<Sourced>,
    pub(crate) dram_bytes: Option<Sourced>,
    pub(crate) dram_bytes_per_s: Option<Sourced>,
    pub(crate) flops: Option<CountedFlops>,
    /// Bytes and peak per memory level, from the hierarchical roofline
    /// section's metrics (empty without them).
    pub(crate) levels: Vec<LevelTraffic>,
    pub(crate) device_name: Option<String>,
    /// Metrics of the standard set this kernel lacks.
    pub(crate) missing: Vec<&'static str>,
    /// Values found but unusable (bad number, wrong unit, partial counters).
    pub(crate) notes: Vec<String>,
}

impl KernelMetrics {
    /// Finds every metric of `kernel`.
    pub(crate) fn of(kernel: &NcuKernel) -> Self {
        let mut notes = Vec::new();
        let mut m = Self::found(kernel, &mut notes);
        let seconds = m.duration_ns.as_ref().map(|d| d.value * 1e-9);
        m.flops = counted_flops(kernel, seconds, &mut notes);
        m.levels = level_traffic(kernel, seconds);
        m.device_name = device_name(kernel);
        m.missing = m.missing_standard();
        m.notes = notes;
        m
    }

    /// The metrics looked up by name, each under the names the ncu
    /// versions and pages give it; what was found but unusable goes to
    /// `notes`.
    fn found(kernel: &NcuKernel, notes: &mut Vec<String>) -> Self {
        use Quantity::{Bytes, Count, Percent};
        let mut find = |candidates: &[Candidate]| find(kernel, candidates, notes);
        let mut m = Self {
            duration_ns: find(&aliases(Meaning::Duration)),
            sm_pct: find(&aliases(Meaning::SmPct)),
            dram_pct: find(&aliases(Meaning::DramPct)),
            warps_active_pct: find(&[
                plain(
                    "sm__warps_active.avg.pct_of_peak_sustained_elapsed",
                    Percent,
                ),
                plain("sm__warps_active.avg.pct_of_peak_sustained_active", Percent),
                plain("Achieved Occupancy", Percent),
            ]),
            thread_inst_pct: find(&[
                plain("smsp__thread_inst_executed_per_inst_executed.pct", Percent),
                THREADS_PER_WARP,
                ACTIVE_THREADS_PER_WARP,
            ]),
            tensor_pipe_pct: find(&[plain(
                "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
                Percent,
            )]),
            registers_per_thread: find(&aliases(Meaning::Registers)),
            grid_blocks: find(&aliases(Meaning::GridBlocks)),
            block_threads: find(&aliases(Meaning::BlockThreads)),
            shared_mem_driver_bytes: find(&[
                plain("launch__shared_mem_per_block_driver", Bytes),
                plain("Driver Shared Memory Per Block", Bytes),
            ]),
            shared_mem_static_bytes: find(&[
                plain("launch__shared_mem_per_block_static", Bytes),
                plain("Static Shared Memory Per Block", Bytes),
            ]),
            shared_mem_dynamic_bytes: find(&[
                plain("launch__shared_mem_per_block_dynamic", Bytes),
                plain("Dynamic Shared Memory Per Block", Bytes),
            ]),
            l2_hit_pct: find(&[
                plain("lts__t_sector_hit_rate.pct", Percent),
                plain("L2 Hit Rate", Percent),
            ]),
            ld_bytes_per_sector_pct: find(&[plain(
                "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                Percent,
            )]),
            sectors_per_request: find(&[plain(
                "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
                Count,
            )]),
            dram_bytes: find(&aliases(Meaning::DramBytes)),
            dram_bytes_per_s: find(&aliases(Meaning::DramBytesPerSecond)),
            ..Self::default()
        };
        if m.dram_bytes.is_none() {
            // Read plus written, under whichever names the architecture uses
            // (`dram__bytes.sum` is n/a on sm_120).
            let read = find(&aliases(Meaning::DramReadBytes));
            let write = find(&aliases(Meaning::DramWriteBytes));
            if let (Some(r), Some(w)) = (read, write) {
                m.dram_bytes =
                    Sourced::new(r.value + w.value, format!("{} + {}", r.source, w.source));
            }
        }
        m
    }

    /// The metrics of the standard set ([`NCU_METRICS`](super::tool::NCU_METRICS)'s
    /// first ten) this kernel lacks.
    fn missing_standard(&self) -> Vec<&'static str> {
        [
            ("gpu__time_duration.sum", self.duration_ns.is_none()),
            (
                "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                self.sm_pct.is_none(),
            ),
            (
                "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                self.dram_pct.is_none(),
            ),
            (
                "sm__warps_active.avg.pct_of_peak_sustained_elapsed",
                self.warps_active_pct.is_none(),
            ),
            (
                "smsp__thread_inst_executed_per_inst_executed.pct",
                self.thread_inst_pct.is_none(),
            ),
            (
                "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
                self.tensor_pipe_pct.is_none(),
            ),
            (
                "launch__registers_per_thread",
                self.registers_per_thread.is_none(),
            ),
            (
                "launch__shared_mem_per_block_driver",
                self.shared_mem_driver_bytes.is_none(),
            ),
            ("lts__t_sector_hit_rate.pct", self.l2_hit_pct.is_none()),
            (
                "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
                self.ld_bytes_per_sector_pct.is_none(),
            ),
        ]
        .into_iter()
        .filter_map(|(name, missing)| missing.then_some(name))
        .collect()
    }
}

/// The candidates of the alias table for `meaning`.
fn aliases(meaning: Meaning) -> Vec<Candidate> {
    candidates(meaning)
        .map(|(name, q)| plain(name, q))
        .collect()
}

/// The device's name, when the export gives one (the `Device` column holds a
/// name in some versions; the raw page has `device__attribute_display_name`).
fn device_name(kernel: &NcuKernel) -> Option<String> {
    let column = kernel
        .device
        .as_deref()
        .filter(|d| d.parse::<u64>().is_err())
        .map(str::to_owned);
    column.or_else(|| {
        kernel
            .metric("device__attribute_display_name")
            .map(|m| m.text.clone())
            .filter(|t| !not_available(t))
    })
}

/// `(128, 1, 1)` as three numbers.
pub(crate) fn dim3(text: &str) -> Option<[u64; 3]> {
    let inner = text.trim().strip_prefix('(')?.strip_suffix(')')?;
    let parts: Vec<u64> = inner
        .split(',')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()?;
    <[u64; 3]>::try_from(parts).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::nsight::flop_counters::FLOP_COUNTERS;
    use crate::model::nsight::NcuMetric;

    fn metric(name: &str, unit: &str, text: &str, value: Option<f64>) -> NcuMetric {
        NcuMetric {
            section: Some("S".into()),
            name: name.into(),
            unit: unit.into(),
            value,
            text: text.into(),
            line: 7,
        }
    }

    fn kernel(metrics: Vec<NcuMetric>) -> NcuKernel {
        NcuKernel {
            id: "0".into(),
            name: "k".into(),
            process_id: None,
            process_name: None,
            host: None,
            context: None,
            stream: None,
            block_size: None,
            grid_size: None,
            device: Some("0".into()),
            compute_capability: None,
            metrics,
            line: 2,
        }
    }

    #[test]
    fn labels_and_units_scale_to_base_units() {
        let k = kernel(vec![
            metric("Duration", "usecond", "1,234.5", Some(1234.5)),
            metric("Memory Throughput", "%", "80", Some(80.0)),
            metric("Memory Throughput", "Gbyte/second", "450", Some(450.0)),
            metric("Avg. Active Threads Per Warp", "", "16", Some(16.0)),
            metric(
                "Driver Shared Memory Per Block",
                "Kbyte/block",
                "1.02",
                Some(1.02),
            ),
        ]);
        let m = KernelMetrics::of(&k);
        let d = m.duration_ns.unwrap();
        assert!((d.value - 1_234_500.0).abs() < 1e-6);
        assert_eq!(d.source, "Duration (S)");
        assert_eq!(m.dram_bytes_per_s.unwrap().value, 450e9);
        let t = m.thread_inst_pct.unwrap();
        assert_eq!(t.value, 50.0);
        assert!(t.source.contains("/ 32"), "{}", t.source);
        assert!((m.shared_mem_driver_bytes.unwrap().value - 1020.0).abs() < 1e-9);
        assert!(m.missing.contains(&"lts__t_sector_hit_rate.pct"));
        assert!(!m.missing.contains(&"gpu__time_duration.sum"));
        assert!(m.notes.is_empty(), "{:?}", m.notes);
    }

    #[test]
    fn bad_values_and_units_are_noted_not_used() {
        let k = kernel(vec![
            metric("gpu__time_duration.sum", "%", "5", Some(5.0)),
            metric("lts__t_sector_hit_rate.pct", "%", "abc", None),
            metric("dram__bytes_read.sum", "Mbyte", "2", Some(2.0)),
            metric("dram__bytes_write.sum", "Kbyte", "500", Some(500.0)),
            metric(
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                "inst",
                "10",
                Some(10.0),
            ),
        ]);
        let m = KernelMetrics::of(&k);
        assert!(m.duration_ns.is_none());
        assert!(m.l2_hit_pct.is_none());
        assert_eq!(m.dram_bytes.unwrap().value, 2.5e6);
        assert!(m.flops.is_none(), "FMA alone is not a FLOP count");
        assert_eq!(m.notes.len(), 3, "{:?}", m.notes);
        assert!(m.notes[0].contains("not a time"));
        assert!(m.notes[1].contains("`abc`"));
        assert!(m.notes[2].contains("FP32 FLOPs not counted"));
    }

    #[test]
    fn names_of_other_architectures_are_read() {
        // sm_120: `dram__bytes.sum` is n/a, read and write bytes are `_op_`.
        let k = kernel(vec![
            metric("dram__bytes.sum", "byte", "n/a", None),
            metric("dram__bytes_op_read.sum", "Mbyte", "3", Some(3.0)),
            metric("dram__bytes_op_write.sum", "Kbyte", "250", Some(250.0)),
            metric(
                "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                "%",
                "41.5",
                Some(41.5),
            ),
            metric("launch__grid_size", "", "1,024", Some(1024.0)),
            metric("launch__block_size", "", "256", Some(256.0)),
        ]);
        let m = KernelMetrics::of(&k);
        let bytes = m.dram_bytes.unwrap();
        assert_eq!(bytes.value, 3.25e6);
        assert_eq!(
            bytes.source,
            "dram__bytes_op_read.sum + dram__bytes_op_write.sum"
        );
        assert_eq!(m.dram_pct.unwrap().value, 41.5);
        assert!(
            !m.missing
                .contains(&"dram__throughput.avg.pct_of_peak_sustained_elapsed")
        );
        assert_eq!(m.grid_blocks.unwrap().value, 1024.0);
        assert_eq!(m.block_threads.unwrap().value, 256.0);
        assert!(m.notes.is_empty(), "{:?}", m.notes);
    }

    #[test]
    fn flops_count_fma_twice_and_devices_are_named() {
        let mut k = kernel(
            FLOP_COUNTERS[0]
                .1
                .iter()
                .zip([100.0, 10.0, 1.0])
                .map(|(n, v)| metric(n, "inst", "", Some(v)))
                .collect(),
        );
        k.device = Some("NVIDIA H100 80GB HBM3".into());
        let m = KernelMetrics::of(&k);
        let f = m.flops.unwrap();
        assert_eq!(f.total(), 211.0);
        assert_eq!(f.dominant(), Some("FP32"));
        assert_eq!(m.device_name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(dim3("(128, 1, 1)"), Some([128, 1, 1]));
        assert_eq!(dim3("128"), None);
    }
}
