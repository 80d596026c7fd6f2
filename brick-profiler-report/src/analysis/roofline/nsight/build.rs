//! Building [`FullProfile`]s from an [`NcuReport`]: per launch its metrics,
//! the device to judge against, FLOPs and DRAM bytes (measured, derived or
//! stated, each saying which), and its place on the roofline.

use super::device::hardware;
use super::placement::placement;
use profiler_core::hardware::{Hardware, MemoryLevel, Precision};

use crate::input::nsight::flop_counters::CountedFlops;
use crate::input::nsight::flops::flops;
use crate::input::nsight::ncu_metrics::{KernelMetrics, dim3};
use crate::input::nsight::{
    ComputeSection, FULL_PROFILE_VERSION, FlopsAssumption, FullProfile, ImportError, KernelSection,
    MemorySection, NcuKernel, NcuLayout, NcuReport, RooflineSection, SourceSection, Sourced,
    ThroughputSection, TimingSection,
};

/// How to build [`FullProfile`]s.
#[derive(Debug, Clone, Default)]
pub struct FullProfileOptions {
    /// The device to judge against; `None` detects it from the device name
    /// the export gives, when that is a device of the hardware table.
    pub hardware: Option<Hardware>,
    /// How `hardware` was chosen, e.g. `--hardware h100`.
    pub hardware_origin: Option<String>,
    /// Precision of the compute roof (default: the precision with the most
    /// counted FLOPs, else FP32).
    pub precision: Option<Precision>,
    /// FLOPs per launch when the export has no counters (a stated FLOP
    /// count wins over counters, which miss tensor-core work).
    pub flops: Option<FlopsAssumption>,
    /// Only kernels whose name contains this text, or whose `ID` equals it.
    pub kernel_filter: Option<String>,
}

impl NcuReport {
    /// A [`FullProfile`] per kernel launch (those `options.kernel_filter`
    /// selects), in file order.
    ///
    /// # Errors
    /// [`ImportError::InvalidOption`] when the filter selects nothing, or a
    /// FLOP assumption would apply to several different kernels.
    pub fn full_profiles(
        &self,
        options: &FullProfileOptions,
    ) -> Result<Vec<FullProfile>, ImportError> {
        let selected = self.select(options.kernel_filter.as_deref())?;
        if options.flops.is_some() {
            let mut names: Vec<&str> = selected.iter().map(|k| k.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            if names.len() > 1 {
                return Err(ImportError::InvalidOption {
                    option: "--gemm/--flops".to_owned(),
                    reason: format!(
                        "a FLOP count describes one kernel, but {} different kernels are selected; \
                         pick one with --kernel NAME",
                        names.len()
                    ),
                });
            }
        }
        Ok(selected.iter().map(|k| self.build(k, options)).collect())
    }

    /// The kernels `filter` selects (all without one).
    ///
    /// # Errors
    /// [`ImportError::InvalidOption`] when it selects none.
    pub fn select(&self, filter: Option<&str>) -> Result<Vec<&NcuKernel>, ImportError> {
        let Some(f) = filter else {
            return Ok(self.kernels.iter().collect());
        };
        let hits: Vec<&NcuKernel> = self
            .kernels
            .iter()
            .filter(|k| k.id == f || k.name.contains(f))
            .collect();
        if hits.is_empty() {
            return Err(ImportError::InvalidOption {
                option: "--kernel".to_owned(),
                reason: format!(
                    "no kernel of `{}` has ID `{f}` or a name containing it",
                    self.origin
                ),
            });
        }
        Ok(hits)
    }

    fn build(&self, k: &NcuKernel, options: &FullProfileOptions) -> FullProfile {
        let m = KernelMetrics::of(k);
        let mut notes = m.notes.clone();
        let (roof, hardware) = hardware(
            k,
            &m,
            options.hardware.as_ref(),
            options.hardware_origin.as_deref(),
            &mut notes,
        );
        let duration_s = m.duration_ns.as_ref().map(|d| d.value / 1e9);
        let (dram_gb_s, dram_bytes) = dram_traffic(&m, roof.as_ref(), duration_s);
        let bytes_estimated = dram_bytes
            .as_ref()
            .is_some_and(|b| b.source.contains("estimated"));

        let flops = flops(&m, options.flops.as_ref(), &mut notes);
        let roofline = placement(
            roof.as_ref(),
            &m,
            options.precision,
            flops.as_ref(),
            dram_bytes.as_ref(),
            duration_s,
            bytes_estimated
                || flops
                    .as_ref()
                    .is_some_and(|f| f.source.starts_with("assumed")),
            &mut notes,
        );
        let roofline = withhold_undercounted(&m, flops.as_ref(), roofline, &mut notes);
        FullProfile {
            version: FULL_PROFILE_VERSION.to_owned(),
            source: SourceSection {
                tool: "ncu".to_owned(),
                file: self.origin.clone(),
                layout: match self.layout {
                    NcuLayout::Details => "details",
                    NcuLayout::Raw => "raw",
                }
                .to_owned(),
                line: k.line,
            },
            hardware,
            kernel: kernel_section(k, &m),
            timing: TimingSection {
                duration_ns: m.duration_ns.clone(),
            },
            throughput: ThroughputSection {
                sm_pct: m.sm_pct.clone(),
                dram_pct: m.dram_pct.clone(),
                dram_gb_s,
                tensor_pipe_pct: m.tensor_pipe_pct.clone(),
            },
            roofline,
            compute: compute_section(&m, flops, duration_s),
            memory: MemorySection {
                dram_bytes,
                l2_hit_rate_pct: m.l2_hit_pct.clone(),
                global_load_bytes_per_sector_pct: m.ld_bytes_per_sector_pct.clone(),
                sectors_per_request: m.sectors_per_request.clone(),
                shared_mem_driver_bytes: m.shared_mem_driver_bytes.clone(),
                shared_mem_static_bytes: m.shared_mem_static_bytes.clone(),
                shared_mem_dynamic_bytes: m.shared_mem_dynamic_bytes.clone(),
            },
            missing: m.missing.iter().map(|s| (*s).to_owned()).collect(),
            notes,
        }
    }
}

/// The launch's DRAM throughput (GB/s) and bytes: as measured, else derived
/// from each other and the duration, else the throughput estimated from
/// its share of `roof`'s DRAM peak; each saying which.
fn dram_traffic(
    m: &KernelMetrics,
    roof: Option<&Hardware>,
    duration_s: Option<f64>,
) -> (Option<Sourced>, Option<Sourced>) {
    let dram_peak = roof.and_then(|r| r.memory(MemoryLevel::Dram));
    let dram_gb_s = m
        .dram_bytes_per_s
        .as_ref()
        .and_then(|b| Sourced::new(b.value / 1e9, b.source.clone()))
        .or_else(|| {
            let (bytes, s) = (m.dram_bytes.as_ref()?, duration_s.filter(|s| *s > 0.0)?);
            Sourced::new(
                bytes.value / s / 1e9,
                format!("derived: {} / duration", bytes.source),
            )
        })
        .or_else(|| {
            let (pct, peak) = (m.dram_pct.as_ref()?, dram_peak?);
            Sourced::new(
                pct.value / 100.0 * peak.value,
                format!(
                    "estimated: {} x {} DRAM peak {} GB/s",
                    pct.source,
                    roof.map_or("", |r| r.name.as_str()),
                    peak.value
                ),
            )
        });
    let dram_bytes = m.dram_bytes.clone().or_else(|| {
        let (bw, s) = (dram_gb_s.as_ref()?, duration_s?);
        Sourced::new(bw.value * 1e9 * s, format!("{} x duration", bw.source))
    });
    (dram_gb_s, dram_bytes)
}

/// The placement, withheld when the tensor pipe was active but only SASS FP
/// counters counted the FLOPs: tensor-core work is not in them, so the
/// counted FLOPs are a lower bound, too low to place the kernel honestly,
/// unless the tensor pipes' own operation rates were counted too.
fn withhold_undercounted(
    m: &KernelMetrics,
    flops: Option<&Sourced>,
    roofline: RooflineSection,
    notes: &mut Vec<String>,
) -> RooflineSection {
    let undercounted = m.tensor_pipe_pct.as_ref().is_some_and(|t| t.value > 1.0)
        && !m
            .flops
            .as_ref()
            .is_some_and(CountedFlops::counts_tensor_pipes)
        && flops.is_some_and(|f| f.source.starts_with("counted"));
    if !undercounted {
        return roofline;
    }
    notes.push(
        "the tensor pipe was active, but SASS FP counters miss tensor-core work: the \
         counted FLOPs and TFLOP/s are a lower bound (state the work with --gemm or --flops)"
            .to_owned(),
    );
    notes.retain(|n| !n.starts_with("achieved FLOP/s exceed"));
    RooflineSection {
        ridge_point: roofline.ridge_point,
        unavailable: Some(
            "FLOPs undercounted: tensor-core work is not in the SASS FP counters; state \
             the FLOPs with --gemm or --flops"
                .to_owned(),
        ),
        ..RooflineSection::withheld(roofline.precision, roofline.estimate)
    }
}

/// Arithmetic work: FLOPs counted per precision, the FLOPs the placement
/// used and their rate over the duration, and how busy the SMs were.
fn compute_section(
    m: &KernelMetrics,
    flops: Option<Sourced>,
    duration_s: Option<f64>,
) -> ComputeSection {
    let achieved_tflops = match (&flops, duration_s) {
        (Some(f), Some(s)) if s > 0.0 => {
            Sourced::new(f.value / s / 1e12, "derived: FLOPs / duration")
        }
        _ => None,
    };
    ComputeSection {
        flops_by_precision: m
            .flops
            .iter()
            .flat_map(|f| &f.by_precision)
            .map(|(p, v)| (p.to_ascii_lowercase(), *v))
            .collect(),
        flops,
        achieved_tflops,
        warps_active_pct: m.warps_active_pct.clone(),
        thread_inst_per_inst_pct: m.thread_inst_pct.clone(),
        tensor_pipe_pct: m.tensor_pipe_pct.clone(),
    }
}

/// What ran: the launch's identity and shape.
fn kernel_section(k: &NcuKernel, m: &KernelMetrics) -> KernelSection {
    let block = k.block_size.as_deref().and_then(dim3);
    let grid = k.grid_size.as_deref().and_then(dim3);
    KernelSection {
        id: k.id.clone(),
        name: k.name.clone(),
        process: k.process_name.clone(),
        process_id: k.process_id.clone(),
        host: k.host.clone(),
        context: k.context.clone(),
        stream: k.stream.clone(),
        grid,
        block,
        threads_per_block: block
            .map(|b| b.iter().product())
            .or_else(|| whole(m.block_threads.as_ref())),
        blocks: grid
            .map(|g| g.iter().product())
            .or_else(|| whole(m.grid_blocks.as_ref())),
        registers_per_thread: m.registers_per_thread.clone(),
    }
}

/// A count read as a metric, when it is a whole number.
fn whole(v: Option<&Sourced>) -> Option<u64> {
    v.map(|s| s.value)
        .filter(|x| *x >= 0.0 && x.fract() == 0.0 && *x < u64::MAX as f64)
        .map(|x| x as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::nsight::parse_ncu_csv;

    #[test]
    fn a_device_the_table_lacks_is_named_with_how_to_give_its_ceilings() {
        let text = "\"ID\",\"Kernel Name\",\"Device\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                    \"0\",\"k\",\"NVIDIA B200\",\"gpu__time_duration.sum\",\"nsecond\",\"1000\"\n\
                    \"0\",\"k\",\"NVIDIA B200\",\"dram__bytes.sum\",\"byte\",\"4096\"\n";
        let report = parse_ncu_csv(text, "b200.csv").unwrap();
        let opts = FullProfileOptions {
            flops: Some(FlopsAssumption::Total {
                flops: 1e6,
                origin: "test".to_owned(),
            }),
            ..FullProfileOptions::default()
        };
        let p = report.full_profiles(&opts).unwrap();
        let why = p[0].roofline.unavailable.clone().unwrap();
        assert!(
            why.contains("`NVIDIA B200`, which the hardware table lacks"),
            "{why}"
        );
        assert!(
            why.contains("--hardware FILE") && why.contains("[bandwidth_gb_s]"),
            "{why}"
        );
    }
}
