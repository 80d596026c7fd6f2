//! Anchors: a point known on both the device's clock and the profiler's
//! host clock, so a device time becomes a host time (the anchor's host
//! time plus the device time since the anchor). A new one is taken about
//! once a second, so clock drift stays small. The CUDA pool records an
//! anchor event on an idle stream (its bookkeeping is here); the wgpu
//! timer's anchors are in `wgpu/anchors.rs`.

/// How long an anchor serves before a new one is wanted (clock drift
/// between the device and the host is a few parts per million).
pub const REANCHOR_NS: u64 = 1_000_000_000;

/// How long to wait after finding the device busy before asking again
/// (each ask is a driver call).
pub(crate) const RETRY_NS: u64 = 1_000_000;

/// When the next anchor is wanted: none yet, or the last one is older
/// than [`REANCHOR_NS`]; a busy device is asked again after [`RETRY_NS`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Schedule {
    taken_at: Option<u64>,
    busy_at: Option<u64>,
}

impl Schedule {
    /// Whether to look for an idle device at host time `now`.
    pub(crate) fn wants(&self, now: u64) -> bool {
        let stale = self
            .taken_at
            .is_none_or(|t| now.saturating_sub(t) >= REANCHOR_NS);
        let asked = self
            .busy_at
            .is_some_and(|t| now.saturating_sub(t) < RETRY_NS);
        stale && !asked
    }

    /// Notes an anchor taken at `now`.
    pub(crate) fn taken(&mut self, now: u64) {
        self.taken_at = Some(now);
        self.busy_at = None;
    }

    /// Notes that the device was busy (or the anchor failed) at `now`.
    pub(crate) fn busy(&mut self, now: u64) {
        self.busy_at = Some(now);
    }
}

/// An anchor event: its handle, its host time, and how many recorded
/// events are timed against it.
#[derive(Debug, Clone, Copy)]
struct EventAnchor {
    id: u64,
    host_ns: u64,
    users: u32,
}

/// The anchor events of a pool: the current one, which new events are
/// timed against, and older ones kept until their last event is released.
#[derive(Debug, Default)]
pub(crate) struct EventAnchors {
    pub(crate) schedule: Schedule,
    current: Option<EventAnchor>,
    retired: Vec<EventAnchor>,
}

impl EventAnchors {
    /// Makes `id`, recorded at host time `host_ns`, the current anchor;
    /// returns the previous one when no event uses it any more (to free).
    pub(crate) fn install(&mut self, id: u64, host_ns: u64) -> Option<u64> {
        self.schedule.taken(host_ns);
        let old = self.current.replace(EventAnchor {
            id,
            host_ns,
            users: 0,
        })?;
        if old.users == 0 {
            return Some(old.id);
        }
        self.retired.push(old);
        None
    }

    /// The current anchor for a newly recorded event (counted as a user).
    pub(crate) fn attach(&mut self) -> Option<u64> {
        let current = self.current.as_mut()?;
        current.users += 1;
        Some(current.id)
    }

    /// The host time of anchor `id`, while it is held.
    pub(crate) fn host_ns(&self, id: u64) -> Option<u64> {
        self.all().find(|a| a.id == id).map(|a| a.host_ns)
    }

    /// Moves anchor `id` later, to `host_ns`, when an event showed that the
    /// device reached it no sooner (see `EventPool::host_time_ns`).
    pub(crate) fn raise(&mut self, id: u64, host_ns: u64) {
        if let Some(anchor) = self.all_mut().find(|a| a.id == id) {
            anchor.host_ns = anchor.host_ns.max(host_ns);
        }
    }

    /// An event timed against `id` is released; returns `id` when it was
    /// a retired anchor's last event (to free).
    pub(crate) fn detach(&mut self, id: u64) -> Option<u64> {
        if let Some(current) = self.current.as_mut().filter(|a| a.id == id) {
            current.users = current.users.saturating_sub(1);
            return None;
        }
        let at = self.retired.iter().position(|a| a.id == id)?;
        let anchor = &mut self.retired[at];
        anchor.users = anchor.users.saturating_sub(1);
        (anchor.users == 0).then(|| self.retired.swap_remove(at).id)
    }

    /// Anchors held (current and retired).
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.all().count()
    }

    fn all(&self) -> impl Iterator<Item = &EventAnchor> {
        self.current.iter().chain(&self.retired)
    }

    fn all_mut(&mut self) -> impl Iterator<Item = &mut EventAnchor> {
        self.current.iter_mut().chain(&mut self.retired)
    }
}

/// The host time `offset_ns` after (negative: before) an anchor at host
/// time `anchor_ns`, saturating at the clock's ends.
pub(crate) fn shift(anchor_ns: u64, offset_ns: i64) -> u64 {
    anchor_ns.saturating_add_signed(offset_ns)
}

/// Milliseconds (a driver's elapsed time) as signed ns; NaN reads as 0.
pub(crate) fn ms_to_ns(ms: f32) -> i64 {
    if ms.is_finite() {
        (f64::from(ms) * 1e6).round() as i64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_is_wanted_first_then_once_a_second() {
        let mut s = Schedule::default();
        assert!(s.wants(0));
        s.taken(10);
        assert!(!s.wants(10 + REANCHOR_NS - 1));
        assert!(s.wants(10 + REANCHOR_NS));
    }

    #[test]
    fn a_busy_device_is_asked_again_only_after_the_retry_gap() {
        let mut s = Schedule::default();
        s.busy(100);
        assert!(!s.wants(100 + RETRY_NS - 1));
        assert!(s.wants(100 + RETRY_NS));
    }

    #[test]
    fn a_replaced_anchor_lives_until_its_last_event_is_released() {
        let mut a = EventAnchors::default();
        assert_eq!(a.attach(), None, "no anchor yet");
        assert_eq!(a.install(1, 100), None);
        assert_eq!((a.attach(), a.attach()), (Some(1), Some(1)));
        assert_eq!(a.install(2, 200), None, "anchor 1 still has two events");
        assert_eq!(a.attach(), Some(2));
        assert_eq!(
            (a.host_ns(1), a.host_ns(2), a.held()),
            (Some(100), Some(200), 2)
        );
        assert_eq!(a.detach(1), None);
        assert_eq!(a.detach(1), Some(1), "its last event: free it");
        assert_eq!((a.host_ns(1), a.held()), (None, 1));
        assert_eq!(a.detach(2), None, "the current anchor stays");
        assert_eq!(a.install(3, 300), Some(2), "unused: freed at once");
    }

    #[test]
    fn device_offsets_move_host_times_both_ways() {
        assert_eq!(shift(5_000, ms_to_ns(0.002)), 7_000);
        assert_eq!(shift(5_000, -3_000), 2_000);
        assert_eq!(shift(5, -10), 0, "saturates");
        assert_eq!(ms_to_ns(f32::NAN), 0);
    }
}
