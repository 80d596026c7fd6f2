//! Anchors of the GPU's timestamp clock to the profiler's host clock.
//!
//! A pass cannot begin on the device before it was submitted, so each pass
//! read back bounds the offset between the clocks from below: its begin
//! timestamp is at or after its submit's host time (announced with
//! `WgpuTimer::submitting`, else the time its timestamp writes were handed
//! out). The anchor keeps the tightest of these bounds: the pass with the
//! shortest submit-to-start latency, an idle-queue pass whenever there is
//! one. Device times are thus placed early by at most that latency, never
//! late. A new anchor starts about once a second, as clocks drift.

use std::collections::VecDeque;

use crate::anchor::{REANCHOR_NS, shift};

/// A pass handed out and not read back yet: its sequence number and the
/// host time it cannot have begun before.
#[derive(Debug, Clone, Copy)]
struct Handed {
    seq: u64,
    host_ns: u64,
    submitted: bool,
}

/// A point known on both clocks, serving passes from `seq` on: timestamp
/// `ticks` is host time `host_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    seq: u64,
    ticks: u64,
    host_ns: u64,
    /// Host time of the anchor's first pass (its age decides re-anchoring).
    since_ns: u64,
}

/// The anchors of one timer, oldest first.
#[derive(Debug, Default)]
pub(crate) struct ClockAnchors {
    handed: VecDeque<Handed>,
    anchors: VecDeque<Anchor>,
    /// Anchors started so far.
    pub(crate) taken: u64,
}

impl ClockAnchors {
    /// Pass `seq` was handed out at host time `host_ns`.
    pub(crate) fn handed(&mut self, seq: u64, host_ns: u64) {
        self.handed.push_back(Handed {
            seq,
            host_ns,
            submitted: false,
        });
    }

    /// Work is about to be submitted at host time `host_ns`: passes handed
    /// out and not yet announced as submitted cannot begin before it.
    pub(crate) fn submitted(&mut self, host_ns: u64) {
        for h in self.handed.iter_mut().rev() {
            if h.submitted {
                break;
            }
            h.host_ns = h.host_ns.max(host_ns);
            h.submitted = true;
        }
    }

    /// Pass `seq` was read back with begin timestamp `begin` (`None`: not
    /// usable): it tightens the current anchor, or starts one when there is
    /// none or the current one is older than [`REANCHOR_NS`].
    pub(crate) fn read(&mut self, seq: u64, begin: Option<u64>, ns_per_tick: f64) {
        while self.handed.front().is_some_and(|h| h.seq < seq) {
            self.handed.pop_front();
        }
        let Some(handed) = self.handed.front().filter(|h| h.seq == seq).copied() else {
            return;
        };
        self.handed.pop_front();
        let Some(ticks) = begin else {
            return;
        };
        let host_ns = handed.host_ns;
        match self.anchors.back_mut() {
            Some(a) if host_ns.saturating_sub(a.since_ns) < REANCHOR_NS => {
                // The pass began at or after `host_ns`: a later host time
                // for its timestamp than the anchor gives moves the anchor.
                let placed = place(a, ticks, ns_per_tick);
                if host_ns > placed {
                    a.host_ns += host_ns - placed;
                }
            }
            _ => {
                self.anchors.push_back(Anchor {
                    seq,
                    ticks,
                    host_ns,
                    since_ns: host_ns,
                });
                self.taken += 1;
            }
        }
    }

    /// The host time of pass `seq`'s timestamp `ticks`: from the last
    /// anchor at or before `seq` (else the first after it). `None` before
    /// any pass was read back.
    pub(crate) fn host_ns(&self, seq: u64, ticks: u64, ns_per_tick: f64) -> Option<u64> {
        let anchor = self
            .anchors
            .iter()
            .rev()
            .find(|a| a.seq <= seq)
            .or_else(|| self.anchors.front())?;
        Some(place(anchor, ticks, ns_per_tick))
    }

    /// Forgets what no kept pass needs: anchors before the last one at or
    /// before `first` (the first pass kept), and passes before `first`.
    pub(crate) fn prune(&mut self, first: u64) {
        while self.anchors.len() > 1 && self.anchors[1].seq <= first {
            self.anchors.pop_front();
        }
        while self.handed.front().is_some_and(|h| h.seq < first) {
            self.handed.pop_front();
        }
    }

    /// Anchors held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.anchors.len()
    }
}

/// The host time of timestamp `ticks` by `anchor`.
fn place(anchor: &Anchor, ticks: u64, ns_per_tick: f64) -> u64 {
    let delta = i128::from(ticks) - i128::from(anchor.ticks);
    // `as` saturates a float beyond the range, which is what we want.
    let ns = (delta as f64 * ns_per_tick).round() as i64;
    shift(anchor.host_ns, ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pass_that_began_soonest_after_its_submit_sets_the_anchor() {
        let mut a = ClockAnchors::default();
        assert_eq!(a.host_ns(0, 0, 1.0), None, "nothing read yet");
        // Pass 0 handed out at 1 000, submitted at 1 500, began at tick
        // 10 000; pass 1 (2 ns per tick: 1 000 ns later on the device)
        // handed out at 2 800.
        a.handed(0, 1_000);
        a.submitted(1_500);
        a.handed(1, 2_800);
        a.read(0, Some(10_000), 2.0);
        assert_eq!(a.host_ns(0, 10_000, 2.0), Some(1_500));
        // Pass 1 cannot have begun before 2 800: the anchor moves 300 later.
        a.read(1, Some(10_500), 2.0);
        assert_eq!(a.host_ns(0, 10_000, 2.0), Some(1_800));
        assert_eq!(a.host_ns(1, 10_500, 2.0), Some(2_800));
        assert_eq!(a.taken, 1);
    }

    #[test]
    fn an_earlier_bound_leaves_the_anchor_alone_and_unusable_passes_count_for_nothing() {
        let mut a = ClockAnchors::default();
        a.handed(0, 1_000);
        a.handed(1, 1_100);
        a.handed(2, 1_200);
        a.read(0, Some(5_000), 1.0);
        a.read(1, None, 1.0);
        // Pass 2 queued behind pass 0: it began long after its hand-out.
        a.read(2, Some(9_000), 1.0);
        assert_eq!(a.host_ns(2, 9_000, 1.0), Some(5_000));
    }

    #[test]
    fn a_second_later_a_new_anchor_serves_the_passes_from_there() {
        let mut a = ClockAnchors::default();
        a.handed(0, 1_000);
        a.read(0, Some(0), 1.0);
        // The device clock ran 10 ns fast over two seconds.
        a.handed(100, 2_000_001_000);
        a.read(100, Some(2_000_000_010), 1.0);
        assert_eq!(a.taken, 2);
        assert_eq!(a.host_ns(99, 2_000_000_000, 1.0), Some(2_000_001_000));
        assert_eq!(a.host_ns(150, 2_000_000_020, 1.0), Some(2_000_001_010));
        a.prune(99);
        assert_eq!(a.len(), 2, "pass 99 still needs the first anchor");
        a.prune(100);
        assert_eq!(a.len(), 1);
        a.prune(1_000);
        assert_eq!(a.len(), 1, "the last anchor always stays");
    }

    #[test]
    fn passes_never_read_back_are_forgotten() {
        let mut a = ClockAnchors::default();
        for seq in 0..10 {
            a.handed(seq, seq);
        }
        a.prune(8);
        a.read(9, Some(100), 1.0);
        assert_eq!(a.host_ns(9, 100, 1.0), Some(9));
        assert!(a.handed.is_empty());
    }
}
