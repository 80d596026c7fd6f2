//! Memory regressions: per brick and memory kind, bytes allocated per call,
//! allocations per call and peak bytes before and after (against the
//! baseline whose bytes per call are the median, when there are several). Allocations are
//! counted exactly, so a change needs no significance test: it is flagged
//! when beyond the time threshold and above a floor that one stray
//! allocation cannot cross.

use profiler_core::alloc::BrickMemory;
#[cfg(test)]
use profiler_core::alloc::MemoryKind;

use super::model::{Change, Criteria, MemoryDiff};
use crate::analysis::scorecard::Severity;
use crate::model::run::RunSummary;

/// Increases smaller than this many bytes (per call, or of the peak) are
/// never flagged.
pub const BYTES_FLOOR: f64 = 4096.0;
/// Increases smaller than this many allocations per call are never flagged.
pub const ALLOCATIONS_FLOOR: f64 = 1.0;

/// Judges one measure: its relative change, and whether the increase (or
/// decrease) clears the floor.
fn measure(old: f64, new: f64, floor: f64) -> (Option<f64>, bool) {
    let change = (old > 0.0).then(|| (new - old) / old);
    (change, (new - old).abs() >= floor)
}

/// Every brick and kind charged on both sides, most allocated first. With
/// several baselines, each brick is compared against the baseline whose
/// bytes per call are the median of theirs.
pub(crate) fn memory_rows(
    baselines: &[RunSummary],
    new: &[BrickMemory],
    criteria: &Criteria,
) -> Vec<MemoryDiff> {
    let mut rows: Vec<MemoryDiff> = new
        .iter()
        .filter_map(|n| {
            let mut olds: Vec<&BrickMemory> = baselines
                .iter()
                .filter_map(|b| {
                    b.memory
                        .iter()
                        .find(|o| o.name == n.name && o.kind == n.kind)
                })
                .collect();
            olds.sort_by(|a, b| per_call(a).0.total_cmp(&per_call(b).0));
            let o = olds.get(olds.len() / 2)?;
            Some(judge(o, n, criteria))
        })
        .collect();
    rows.sort_by(|a, b| {
        b.bytes_per_call
            .1
            .total_cmp(&a.bytes_per_call.1)
            .then_with(|| a.name.cmp(&b.name))
    });
    rows
}

fn per_call(m: &BrickMemory) -> (f64, f64) {
    let calls = m.calls.max(1) as f64;
    (
        m.allocated_bytes as f64 / calls,
        m.allocations as f64 / calls,
    )
}

fn judge(o: &BrickMemory, n: &BrickMemory, criteria: &Criteria) -> MemoryDiff {
    let (ob, oa) = per_call(o);
    let (nb, na) = per_call(n);
    let measures = [
        ("bytes per call", ob, nb, BYTES_FLOOR),
        ("allocations per call", oa, na, ALLOCATIONS_FLOOR),
        (
            "peak bytes",
            o.peak_bytes as f64,
            n.peak_bytes as f64,
            BYTES_FLOOR,
        ),
    ];
    let mut change: Option<f64> = Some(0.0);
    let (mut worse, mut better) = (Vec::new(), Vec::new());
    for (what, old, new, floor) in measures {
        let (c, clears) = measure(old, new, floor);
        let beyond = c.is_none_or(|c| c.abs() > criteria.threshold);
        if new > old && clears && beyond {
            worse.push(format!("{what} {old:.1} -> {new:.1}"));
        } else if new < old && clears && beyond {
            better.push(format!("{what} {old:.1} -> {new:.1}"));
        }
        change = match (change, c) {
            (_, None) if new > old => None,
            (Some(a), Some(b)) if b.abs() > a.abs() => Some(b),
            (a, _) => a,
        };
    }
    let (verdict, severity, detail) = if !worse.is_empty() {
        let critical = change.is_none_or(|c| c > criteria.critical);
        let severity = if critical {
            Severity::Critical
        } else {
            Severity::Warning
        };
        (Change::Regression, Some(severity), worse.join(", "))
    } else if !better.is_empty() {
        (Change::Improvement, None, better.join(", "))
    } else {
        (Change::NoChange, None, String::new())
    };
    MemoryDiff {
        name: o.name.clone(),
        kind: o.kind,
        bytes_per_call: (ob, nb),
        allocations_per_call: (oa, na),
        peak_bytes: (o.peak_bytes, n.peak_bytes),
        relative: change,
        change: verdict,
        severity,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brick(calls: u64, allocated: u64, allocations: u64, peak: u64) -> BrickMemory {
        BrickMemory {
            name: "Attention".to_owned(),
            kind: MemoryKind::Host,
            calls,
            allocated_bytes: allocated,
            allocations,
            freed_bytes: allocated,
            peak_bytes: peak,
            retained_bytes: 0,
            self_allocated_bytes: allocated,
            self_allocations: allocations,
            self_freed_bytes: allocated,
        }
    }

    /// One baseline run holding `memory`.
    fn base(memory: BrickMemory) -> Vec<RunSummary> {
        vec![RunSummary {
            memory: vec![memory],
            ..RunSummary::default()
        }]
    }

    fn criteria() -> Criteria {
        Criteria {
            threshold: 0.05,
            critical: 0.5,
            alpha: 0.01,
            min_samples: 5,
            relative_to_run: true,
        }
    }

    #[test]
    fn more_allocations_per_call_is_a_regression() {
        let rows = memory_rows(
            &base(brick(10, 10 * 8192, 10, 8192)),
            &[brick(10, 10 * 8192, 30, 8192)],
            &criteria(),
        );
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].change, Change::Regression);
        assert_eq!(rows[0].severity, Some(Severity::Critical));
        assert!(rows[0].detail.contains("allocations per call 1.0 -> 3.0"));
    }

    #[test]
    fn a_stray_allocation_or_same_memory_is_not_flagged() {
        let same = memory_rows(
            &base(brick(10, 80_000, 10, 8000)),
            &[brick(10, 80_000, 10, 8000)],
            &criteria(),
        );
        assert_eq!(same[0].change, Change::NoChange);
        let stray = memory_rows(
            &base(brick(10, 1000, 10, 100)),
            &[brick(10, 1100, 11, 200)],
            &criteria(),
        );
        assert_eq!(stray[0].change, Change::NoChange, "{:?}", stray[0]);
    }

    #[test]
    fn less_peak_memory_is_an_improvement() {
        let rows = memory_rows(
            &base(brick(1, 0, 0, 1 << 20)),
            &[brick(1, 0, 0, 1 << 10)],
            &criteria(),
        );
        assert_eq!(rows[0].change, Change::Improvement);
    }
}
