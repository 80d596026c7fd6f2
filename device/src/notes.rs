//! The profile notes a device timer writes: what fell back to host time,
//! what was dropped, what was still in flight at the snapshot.

use crate::pool::PoolStats;

/// Notes for a pool's counts; nothing when every event resolved.
pub(crate) fn pool_notes(api: &str, stats: &PoolStats) -> Vec<String> {
    let mut notes = Vec::new();
    if stats.dropped > 0 {
        notes.push(format!(
            "{api} timer: {} events dropped with every pooled event in flight \
             (those bricks fell back to launch-to-sync time; raise the capacity or finalize more often)",
            stats.dropped
        ));
    }
    if stats.failed > 0 {
        notes.push(format!(
            "{api} timer: {} events failed to create or record on the device",
            stats.failed
        ));
    }
    if stats.incomplete > 0 {
        notes.push(format!(
            "{api} timer: {} device times asked for before their events completed \
             (call finalize after the device sync)",
            stats.incomplete
        ));
    }
    if stats.in_flight > 0 {
        notes.push(format!(
            "{api} timer: {} events in flight at this snapshot",
            stats.in_flight
        ));
    }
    notes
}

/// Notes for a wgpu timer's counts; nothing when every pass was timed.
#[cfg(feature = "wgpu")]
pub(crate) fn wgpu_notes(stats: &crate::wgpu::WgpuStats) -> Vec<String> {
    let counts = [
        (
            stats.dropped,
            "passes ran untimed with every query set waiting for finalize",
        ),
        (
            stats.expired,
            "bricks never finalized were given up to make room",
        ),
        (
            stats.no_pass,
            "bricks held no timed compute pass (launch-to-sync time used)",
        ),
        (
            stats.untimed_spans,
            "encoder spans ran untimed (no TIMESTAMP_QUERY_INSIDE_ENCODERS)",
        ),
        (
            stats.unusable,
            "timestamp pairs read back with the end before the begin",
        ),
        (stats.timeouts, "read-backs timed out"),
    ];
    counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("wgpu timer: {n} {what}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_run_has_no_notes_and_each_problem_has_one() {
        assert!(pool_notes("CUDA", &PoolStats::default()).is_empty());
        let stats = PoolStats {
            dropped: 3,
            incomplete: 2,
            in_flight: 4,
            ..PoolStats::default()
        };
        let notes = pool_notes("CUDA", &stats);
        assert_eq!(notes.len(), 3);
        assert!(
            notes[0].starts_with("CUDA timer: 3 events dropped"),
            "{notes:?}"
        );
        assert!(notes[2].contains("4 events in flight"), "{notes:?}");
    }
}
