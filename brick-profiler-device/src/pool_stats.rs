//! [`PoolStats`]: what an event pool did (events created, recorded,
//! dropped, failed, resolved, in flight, anchors), and the profile notes
//! its problems call for.

/// What a pool did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Events created on the device (each is reused once released).
    pub created: u64,
    /// Events recorded on the stream.
    pub recorded: u64,
    /// Events refused because every pooled event was in flight.
    pub dropped: u64,
    /// Events whose creation or record failed on the device.
    pub failed: u64,
    /// Device times asked for before the end event completed.
    pub incomplete: u64,
    /// Device times resolved.
    pub resolved: u64,
    /// Events recorded and not yet released.
    pub in_flight: u64,
    /// Anchor events taken on an idle stream (device time to host time).
    pub anchors: u64,
}

impl PoolStats {
    /// The profile notes these counts call for (drops, failures, events
    /// asked for too early, events in flight); none for a clean run.
    pub fn notes(&self, api: &str) -> Vec<String> {
        pool_notes(api, self)
    }
}

/// Notes for a pool's counts; nothing when every event resolved.
fn pool_notes(api: &str, stats: &PoolStats) -> Vec<String> {
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
