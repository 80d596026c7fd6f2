//! [`compute_diff`]: judges every brick in both runs, and the step time,
//! by the rule the scorecard's regressions use: a change is flagged only
//! when it is beyond the threshold, significant, and above the noise floor.

use std::collections::HashMap;

use super::memory::memory_rows;
use super::model::{Criteria, ProfileDiff, RowDiff, ShiftTest, Verdict};
use super::stats::{
    MIN_MOMENT_SAMPLES, weight, weighted_mann_whitney, weighted_median, weighted_scaled_mad, z_test,
};
use crate::analysis::scorecard::{Severity, Thresholds};
use crate::base::textfmt::duration;
use crate::model::run::{Distribution, OpSummary, RunSummary};

/// Compares `new` against `old`, brick by brick and step time, with the
/// step-time thresholds, significance level, noise floor and minimum sample
/// count of `thresholds`.
#[must_use]
pub fn compute_diff(old: &RunSummary, new: &RunSummary, thresholds: &Thresholds) -> ProfileDiff {
    let criteria = Criteria {
        warning: thresholds.step_time_warning,
        critical: thresholds.step_time_critical,
        alpha: thresholds.significance_alpha,
        noise_floor_mads: thresholds.noise_floor_mads,
        min_samples: thresholds.min_samples.max(2),
    };
    let mut notes = Vec::new();
    let (olds, news) = (index(old, &mut notes), index(new, &mut notes));
    let mut pairs: Vec<(&OpSummary, &OpSummary)> = olds
        .iter()
        .filter_map(|(name, o)| news.get(name).map(|n| (*o, *n)))
        .collect();
    pairs.sort_by(|a, b| {
        let weight = |p: &(&OpSummary, &OpSummary)| p.0.total_ns.max(p.1.total_ns);
        weight(b)
            .cmp(&weight(a))
            .then_with(|| a.0.name.cmp(&b.0.name))
    });
    let mut added: Vec<String> = news
        .keys()
        .filter(|n| !olds.contains_key(*n))
        .map(|n| (*n).to_owned())
        .collect();
    let mut removed: Vec<String> = olds
        .keys()
        .filter(|n| !news.contains_key(*n))
        .map(|n| (*n).to_owned())
        .collect();
    added.sort();
    removed.sort();
    let per_step = |side: &RunSummary, calls: Option<u64>| {
        let steps = side.steps.filter(|&s| s > 0)?;
        Some(calls? as f64 / steps as f64)
    };
    let bricks = pairs
        .into_iter()
        .map(|(o, n)| {
            let mut row = judge(
                &o.name,
                (calls(o), o.total_ns as f64, &o.distribution),
                (calls(n), n.total_ns as f64, &n.distribution),
                &criteria,
            );
            if let (Some(a), Some(b)) = (per_step(old, o.calls), per_step(new, n.calls))
                && (a - b).abs() > 1e-9 * a.abs().max(1.0)
            {
                row.detail
                    .push_str(&format!("; calls per step {a:.4} -> {b:.4}"));
            }
            row
        })
        .collect();
    let step_time = if old.step_samples_ns.is_empty() || new.step_samples_ns.is_empty() {
        notes.push("step time not compared: a run has no step samples".to_owned());
        None
    } else {
        let samples = |s: &[u64]| -> Vec<(f64, u64)> { s.iter().map(|&x| (x as f64, 1)).collect() };
        let (a, b) = (samples(&old.step_samples_ns), samples(&new.step_samples_ns));
        let sum = |v: &[(f64, u64)]| v.iter().map(|x| x.0).sum::<f64>();
        Some(judge(
            "step time",
            (weight(&a), sum(&a), &Distribution::Weighted(a.clone())),
            (weight(&b), sum(&b), &Distribution::Weighted(b.clone())),
            &criteria,
        ))
    };
    ProfileDiff {
        old: old.name.clone(),
        new: new.name.clone(),
        criteria,
        step_time,
        bricks,
        added,
        removed,
        memory: memory_rows(&old.memory, &new.memory, &criteria),
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

/// An op's calls; one whose source does not count them counts none (its
/// mean is then unknown, and the row says it was not tested).
fn calls(op: &OpSummary) -> u64 {
    op.calls.unwrap_or(0)
}

/// Weighted values and their resolution (binning error), for the kinds
/// that have them.
fn values(d: &Distribution) -> Option<(&[(f64, u64)], f64)> {
    match d {
        Distribution::Weighted(v) => Some((v, 0.0)),
        Distribution::Histogram {
            values,
            quantization_ns,
        } => Some((values, *quantization_ns)),
        _ => None,
    }
}

/// One side: calls, total ns, distribution.
type Side<'a> = (u64, f64, &'a Distribution);

/// What a row's shift was judged by: which centre, the centres before
/// and after, ns, the test when one could run, or why none could.
type Judged = (&'static str, f64, f64, Option<ShiftTest>, Option<String>);

fn judge(name: &str, old: Side<'_>, new: Side<'_>, c: &Criteria) -> RowDiff {
    let (center, old_ns, new_ns, test, why_untested) = test_shift(old, new, c);
    let change = (old_ns > 0.0).then(|| (new_ns - old_ns) / old_ns);
    let (verdict, severity) = verdict_of(change, test.as_ref(), c);
    let detail = match (&test, why_untested) {
        (Some(t), _) => explain(t, center, c),
        (None, Some(why)) => why,
        (None, None) => String::new(),
    };
    let detail = if change.is_none() {
        format!("no time before: no relative change; {detail}")
    } else {
        detail
    };
    RowDiff {
        name: name.to_owned(),
        old_calls: old.0,
        new_calls: new.0,
        old_ns,
        new_ns,
        center,
        change,
        test,
        verdict,
        severity,
        detail,
    }
}

/// The shift test the two sides' distributions allow: Mann-Whitney on
/// weighted values (or histograms), a z-test on moments, else none.
fn test_shift(old: Side<'_>, new: Side<'_>, c: &Criteria) -> Judged {
    let mean = |s: Side<'_>| if s.0 > 0 { s.1 / s.0 as f64 } else { 0.0 };
    if let (Some((a, resolution)), Some((b, _))) = (values(old.2), values(new.2)) {
        let (ma, mb) = (weighted_median(a), weighted_median(b));
        let (na, nb) = (weight(a), weight(b));
        let min = c.min_samples as u64;
        if na < min || nb < min {
            let why = format!("too few samples to test ({na} vs {nb}, {min} needed per side)");
            return ("median", ma, mb, None, Some(why));
        }
        let p = weighted_mann_whitney(b, a).unwrap_or(1.0);
        // Spread finer than the histogram's bins is not seen: the binning
        // error bounds the noise from below.
        let floor = c.noise_floor_mads * weighted_scaled_mad(a).max(resolution);
        let test = shift_test("mann-whitney", (na, nb), p, mb - ma, floor, c);
        return ("median", ma, mb, Some(test), None);
    }
    if let (
        &Distribution::Moments {
            mean: m1,
            stddev: s1,
            n: n1,
        },
        &Distribution::Moments {
            mean: m2,
            stddev: s2,
            n: n2,
        },
    ) = (old.2, new.2)
    {
        let min = (c.min_samples as u64).max(MIN_MOMENT_SAMPLES);
        return match z_test(m1, s1, n1, m2, s2, n2).filter(|_| n1 >= min && n2 >= min) {
            Some(p) => {
                let floor = c.noise_floor_mads * s1;
                let test = shift_test("z-test", (n1, n2), p, m2 - m1, floor, c);
                ("mean", m1, m2, Some(test), None)
            }
            None => {
                let why = format!("too few samples to test ({n1} vs {n2}, {min} needed per side)");
                ("mean", m1, m2, None, Some(why))
            }
        };
    }
    let why = if matches!(old.2, Distribution::Unknown) || matches!(new.2, Distribution::Unknown) {
        "no per-call distribution: judged by the threshold alone"
    } else {
        "the runs describe their distributions differently: judged by the threshold alone"
    };
    ("mean", mean(old), mean(new), None, Some(why.to_owned()))
}

/// The verdict of a relative `change` and the shift test behind it.
fn verdict_of(
    change: Option<f64>,
    test: Option<&ShiftTest>,
    c: &Criteria,
) -> (Verdict, Option<Severity>) {
    let beyond = change.filter(|ch| ch.abs() > c.warning);
    match (beyond, test) {
        (None, _) => (Verdict::Unchanged, None),
        (Some(ch), Some(t)) if t.significant && ch > 0.0 => {
            let sev = if ch > c.critical {
                Severity::Critical
            } else {
                Severity::Warning
            };
            (Verdict::Regression, Some(sev))
        }
        (Some(ch), Some(t)) if t.significant && ch < 0.0 => (Verdict::Improvement, None),
        (Some(_), Some(_)) => (Verdict::Noise, None),
        (Some(ch), None) if ch > 0.0 => (Verdict::Untested, None),
        (Some(_), None) => (Verdict::Unchanged, None),
    }
}

fn shift_test(
    method: &'static str,
    samples: (u64, u64),
    p_value: f64,
    shift_ns: f64,
    noise_floor_ns: f64,
    c: &Criteria,
) -> ShiftTest {
    ShiftTest {
        method,
        samples,
        p_value,
        shift_ns,
        noise_floor_ns,
        significant: p_value < c.alpha && shift_ns.abs() > noise_floor_ns,
    }
}

fn explain(t: &ShiftTest, center: &str, c: &Criteria) -> String {
    let p = if t.p_value >= 0.001 {
        format!("{:.3}", t.p_value)
    } else {
        format!("{:.1e}", t.p_value)
    };
    let (method, scale) = match t.method {
        "z-test" => ("z-test of means", "noise: standard deviation"),
        _ => (
            "Mann-Whitney U",
            "noise: scaled MAD, at least the binning error",
        ),
    };
    let sign = if t.shift_ns < 0.0 { "-" } else { "+" };
    format!(
        "{method} on {} vs {} samples: p={p} (alpha {}), {center} shift {sign}{} vs noise floor {} ({}x the old run's {scale})",
        t.samples.0,
        t.samples.1,
        c.alpha,
        duration(t.shift_ns.abs()),
        duration(t.noise_floor_ns),
        c.noise_floor_mads
    )
}
