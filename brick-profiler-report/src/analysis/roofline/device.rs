//! The roofline on device time, when the profile captured kernels: a brick
//! whose every call launches exactly one kernel hands that kernel its FLOPs
//! and bytes, and the kernel is placed on its own device time; a brick that
//! launches several kernels per call is placed on its device time as a
//! whole, its kernels listed beside it, since nothing says how its FLOPs
//! and bytes split among them.

use profiler_core::BrickStats;
use profiler_core::hardware::{Hardware, MemoryLevel, Precision};
use profiler_core::profile::{ActivityKind, BrickKernels};
use serde::{Deserialize, Serialize};

use super::error::RooflineError;
use super::kernel::classify;
use crate::model::hardware::Bound;

/// One annotated brick's device side on the roofline: its one kernel, or
/// the brick on its device time with its kernels listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DevicePoint {
    /// The brick whose FLOPs and bytes are used.
    pub brick: String,
    /// The kernel placed, when the brick launches exactly one per call;
    /// `None` when the brick is placed as a whole.
    pub kernel: Option<String>,
    /// The brick's kernels, most device time first, when it is placed as
    /// a whole (empty otherwise).
    pub kernels: Vec<String>,
    /// Why the brick is placed as a whole, when it is.
    pub why_whole: Option<String>,
    /// Brick calls (as many as kernel calls when a kernel is placed).
    pub calls: u64,
    /// Device time placed (ns): the kernel's, or every kernel, copy and
    /// set the brick launched with its children's.
    pub device_ns: u64,
    /// FLOP per byte, from the brick's annotations.
    pub arithmetic_intensity: f64,
    /// Achieved GFLOP/s over the device time.
    pub achieved_gflops: f64,
    /// The roof at this intensity, GFLOP/s.
    pub attainable_gflops: f64,
    /// Achieved as a share of the roof, %.
    pub roof_pct: f64,
    /// Which side of the ridge it sits on.
    pub bound: Bound,
    /// Above the roof: the roof does not bound it.
    pub above_roof: bool,
    /// The memory level of the roof, the brick's own on the host roofline.
    pub level: MemoryLevel,
}

impl DevicePoint {
    /// What was placed: the kernel's name, or `whole brick (k1, k2): why`.
    #[must_use]
    pub fn placed(&self) -> String {
        match &self.kernel {
            Some(kernel) => kernel.clone(),
            None => format!(
                "whole brick ({}): {}",
                self.kernels.join(", "),
                self.why_whole
                    .as_deref()
                    .unwrap_or("not one kernel per call")
            ),
        }
    }
}

/// The device points of every brick of `bricks` with FLOPs, bytes and a
/// device row in `device`, judged at `precision` on the level `level_of`
/// gives the brick (bricks it gives none are skipped: they are not on the
/// host roofline either). Points that could not run on `hw` are left out
/// and named in `impossible`.
pub(crate) fn device_points(
    bricks: &[BrickStats],
    device: &[BrickKernels],
    hw: &Hardware,
    precision: Precision,
    level_of: impl Fn(&str) -> Option<MemoryLevel>,
    impossible: &mut Vec<String>,
) -> Result<Vec<DevicePoint>, RooflineError> {
    let mut points = Vec::new();
    for b in bricks
        .iter()
        .filter(|b| b.total_flops > 0 && b.total_bytes > 0)
    {
        let (Some(kernels), Some(level)) =
            (device.iter().find(|d| d.brick == b.name), level_of(&b.name))
        else {
            continue;
        };
        let (kernel, listed, why_whole, device_ns) = match one_kernel_per_call(b, kernels) {
            Ok((name, ns)) => (Some(name.to_owned()), Vec::new(), None, ns),
            Err(why) => (
                None,
                kernels.kernels.iter().map(|k| k.name.clone()).collect(),
                Some(why),
                kernels.total_ns,
            ),
        };
        if device_ns == 0 {
            continue;
        }
        let ai = b.total_flops as f64 / b.total_bytes as f64;
        let flops_per_s = b.total_flops as f64 / (device_ns as f64 / 1e9);
        let c = classify(hw, ai, flops_per_s, precision, level)?;
        let label = kernel.as_deref().unwrap_or(&b.name);
        if let Some(why) = c.impossible {
            impossible.push(format!("{label} (device time): {why}"));
            continue;
        }
        points.push(DevicePoint {
            brick: b.name.clone(),
            kernel,
            kernels: listed,
            why_whole,
            calls: b.count,
            device_ns,
            arithmetic_intensity: ai,
            achieved_gflops: flops_per_s / 1e9,
            attainable_gflops: c.attainable_flops / 1e9,
            roof_pct: c.efficiency_pct,
            bound: c.bound,
            above_roof: c.above_roof,
            level,
        });
    }
    points.sort_by(|a, b| {
        b.device_ns
            .cmp(&a.device_ns)
            .then_with(|| a.brick.cmp(&b.brick))
    });
    Ok(points)
}

/// The brick's one kernel and its device time, when every call launched
/// exactly that kernel and nothing else (no child brick's work in its
/// total either); otherwise why not.
fn one_kernel_per_call<'a>(
    b: &BrickStats,
    device: &'a BrickKernels,
) -> Result<(&'a str, u64), String> {
    let [row] = device.kernels.as_slice() else {
        return Err(format!(
            "{} kernels, copies or sets per run of calls: the brick's FLOPs and bytes are not split among them",
            device.kernels.len()
        ));
    };
    if row.kind != ActivityKind::Kernel {
        return Err(format!(
            "it launched a {}, not a kernel",
            row.kind.kineto_category()
        ));
    }
    if row.calls != b.count {
        return Err(format!(
            "{} launches of `{}` over {} calls: not one per call, so a call's FLOPs and bytes \
             are not one launch's",
            row.calls, row.name, b.count
        ));
    }
    if device.total_ns != device.self_ns {
        return Err(
            "bricks inside it launched kernels too: its FLOPs and bytes may cover them".to_owned(),
        );
    }
    Ok((row.name.as_str(), row.total_ns))
}
