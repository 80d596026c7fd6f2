//! Recommendations: the bottleneck's advice for low grades, a launch
//! overhead note, and a warning when backward runs faster than forward.
//! Advice is generic (no framework- or codebase-specific switches), and
//! runs that timed no device get CPU advice rather than GPU advice.

use super::grade::{Bottleneck, Grade};
use super::thresholds::Thresholds;

/// Advice for a run that timed no device work (CPU kernels), where GPU
/// advice (tensor cores, CUDA graphs) does not apply.
fn cpu_recommendation(bottleneck: Bottleneck) -> &'static str {
    match bottleneck {
        Bottleneck::Launch => {
            "Time outside the profiled phases dominates: wrap the rest of each step in \
             phases or bricks to see where it goes, and look for allocation, data loading or \
             logging between them."
        }
        Bottleneck::MemoryBw => {
            "Memory-bandwidth bound: tile loops so operands stay in cache (blocked GEMMs), \
             fuse elementwise passes into their producers, and use narrower types (bf16, \
             int8) to move fewer bytes."
        }
        other => other.recommendation(),
    }
}

/// Advice when throughput is far below the memory-bandwidth ceiling.
fn far_below_the_ceiling(cpu: bool) -> &'static str {
    if cpu {
        "Throughput is far below the memory-bandwidth ceiling, so bandwidth is not the limit: \
         compare the hotspot bricks' achieved GB/s and GFLOP/s (per brick in the HTML report) with the \
         machine's, and look for scalar loops, poor cache reuse and allocation per call."
    } else {
        "Throughput is far below the memory-bandwidth ceiling, so bandwidth is not the limit: \
         compare the hotspot kernels' achieved GB/s and GFLOP/s (per brick in the HTML report) with the \
         device's, and look for small kernels, host synchronisation and per-launch overhead."
    }
}

/// Recommendations in the standard order. With no grade (unknown peak),
/// only the classes known without a peak (Transfer, Launch) get advice;
/// with the launch overhead unknown (`None`), no launch note. A run that
/// timed no device (`device_timed == Some(false)`) gets CPU advice.
pub(crate) fn recommend(
    grade: Option<Grade>,
    bottleneck: Bottleneck,
    launch: Option<f64>,
    avg_ratio: f64,
    device_timed: Option<bool>,
    t: &Thresholds,
) -> Vec<String> {
    let mut out = Vec::new();
    let cpu = device_timed == Some(false);
    let advise = match grade {
        Some(g) => g <= t.advice_grade,
        // Without a peak only the phase-based classes are known for sure.
        None => matches!(bottleneck, Bottleneck::Transfer | Bottleneck::Launch),
    };
    if advise {
        out.push(
            if grade == Some(Grade::F) && bottleneck == Bottleneck::MemoryBw {
                // MemoryBw is only the default class; this far below the
                // bandwidth ceiling, bandwidth is not what limits the step.
                far_below_the_ceiling(cpu).to_owned()
            } else if cpu {
                cpu_recommendation(bottleneck).to_owned()
            } else {
                bottleneck.recommendation().to_owned()
            },
        );
    }
    if let Some(launch) = launch
        && !cpu
        && grade.is_some_and(|g| g <= t.launch_note_grade)
        && launch > t.launch_note_overhead
    {
        out.push(format!(
            "Launch overhead is {:.0}% of the step (above {:.0}%): fuse small kernels, capture \
             the step with CUDA graphs, and batch launches.",
            launch * 100.0,
            t.launch_note_overhead * 100.0
        ));
    }
    if avg_ratio > 0.0 && avg_ratio < 1.0 {
        out.push(format!(
            "Backward is faster than forward (mean bwd/fwd ratio {avg_ratio:.2}; expect about \
             2): backward work is probably being skipped, e.g. steps skipped on NaN/inf \
             gradients, frozen layers or no-grad regions."
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_follows_the_grade_gates() {
        let t = Thresholds::default();
        let c = recommend(
            Some(Grade::C),
            Bottleneck::MemoryBw,
            Some(0.0),
            2.0,
            None,
            &t,
        );
        assert_eq!(c, [Bottleneck::MemoryBw.recommendation()]);
        assert!(
            recommend(
                Some(Grade::B),
                Bottleneck::MemoryBw,
                Some(0.9),
                2.0,
                None,
                &t
            )
            .is_empty()
        );
        // Launch note needs grade <= D and launch > 0.30.
        assert_eq!(
            recommend(Some(Grade::C), Bottleneck::Launch, Some(0.5), 2.0, None, &t).len(),
            1
        );
        assert_eq!(
            recommend(Some(Grade::D), Bottleneck::Launch, Some(0.5), 2.0, None, &t).len(),
            2
        );
        assert_eq!(
            recommend(
                Some(Grade::D),
                Bottleneck::MemoryBw,
                Some(0.3),
                2.0,
                None,
                &t
            )
            .len(),
            1
        );
        // Unknown grade: phase-based classes only.
        assert_eq!(
            recommend(None, Bottleneck::Transfer, Some(0.0), 2.0, None, &t).len(),
            1
        );
        assert!(recommend(None, Bottleneck::MemoryBw, Some(0.0), 2.0, None, &t).is_empty());
        // Unknown launch overhead: no launch note.
        assert_eq!(
            recommend(
                Some(Grade::D),
                Bottleneck::MemoryBw,
                Some(0.5),
                2.0,
                None,
                &t
            )
            .len(),
            2
        );
        assert_eq!(
            recommend(Some(Grade::D), Bottleneck::MemoryBw, None, 2.0, None, &t).len(),
            1
        );
        // CPU runs get CPU advice and no CUDA-graph launch note.
        let cpu = recommend(
            Some(Grade::D),
            Bottleneck::MemoryBw,
            Some(0.5),
            2.0,
            Some(false),
            &t,
        );
        assert_eq!(cpu.len(), 1);
        assert!(cpu[0].contains("stay in cache") && !cpu[0].contains("tensor-core"));
        // Grade F: far below the ceiling, bandwidth is not the limit.
        let far = recommend(
            Some(Grade::F),
            Bottleneck::MemoryBw,
            Some(0.0),
            2.0,
            None,
            &t,
        );
        assert!(far[0].starts_with("Throughput is far below the memory-bandwidth ceiling"));
        // Backward faster than forward, regardless of grade.
        assert_eq!(
            recommend(
                Some(Grade::A),
                Bottleneck::Compute,
                Some(0.0),
                0.5,
                None,
                &t
            )
            .len(),
            1
        );
        assert!(
            recommend(
                Some(Grade::A),
                Bottleneck::Compute,
                Some(0.0),
                0.0,
                None,
                &t
            )
            .is_empty()
        );
    }
}
