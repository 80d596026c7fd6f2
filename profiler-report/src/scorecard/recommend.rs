//! Recommendations: the bottleneck's advice for low grades, a launch
//! overhead note, and a warning when backward runs faster than forward.
//! Advice is generic (no framework- or codebase-specific switches).

use super::grade::{Bottleneck, Grade};
use super::thresholds::Thresholds;

/// Recommendations in the reference order. With no grade (unknown peak),
/// only the classes known without a peak (Transfer, Launch) get advice.
pub(crate) fn recommend(
    grade: Option<Grade>,
    bottleneck: Bottleneck,
    launch: f64,
    avg_ratio: f64,
    t: &Thresholds,
) -> Vec<String> {
    let mut out = Vec::new();
    let advise = match grade {
        Some(g) => g <= t.advice_grade,
        // Without a peak only the phase-based classes are known for sure.
        None => matches!(bottleneck, Bottleneck::Transfer | Bottleneck::Launch),
    };
    if advise {
        out.push(bottleneck.recommendation().to_owned());
    }
    if grade.is_some_and(|g| g <= t.launch_note_grade) && launch > t.launch_note_overhead {
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
        let c = recommend(Some(Grade::C), Bottleneck::MemoryBw, 0.0, 2.0, &t);
        assert_eq!(c, [Bottleneck::MemoryBw.recommendation()]);
        assert!(recommend(Some(Grade::B), Bottleneck::MemoryBw, 0.9, 2.0, &t).is_empty());
        // Launch note needs grade <= D and launch > 0.30.
        assert_eq!(
            recommend(Some(Grade::C), Bottleneck::Launch, 0.5, 2.0, &t).len(),
            1
        );
        assert_eq!(
            recommend(Some(Grade::D), Bottleneck::Launch, 0.5, 2.0, &t).len(),
            2
        );
        assert_eq!(
            recommend(Some(Grade::D), Bottleneck::MemoryBw, 0.3, 2.0, &t).len(),
            1
        );
        // Unknown grade: phase-based classes only.
        assert_eq!(recommend(None, Bottleneck::Transfer, 0.0, 2.0, &t).len(), 1);
        assert!(recommend(None, Bottleneck::MemoryBw, 0.0, 2.0, &t).is_empty());
        // Backward faster than forward, regardless of grade.
        assert_eq!(
            recommend(Some(Grade::A), Bottleneck::Compute, 0.0, 0.5, &t).len(),
            1
        );
        assert!(recommend(Some(Grade::A), Bottleneck::Compute, 0.0, 0.0, &t).is_empty());
    }
}
