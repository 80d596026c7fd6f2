//! The hierarchical roofline of imported Nsight Compute kernels: per kernel
//! name, its FLOPs against the bytes of each memory level ncu measured (L1,
//! L2, DRAM), and each level's peak bandwidth from the same export, for the
//! plot to draw one marker per level beside the brick points.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::input::nsight::FullProfile;
use profiler_core::hardware::MemoryLevel;

/// One kernel at one memory level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelMark {
    /// The level.
    pub level: MemoryLevel,
    /// FLOPs per byte this level moved.
    pub arithmetic_intensity: f64,
}

/// One kernel name's points on the hierarchical roofline (its launches
/// summed, as its brick is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelLevels {
    /// Kernel name (the brick's name).
    pub name: String,
    /// Achieved GFLOP/s over the launches' total time.
    pub achieved_gflops: f64,
    /// One mark per level every launch measured, fastest level first.
    pub marks: Vec<LevelMark>,
}

/// A memory level's roof from the export: its peak bandwidth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelRoof {
    /// The level.
    pub level: MemoryLevel,
    /// Peak bandwidth, GB/s.
    pub gb_s: f64,
    /// Where the peak came from (the export's metric).
    pub source: String,
}

/// The hierarchical roofline of the kernels of an ncu export.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hierarchy {
    /// Each level's roof, fastest first.
    pub roofs: Vec<LevelRoof>,
    /// Kernels with per-level traffic, by name.
    pub kernels: Vec<KernelLevels>,
}

impl Hierarchy {
    /// The hierarchy of `profiles` (Nsight Compute launches): launches
    /// without FLOPs, a duration or per-level bytes are left out; a level
    /// is marked for a kernel only when every launch kept measured it.
    #[must_use]
    pub fn from_full_profiles(profiles: &[FullProfile]) -> Self {
        let mut roofs: BTreeMap<MemoryLevel, LevelRoof> = BTreeMap::new();
        let mut by_name: BTreeMap<&str, Vec<&FullProfile>> = BTreeMap::new();
        for p in profiles {
            if p.roofline.levels.is_empty() {
                continue;
            }
            let (Some(_), Some(_)) = (&p.compute.flops, &p.timing.duration_ns) else {
                continue;
            };
            by_name.entry(p.kernel.name.as_str()).or_default().push(p);
        }
        let mut kernels = Vec::new();
        for (name, launches) in by_name {
            let flops: f64 = launches
                .iter()
                .filter_map(|l| l.compute.flops.as_ref())
                .map(|f| f.value)
                .sum();
            let ns: f64 = launches
                .iter()
                .filter_map(|l| l.timing.duration_ns.as_ref())
                .map(|d| d.value)
                .sum();
            let mut bytes: BTreeMap<MemoryLevel, (f64, usize)> = BTreeMap::new();
            for l in &launches {
                for point in &l.roofline.levels {
                    let Ok(level) = point.level.parse::<MemoryLevel>() else {
                        continue;
                    };
                    let entry = bytes.entry(level).or_insert((0.0, 0));
                    entry.0 += point.bytes.value;
                    entry.1 += 1;
                    roofs.entry(level).or_insert_with(|| LevelRoof {
                        level,
                        gb_s: point.bandwidth_gb_s.value,
                        source: point.bandwidth_gb_s.source.clone(),
                    });
                }
            }
            let marks: Vec<LevelMark> = bytes
                .into_iter()
                .filter(|(_, (b, n))| *n == launches.len() && *b > 0.0)
                .map(|(level, (b, _))| LevelMark {
                    level,
                    arithmetic_intensity: flops / b,
                })
                .collect();
            if marks.is_empty() || flops <= 0.0 || ns <= 0.0 {
                continue;
            }
            kernels.push(KernelLevels {
                name: name.to_owned(),
                achieved_gflops: flops / ns,
                marks,
            });
        }
        Self {
            roofs: roofs.into_values().collect(),
            kernels,
        }
    }

    /// Whether there is nothing to draw.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }
}
