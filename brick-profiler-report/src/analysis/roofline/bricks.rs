//! The per-brick roofline: every brick of a [`Profile`] with FLOPs, bytes
//! and time, judged against the roof of the memory level its working set
//! is served from (or one level for all, or a level pinned per brick).
//! Bricks missing any of the three are listed as not annotated, never
//! plotted at zero.

use profiler_core::BrickStats;
use profiler_core::Profile;
use profiler_core::hardware::{Hardware, MemoryLevel, Precision};
use serde::{Deserialize, Serialize};

use super::device::{DevicePoint, device_points};
use super::error::RooflineError;
use super::hierarchy::Hierarchy;
use super::kernel::{classify, compute, memory, ridge_point};
use super::levels::{Annotation, LevelChoice, LevelPicker, RooflineOptions};
use super::nsight::{capability_note, roof_precision};
use crate::input::nsight::FullProfile;
use crate::model::hardware::Bound;

fn dram() -> MemoryLevel {
    MemoryLevel::Dram
}

fn default_choice() -> LevelChoice {
    LevelChoice::Default
}

/// One annotated brick on the roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrickPoint {
    /// Brick name.
    pub name: String,
    /// Calls recorded.
    pub calls: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// FLOP per byte.
    pub arithmetic_intensity: f64,
    /// Achieved GFLOP/s over the brick's total time.
    pub achieved_gflops: f64,
    /// The roof at this intensity, GFLOP/s.
    pub attainable_gflops: f64,
    /// Achieved as a share of the roof, %.
    pub roof_pct: f64,
    /// Which side of the ridge it sits on.
    pub bound: Bound,
    /// Above the roof: the roof does not bound this brick (see
    /// [`KernelClassification::above_roof`](super::kernel::KernelClassification)).
    pub above_roof: bool,
    /// The memory level of the roof it is judged against.
    #[serde(default = "dram")]
    pub level: MemoryLevel,
    /// How that level was chosen.
    #[serde(default = "default_choice")]
    pub level_choice: LevelChoice,
    /// Bytes per call: the working set that chose the level.
    #[serde(default)]
    pub bytes_per_call: u64,
    /// Above its roof: the annotation to check (bytes on the memory side
    /// of the ridge, FLOPs on the compute side).
    #[serde(default)]
    pub check: Option<Annotation>,
}

/// A brick left off the roofline, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotAnnotated {
    /// Brick name.
    pub name: String,
    /// What it lacks: `"flops"`, `"bytes"`, `"flops and bytes"` or `"time"`.
    pub missing: String,
}

/// Every brick of a profile on its roof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrickRoofline {
    /// The device's ceilings (every one is drawn).
    pub hardware: Hardware,
    /// Precision of the roof the points are judged against.
    pub precision: Precision,
    /// Memory level of the main roof: the one asked for every brick, else
    /// DRAM (else the first level the device has). With
    /// `by_working_set`, each point carries its own level.
    pub level: MemoryLevel,
    /// Whether each brick is judged against the level its working set fits
    /// in (cache sizes known, no level asked for every brick).
    #[serde(default)]
    pub by_working_set: bool,
    /// Ridge point of the main roof, FLOP/byte.
    pub ridge_point: f64,
    /// Whether the main roof uses an estimated figure.
    pub estimate: bool,
    /// Annotated bricks, by total time descending.
    pub points: Vec<BrickPoint>,
    /// Bricks without FLOPs, bytes or time.
    pub not_annotated: Vec<NotAnnotated>,
    /// Caveats: roof choices made for the caller, points above the roof.
    pub notes: Vec<String>,
    /// The annotated bricks on device time, when the profile captured
    /// kernels: each brick's one kernel, or the brick as a whole with its
    /// kernels listed; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device: Vec<DevicePoint>,
    /// Imported ncu kernels at every memory level the export measured
    /// (see [`BrickRoofline::with_levels_of`]); empty otherwise.
    #[serde(default, skip_serializing_if = "Hierarchy::is_empty")]
    pub hierarchy: Hierarchy,
}

impl BrickRoofline {
    /// Places every brick of `profile` on `roofline`, judged against the
    /// `precision` roof (default FP32, else the first the device has) and the
    /// `level` roof for every brick; with `level` `None`, each brick against
    /// the level its bytes per call fit in (see
    /// [`BrickRoofline::from_profile_with`]).
    ///
    /// # Errors
    /// [`RooflineError::MissingCeiling`] when a requested precision or level
    /// is absent, or the device has no compute or no bandwidth ceiling.
    pub fn from_profile(
        profile: &Profile,
        hardware: &Hardware,
        precision: Option<Precision>,
        level: Option<MemoryLevel>,
    ) -> Result<Self, RooflineError> {
        let options = RooflineOptions {
            precision,
            level,
            ..RooflineOptions::default()
        };
        Self::from_profile_with(profile, hardware, &options)
    }

    /// Places every brick of `profile` on `roofline` as `options` say. A
    /// brick's level is, in order: its pin in the options, the level asked
    /// for every brick, the level its `#[brick(level = ..)]` annotation
    /// pins, the fastest cache level its bytes per call fit in (when the
    /// roofline knows cache sizes), DRAM. A brick still above its roof is
    /// named in the notes with the annotation to check.
    ///
    /// # Errors
    /// [`RooflineError::MissingCeiling`] when a requested precision or level
    /// (pins included) is absent, or the device has no compute or no
    /// bandwidth ceiling.
    pub fn from_profile_with(
        profile: &Profile,
        hardware: &Hardware,
        options: &RooflineOptions,
    ) -> Result<Self, RooflineError> {
        let mut notes = Vec::new();
        let (precision, level) = main_roof(hardware, options, &mut notes)?;
        for l in options.pins.values() {
            memory(hardware, *l)?;
        }
        let by_working_set = options.level.is_none() && hardware.cache_sizes().next().is_some();
        let picker = LevelPicker::new(profile, hardware, options, level, &mut notes);
        let estimate =
            compute(hardware, precision)?.is_estimate() || memory(hardware, level)?.is_estimate();
        let mut points = Vec::new();
        let mut not_annotated = Vec::new();
        let mut impossible = Vec::new();
        for b in &profile.bricks {
            if let Some(missing) = missing_annotation(b) {
                not_annotated.push(NotAnnotated {
                    name: b.name.clone(),
                    missing: missing.to_owned(),
                });
                continue;
            }
            match place(b, hardware, &picker, precision)? {
                Ok(point) => points.push(point),
                // Placing it would print a meaningless share of the roof.
                Err(why) => impossible.push(format!("{}: {why}", b.name)),
            }
        }
        points.sort_by(|a, b| {
            b.total_ns
                .cmp(&a.total_ns)
                .then_with(|| a.name.cmp(&b.name))
        });
        let device = match &profile.device_kernels {
            Some(kernels) => device_points(
                &profile.bricks,
                &kernels.bricks,
                hardware,
                precision,
                |name| points.iter().find(|p| p.name == name).map(|p| p.level),
                &mut impossible,
            )?,
            None => Vec::new(),
        };
        notes.extend(device_note(&device));
        notes.extend(above_roof_note(&points, precision, level, by_working_set));
        if !impossible.is_empty() {
            notes.push(format!(
                "{} brick(s) left off the roofline, their annotations cannot be right: {}",
                impossible.len(),
                impossible.join("; ")
            ));
        }
        if estimate {
            notes.push(format!(
                "the {precision}/{level} roof of {} uses estimated figures",
                hardware.name
            ));
        }
        if let Some(why) = &hardware.busy {
            notes.insert(
                0,
                format!(
                    "the ceilings were measured on a busy machine ({why}): every roof is too \
                     low, so every % of roof is too high; measure on a quiet machine with \
                     `brick-profiler probe --save`"
                ),
            );
        }
        Ok(Self {
            ridge_point: ridge_point(hardware, precision, level)?,
            hardware: hardware.clone(),
            precision,
            level,
            by_working_set,
            estimate,
            points,
            not_annotated,
            notes,
            device,
            hierarchy: Hierarchy::default(),
        })
    }
}

/// The main roof's precision and level: the ones asked for, else FP32 and
/// DRAM, else the first the device has (with a note saying so).
fn main_roof(
    hw: &Hardware,
    options: &RooflineOptions,
    notes: &mut Vec<String>,
) -> Result<(Precision, MemoryLevel), RooflineError> {
    let precision = match options.precision {
        Some(p) => compute(hw, p).map(|_| p)?,
        None => match compute(hw, Precision::Fp32) {
            Ok(_) => Precision::Fp32,
            Err(e) => {
                let (first, _) = hw.compute_ceilings().next().ok_or(e)?;
                notes.push(format!(
                    "{} has no FP32 ceiling: bricks are judged against its {first} peak",
                    hw.name
                ));
                first
            }
        },
    };
    let level = match options.level {
        Some(l) => memory(hw, l).map(|_| l)?,
        None => match memory(hw, MemoryLevel::Dram) {
            Ok(_) => MemoryLevel::Dram,
            Err(e) => {
                let (first, _) = hw.memory_ceilings().next().ok_or(e)?;
                notes.push(format!(
                    "{} has no DRAM ceiling: bricks are judged against its {first} bandwidth",
                    hw.name
                ));
                first
            }
        },
    };
    Ok((precision, level))
}

/// What a brick lacks to be placed: FLOPs, bytes or time.
fn missing_annotation(b: &BrickStats) -> Option<&'static str> {
    match (b.total_flops > 0, b.total_bytes > 0, b.total_ns > 0) {
        (true, true, true) => None,
        (false, false, _) => Some("flops and bytes"),
        (false, true, _) => Some("flops"),
        (true, false, _) => Some("bytes"),
        (true, true, false) => Some("time"),
    }
}

/// One annotated brick on the roof of the level `picker` gives it, or why it
/// cannot run on `hw` at all.
fn place(
    b: &BrickStats,
    hw: &Hardware,
    picker: &LevelPicker<'_>,
    precision: Precision,
) -> Result<Result<BrickPoint, super::units::Impossible>, RooflineError> {
    let bytes_per_call = b.total_bytes / b.count.max(1);
    let (level, level_choice) = picker.pick(hw, &b.name, bytes_per_call);
    let ai = b.total_flops as f64 / b.total_bytes as f64;
    let flops_per_s = b.total_flops as f64 / (b.total_ns as f64 / 1e9);
    let c = classify(hw, ai, flops_per_s, precision, level)?;
    if let Some(why) = c.impossible {
        return Ok(Err(why));
    }
    Ok(Ok(BrickPoint {
        name: b.name.clone(),
        calls: b.count,
        total_ns: b.total_ns,
        arithmetic_intensity: ai,
        achieved_gflops: flops_per_s / 1e9,
        attainable_gflops: c.attainable_flops / 1e9,
        roof_pct: c.efficiency_pct,
        bound: c.bound,
        above_roof: c.above_roof,
        level,
        level_choice,
        bytes_per_call,
        check: c.above_roof.then_some(match c.bound {
            Bound::Memory => Annotation::Bytes,
            Bound::Compute => Annotation::Flops,
        }),
    }))
}

impl BrickRoofline {
    /// Adds the hierarchical roofline of the ncu launches the bricks were
    /// imported from: the plot then draws each kernel at every level the
    /// export measured, and each level's roof. Notes say when the launches'
    /// compute capability is not the device's, and when the bricks are
    /// judged at the precision ncu counted their FLOPs in.
    #[must_use]
    pub fn with_levels_of(mut self, launches: &[FullProfile]) -> Self {
        self.hierarchy = Hierarchy::from_full_profiles(launches);
        let mut capabilities: Vec<&str> = launches
            .iter()
            .filter_map(|l| l.hardware.compute_capability.as_deref())
            .collect();
        capabilities.sort_unstable();
        capabilities.dedup();
        self.notes.extend(
            capabilities
                .into_iter()
                .filter_map(|cc| capability_note(&self.hardware.name, cc)),
        );
        if self.precision != Precision::Fp32 && counted_precision(launches) == Some(self.precision)
        {
            self.notes.push(format!(
                "judged against the {} roof: ncu counted the kernels' FLOPs in {} \
                 (--precision chooses another)",
                self.precision, self.precision
            ));
        }
        self
    }
}

impl RooflineOptions {
    /// These options, with the precision ncu counted the launches' FLOPs in
    /// when they set none (a BF16 tensor-core GEMM is judged against the
    /// BF16 roof, not FP32's): when every launch whose FLOPs were counted
    /// per precision counted most in the same one, and the hardware model
    /// has a roof for it.
    #[must_use]
    pub fn or_counted_in(mut self, launches: &[FullProfile]) -> Self {
        if self.precision.is_none() {
            self.precision = counted_precision(launches);
        }
        self
    }
}

/// The precision most of every counted launch's FLOPs are in, when they
/// agree and it has a roof.
fn counted_precision(launches: &[FullProfile]) -> Option<Precision> {
    let mut counted = launches.iter().filter_map(|l| {
        l.compute
            .flops_by_precision
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(name, _)| roof_precision(name))
    });
    let first = counted.next()??;
    counted.all(|p| p == Some(first)).then_some(first)
}

/// What the device points are, when there are any.
fn device_note(device: &[DevicePoint]) -> Option<String> {
    if device.is_empty() {
        return None;
    }
    let one = device.iter().filter(|d| d.kernel.is_some()).count();
    Some(format!(
        "on device time from the captured kernels: {one} brick(s) placed by their one kernel per \
         call, {} as a whole (several kernels per call: their FLOPs and bytes are not split)",
        device.len() - one
    ))
}

/// The finding for bricks above their roof: with one level for all, the
/// usual causes; with a level per brick, each brick with the annotation to
/// check.
fn above_roof_note(
    points: &[BrickPoint],
    precision: Precision,
    level: MemoryLevel,
    by_working_set: bool,
) -> Option<String> {
    let above: Vec<&BrickPoint> = points.iter().filter(|p| p.above_roof).collect();
    if above.is_empty() {
        return None;
    }
    if !by_working_set && above.iter().all(|p| !p.level_choice.is_pinned()) {
        let names: Vec<&str> = above.iter().map(|p| p.name.as_str()).collect();
        return Some(format!(
            "{} brick(s) run above the {precision}/{level} roof ({}): that roof does not bound them. \
             Usual causes: a working set that stays in a faster cache level than {level}, \
             or FLOPs/bytes annotations that over-count",
            names.len(),
            names.join(", ")
        ));
    }
    let each: Vec<String> = above
        .iter()
        .map(|p| {
            let check = p.check.unwrap_or(Annotation::Bytes);
            format!(
                "{} ({:.0}% of its {} roof; check its `{check}` annotation)",
                p.name, p.roof_pct, p.level
            )
        })
        .collect();
    Some(format!(
        "{} brick(s) run above the roof of the level that serves them: {}. A `bytes` that \
         over-counts what one call moves, or `flops` that over-count its work, put a brick \
         there; so does a level chosen wrongly (pin it with `level = ..`)",
        each.len(),
        each.join("; ")
    ))
}

#[cfg(test)]
mod tests;
