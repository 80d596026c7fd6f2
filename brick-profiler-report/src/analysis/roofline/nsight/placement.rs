//! Placing a launch on the chosen device's DRAM roofline from its FLOPs,
//! DRAM bytes and duration, and on every level's roof the export measured,
//! or saying why it cannot be placed.

use super::levels::place_levels;
use profiler_core::hardware::{Hardware, MemoryLevel, Precision};

use crate::analysis::roofline::kernel::{KernelClassification, classify};
use crate::input::nsight::ncu_aliases::{Meaning, names};
use crate::input::nsight::ncu_metrics::KernelMetrics;
use crate::input::nsight::{RooflineSection, Sourced};

impl RooflineSection {
    /// A section with nothing placed (the caller sets `unavailable`).
    pub(crate) fn withheld(precision: Option<String>, estimate: bool) -> Self {
        Self {
            precision,
            level: "dram".to_owned(),
            ridge_point: None,
            arithmetic_intensity: None,
            achieved_tflops: None,
            attainable_tflops: None,
            bound: None,
            efficiency_pct: None,
            distance_to_ridge: None,
            above_roof: false,
            estimate,
            unavailable: None,
            levels: Vec::new(),
            binding_level: None,
        }
    }
}

/// The ceiling a counted precision (`BF16 (tensor)`, any case) is judged
/// against: tensor-pipe FLOPs against the precision's peak (the data
/// sheets' peaks for BF16, FP16 and TF32 are the tensor cores'); `None` for
/// one without a ceiling (FP8).
pub(crate) fn roof_precision(counted: &str) -> Option<Precision> {
    let name = counted.trim_end_matches(" (tensor)");
    [
        Precision::Fp32,
        Precision::Fp16,
        Precision::Fp64,
        Precision::Bf16,
        Precision::Tf32,
    ]
    .into_iter()
    .find(|p| p.name().eq_ignore_ascii_case(name))
}

/// Places the kernel on the roof, or says why it cannot be.
#[allow(clippy::too_many_arguments)]
pub(crate) fn placement(
    roof: Option<&Hardware>,
    m: &KernelMetrics,
    precision: Option<Precision>,
    flops: Option<&Sourced>,
    bytes: Option<&Sourced>,
    duration_s: Option<f64>,
    inputs_estimated: bool,
    notes: &mut Vec<String>,
) -> RooflineSection {
    let counted = m.flops.as_ref().and_then(|f| f.dominant());
    let chosen = match (precision, counted.map(roof_precision)) {
        (Some(p), _) => p,
        (None, Some(Some(p))) => p,
        (None, None) => Precision::Fp32,
        (None, Some(None)) => {
            let mut section = RooflineSection::withheld(None, inputs_estimated);
            section.unavailable = Some(format!(
                "most FLOPs are {}, which has no ceiling in the hardware model; pass \
                 --precision to judge them against another",
                counted.unwrap_or_default()
            ));
            return section;
        }
    };
    let mut section =
        RooflineSection::withheld(Some(chosen.name().to_ascii_lowercase()), inputs_estimated);
    let placed = roof
        .ok_or_else(|| unknown_hardware(m))
        .and_then(|roof| on_dram_roof(roof, chosen, flops, bytes, duration_s).map(|c| (roof, c)));
    match placed {
        Ok((roof, c)) => {
            section.ridge_point = Some(c.ridge_point);
            section.arithmetic_intensity = Some(c.arithmetic_intensity);
            section.achieved_tflops = Some(c.achieved_flops / 1e12);
            section.attainable_tflops = Some(c.attainable_flops / 1e12);
            section.bound = Some(c.bound);
            section.efficiency_pct = Some(c.efficiency_pct);
            section.distance_to_ridge = Some(c.distance_to_ridge);
            section.above_roof = c.above_roof;
            section.estimate |= c.estimate;
            place_levels(
                &mut section,
                Some(roof),
                Some(chosen),
                flops.map(|f| f.value),
                duration_s,
                &m.levels,
            );
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

/// Why a launch on a device the hardware table lacks cannot be placed, and
/// how to give its ceilings.
fn unknown_hardware(m: &KernelMetrics) -> String {
    match &m.device_name {
        Some(name) => format!(
            "hardware unknown: the export names the device `{name}`, which the hardware \
             table lacks; give its ceilings with --hardware FILE, a TOML file such as \
             `name = \"{name}\"`, `[bandwidth_gb_s]` `dram = 8000`, `[peak_tflops]` \
             `fp32 = 80` `bf16 = 2250` (numbers from the device's data sheet), or pass \
             --hardware NAME for a device of the table"
        ),
        None => "hardware unknown: the export does not name a device; pass \
                 --hardware NAME|FILE"
            .to_owned(),
    }
}

/// The launch on the DRAM roof of `precision`, or why it cannot be placed
/// (a figure unknown or not above zero, no such ceiling, or a rate no
/// device reaches).
fn on_dram_roof(
    roof: &Hardware,
    precision: Precision,
    flops: Option<&Sourced>,
    bytes: Option<&Sourced>,
    duration_s: Option<f64>,
) -> Result<KernelClassification, String> {
    let f = flops.ok_or("FLOPs unknown")?.value;
    let b = bytes
        .ok_or_else(|| {
            format!(
                "DRAM bytes unknown: collect {}, or {} with {}",
                names(Meaning::DramBytes),
                names(Meaning::DramReadBytes),
                names(Meaning::DramWriteBytes)
            )
        })?
        .value;
    let s = duration_s.ok_or("duration unknown")?;
    if b <= 0.0 || s <= 0.0 || f <= 0.0 {
        return Err("FLOPs, DRAM bytes and duration must all be above zero".to_owned());
    }
    let c =
        classify(roof, f / b, f / s, precision, MemoryLevel::Dram).map_err(|e| e.to_string())?;
    match c.impossible {
        Some(why) => Err(why.to_string()),
        None => Ok(c),
    }
}
