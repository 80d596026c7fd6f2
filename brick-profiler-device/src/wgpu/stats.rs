//! [`WgpuStats`]: what a wgpu timer did (pairs handed out, dropped, read,
//! unusable, expired, anchors, ...), and the profile notes its problems
//! call for.

/// What a wgpu timer did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WgpuStats {
    /// Timestamp pairs handed to compute passes or encoders.
    pub pairs: u64,
    /// Pairs refused because every query set was in use (those passes
    /// ran untimed).
    pub dropped: u64,
    /// Pairs read back.
    pub read: u64,
    /// Pairs read back whose end came before their begin.
    pub unusable: u64,
    /// Bricks given up to make room for new pairs (never finalized).
    pub expired: u64,
    /// Bricks that held no timed pass of their thread.
    pub no_pass: u64,
    /// Encoder spans run untimed: the device lacks
    /// `TIMESTAMP_QUERY_INSIDE_ENCODERS`.
    pub untimed_spans: u64,
    /// Read-backs that did not arrive within `READBACK_TIMEOUT`.
    pub timeouts: u64,
    /// Query sets created (each holds 2048 pairs).
    pub query_sets: u64,
    /// Anchors of the GPU's clock to the host's started (one at first,
    /// then one a second at most).
    pub anchors: u64,
}

/// Notes for a wgpu timer's counts; nothing when every pass was timed.
pub(crate) fn wgpu_notes(stats: &WgpuStats) -> Vec<String> {
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
