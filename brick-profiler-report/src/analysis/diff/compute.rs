//! [`compute_diff`]: judges every brick, phase, the step time and the
//! throughput of a new run against one or more baselines. Each row gets an
//! interval for its relative change (Hodges-Lehmann with the Mann-Whitney
//! interval, or a z-interval of means for moments); it is a regression only
//! when the whole interval lies beyond the threshold, raised to the
//! baselines' own spread when there are several.

use std::collections::HashMap;

use super::interval::{hodges_lehmann, normal_quantile};
use super::memory::memory_rows;
use super::model::{Change, Criteria, Metric, ProfileDiff, RowDiff};
use super::stats::{MIN_MOMENT_SAMPLES, weight, weighted_median};
use crate::analysis::scorecard::{Severity, Thresholds};
use crate::base::textfmt::signed_pct as percent_signed;
use crate::model::run::{Distribution, OpSummary, RunSummary};

/// Compares `new` against `baselines` (the last runs of the main branch, or
/// one run), with the threshold (`step_time_warning`), critical threshold,
/// significance level and minimum sample count of `thresholds`.
#[must_use]
pub fn compute_diff(
    baselines: &[RunSummary],
    new: &RunSummary,
    thresholds: &Thresholds,
) -> ProfileDiff {
    let c = Criteria {
        threshold: thresholds.step_time_warning,
        critical: thresholds.step_time_critical,
        alpha: thresholds.significance_alpha,
        min_samples: thresholds.min_samples.max(2),
    };
    let mut notes = Vec::new();
    if baselines.is_empty() {
        notes.push("no baseline run: nothing was compared".to_owned());
    }
    let olds: Vec<HashMap<&str, &OpSummary>> =
        baselines.iter().map(|b| index(b, &mut notes)).collect();
    let news = index(new, &mut notes);
    let in_all = |name: &str| !olds.is_empty() && olds.iter().all(|o| o.contains_key(name));
    let mut common: Vec<&str> = news.keys().copied().filter(|n| in_all(n)).collect();
    let total = |name: &str| {
        olds.iter()
            .filter_map(|o| o.get(name))
            .chain(news.get(name))
            .map(|o| o.total_ns)
            .max()
            .unwrap_or(0)
    };
    common.sort_by(|a, b| total(b).cmp(&total(a)).then_with(|| a.cmp(b)));
    let mut added: Vec<String> = news
        .keys()
        .filter(|n| !in_all(n))
        .map(|n| (*n).to_owned())
        .collect();
    let mut removed: Vec<String> = olds
        .iter()
        .flat_map(|o| o.keys())
        .filter(|n| !news.contains_key(*n))
        .map(|n| (*n).to_owned())
        .collect();
    added.sort();
    removed.sort();
    removed.dedup();
    if baselines.len() > 1 && !added.is_empty() {
        notes.push(format!(
            "{} brick(s) missing from some baseline are not compared",
            added.len()
        ));
    }
    let bricks = common
        .iter()
        .map(|name| {
            let sides: Vec<&OpSummary> = olds.iter().map(|o| o[name]).collect();
            let mut row = judge_op(name, Metric::Latency, &sides, news[name], &c);
            calls_per_step_note(&mut row, baselines, &sides, new, news[name]);
            row
        })
        .collect();
    let phases = phase_rows(baselines, new, &c);
    let step_time = step_rows(baselines, new, &c, &mut notes);
    ProfileDiff {
        baselines: baselines.iter().map(|b| b.name.clone()).collect(),
        new: new.name.clone(),
        criteria: c,
        throughput: throughput_row(baselines, new, &c),
        step_time,
        phases,
        bricks,
        added,
        removed,
        memory: memory_rows(baselines, &new.memory, &c),
        notes,
    }
}

/// Ops by name, those counted as never called aside; a repeated name
/// keeps its last entry, with a note.
fn index<'a>(side: &'a RunSummary, notes: &mut Vec<String>) -> HashMap<&'a str, &'a OpSummary> {
    let mut map: HashMap<&str, &OpSummary> = HashMap::new();
    for e in side.ops.iter().filter(|e| e.calls != Some(0)) {
        if map.insert(e.name.as_str(), e).is_some() {
            notes.push(format!(
                "`{}` appears twice in {}: only its last entry is compared",
                e.name, side.name
            ));
        }
    }
    map
}

/// Says so when the calls per step moved: a per-call time then compares
/// different work.
fn calls_per_step_note(
    row: &mut RowDiff,
    baselines: &[RunSummary],
    olds: &[&OpSummary],
    new: &RunSummary,
    n: &OpSummary,
) {
    let steps: u64 = baselines.iter().filter_map(|b| b.steps).sum();
    let calls: Option<u64> = olds.iter().map(|o| o.calls).sum();
    let per_step = |calls: Option<u64>, steps: Option<u64>| {
        Some(calls? as f64 / steps.filter(|&s| s > 0)? as f64)
    };
    if let (Some(a), Some(b)) = (per_step(calls, Some(steps)), per_step(n.calls, new.steps))
        && (a - b).abs() > 1e-9 * a.abs().max(1.0)
    {
        row.detail
            .push_str(&format!("; calls per step {a:.4} -> {b:.4}"));
    }
}

/// What one side says of a measure's distribution.
enum Sample {
    /// Weighted values with the half-width of their binning error, ns.
    Values(Vec<(f64, u64)>, f64),
    /// Mean, standard deviation, count.
    Moments(f64, f64, u64),
    /// Only a mean (from totals), and why there is no more.
    Mean(f64, &'static str),
}

impl Sample {
    fn of(op: &OpSummary) -> Self {
        match &op.distribution {
            Distribution::Weighted(v) => Self::Values(v.clone(), 0.0),
            // The buckets' binning error is a standard deviation (width /
            // sqrt 12); half the width is sqrt 3 of it.
            Distribution::Histogram {
                values,
                quantization_ns,
            } => Self::Values(values.clone(), quantization_ns * 3f64.sqrt()),
            &Distribution::Moments { mean, stddev, n } => Self::Moments(mean, stddev, n),
            Distribution::Unknown => Self::Mean(
                op.total_ns as f64 / op.calls.unwrap_or(0).max(1) as f64,
                "no per-call distribution",
            ),
        }
    }

    /// The centre: median of values, else mean.
    fn center(&self) -> f64 {
        match self {
            Self::Values(v, _) => weighted_median(v),
            Self::Moments(m, _, _) | Self::Mean(m, _) => *m,
        }
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
    fn pool(sides: Vec<Self>) -> Self {
        if sides.iter().all(|s| matches!(s, Self::Values(..))) {
            let mut all = Vec::new();
            let mut resolution = 0.0f64;
            for s in sides {
                if let Self::Values(v, r) = s {
                    all.extend(v);
                    resolution = resolution.max(r);
                }
            }
            return Self::Values(all, resolution);
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

fn judge_op(
    name: &str,
    metric: Metric,
    olds: &[&OpSummary],
    new: &OpSummary,
    c: &Criteria,
) -> RowDiff {
    let sides: Vec<Sample> = olds.iter().map(|o| Sample::of(o)).collect();
    judge(name, metric, sides, Sample::of(new), c)
}

/// The row of one measure: baselines' samples, the new run's, criteria.
fn judge(name: &str, metric: Metric, olds: Vec<Sample>, new: Sample, c: &Criteria) -> RowDiff {
    let baseline_spread = spread(&olds);
    let threshold = c.threshold.max(baseline_spread.unwrap_or(0.0));
    let runs = olds.len();
    let old = Sample::pool(olds);
    let (o, n) = (old.center(), new.center());
    let samples = (old.count(), new.count());
    let mut row = RowDiff {
        name: name.to_owned(),
        metric,
        samples,
        old: o,
        new: n,
        center: if matches!(old, Sample::Values(..)) && matches!(new, Sample::Values(..)) {
            "median"
        } else {
            "mean"
        },
        relative: (o > 0.0).then(|| (n - o) / o),
        interval: None,
        threshold,
        baseline_spread,
        change: Change::NotEnoughSamples,
        severity: None,
        detail: String::new(),
    };
    let against = match baseline_spread {
        Some(s) if s > c.threshold => format!(
            "the {runs} baselines' spread of {} (above the given {})",
            pct(s),
            pct(c.threshold)
        ),
        Some(s) => format!(
            "the given threshold {} (the {runs} baselines spread {})",
            pct(c.threshold),
            pct(s)
        ),
        None => format!("the given threshold {}", pct(c.threshold)),
    };
    let confidence = format!("{:.0}%", (1.0 - c.alpha) * 100.0);
    let (interval, how) = match (&old, &new) {
        _ if o <= 0.0 => (
            None,
            "the baseline centre is 0: no relative change".to_owned(),
        ),
        (Sample::Values(a, ra), Sample::Values(b, rb)) => {
            let min = c.min_samples as u64;
            if samples.0 < min || samples.1 < min {
                (None, too_few(samples, min))
            } else if let Some(s) = hodges_lehmann(a, b, c.alpha) {
                let res = ra.max(*rb);
                row.relative = Some(s.estimate / o);
                let widened = if res > 0.0 {
                    format!(
                        ", widened by ±{} for the histogram's bucket width",
                        pct(res / o)
                    )
                } else {
                    String::new()
                };
                (
                    Some(((s.low - res) / o, (s.high + res) / o)),
                    format!(
                        "Hodges-Lehmann shift with its {confidence} Mann-Whitney interval over \
                         {} vs {} samples{widened}",
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
    let Some((lo, hi)) = interval else {
        row.detail = format!("not enough samples: {how}");
        return row;
    };
    // The interval on the "worse" axis: positive is worse.
    let sign = if metric.larger_is_worse() { 1.0 } else { -1.0 };
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
    if change == Change::Regression {
        row.severity = Some(if estimate > c.critical {
            Severity::Critical
        } else {
            Severity::Warning
        });
    }
    row.detail = format!(
        "{} [{}, {}] by {how}; {rule} ±{}, {against}",
        percent_signed(row.relative.unwrap_or(0.0)),
        percent_signed(lo),
        percent_signed(hi),
        pct(threshold),
    );
    row
}

fn too_few(samples: (u64, u64), min: u64) -> String {
    format!(
        "{} vs {} samples, {min} needed per side for an interval",
        samples.0, samples.1
    )
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Phases in the new run and every baseline. Phases keep totals and counts
/// only, so they get a mean and no interval.
fn phase_rows(baselines: &[RunSummary], new: &RunSummary, c: &Criteria) -> Vec<RowDiff> {
    let mut rows: Vec<RowDiff> = new
        .phases
        .iter()
        .filter(|p| p.calls.unwrap_or(0) > 0)
        .filter_map(|p| {
            let olds: Vec<&OpSummary> = baselines
                .iter()
                .map(|b| {
                    b.phases
                        .iter()
                        .find(|q| q.name == p.name && q.calls.unwrap_or(0) > 0)
                })
                .collect::<Option<_>>()?;
            (!olds.is_empty()).then(|| judge_op(&p.name, Metric::Phase, &olds, p, c))
        })
        .collect();
    for r in &mut rows {
        r.detail = "not enough samples: phases keep totals and counts only, no per-occurrence \
                    distribution: no interval"
            .to_owned();
    }
    rows
}

fn steps_of(s: &RunSummary) -> Sample {
    Sample::Values(
        s.step_samples_ns.iter().map(|&x| (x as f64, 1)).collect(),
        0.0,
    )
}

fn step_rows(
    baselines: &[RunSummary],
    new: &RunSummary,
    c: &Criteria,
    notes: &mut Vec<String>,
) -> Option<RowDiff> {
    if baselines.is_empty() {
        return None;
    }
    if new.step_samples_ns.is_empty() || baselines.iter().any(|b| b.step_samples_ns.is_empty()) {
        notes.push("step time not compared: a run has no step samples".to_owned());
        return None;
    }
    let olds = baselines.iter().map(steps_of).collect();
    Some(judge("step time", Metric::StepTime, olds, steps_of(new), c))
}

/// Tokens per second of each step, when the run counts tokens per step.
fn throughput_of(s: &RunSummary) -> Option<Sample> {
    if s.step_tokens.len() != s.step_samples_ns.len() || s.step_tokens.iter().all(|&t| t == 0) {
        return None;
    }
    let values = s
        .step_samples_ns
        .iter()
        .zip(&s.step_tokens)
        .filter(|(ns, _)| **ns > 0)
        .map(|(&ns, &t)| (t as f64 / (ns as f64 / 1e9), 1))
        .collect();
    Some(Sample::Values(values, 0.0))
}

fn throughput_row(baselines: &[RunSummary], new: &RunSummary, c: &Criteria) -> Option<RowDiff> {
    let olds: Vec<Sample> = baselines.iter().map(throughput_of).collect::<Option<_>>()?;
    if olds.is_empty() {
        return None;
    }
    Some(judge(
        "throughput",
        Metric::Throughput,
        olds,
        throughput_of(new)?,
        c,
    ))
}
