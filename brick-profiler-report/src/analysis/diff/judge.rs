//! One measure judged: each side's samples ([`Sample`]: weighted values,
//! moments, or a mean alone), the baselines pooled, the interval of the
//! relative change, and the verdict [`decide`] gives it against the
//! threshold.

use super::floor::{Floors, pct};
use super::interval::{hodges_lehmann, normal_quantile};
use super::model::{Change, Criteria, Metric, RowDiff};
use super::stats::{MIN_MOMENT_SAMPLES, weight, weighted_median};
use crate::analysis::scorecard::Severity;
use crate::base::textfmt::signed_pct as percent_signed;
use crate::model::run::{Distribution, OpSummary};

/// What one side says of a measure's distribution.
pub(super) enum Sample {
    /// Weighted values, and whether they were spread within histogram
    /// buckets.
    Values(Vec<(f64, u64)>, bool),
    /// Mean, standard deviation, count.
    Moments(f64, f64, u64),
    /// Only a mean (from totals), and why there is no more.
    Mean(f64, &'static str),
}

impl Sample {
    pub(super) fn of(op: &OpSummary) -> Self {
        match &op.distribution {
            Distribution::Weighted(v) => Self::Values(v.clone(), false),
            Distribution::Histogram { buckets } => Self::Values(spread_within(buckets), true),
            &Distribution::Moments { mean, stddev, n } => Self::Moments(mean, stddev, n),
            Distribution::Unknown => Self::Mean(
                op.total_ns as f64 / op.calls.unwrap_or(0).max(1) as f64,
                "no per-call distribution",
            ),
        }
    }

    /// The same samples `k` times as long (a baseline brought to another
    /// run's machine speed).
    pub(super) fn scaled(self, k: f64) -> Self {
        match self {
            Self::Values(v, b) => Self::Values(v.into_iter().map(|(x, w)| (x * k, w)).collect(), b),
            Self::Moments(m, sd, n) => Self::Moments(m * k, sd * k, n),
            Self::Mean(m, why) => Self::Mean(m * k, why),
        }
    }

    /// The centre: median of values, else mean.
    pub(super) fn center(&self) -> f64 {
        match self {
            Self::Values(v, _) => weighted_median(v),
            Self::Moments(m, _, _) | Self::Mean(m, _) => *m,
        }
    }

    /// The fastest [`FAST_SHARE`] of the values (the largest when larger
    /// is better), when that keeps at least `min` samples; `None` for
    /// fewer, or for moments and means. A wait for a core, another
    /// tenant's cache traffic or a page fault only ever adds time, so on a
    /// shared machine the fast calls measure the code and the slow ones
    /// the machine's load.
    pub(super) fn fastest(&self, larger_is_worse: bool, min: u64) -> Option<Self> {
        let Self::Values(v, binned) = self else {
            return None;
        };
        let keep = (weight(v) as f64 * FAST_SHARE).floor() as u64;
        if keep < min.max(1) {
            return None;
        }
        let mut sorted: Vec<(f64, u64)> = v.iter().copied().filter(|x| x.1 > 0).collect();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !larger_is_worse {
            sorted.reverse();
        }
        let mut out = Vec::new();
        let mut left = keep;
        for (x, w) in sorted {
            if left == 0 {
                break;
            }
            let take = w.min(left);
            out.push((x, take));
            left -= take;
        }
        Some(Self::Values(out, *binned))
    }

    fn count(&self) -> u64 {
        match self {
            Self::Values(v, _) => weight(v),
            Self::Moments(_, _, n) => *n,
            Self::Mean(..) => 0,
        }
    }

    /// The baselines pooled: values concatenated, moments combined; a mix
    /// of kinds, or any side without a distribution, keeps only a mean.
    pub(super) fn pool(sides: Vec<Self>) -> Self {
        if sides.iter().all(|s| matches!(s, Self::Values(..))) {
            let mut all = Vec::new();
            let mut binned = false;
            for s in sides {
                if let Self::Values(v, b) = s {
                    all.extend(v);
                    binned |= b;
                }
            }
            return Self::Values(all, binned);
        }
        if sides.iter().all(|s| matches!(s, Self::Moments(..))) {
            let (mut n, mut sum, mut sq) = (0u64, 0.0f64, 0.0f64);
            for s in &sides {
                if let &Self::Moments(m, sd, k) = s {
                    n += k;
                    sum += m * k as f64;
                    sq += (sd * sd + m * m) * k as f64;
                }
            }
            let mean = sum / n.max(1) as f64;
            let var = (sq / n.max(1) as f64 - mean * mean).max(0.0);
            return Self::Moments(mean, var.sqrt(), n);
        }
        let mean = sides.iter().map(Self::center).sum::<f64>() / sides.len().max(1) as f64;
        let why = sides
            .iter()
            .find_map(|s| match s {
                Self::Mean(_, why) => Some(*why),
                _ => None,
            })
            .unwrap_or("the baselines describe their distributions differently");
        Self::Mean(mean, why)
    }
}

/// Calls placed in each bucket's range: where in it each call fell is not
/// known, so they are spread evenly over it, at up to [`POINTS_PER_BUCKET`]
/// points (the interval then sees the bucket's width as spread, rather
/// than every call at one point).
fn spread_within(buckets: &[(f64, f64, u64)]) -> Vec<(f64, u64)> {
    let mut out = Vec::new();
    for &(lo, hi, calls) in buckets {
        let k = calls.min(POINTS_PER_BUCKET);
        if k == 0 {
            continue;
        }
        for i in 0..k {
            // Calls split as evenly as integers allow.
            let w = calls / k + u64::from(i < calls % k);
            let x = lo + (hi - lo) * (i as f64 + 0.5) / k as f64;
            out.push((x, w));
        }
    }
    out
}

/// Points each histogram bucket is spread over.
const POINTS_PER_BUCKET: u64 = 64;

/// Share of each side's samples a change is judged on: its fastest fifth
/// (see [`Sample::fastest`]), when that leaves enough samples.
pub(super) const FAST_SHARE: f64 = 0.2;

/// The centre of a row judged on its fastest fifth.
const FASTEST: &str = "median of the fastest fifth";

/// The centre of a larger-is-better row judged on its highest fifth.
const HIGHEST: &str = "median of the highest fifth";

/// The centre of `op`'s fastest fifth (see [`Sample::fastest`]), else of
/// all its samples: a baseline's machine speed is measured on the same
/// part of the distribution the rows are judged on.
pub(super) fn fast_center(op: &OpSummary, min: u64) -> f64 {
    let all = Sample::of(op);
    all.fastest(true, min).unwrap_or(all).center()
}

/// Relative spread of the baselines' centres, when there are several.
fn spread(sides: &[Sample]) -> Option<f64> {
    if sides.len() < 2 {
        return None;
    }
    let mut centers: Vec<f64> = sides.iter().map(Sample::center).collect();
    centers.sort_by(f64::total_cmp);
    let mid = centers[centers.len() / 2];
    let range = centers[centers.len() - 1] - centers[0];
    (mid > 0.0).then(|| range / mid)
}

/// The row of an op: each baseline's samples divided by its machine speed
/// (`speeds`, 1 for each when absolute), the new run's, criteria.
pub(super) fn judge_op(
    name: &str,
    metric: Metric,
    olds: &[&OpSummary],
    speeds: &[f64],
    new: &OpSummary,
    c: &Criteria,
) -> RowDiff {
    let sides: Vec<Sample> = olds
        .iter()
        .zip(speeds.iter().chain(std::iter::repeat(&1.0)))
        .map(|(o, f)| Sample::of(o).scaled(1.0 / f))
        .collect();
    judge(name, metric, sides, Sample::of(new), c)
}

/// The row of one measure: baselines' samples, the new run's, criteria.
pub(super) fn judge(
    name: &str,
    metric: Metric,
    olds: Vec<Sample>,
    new: Sample,
    c: &Criteria,
) -> RowDiff {
    let min = c.min_samples as u64;
    let worse_up = metric.larger_is_worse();
    let fast: Option<(Vec<Sample>, Sample)> = olds
        .iter()
        .map(|o| o.fastest(worse_up, min))
        .collect::<Option<Vec<_>>>()
        .zip(new.fastest(worse_up, min));
    let full = (olds.iter().map(Sample::count).sum::<u64>(), new.count());
    let judged_fast = fast.is_some();
    let (olds, new) = fast.unwrap_or((olds, new));
    let baseline_spread = spread(&olds);
    let runs = olds.len();
    let old = Sample::pool(olds);
    let (o, n) = (old.center(), new.center());
    let threshold = Floors::new(metric, o, baseline_spread, judged_fast).threshold(c);
    let samples = (old.count(), new.count());
    let mut row = RowDiff {
        name: name.to_owned(),
        metric,
        samples: full,
        old: o,
        new: n,
        center: match (&old, &new) {
            (Sample::Values(..), Sample::Values(..)) if judged_fast && worse_up => FASTEST,
            (Sample::Values(..), Sample::Values(..)) if judged_fast => HIGHEST,
            (Sample::Values(..), Sample::Values(..)) => "median",
            _ => "mean",
        },
        relative: (o > 0.0).then(|| (n - o) / o),
        interval: None,
        threshold,
        baseline_spread,
        change: Change::NotEnoughSamples,
        severity: None,
        detail: String::new(),
        method: String::new(),
        run_shift: None,
        flops_per_call: None,
    };
    let confidence = format!("{:.0}%", (1.0 - c.alpha) * 100.0);
    let (interval, how) = match (&old, &new) {
        _ if o <= 0.0 => (
            None,
            "the baseline centre is 0: no relative change".to_owned(),
        ),
        (Sample::Values(a, binned_a), Sample::Values(b, binned_b)) => {
            if samples.0 < min || samples.1 < min {
                (None, too_few(samples, min))
            } else if let Some(s) = hodges_lehmann(a, b, c.alpha) {
                row.relative = Some(s.estimate / o);
                let binned = if *binned_a || *binned_b {
                    " (histogram calls spread evenly within their buckets)"
                } else {
                    ""
                };
                let part = match (judged_fast, worse_up) {
                    (false, _) => String::new(),
                    (true, true) => format!(
                        " (the fastest fifth of {} vs {}: waits for a core and other tenants \
                         only add time)",
                        full.0, full.1
                    ),
                    (true, false) => format!(
                        " (the highest fifth of {} vs {}: waits for a core and other tenants \
                         only lower it)",
                        full.0, full.1
                    ),
                };
                (
                    Some((s.low / o, s.high / o)),
                    format!(
                        "Hodges-Lehmann shift with its {confidence} Mann-Whitney interval over \
                         {} vs {} samples{part}{binned}",
                        samples.0, samples.1
                    ),
                )
            } else {
                (None, too_few(samples, min))
            }
        }
        (&Sample::Moments(m1, s1, n1), &Sample::Moments(m2, s2, n2)) => {
            let min = (c.min_samples as u64).max(MIN_MOMENT_SAMPLES);
            let se = (s1 * s1 / n1.max(1) as f64 + s2 * s2 / n2.max(1) as f64).sqrt();
            if n1 < min || n2 < min || !se.is_finite() {
                (None, too_few((n1, n2), min))
            } else {
                let z = normal_quantile(c.alpha / 2.0);
                let (lo, hi) = (m2 - m1 - z * se, m2 - m1 + z * se);
                (
                    Some((lo / m1, hi / m1)),
                    format!(
                        "{confidence} z-interval of the difference of means over {n1} vs {n2} calls"
                    ),
                )
            }
        }
        (Sample::Mean(_, why), _) | (_, Sample::Mean(_, why)) => {
            (None, format!("{why}: no interval"))
        }
        _ => (
            None,
            "the runs describe their distributions differently: no interval".to_owned(),
        ),
    };
    row.interval = interval;
    row.method = how;
    decide(&mut row, runs, c);
    row
}

/// Sets the row's verdict, severity and detail from its interval (relative
/// to the run-wide shift when `row.run_shift` is set), the threshold and
/// the `runs` baselines.
pub(super) fn decide(row: &mut RowDiff, runs: usize, c: &Criteria) {
    let Some((lo, hi)) = row.interval else {
        row.change = Change::NotEnoughSamples;
        row.severity = None;
        row.detail = format!("not enough samples: {}", row.method);
        return;
    };
    let threshold = row.threshold;
    // The interval on the "worse" axis: positive is worse.
    let sign = if row.metric.larger_is_worse() {
        1.0
    } else {
        -1.0
    };
    let (w_lo, w_hi) = if sign > 0.0 { (lo, hi) } else { (-hi, -lo) };
    let estimate = row.relative.unwrap_or(0.0) * sign;
    let (change, rule) = if w_lo > threshold {
        (Change::Regression, "the whole interval lies beyond")
    } else if w_hi < -threshold {
        (Change::Improvement, "the whole interval lies beyond")
    } else if w_lo >= -threshold && w_hi <= threshold {
        (Change::NoChange, "the whole interval lies within")
    } else {
        (Change::Inconclusive, "the interval crosses")
    };
    row.change = change;
    row.severity = (change == Change::Regression).then_some(if estimate > c.critical {
        Severity::Critical
    } else {
        Severity::Warning
    });
    let fastest = row.center == FASTEST || row.center == HIGHEST;
    let against = Floors::new(row.metric, row.old, row.baseline_spread, fastest).reason(runs, c);
    let relative_to = row.run_shift.map_or_else(String::new, |m| {
        format!(
            " (relative to the run-wide shift of {}: each brick's change divided by the \
             whole run's)",
            percent_signed(m)
        )
    });
    row.detail = format!(
        "{} [{}, {}]{relative_to} by {}; {rule} ±{}, {against}",
        percent_signed(row.relative.unwrap_or(0.0)),
        percent_signed(lo),
        percent_signed(hi),
        row.method,
        pct(threshold),
    );
}

fn too_few(samples: (u64, u64), min: u64) -> String {
    format!(
        "{} vs {} samples, {min} needed per side for an interval",
        samples.0, samples.1
    )
}
