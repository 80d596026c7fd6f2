//! [`Counters`]: records that never became samples (dropped, pending or
//! lost), counted so a report can warn about them instead of hiding them.

use serde::{Deserialize, Serialize};

use crate::counter::saturating_sum;

/// Everything that did not become a sample, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Deferred records still waiting for `finalize` at snapshot time.
    #[serde(default)]
    pub pending: u64,
    /// Deferred records refused because a thread's queue was full.
    #[serde(default)]
    pub pending_overflow: u64,
    /// Deferred records never finalized before their thread exited.
    #[serde(default)]
    pub pending_abandoned: u64,
    /// Device times that could not be resolved (launch-to-sync used instead).
    #[serde(default)]
    pub device_timer_fallbacks: u64,
    /// Timeline events dropped because a thread's buffer was full.
    #[serde(default)]
    pub timeline_dropped: u64,
    /// Samples that arrived after their thread's storage was torn down.
    #[serde(default)]
    pub lost_at_thread_exit: u64,
    /// Samples of bricks beyond the slot table, kept under one overflow entry.
    #[serde(default)]
    pub slot_overflow_samples: u64,
    /// Sync-hook calls that panicked.
    #[serde(default)]
    pub sync_hook_panics: u64,
    /// Device-timer calls that panicked (the brick fell back to host timing).
    #[serde(default)]
    pub device_timer_panics: u64,
    /// `#[trace_op]` entries dropped because a thread's store was full.
    #[serde(default)]
    pub trace_entries_dropped: u64,
    /// Counter values not kept: not finite (a diverging loss), or of a name
    /// beyond the first 4096.
    #[serde(default)]
    pub counter_values_rejected: u64,
    /// Kernel checksums dropped because the checksum log was full.
    #[serde(default)]
    pub checksums_dropped: u64,
}

impl Counters {
    /// Records that never became samples (pending ones excluded: they still may).
    #[must_use]
    pub fn lost(&self) -> u64 {
        saturating_sum([
            self.pending_overflow,
            self.pending_abandoned,
            self.timeline_dropped,
            self.lost_at_thread_exit,
            self.trace_entries_dropped,
            self.checksums_dropped,
        ])
    }

    /// Human-readable lines for every non-zero counter, for report footers.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        let lines = [
            (
                self.pending,
                "deferred records still pending (call finalize after the device sync)",
            ),
            (
                self.pending_overflow,
                "deferred records dropped: pending queue full (raise Config::pending_capacity)",
            ),
            (
                self.pending_abandoned,
                "deferred records abandoned: their thread exited before finalize",
            ),
            (
                self.device_timer_fallbacks,
                "device times unresolved: launch-to-sync time used instead",
            ),
            (
                self.timeline_dropped,
                "timeline events dropped: trace buffer or process budget full (raise Config::trace_capacity / trace_process_capacity)",
            ),
            (
                self.lost_at_thread_exit,
                "samples lost: recorded during thread teardown",
            ),
            (
                self.slot_overflow_samples,
                "samples of bricks beyond the slot table (reported as one entry)",
            ),
            (self.sync_hook_panics, "sync hook calls panicked"),
            (
                self.device_timer_panics,
                "device timer calls panicked: host timing used instead",
            ),
            (
                self.trace_entries_dropped,
                "trace_op entries dropped: store full (raise Config::trace_entry_capacity)",
            ),
            (
                self.counter_values_rejected,
                "counter values not kept: not finite (NaN or infinite), or beyond 4096 names",
            ),
            (
                self.checksums_dropped,
                "kernel checksums dropped: checksum log full",
            ),
        ];
        lines
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect()
    }
}
