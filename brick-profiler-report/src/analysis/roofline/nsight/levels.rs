//! The hierarchical roofline of a launch: its FLOPs against each memory
//! level ncu measured, each level's roof at that intensity, and the level
//! whose roof is lowest, which is the one that bounds the kernel.

use profiler_core::hardware::{Hardware, Precision};

use crate::analysis::roofline::kernel::compute;
use crate::input::nsight::ncu_levels::LevelTraffic;
use crate::input::nsight::{LevelPoint, RooflineSection};
use crate::model::hardware::Bound;

/// Fills `section.levels` and `section.binding_level` from each level's
/// traffic, for `flops` in `duration_s` against `precision`'s peak. Nothing
/// is filled without FLOPs, a duration or the compute peak.
pub(crate) fn place_levels(
    section: &mut RooflineSection,
    roof: Option<&Hardware>,
    precision: Option<Precision>,
    flops: Option<f64>,
    duration_s: Option<f64>,
    levels: &[LevelTraffic],
) {
    let (Some(roof), Some(precision), Some(flops), Some(seconds)) =
        (roof, precision, flops, duration_s)
    else {
        return;
    };
    let Ok(peak) = compute(roof, precision) else {
        return;
    };
    if flops <= 0.0 || seconds <= 0.0 {
        return;
    }
    let peak = peak.value * 1e12;
    let achieved = flops / seconds;
    section.levels = levels
        .iter()
        .filter(|t| t.bytes.value > 0.0)
        .map(|t| {
            let intensity = flops / t.bytes.value;
            let bandwidth = t.peak_gb_s.value * 1e9;
            let attainable = peak.min(intensity * bandwidth);
            LevelPoint {
                level: t.level.name().to_ascii_lowercase(),
                bytes: t.bytes.clone(),
                arithmetic_intensity: intensity,
                bandwidth_gb_s: t.peak_gb_s.clone(),
                attainable_tflops: attainable / 1e12,
                efficiency_pct: achieved / attainable * 100.0,
                bound: if intensity * bandwidth < peak {
                    Bound::Memory
                } else {
                    Bound::Compute
                },
            }
        })
        .collect();
    section.binding_level = section
        .levels
        .iter()
        .filter(|p| p.bound == Bound::Memory)
        .min_by(|a, b| a.attainable_tflops.total_cmp(&b.attainable_tflops))
        .map(|p| p.level.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::nsight::Sourced;
    use profiler_core::hardware::{Figure, MemoryLevel, Source};

    fn traffic(level: MemoryLevel, bytes: f64, gb_s: f64) -> LevelTraffic {
        LevelTraffic {
            level,
            bytes: Sourced::new(bytes, "test").unwrap(),
            peak_gb_s: Sourced::new(gb_s, "test").unwrap(),
        }
    }

    fn section() -> RooflineSection {
        RooflineSection::withheld(None, false)
    }

    #[test]
    fn the_lowest_memory_roof_binds_and_compute_binds_when_none_is_below_peak() {
        let mut roof = Hardware::new("gpu");
        roof.set_compute(Precision::Fp32, Figure::new(60.0, Source::Preset))
            .unwrap();
        // 1 TFLOP in 1 s: L1 at 1 FLOP/B × 10 TB/s = 10 TFLOP/s roof,
        // L2 at 100 FLOP/B × 5 TB/s = 500 (capped at 60), DRAM at 1000 FLOP/B.
        let levels = [
            traffic(MemoryLevel::L1Cache, 1e12, 10_000.0),
            traffic(MemoryLevel::L2Cache, 1e10, 5_000.0),
            traffic(MemoryLevel::Dram, 1e9, 3_000.0),
        ];
        let mut s = section();
        place_levels(
            &mut s,
            Some(&roof),
            Some(Precision::Fp32),
            Some(1e12),
            Some(1.0),
            &levels,
        );
        let roofs: Vec<(String, f64, Bound)> = s
            .levels
            .iter()
            .map(|p| (p.level.clone(), p.attainable_tflops, p.bound))
            .collect();
        assert_eq!(
            roofs,
            [
                ("l1".to_owned(), 10.0, Bound::Memory),
                ("l2".to_owned(), 60.0, Bound::Compute),
                ("dram".to_owned(), 60.0, Bound::Compute),
            ]
        );
        assert_eq!(s.binding_level.as_deref(), Some("l1"));
        assert!((s.levels[0].efficiency_pct - 10.0).abs() < 1e-9);

        let mut s = section();
        place_levels(
            &mut s,
            Some(&roof),
            Some(Precision::Fp32),
            Some(1e12),
            Some(1.0),
            &levels[1..],
        );
        assert_eq!(s.binding_level, None, "compute-bound at every level");
    }

    #[test]
    fn nothing_is_placed_without_flops_or_a_compute_peak() {
        let levels = [traffic(MemoryLevel::Dram, 1e9, 3_000.0)];
        let roof = Hardware::new("gpu");
        let mut s = section();
        place_levels(
            &mut s,
            Some(&roof),
            Some(Precision::Fp32),
            Some(1e12),
            Some(1.0),
            &levels,
        );
        assert!(s.levels.is_empty());
        place_levels(
            &mut s,
            None,
            Some(Precision::Fp32),
            None,
            Some(1.0),
            &levels,
        );
        assert!(s.levels.is_empty() && s.binding_level.is_none());
    }
}
