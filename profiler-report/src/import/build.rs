//! Building [`FullProfile`]s from an [`NcuReport`]: the chosen (or
//! detected) device's roofline, FLOPs counted, given or withheld, DRAM
//! bytes measured or derived, and a note for every assumption.

use std::collections::BTreeMap;

use super::error::ImportError;
use super::full::{
    ComputeSection, FULL_PROFILE_VERSION, FullProfile, HardwareSection, KernelSection,
    MemorySection, RooflineSection, SourceSection, ThroughputSection, TimingSection,
};
use super::ncu_csv::{NcuKernel, NcuLayout, NcuReport};
use super::ncu_metrics::{KernelMetrics, Sourced, dim3};
use crate::hardware::DeviceSpec;
use crate::roofline::{KernelRoofline, MemoryLevel, Precision};

/// FLOPs the user states for a kernel the export has no counters for.
#[derive(Debug, Clone, PartialEq)]
pub enum FlopsAssumption {
    /// A GEMM of `m x n x k`: `2·m·n·k` FLOPs (`2n^3` when square).
    Gemm {
        /// Rows of the output.
        m: u64,
        /// Columns of the output.
        n: u64,
        /// The reduction dimension.
        k: u64,
        /// Where the size came from, e.g. `--gemm 4096`.
        origin: String,
    },
    /// A FLOP count per launch.
    Total {
        /// FLOPs.
        flops: f64,
        /// Where it came from, e.g. `--flops 1e12`.
        origin: String,
    },
}

impl FlopsAssumption {
    fn flops(&self) -> f64 {
        match self {
            Self::Gemm { m, n, k, .. } => 2.0 * *m as f64 * *n as f64 * *k as f64,
            Self::Total { flops, .. } => *flops,
        }
    }

    fn source(&self) -> String {
        match self {
            Self::Gemm { m, n, k, origin } if m == n && n == k => {
                format!("assumed: GEMM 2n^3 with n={n} (from {origin})")
            }
            Self::Gemm { m, n, k, origin } => {
                format!("assumed: GEMM 2·m·n·k with m={m}, n={n}, k={k} (from {origin})")
            }
            Self::Total { origin, .. } => format!("given ({origin})"),
        }
    }
}

/// How to build [`FullProfile`]s.
#[derive(Debug, Clone, Default)]
pub struct FullProfileOptions {
    /// The device to judge against; `None` detects it from the device name
    /// the export gives, when that is a device of the hardware table.
    pub hardware: Option<KernelRoofline>,
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

/// Devices of the hardware table by the name the driver reports, matched
/// exactly: a different variant (H100 PCIe, A100 40GB) has other ceilings.
const DRIVER_NAMES: [(&str, &str); 8] = [
    ("NVIDIA GeForce RTX 4090", "RTX 4090"),
    ("NVIDIA H100 80GB HBM3", "H100 SXM"),
    ("NVIDIA H100 SXM5 80GB", "H100 SXM"),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"),
    ("NVIDIA H200", "H200 SXM"),
    ("NVIDIA GeForce RTX 4060 Laptop GPU", "RTX 4060 Laptop"),
    ("NVIDIA GB10", "GB10"),
    ("Apple M2 Max", "Apple M2 Max"),
];

/// The device of the hardware table a driver-reported name denotes.
#[must_use]
pub fn device_from_driver_name(name: &str) -> Option<&'static DeviceSpec> {
    let name = name.trim();
    DRIVER_NAMES
        .iter()
        .find(|(driver, _)| driver.eq_ignore_ascii_case(name))
        .and_then(|(_, table)| DeviceSpec::lookup(table))
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
        let (roof, hardware) = hardware(k, &m, options, &mut notes);
        let duration_s = m.duration_ns.as_ref().map(|d| d.value / 1e9);
        let dram_peak = roof.as_ref().and_then(|r| r.memory(MemoryLevel::Dram).ok());

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
                    pct.value / 100.0 * peak.gb_s,
                    format!(
                        "estimated: {} x {} DRAM peak {} GB/s",
                        pct.source,
                        roof.as_ref().map_or("", |r| r.name.as_str()),
                        peak.gb_s
                    ),
                )
            });
        let dram_bytes = m.dram_bytes.clone().or_else(|| {
            let (bw, s) = (dram_gb_s.as_ref()?, duration_s?);
            Sourced::new(bw.value * 1e9 * s, format!("{} x duration", bw.source))
        });
        let bytes_estimated = dram_bytes
            .as_ref()
            .is_some_and(|b| b.source.contains("estimated"));

        let flops = flops(&m, options, &mut notes);
        let achieved_tflops = match (&flops, duration_s) {
            (Some(f), Some(s)) if s > 0.0 => {
                Sourced::new(f.value / s / 1e12, format!("{} / duration", f.source))
            }
            _ => None,
        };
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
        if m.tensor_pipe_pct.as_ref().is_some_and(|t| t.value > 1.0)
            && flops.as_ref().is_some_and(|f| f.source.contains("counted"))
        {
            notes.push(
                "the tensor pipe was active, but SASS FP counters miss tensor-core work: \
                 FLOPs and TFLOP/s are a lower bound (state the work with --gemm or --flops)"
                    .to_owned(),
            );
        }
        let block = k.block_size.as_deref().and_then(dim3);
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
            kernel: KernelSection {
                id: k.id.clone(),
                name: k.name.clone(),
                process: k.process_name.clone(),
                process_id: k.process_id.clone(),
                host: k.host.clone(),
                context: k.context.clone(),
                stream: k.stream.clone(),
                grid: k.grid_size.as_deref().and_then(dim3),
                block,
                threads_per_block: block.map(|b| b.iter().product()),
                registers_per_thread: m.registers_per_thread.clone(),
            },
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
            compute: ComputeSection {
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
            },
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

/// The roofline to judge against and the hardware section describing it.
fn hardware(
    k: &NcuKernel,
    m: &KernelMetrics,
    options: &FullProfileOptions,
    notes: &mut Vec<String>,
) -> (Option<KernelRoofline>, HardwareSection) {
    let detected = m.device_name.as_deref().and_then(device_from_driver_name);
    let (roof, origin) = match (&options.hardware, detected) {
        (Some(r), _) => {
            if let Some(name) = &m.device_name
                && detected.is_none_or(|d| d.name != r.name)
            {
                notes.push(format!(
                    "judged against {} as given, although the export names the device `{name}`",
                    r.name
                ));
            }
            let origin = options
                .hardware_origin
                .clone()
                .unwrap_or_else(|| "given".to_owned());
            (Some(r.clone()), origin)
        }
        (None, Some(d)) => (
            Some(KernelRoofline::from_device(d)),
            format!(
                "detected from the device name `{}`",
                m.device_name.as_deref().unwrap_or_default()
            ),
        ),
        (None, None) => (None, "unknown".to_owned()),
    };
    let section = HardwareSection {
        name: roof.as_ref().map(|r| r.name.clone()),
        origin,
        device: k.device.clone(),
        compute_capability: k.compute_capability.clone(),
        dram_bandwidth_gb_s: roof
            .as_ref()
            .and_then(|r| r.memory(MemoryLevel::Dram).ok())
            .map(|c| c.gb_s),
        peak_tflops: roof
            .as_ref()
            .map(|r| {
                r.compute_ceilings()
                    .iter()
                    .map(|c| (c.precision.name().to_ascii_lowercase(), c.tflops))
                    .collect()
            })
            .unwrap_or_else(BTreeMap::new),
        estimate: roof.as_ref().is_some_and(|r| {
            r.compute_ceilings().iter().any(|c| c.estimate)
                || r.memory_ceilings().iter().any(|c| c.estimate)
        }),
    };
    (roof, section)
}

/// FLOPs: stated by the user (wins), else counted, else none.
fn flops(
    m: &KernelMetrics,
    options: &FullProfileOptions,
    notes: &mut Vec<String>,
) -> Option<Sourced> {
    let counted = m.flops.as_ref().and_then(|c| {
        let precisions: Vec<&str> = c.by_precision.iter().map(|(p, _)| *p).collect();
        Sourced::new(
            c.total(),
            format!(
                "counted: 2 x FMA + ADD + MUL instructions ({})",
                precisions.join(" + ")
            ),
        )
    });
    match (&options.flops, counted) {
        (Some(a), counted) => {
            if let Some(c) = counted {
                notes.push(format!(
                    "FLOPs as stated ({}) rather than the {} counted from instructions",
                    crate::textfmt::si(a.flops()),
                    crate::textfmt::si(c.value)
                ));
            }
            Sourced::new(a.flops(), a.source())
        }
        (None, Some(c)) => Some(c),
        (None, None) => {
            notes.push(
                "FLOPs unknown: the export has no FP instruction counters \
                 (smsp__sass_thread_inst_executed_op_{f,h,d}{fma,add,mul}_pred_on.sum); \
                 state them with --gemm N or --flops F. TFLOP/s and the roofline are withheld"
                    .to_owned(),
            );
            None
        }
    }
}

/// Places the kernel on the roof, or says why it cannot be.
#[allow(clippy::too_many_arguments)]
fn placement(
    roof: Option<&KernelRoofline>,
    m: &KernelMetrics,
    precision: Option<Precision>,
    flops: Option<&Sourced>,
    bytes: Option<&Sourced>,
    duration_s: Option<f64>,
    inputs_estimated: bool,
    notes: &mut Vec<String>,
) -> RooflineSection {
    let counted = m.flops.as_ref().and_then(|f| f.dominant());
    let chosen = precision.map(Ok).unwrap_or_else(|| match counted {
        Some("FP16") => Ok(Precision::Fp16),
        Some("FP64") => Err("the work is FP64 and rooflines have no FP64 ceiling; \
                             pick a roof with --precision"
            .to_owned()),
        _ => Ok(Precision::Fp32),
    });
    let mut section = RooflineSection {
        precision: chosen.as_ref().ok().map(|p| p.name().to_ascii_lowercase()),
        level: "dram".to_owned(),
        ridge_point: None,
        arithmetic_intensity: None,
        achieved_tflops: None,
        attainable_tflops: None,
        bound: None,
        efficiency_pct: None,
        distance_to_ridge: None,
        above_roof: false,
        estimate: inputs_estimated,
        unavailable: None,
    };
    let result = (|| {
        let roof = roof.ok_or_else(|| {
            "hardware unknown: the export does not name a device of the hardware table; \
             pass --hardware NAME|FILE"
                .to_owned()
        })?;
        let p = chosen?;
        let f = flops.ok_or("FLOPs unknown")?.value;
        let b = bytes
            .ok_or("DRAM bytes unknown: collect dram__bytes.sum or dram__throughput")?
            .value;
        let s = duration_s.ok_or("duration unknown")?;
        if b <= 0.0 || s <= 0.0 || f <= 0.0 {
            return Err("FLOPs, DRAM bytes and duration must all be above zero".to_owned());
        }
        let c = roof
            .classify(f / b, f / s, p, MemoryLevel::Dram)
            .map_err(|e| e.to_string())?;
        Ok(c)
    })();
    match result {
        Ok(c) => {
            section.ridge_point = Some(c.ridge_point);
            section.arithmetic_intensity = Some(c.arithmetic_intensity);
            section.achieved_tflops = Some(c.achieved_flops / 1e12);
            section.attainable_tflops = Some(c.attainable_flops / 1e12);
            section.bound = Some(c.bound);
            section.efficiency_pct = Some(c.efficiency_pct);
            section.distance_to_ridge = Some(c.distance_to_ridge);
            section.above_roof = c.above_roof;
            section.estimate |= c.estimate;
            if c.above_roof {
                notes.push(
                    "achieved FLOP/s exceed the DRAM roof: the roof does not bound this kernel \
                     (data served from cache, or FLOPs/bytes over-counted)"
                        .to_owned(),
                );
            }
        }
        Err(reason) => section.unavailable = Some(reason),
    }
    section
}
