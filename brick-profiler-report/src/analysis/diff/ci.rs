//! A [`ProfileDiff`] in the formats benchmark trackers and CI read: the
//! Bencher Metric Format (`to_bmf`), github-action-benchmark's custom JSON
//! (`to_gab`, smaller is better) and JUnit XML (`to_junit`, one test case
//! per measure, failed for a regression). The numbers are the new run's;
//! a measure without a value is left out, never written as 0.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::model::{Change, Metric, ProfileDiff, RowDiff};
use super::render::{change_text, memory_label, verdict};
use crate::base::escape;
use profiler_core::alloc::MemoryKind;

/// The benchmark name of a row: the brick's name, `phase:<name>`, or
/// `step` for the step time and throughput.
fn benchmark(r: &RowDiff) -> String {
    match r.metric {
        Metric::Latency => r.name.clone(),
        Metric::Phase => format!("phase:{}", r.name),
        Metric::StepTime | Metric::Throughput => "step".to_owned(),
    }
}

/// The BMF measure of a row.
fn measure(r: &RowDiff) -> &'static str {
    match r.metric {
        Metric::Throughput => "throughput",
        _ => "latency",
    }
}

/// The peak-bytes measure of a memory kind: `peak-bytes` for host memory,
/// `peak-bytes-<kind>` for the others.
fn peak_measure(kind: MemoryKind) -> String {
    match kind {
        MemoryKind::Host => "peak-bytes".to_owned(),
        other => format!("peak-bytes-{}", other.name()),
    }
}

/// The interval of the row's new value, in its unit: the interval of the
/// change applied to the baseline centre, with the run-wide shift put back
/// when the change was judged relative to it.
fn absolute_bounds(r: &RowDiff) -> Option<(f64, f64)> {
    let (lo, hi) = r.interval?;
    let machine = 1.0 + r.run_shift.unwrap_or(0.0);
    Some((r.old * (1.0 + lo) * machine, r.old * (1.0 + hi) * machine))
}

/// Finite numbers only: JSON has no NaN.
fn finite(x: f64) -> Option<Value> {
    x.is_finite().then(|| json!(x))
}

impl ProfileDiff {
    /// The new run in the Bencher Metric Format: per brick a `latency`
    /// (ns per call: the centre the row was judged on, the median of the
    /// fastest fifth of calls when each side had enough, else the median
    /// call) with `lower_value`/`upper_value` from the
    /// interval of the change applied to the baseline median, its
    /// `throughput` (FLOP/s) and `efficiency` (fraction of the hardware's
    /// peak) when it counts FLOPs and the peak is known, `step` with
    /// `latency` and `throughput` (tokens/s), `phase:<name>` with its
    /// `latency` (bounds when judged on a histogram), and per brick with
    /// memory `peak-bytes`.
    #[must_use]
    pub fn to_bmf(&self) -> String {
        let mut root: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
        for r in self.rows() {
            let Some(value) = finite(r.new) else { continue };
            let mut m = Map::new();
            m.insert("value".to_owned(), value);
            if let Some((a, b)) = absolute_bounds(r)
                && let (Some(a), Some(b)) = (finite(a.min(b)), finite(a.max(b)))
            {
                m.insert("lower_value".to_owned(), a);
                m.insert("upper_value".to_owned(), b);
            }
            let measures = root.entry(benchmark(r)).or_default();
            measures.insert(measure(r).to_owned(), Value::Object(m));
            if let Some(flops) = r.flops_per_call.filter(|_| r.metric == Metric::Latency) {
                self.flops_measures(r, flops, measures);
            }
        }
        for mem in &self.memory {
            root.entry(mem.name.clone()).or_default().insert(
                peak_measure(mem.kind),
                json!({ "value": mem.peak_bytes.1 as f64 }),
            );
        }
        serde_json::to_string_pretty(&root).unwrap_or_else(|_| "{}".to_owned())
    }

    /// A brick's FLOP/s (`throughput`) and, with the hardware's peak, its
    /// `efficiency` (fraction of the peak), from its latency and interval.
    fn flops_measures(&self, r: &RowDiff, flops: f64, measures: &mut Map<String, Value>) {
        let rate = |ns: f64| (ns > 0.0).then(|| flops / ns * 1e9);
        let Some(value) = rate(r.new) else { return };
        // A latency interval [a, b] is a FLOP/s interval [f / b, f / a].
        let bounds = absolute_bounds(r).and_then(|(a, b)| Some((rate(b)?, rate(a)?)));
        let entry = |scale: f64| {
            let mut m = Map::new();
            if let Some(v) = finite(value * scale) {
                m.insert("value".to_owned(), v);
            }
            if let Some((a, b)) = bounds
                && let (Some(a), Some(b)) = (finite(a * scale), finite(b * scale))
            {
                m.insert("lower_value".to_owned(), a);
                m.insert("upper_value".to_owned(), b);
            }
            Value::Object(m)
        };
        measures.insert("throughput".to_owned(), entry(1.0));
        if let Some(peak) = self.peak_tflops {
            measures.insert("efficiency".to_owned(), entry(1.0 / (peak * 1e12)));
        }
    }

    /// The new run as github-action-benchmark's `customSmallerIsBetter`
    /// input: latency per brick and phase and the step time (ns), and peak
    /// bytes per brick; `range` is the interval of the change, `extra` the
    /// baseline and verdict. Throughput, larger being better, is not in it.
    #[must_use]
    pub fn to_gab(&self) -> String {
        let mut out: Vec<Value> = Vec::new();
        for r in self.rows().filter(|r| r.metric != Metric::Throughput) {
            let Some(value) = finite(r.new) else { continue };
            let mut e = Map::new();
            e.insert(
                "name".to_owned(),
                json!(format!("{} latency", benchmark(r))),
            );
            e.insert("unit".to_owned(), json!("ns"));
            e.insert("value".to_owned(), value);
            if r.interval.is_some() {
                e.insert("range".to_owned(), json!(change_text(r)));
            }
            e.insert(
                "extra".to_owned(),
                json!(format!(
                    "{} {:.0} ns over {} vs {} samples: {}",
                    r.center,
                    r.old,
                    r.samples.0,
                    r.samples.1,
                    verdict(r)
                )),
            );
            out.push(Value::Object(e));
        }
        for m in &self.memory {
            out.push(json!({
                "name": format!("{} {}", m.name, peak_measure(m.kind)),
                "unit": "bytes",
                "value": m.peak_bytes.1 as f64,
                "extra": format!("baseline {} bytes: {}", m.peak_bytes.0, memory_label(m.change)),
            }));
        }
        serde_json::to_string_pretty(&out).unwrap_or_else(|_| "[]".to_owned())
    }

    /// JUnit XML: one test case per measure and per memory row; a
    /// regression fails with its numbers, a measure without an interval is
    /// skipped with the reason; a diff with no verdict is one error.
    #[must_use]
    pub fn to_junit(&self) -> String {
        let mut cases = String::new();
        let (mut tests, mut failures, mut skipped) = (0usize, 0usize, 0usize);
        for r in self.rows() {
            tests += 1;
            let class = match r.metric {
                Metric::Latency => "brick",
                Metric::Phase => "phase",
                Metric::StepTime | Metric::Throughput => "step",
            };
            let _ = write!(
                cases,
                "    <testcase classname=\"{class}\" name=\"{}\">",
                escape::html(&format!("{} {}", r.name, measure(r)))
            );
            match r.change {
                Change::Regression => {
                    failures += 1;
                    let _ = write!(
                        cases,
                        "\n      <failure type=\"regression\" message=\"{}: {}\">{}</failure>\n    ",
                        escape::html(&verdict(r)),
                        escape::html(&change_text(r)),
                        escape::html(&r.detail)
                    );
                }
                Change::NotEnoughSamples => {
                    skipped += 1;
                    let _ = write!(
                        cases,
                        "\n      <skipped message=\"{}\"/>\n    ",
                        escape::html(&r.detail)
                    );
                }
                _ => {
                    let _ = write!(
                        cases,
                        "\n      <system-out>{}: {}</system-out>\n    ",
                        escape::html(&verdict(r)),
                        escape::html(&r.detail)
                    );
                }
            }
            cases.push_str("</testcase>\n");
        }
        for m in &self.memory {
            tests += 1;
            let _ = write!(
                cases,
                "    <testcase classname=\"memory\" name=\"{}\">",
                escape::html(&format!("{} {}", m.name, m.kind.name()))
            );
            if m.change == Change::Regression {
                failures += 1;
                let _ = write!(
                    cases,
                    "\n      <failure type=\"regression\" message=\"more memory\">{}</failure>\n    ",
                    escape::html(&m.detail)
                );
            }
            cases.push_str("</testcase>\n");
        }
        let errors = usize::from(!self.has_verdict());
        if errors > 0 {
            tests += 1;
            let _ = writeln!(
                cases,
                "    <testcase classname=\"diff\" name=\"verdict\">\n      <error type=\"no-verdict\" \
                 message=\"{}\"/>\n    </testcase>",
                escape::html(&self.summary())
            );
        }
        let name = escape::html(&format!(
            "brick-profiler diff: {} against {}",
            self.new,
            self.baseline_label()
        ));
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{name}\" tests=\"{tests}\" \
             failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">\n  <testsuite \
             name=\"{name}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" \
             skipped=\"{skipped}\">\n{cases}  </testsuite>\n</testsuites>\n"
        )
    }
}
