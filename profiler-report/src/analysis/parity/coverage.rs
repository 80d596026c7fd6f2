//! What a parity verdict was computed over: the share of each side's time
//! that the ops compared on both sides account for. No verdict is given
//! over nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The share of each side's time the compared ops account for, as is:
/// above 1 when ops on several threads or streams overlap in time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Ops compared on both sides.
    pub compared_ops: usize,
    /// Our compared time over our step time (over all our op time when the
    /// step time is unknown).
    pub ours: f64,
    /// The baseline's compared time over its step time (or all its op
    /// time).
    pub baseline: f64,
    /// Whether `ours` is a share of op time, the step time being unknown.
    #[serde(default)]
    pub ours_of_op_time: bool,
    /// Whether `baseline` is a share of op time.
    #[serde(default)]
    pub baseline_of_op_time: bool,
}

/// The share of a side's time (its step time `step`, ms) that `compared`
/// ops account for, and whether it is a share of op time (no step time).
fn share<'a>(
    step: f64,
    usable: &BTreeMap<String, f64>,
    compared: impl Iterator<Item = &'a str>,
) -> (f64, bool) {
    let compared: f64 = compared
        .filter_map(|op| usable.get(op))
        .fold(0.0, |a, b| a + b);
    if step.is_finite() && step > 0.0 {
        return (compared / step, false);
    }
    let all: f64 = usable.values().fold(0.0, |a, b| a + b);
    (if all > 0.0 { compared / all } else { 0.0 }, true)
}

impl Coverage {
    /// Coverage of the ops in `compared` (present with time on both sides),
    /// each side given as its step time (ms) and its usable op times.
    pub(crate) fn of(
        ours: (f64, &BTreeMap<String, f64>),
        baseline: (f64, &BTreeMap<String, f64>),
        compared: &[&str],
    ) -> Self {
        let (o, o_ops) = share(ours.0, ours.1, compared.iter().copied());
        let (b, b_ops) = share(baseline.0, baseline.1, compared.iter().copied());
        Self {
            compared_ops: compared.len(),
            ours: o,
            baseline: b,
            ours_of_op_time: o_ops,
            baseline_of_op_time: b_ops,
        }
    }

    /// `compared 42.0% of ours's step time, 97.5% of pytorch's step time`,
    /// with why a share above 100% can be.
    #[must_use]
    pub fn describe(&self, ours: &str, baseline: &str) -> String {
        let part = |share: f64, name: &str, of_ops: bool| {
            let of = if of_ops { "op time" } else { "step time" };
            format!("{:.1}% of {name}'s {of}", share * 100.0)
        };
        let mut s = format!(
            "compared {}, {}",
            part(self.ours, ours, self.ours_of_op_time),
            part(self.baseline, baseline, self.baseline_of_op_time)
        );
        if self.ours > 1.0 || self.baseline > 1.0 {
            s.push_str(" (above 100%: ops on several threads or streams overlap in time)");
        }
        s
    }
}

/// The verdict line: YES or NO over the ops compared, or no verdict.
pub(crate) fn verdict_line(
    achieved: bool,
    ratios: impl Iterator<Item = f64>,
    threshold: f64,
    coverage: &str,
) -> String {
    let ratios: Vec<f64> = ratios.collect();
    if ratios.is_empty() {
        return "no verdict: no op was compared".to_owned();
    }
    let over = ratios.iter().filter(|r| **r > threshold).count();
    if achieved {
        format!(
            "YES (all {} ops within {threshold:.2}x; {coverage})",
            ratios.len()
        )
    } else {
        format!(
            "NO ({over} of {} ops above {threshold:.2}x; {coverage})",
            ratios.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_shown_as_is_and_explained_above_one() {
        let ops: BTreeMap<String, f64> = [("A".to_owned(), 3.0), ("B".to_owned(), 1.0)].into();
        let c = Coverage::of((2.0, &ops), (0.0, &ops), &["A"]);
        assert_eq!((c.ours, c.baseline), (1.5, 0.75));
        assert!(c.baseline_of_op_time && !c.ours_of_op_time);
        let text = c.describe("ours", "pytorch");
        assert!(text.contains("150.0% of ours's step time"), "{text}");
        assert!(text.contains("75.0% of pytorch's op time"), "{text}");
        assert!(text.contains("overlap"), "{text}");
        assert_eq!(
            verdict_line(true, std::iter::empty(), 1.1, &text),
            "no verdict: no op was compared"
        );
    }
}
