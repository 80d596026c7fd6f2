//! What the import asks of every event's ancestry and of the step ranges,
//! computed once: whether an op encloses the event, whether it runs in a
//! backward node, and which step (if any) a time falls in.

use super::events::{Cat, Event};

/// Prefix of the autograd engine's range around each backward node.
pub(crate) const BACKWARD_PREFIX: &str = "autograd::engine::evaluate_function: ";

/// Facts of each event's chain of parents, computed in one pass.
#[derive(Debug)]
pub(crate) struct Tree {
    /// Whether a CPU op encloses the event (itself excluded).
    pub(crate) under_op: Vec<bool>,
    /// Whether the event is a backward node or runs inside one.
    pub(crate) in_backward: Vec<bool>,
}

impl Tree {
    /// Events come sorted with each parent before its children, so one
    /// forward pass reads every parent's facts before its children need
    /// them: linear time, where walking each chain is quadratic in depth.
    pub(crate) fn new(events: &[Event]) -> Self {
        let mut under_op = vec![false; events.len()];
        let mut in_backward = vec![false; events.len()];
        for (i, e) in events.iter().enumerate() {
            let backward = e.name.starts_with(BACKWARD_PREFIX);
            match e.parent {
                Some(p) => {
                    under_op[i] = under_op[p] || events[p].cat == Cat::CpuOp;
                    in_backward[i] = backward || in_backward[p];
                }
                None => in_backward[i] = backward,
            }
        }
        Self {
            under_op,
            in_backward,
        }
    }
}

/// The `ProfilerStep#N` ranges, sorted, for membership tests in
/// logarithmic time.
#[derive(Debug)]
pub(crate) struct StepWindows {
    /// (start, end), by start.
    ranges: Vec<(f64, f64)>,
    /// The largest end among `ranges[..=i]`.
    reach: Vec<f64>,
}

impl StepWindows {
    pub(crate) fn new(steps: &[(f64, f64)]) -> Self {
        let mut ranges = steps.to_vec();
        ranges.sort_by(|a, b| a.0.total_cmp(&b.0));
        let reach = ranges
            .iter()
            .scan(f64::NEG_INFINITY, |m, &(_, end)| {
                *m = m.max(end);
                Some(*m)
            })
            .collect();
        Self { ranges, reach }
    }

    /// Whether `ts` falls in a step (always, without steps).
    pub(crate) fn contains(&self, ts: f64) -> bool {
        if self.ranges.is_empty() {
            return true;
        }
        // Ranges starting at or before `ts`; one of them reaches it when
        // the furthest end among them does.
        let started = self.ranges.partition_point(|&(start, _)| start <= ts);
        started > 0 && self.reach[started - 1] >= ts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_windows_match_a_linear_scan() {
        let steps = [(10.0, 20.0), (0.0, 5.0), (12.0, 30.0), (40.0, 41.0)];
        let w = StepWindows::new(&steps);
        for ts in [
            -1.0, 0.0, 5.0, 6.0, 10.0, 25.0, 30.0, 35.0, 40.5, 41.0, 42.0,
        ] {
            let linear = steps.iter().any(|&(s, e)| ts >= s && ts <= e);
            assert_eq!(w.contains(ts), linear, "ts {ts}");
        }
        assert!(StepWindows::new(&[]).contains(-5.0));
    }
}
