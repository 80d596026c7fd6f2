//! The noise floors a row's threshold is raised to on a noisy machine:
//! 1.5 times the baselines' spread, and for a short call a multiple of the
//! given threshold; and the words that say which one a row was judged
//! against.

use super::model::{Criteria, Metric};

/// A row's threshold is at least this many times the baselines' spread:
/// the range of a few runs understates how far the next one may fall (a
/// fourth run falls outside the range of three half the time). Not more:
/// one baseline taken while a build ran beside it widens the range, and
/// twice it hid a planted 15% slowdown in 2 of 20 comparisons.
pub(super) const SPREAD_FLOOR: f64 = 1.5;

/// Calls shorter than this (the baselines' centre, ns) are judged against
/// at least [`SHORT_CALL_FLOOR`] times the threshold.
pub(super) const SHORT_CALL_NS: f64 = 2_000.0;

/// The floor of a short call, in multiples of the given threshold: a call
/// of a microsecond or two is set by which cache lines and branch history
/// are still warm, which another tenant on a shared machine changes from
/// run to run (a 0.7 µs brick moved 40% between runs of one build on a
/// shared 2-core machine, relative to the rest).
pub(super) const SHORT_CALL_FLOOR: f64 = 4.0;

/// The floors of one row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Floors {
    /// Relative spread of the baselines' centres, when several.
    pub(super) spread: Option<f64>,
    /// Whether the row is a short call judged on its fastest calls.
    pub(super) short: bool,
}

impl Floors {
    /// The floors of a row of `metric` with baseline centre `old` (ns for
    /// times), `spread` of the baselines, judged on its fastest fifth or not.
    pub(super) fn new(metric: Metric, old: f64, spread: Option<f64>, fastest: bool) -> Self {
        let short = fastest
            && matches!(metric, Metric::Latency | Metric::Phase)
            && old > 0.0
            && old < SHORT_CALL_NS;
        Self { spread, short }
    }

    fn spread_floor(self) -> f64 {
        SPREAD_FLOOR * self.spread.unwrap_or(0.0)
    }

    fn short_floor(self, c: &Criteria) -> f64 {
        if self.short {
            SHORT_CALL_FLOOR * c.threshold
        } else {
            0.0
        }
    }

    /// The row's threshold: the largest of the given one and the floors.
    pub(super) fn threshold(self, c: &Criteria) -> f64 {
        c.threshold
            .max(self.spread_floor())
            .max(self.short_floor(c))
    }

    /// Which of them the row was judged against, in words, with the `runs`
    /// baselines.
    pub(super) fn reason(self, runs: usize, c: &Criteria) -> String {
        let (spread, short) = (self.spread_floor(), self.short_floor(c));
        if short > c.threshold && short >= spread {
            return format!(
                "the short-call floor: {SHORT_CALL_FLOOR} x the given {} for a call under {:.0} \
                 µs, whose time moves with cache state on a shared machine",
                pct(c.threshold),
                SHORT_CALL_NS / 1e3
            );
        }
        match self.spread {
            Some(s) if spread > c.threshold => format!(
                "the noise floor: {SPREAD_FLOOR} x the {runs} baselines' spread of {} (above the \
                 given {})",
                pct(s),
                pct(c.threshold)
            ),
            Some(s) => format!(
                "the given threshold {} (the {runs} baselines spread {}, floor {SPREAD_FLOOR} x \
                 that)",
                pct(c.threshold),
                pct(s)
            ),
            None => format!("the given threshold {}", pct(c.threshold)),
        }
    }
}

/// A fraction as a percentage with one decimal.
pub(super) fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}
