//! What a parity verdict was computed over: the share of each side's time
//! that the ops compared on both sides account for, and the clock each
//! side's times were read on. No verdict is given over nothing, nor
//! between two clocks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::run::{Clock, RunSummary};

/// A side's mean step time, ms.
pub(crate) fn step_ms(p: &RunSummary) -> Option<f64> {
    p.step_ns.map(|ns| ns / 1e6)
}

/// A side's device busy time per step, ms.
pub(crate) fn device_ms(p: &RunSummary) -> Option<f64> {
    p.device_ns_per_step.map(|ns| ns / 1e6)
}

/// What a side's share is of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The mean step (wall time).
    #[default]
    StepTime,
    /// The device's busy time per step (kernels, memcpy, memset).
    DeviceTime,
    /// All the side's op time (neither a step nor a device time known).
    OpTime,
}

impl Basis {
    fn describe(self) -> &'static str {
        match self {
            Basis::StepTime => "step time",
            Basis::DeviceTime => "device time",
            Basis::OpTime => "op time",
        }
    }
}

/// The share of each side's time the compared ops account for, as is:
/// above 1 when ops on several threads or streams overlap in time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Ops compared on both sides.
    pub compared_ops: usize,
    /// Our compared time over our [`Coverage::ours_basis`].
    pub ours: f64,
    /// The baseline's compared time over its [`Coverage::baseline_basis`].
    pub baseline: f64,
    /// What `ours` is a share of.
    #[serde(default)]
    pub ours_basis: Basis,
    /// What `baseline` is a share of.
    #[serde(default)]
    pub baseline_basis: Basis,
    /// The clock of our op times.
    #[serde(default)]
    pub ours_clock: Clock,
    /// The clock of the baseline's op times.
    #[serde(default)]
    pub baseline_clock: Clock,
}

/// One side as coverage needs it: its clock, its step and device time
/// (ms), its usable op times.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side<'a> {
    pub(crate) clock: Clock,
    pub(crate) step_ms: f64,
    pub(crate) device_ms: Option<f64>,
    pub(crate) ops: &'a BTreeMap<String, f64>,
}

impl<'a> Side<'a> {
    /// `profile`'s side, over its usable `ops`.
    pub(crate) fn of(profile: &RunSummary, ops: &'a BTreeMap<String, f64>) -> Self {
        Self {
            clock: profile.clock,
            step_ms: step_ms(profile).unwrap_or(0.0),
            device_ms: device_ms(profile),
            ops,
        }
    }

    /// The share of this side's time that `compared` ops account for, and
    /// what it is a share of: device time for device-clock times when
    /// known, else the step, else all op time.
    fn share<'b>(&self, compared: impl Iterator<Item = &'b str>) -> (f64, Basis) {
        let compared: f64 = compared
            .filter_map(|op| self.ops.get(op))
            .fold(0.0, |a, b| a + b);
        let usable = |v: f64| v.is_finite() && v > 0.0;
        match self.device_ms {
            Some(d) if self.clock == Clock::Device && usable(d) => {
                return (compared / d, Basis::DeviceTime);
            }
            _ => {}
        }
        if usable(self.step_ms) {
            return (compared / self.step_ms, Basis::StepTime);
        }
        let all: f64 = self.ops.values().fold(0.0, |a, b| a + b);
        (if all > 0.0 { compared / all } else { 0.0 }, Basis::OpTime)
    }
}

impl Coverage {
    /// Coverage of the ops in `compared` (present with time on both sides).
    pub(crate) fn of(ours: Side<'_>, baseline: Side<'_>, compared: &[&str]) -> Self {
        let (o, o_basis) = ours.share(compared.iter().copied());
        let (b, b_basis) = baseline.share(compared.iter().copied());
        Self {
            compared_ops: compared.len(),
            ours: o,
            baseline: b,
            ours_basis: o_basis,
            baseline_basis: b_basis,
            ours_clock: ours.clock,
            baseline_clock: baseline.clock,
        }
    }

    /// Whether the two sides' times are on clocks that may be compared.
    #[must_use]
    pub fn clocks_agree(&self) -> bool {
        self.ours_clock.comparable(self.baseline_clock)
    }

    /// `compared ops hold 42.0% of ours's step time (host clock), 97.5% of
    /// pytorch's device time (device clock)`, with why a share above 100%
    /// can be.
    #[must_use]
    pub fn describe(&self, ours: &str, baseline: &str) -> String {
        let part = |share: f64, name: &str, basis: Basis, clock: Clock| {
            format!(
                "{:.1}% of {name}'s {} ({})",
                share * 100.0,
                basis.describe(),
                clock.describe()
            )
        };
        let mut s = format!(
            "compared ops hold {}, {}",
            part(self.ours, ours, self.ours_basis, self.ours_clock),
            part(
                self.baseline,
                baseline,
                self.baseline_basis,
                self.baseline_clock
            )
        );
        if self.ours > 1.0 || self.baseline > 1.0 {
            s.push_str(" (above 100%: ops on several threads or streams overlap in time)");
        }
        s
    }

    /// Why no verdict is given when the clocks differ.
    fn clock_refusal(&self, ours: &str, baseline: &str) -> String {
        format!(
            "no verdict: {ours}'s op times are on the {} and {baseline}'s on the {}; a verdict \
             compares device time with device time and CPU time with CPU time (time both sides \
             on one clock: a device timer or kernel events on both, or host times on both)",
            self.ours_clock.describe(),
            self.baseline_clock.describe()
        )
    }
}

/// The verdict line: YES or NO over the ops compared, or no verdict (no op
/// compared, or the two sides on different clocks).
pub(crate) fn verdict_line(
    achieved: bool,
    ratios: impl Iterator<Item = f64>,
    threshold: f64,
    coverage: &Coverage,
    (ours, baseline): (&str, &str),
) -> String {
    if !coverage.clocks_agree() {
        return coverage.clock_refusal(ours, baseline);
    }
    let ratios: Vec<f64> = ratios.collect();
    if ratios.is_empty() {
        return "no verdict: no op was compared".to_owned();
    }
    let over = ratios.iter().filter(|r| **r > threshold).count();
    let covered = coverage.describe(ours, baseline);
    if achieved {
        format!(
            "YES (all {} ops within {threshold:.2}x; {covered})",
            ratios.len()
        )
    } else {
        format!(
            "NO ({over} of {} ops above {threshold:.2}x; {covered})",
            ratios.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(clock: Clock, step_ms: f64, ops: &BTreeMap<String, f64>) -> Side<'_> {
        Side {
            clock,
            step_ms,
            device_ms: None,
            ops,
        }
    }

    #[test]
    fn shares_are_shown_as_is_and_explained_above_one() {
        let ops: BTreeMap<String, f64> = [("A".to_owned(), 3.0), ("B".to_owned(), 1.0)].into();
        let c = Coverage::of(
            side(Clock::Host, 2.0, &ops),
            side(Clock::Host, 0.0, &ops),
            &["A"],
        );
        assert_eq!((c.ours, c.baseline), (1.5, 0.75));
        assert_eq!(
            (c.ours_basis, c.baseline_basis),
            (Basis::StepTime, Basis::OpTime)
        );
        let text = c.describe("ours", "pytorch");
        assert!(
            text.contains("150.0% of ours's step time (host clock)"),
            "{text}"
        );
        assert!(text.contains("75.0% of pytorch's op time"), "{text}");
        assert!(text.contains("overlap"), "{text}");
        assert_eq!(
            verdict_line(true, std::iter::empty(), 1.1, &c, ("ours", "pytorch")),
            "no verdict: no op was compared"
        );
    }

    #[test]
    fn device_times_are_a_share_of_device_time_and_two_clocks_give_no_verdict() {
        let ops: BTreeMap<String, f64> = [("A".to_owned(), 2.0)].into();
        let device = Side {
            device_ms: Some(2.0),
            ..side(Clock::Device, 1000.0, &ops)
        };
        let c = Coverage::of(side(Clock::Host, 4.0, &ops), device, &["A"]);
        assert_eq!(c.baseline_basis, Basis::DeviceTime);
        assert!((c.baseline - 1.0).abs() < 1e-12, "{}", c.baseline);
        assert!(!c.clocks_agree());
        let line = verdict_line(true, [1.0].into_iter(), 1.1, &c, ("ours", "torch"));
        assert!(line.starts_with("no verdict"), "{line}");
        assert!(
            line.contains("host clock") && line.contains("device clock"),
            "{line}"
        );
        let c = Coverage::of(side(Clock::Unknown, 4.0, &ops), device, &["A"]);
        let line = verdict_line(true, [1.0].into_iter(), 1.1, &c, ("ours", "torch"));
        assert!(
            line.starts_with("YES") && line.contains("clock not recorded"),
            "{line}"
        );
    }
}
