//! [`compute_diff`]: judges every brick, phase, the step time and the
//! throughput of a new run against one or more baselines. Each row gets an
//! interval for its relative change (Hodges-Lehmann with the Mann-Whitney
//! interval over each side's fastest fifth when it has enough calls, or a
//! z-interval of means for moments); it is a regression only when the whole
//! interval lies beyond the threshold, raised to a noise floor of 1.5 times
//! the baselines' own spread when there are several. Phases, like the step, are
//! wall time: they fail only with the bricks' time.

use std::collections::HashMap;

use super::judge::{Sample, decide, fast_center, judge, judge_op};
use super::memory::memory_rows;
use super::model::{Change, Criteria, Metric, ProfileDiff, RowDiff};
use crate::base::textfmt::signed_pct;
use crate::model::run::{OpSummary, RunSummary};

/// Compares `new` against `baselines` (the last runs of the main branch, or
/// one run) by `criteria`.
#[must_use]
pub fn compute_diff(
    baselines: &[RunSummary],
    new: &RunSummary,
    criteria: &Criteria,
) -> ProfileDiff {
    let c = Criteria {
        min_samples: criteria.min_samples.max(2),
        ..*criteria
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
    let speeds = if c.relative_to_run {
        baseline_speeds(&olds, &common, c.min_samples as u64)
    } else {
        vec![1.0; olds.len()]
    };
    let mut bricks: Vec<RowDiff> = common
        .iter()
        .map(|name| {
            let sides: Vec<&OpSummary> = olds.iter().map(|o| o[name]).collect();
            let mut row = judge_op(name, Metric::Latency, &sides, &speeds, news[name], &c);
            row.flops_per_call = news[name].flops_per_call;
            calls_per_step_note(&mut row, baselines, &sides, new, news[name]);
            row
        })
        .collect();
    let mut phases = phase_rows(baselines, new, &c);
    let mut step_time = step_rows(baselines, new, &c, &mut notes);
    let mut throughput = throughput_row(baselines, new, &c);
    let busy = busy_change(&olds, baselines, &news, new, &common, c.min_samples as u64);
    for r in step_time
        .iter_mut()
        .chain(&mut throughput)
        .chain(&mut phases)
    {
        outside_the_bricks(r, busy);
        if baselines.len() == 1 {
            one_baseline(r);
        }
    }
    let run_shift = c.relative_to_run.then(|| run_shift(&bricks)).flatten();
    if let Some(m) = run_shift {
        for r in &mut bricks {
            relative_to_run(r, m, baselines.len(), &c);
        }
        for r in step_time
            .iter_mut()
            .chain(&mut throughput)
            .chain(&mut phases)
        {
            whole_run_moved(r, m, &c);
        }
    }
    ProfileDiff {
        baselines: baselines.iter().map(|b| b.name.clone()).collect(),
        new: new.name.clone(),
        criteria: c,
        peak_tflops: new.peak_tflops,
        run_shift,
        throughput,
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

/// Phases in the new run and every baseline, each judged on its histogram
/// of occurrences (a profile without one gives a mean and no interval). A
/// phase is wall time, like the step: [`compute_diff`] then applies the
/// step's guards to it.
fn phase_rows(baselines: &[RunSummary], new: &RunSummary, c: &Criteria) -> Vec<RowDiff> {
    new.phases
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
            (!olds.is_empty()).then(|| judge_op(&p.name, Metric::Phase, &olds, &[], p, c))
        })
        .collect()
}

fn steps_of(s: &RunSummary) -> Sample {
    Sample::Values(
        s.step_samples_ns.iter().map(|&x| (x as f64, 1)).collect(),
        false,
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
    Some(Sample::Values(values, false))
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

/// Fewest bricks with an interval for a run-wide shift: with fewer, a
/// brick's own change would be too much of it.
const MIN_BRICKS_FOR_SHIFT: usize = 5;

/// The run-wide shift: the median relative change of the bricks with an
/// interval, each brick one vote (a brick that dominates the time must not
/// set the machine's speed alone).
fn run_shift(bricks: &[RowDiff]) -> Option<f64> {
    let mut v: Vec<f64> = bricks
        .iter()
        .filter(|r| r.interval.is_some())
        .filter_map(|r| r.relative)
        .filter(|x| x.is_finite())
        .collect();
    if v.len() < MIN_BRICKS_FOR_SHIFT {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let m = if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    };
    (m > -1.0).then_some(m)
}

/// Restates a brick's change and interval relative to the run-wide shift
/// `m` (`(1 + x) / (1 + m) - 1`), and judges it again.
fn relative_to_run(r: &mut RowDiff, m: f64, runs: usize, c: &Criteria) {
    let Some((lo, hi)) = r.interval else { return };
    let rel = |x: f64| (1.0 + x) / (1.0 + m) - 1.0;
    r.relative = r.relative.map(rel);
    r.interval = Some((rel(lo), rel(hi)));
    r.run_shift = Some(m);
    decide(r, runs, c);
}

/// A step time, throughput or phase that got worse with every brick alike: the
/// machine slower as a whole, or a change that touches every brick; one
/// comparison cannot tell which, so it is inconclusive, not failed.
fn whole_run_moved(r: &mut RowDiff, m: f64, c: &Criteria) {
    let worse_run = m > c.threshold;
    if r.change == Change::Regression && worse_run {
        r.change = Change::Inconclusive;
        r.severity = None;
        r.detail.push_str(&format!(
            "; but every brick moved alike (run-wide shift {}): a machine slower as a whole or a \
             change that touches every brick, which one comparison cannot tell apart, so \
             inconclusive (--strict fails it; more baselines tell them apart)",
            signed_pct(m)
        ));
    }
}

/// Each baseline's machine speed against the first: the median, over the
/// bricks in every run, of the brick's centre (of its fastest fifth, as
/// the rows are judged) over its centre in the first baseline (1 for each with fewer than [`MIN_BRICKS_FOR_SHIFT`]
/// bricks). Dividing by it keeps a baseline taken on a slower moment of
/// the machine from widening the pool and the spread.
fn baseline_speeds(olds: &[HashMap<&str, &OpSummary>], common: &[&str], min: u64) -> Vec<f64> {
    let Some(first) = olds.first() else {
        return Vec::new();
    };
    olds.iter()
        .map(|o| {
            let mut ratios: Vec<f64> = common
                .iter()
                .filter_map(|name| {
                    let (a, b) = (fast_center(first[name], min), fast_center(o[name], min));
                    (a > 0.0 && b > 0.0).then(|| b / a)
                })
                .collect();
            if ratios.len() < MIN_BRICKS_FOR_SHIFT {
                return 1.0;
            }
            ratios.sort_by(f64::total_cmp);
            ratios[ratios.len() / 2]
        })
        .collect()
}

/// The relative change of the bricks' time per step (each brick's centre,
/// of its fastest fifth as the rows are judged, times its calls per step, summed over the bricks in every run), new
/// against the baselines' mean; `None` without steps or bricks.
fn busy_change(
    olds: &[HashMap<&str, &OpSummary>],
    baselines: &[RunSummary],
    news: &HashMap<&str, &OpSummary>,
    new: &RunSummary,
    common: &[&str],
    min: u64,
) -> Option<f64> {
    let busy = |ops: &HashMap<&str, &OpSummary>, run: &RunSummary| -> Option<f64> {
        let steps = run.steps.filter(|&s| s > 0)? as f64;
        Some(
            common
                .iter()
                .map(|name| {
                    let op = ops[name];
                    fast_center(op, min) * op.calls.unwrap_or(0) as f64 / steps
                })
                .sum(),
        )
    };
    let old: Vec<f64> = olds
        .iter()
        .zip(baselines)
        .map(|(o, b)| busy(o, b))
        .collect::<Option<_>>()?;
    let old = old.iter().sum::<f64>() / old.len().max(1) as f64;
    let new = busy(news, new)?;
    (old > 0.0 && !common.is_empty()).then(|| new / old - 1.0)
}

/// A step time, throughput or phase judged worse while the bricks' own time per
/// step did not move beyond the threshold: the extra wall time is outside
/// the bricks, in waits for a core on a loaded machine (which a brick's
/// median call shrugs off) or in code no brick covers. One comparison
/// cannot tell which, so it is inconclusive, not failed.
fn outside_the_bricks(r: &mut RowDiff, busy: Option<f64>) {
    let Some(busy) = busy else { return };
    if r.change == Change::Regression && busy <= r.threshold {
        r.change = Change::Inconclusive;
        r.severity = None;
        r.detail.push_str(&format!(
            "; but the bricks' time per step moved {} only: the extra time is outside the \
             bricks (waits for a core on a loaded machine, or code no brick covers), so \
             inconclusive (--strict fails it)",
            signed_pct(busy)
        ));
    }
}

/// A step time, throughput or phase judged worse against one baseline: wall time
/// includes every wait for a core, which moves with the machine's load far
/// more than a brick's median call, and one run cannot say how much. So it
/// is inconclusive, not failed, until several baselines measure that spread.
fn one_baseline(r: &mut RowDiff) {
    if r.change == Change::Regression {
        r.change = Change::Inconclusive;
        r.severity = None;
        r.detail.push_str(
            "; but against one baseline: a step's wall time moves with the machine's load \
             (every wait for a core counts) by more than one run shows, so inconclusive \
             (--strict fails it); give several baselines (the last runs on main) to measure \
             that spread",
        );
    }
}
