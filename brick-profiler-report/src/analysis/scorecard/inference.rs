//! The inference rows of a scorecard, named as serving benchmarks (vLLM's
//! `benchmark_serving`, llama.cpp's `llama-bench`) name them: TTFT, TPOT and
//! ITL percentiles, prefill and decode tokens per second, decode against
//! the memory-bandwidth ceiling and prefill against the compute ceiling,
//! each saying which ceiling it used and where its figures came from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::grade::Grade;
use super::thresholds::Thresholds;
use super::tokens::{TokenTimes, phase_rate, quantile};
use super::units::{si, tok_s};

/// Most inter-token latencies kept in a scorecard for its distribution.
pub const MAX_LATENCY_SAMPLES: usize = 10_000;

/// Percentiles of a latency, ms, by the nearest-rank rule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// Median, ms.
    pub p50_ms: f64,
    /// 90th percentile, ms.
    pub p90_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Samples behind them.
    pub samples: usize,
}

impl Percentiles {
    /// The percentiles of `samples` (ms), `None` when empty.
    #[must_use]
    pub fn of(samples: &[f64]) -> Option<Self> {
        Some(Self {
            p50_ms: quantile(samples, 0.50)?,
            p90_ms: quantile(samples, 0.90)?,
            p99_ms: quantile(samples, 0.99)?,
            samples: samples.len(),
        })
    }
}

/// A phase's efficiency against one ceiling, and what that ceiling was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CeilingUse {
    /// Measured tokens/s over the ceiling's tokens/s, in `[0, 1]`; `None`
    /// when withheld.
    pub efficiency: Option<f64>,
    /// The grade of that efficiency.
    pub grade: Option<Grade>,
    /// The ceiling, tokens/s, when it could be formed.
    pub ceiling_tok_s: Option<f64>,
    /// Which ceiling and where its figures came from, e.g. `DRAM bandwidth
    /// 25.6 GB/s (measured on this machine) / 1.2 MB per token (as given)`.
    pub basis: String,
    /// Why `efficiency` is `None`.
    pub withheld: Option<String>,
}

/// The compute ceiling prefill is graded against: the dense peak and the
/// FLOPs per token, each with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComputeCeiling {
    /// Dense peak FLOP/s and its source, when known.
    pub(crate) peak: Option<(f64, String)>,
    /// FLOPs per prompt token and how they were counted, when known.
    pub(crate) flops_per_token: Option<(f64, String)>,
    /// Set when the peak was measured on a busy machine: why (the grade
    /// is then withheld, as the decode one is).
    pub(crate) busy: Option<String>,
}

/// The rows an inference scorecard adds; rows without data are `None`
/// with the reason in `not_available`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InferenceRows {
    /// Requests: each prefill starts one (decodes before any prefill make one).
    pub requests: usize,
    /// Time to first token per request: the prefill phase, start to end.
    pub ttft: Option<Percentiles>,
    /// Time per output token per request: `(last - first token) / (tokens - 1)`.
    pub tpot: Option<Percentiles>,
    /// Inter-token latency: every gap between consecutive tokens.
    pub itl: Option<Percentiles>,
    /// Prompt tokens per second of prefill time.
    pub prefill_tok_s: Option<f64>,
    /// Generated tokens per second of decode time.
    pub decode_tok_s: Option<f64>,
    /// Prompt tokens of the prefills inside steps.
    pub prefill_tokens: u64,
    /// Generated tokens of the decodes inside steps.
    pub decode_tokens: u64,
    /// Decode against the memory-bandwidth ceiling.
    pub decode_vs_bandwidth: CeilingUse,
    /// Prefill against the compute ceiling.
    pub prefill_vs_compute: CeilingUse,
    /// Why each row that is `None` has no value, by row key.
    #[serde(default)]
    pub not_available: BTreeMap<String, String>,
    /// Inter-token latencies, ms, for the distribution (at most
    /// [`MAX_LATENCY_SAMPLES`], evenly strided).
    #[serde(default)]
    pub itl_samples_ms: Vec<f64>,
}

impl InferenceRows {
    /// The rows of `t`; decode's ceiling use comes graded from the
    /// scorecard's verdict.
    pub(crate) fn of(
        t: &TokenTimes,
        decode_vs_bandwidth: CeilingUse,
        compute: &ComputeCeiling,
        thresholds: &Thresholds,
    ) -> Self {
        let mut na = BTreeMap::new();
        let mut row = |key: &str, value: Option<Percentiles>, why: &str| {
            if value.is_none() {
                na.insert(key.to_owned(), why.to_owned());
            }
            value
        };
        let ttft = row(
            "ttft",
            Percentiles::of(&t.ttft_ms),
            "no prefill phase recorded: wrap the prompt pass in profiler::phase(\"prefill\")",
        );
        let tpot = row(
            "tpot",
            Percentiles::of(&t.tpot_ms),
            "no request produced two tokens (a prefill and a decode, or two decodes)",
        );
        let itl = row(
            "itl",
            Percentiles::of(&t.itl_ms),
            "no two consecutive tokens",
        );
        let prefill_tok_s = rate(t.prefill_work, t.prefills, "prefill", &mut na);
        let decode_tok_s = rate(t.decode_work, t.decodes, "decode", &mut na);
        let prefill_vs_compute = prefill_use(prefill_tok_s, compute, thresholds);
        let stride = t.itl_ms.len().div_ceil(MAX_LATENCY_SAMPLES).max(1);
        Self {
            requests: t.requests,
            ttft,
            tpot,
            itl,
            prefill_tok_s,
            decode_tok_s,
            prefill_tokens: t.prefill_work.0,
            decode_tokens: t.decode_work.0,
            decode_vs_bandwidth,
            prefill_vs_compute,
            not_available: na,
            itl_samples_ms: t.itl_ms.iter().step_by(stride).copied().collect(),
        }
    }
}

/// A phase's tokens per second, its reason noted in `na` when there is none.
fn rate(
    work: (u64, u64),
    counts: (usize, usize),
    phase: &str,
    na: &mut BTreeMap<String, String>,
) -> Option<f64> {
    phase_rate(work, counts, phase)
        .map_err(|why| na.insert(format!("{phase}_tok_s"), why))
        .ok()
}

/// Prefill against the compute ceiling: `prefill tok/s * FLOPs per token /
/// peak FLOP/s`, withheld without either figure or above the ceiling.
fn prefill_use(
    prefill_tok_s: Option<f64>,
    c: &ComputeCeiling,
    thresholds: &Thresholds,
) -> CeilingUse {
    let peak_text = c.peak.as_ref().map_or_else(
        || "dense peak unknown".to_owned(),
        |(p, src)| format!("dense peak {}FLOP/s ({src})", si(*p)),
    );
    let flops_text = c.flops_per_token.as_ref().map_or_else(
        || "FLOPs per token unknown".to_owned(),
        |(f, how)| format!("{}FLOP per token ({how})", si(*f)),
    );
    let basis = format!("compute: {peak_text} / {flops_text}");
    let ceiling = match (&c.peak, &c.flops_per_token) {
        (Some((p, _)), Some((f, _))) if *p > 0.0 && *f > 0.0 && (p / f).is_finite() => Some(p / f),
        _ => None,
    };
    let withheld = |why: String| CeilingUse {
        efficiency: None,
        grade: None,
        ceiling_tok_s: ceiling,
        basis: basis.clone(),
        withheld: Some(why),
    };
    let Some(measured) = prefill_tok_s else {
        return withheld("no prefill throughput".to_owned());
    };
    let Some(peak) = ceiling else {
        return withheld(format!(
            "no compute ceiling ({peak_text}, {flops_text}): give the hardware's dense peak and \
             ScorecardBuilder::model_shape"
        ));
    };
    if let Some(why) = &c.busy {
        return withheld(format!(
            "the dense peak was measured on a busy machine ({why}), so it may be too low"
        ));
    }
    let e = measured / peak;
    if e > 1.0 {
        return withheld(format!(
            "prefill at {} is above the {} ceiling: a figure of the ceiling is wrong",
            tok_s(measured),
            tok_s(peak)
        ));
    }
    CeilingUse {
        efficiency: Some(e),
        grade: Some(thresholds.grade(e)),
        ceiling_tok_s: Some(peak),
        basis,
        withheld: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_use() -> CeilingUse {
        CeilingUse {
            efficiency: None,
            grade: None,
            ceiling_tok_s: None,
            basis: String::new(),
            withheld: Some("x".to_owned()),
        }
    }

    #[test]
    fn prefill_is_graded_against_peak_over_flops_per_token() {
        let t = TokenTimes {
            prefills: (1, 1),
            prefill_work: (1000, 1_000_000_000),
            ..TokenTimes::default()
        };
        let c = ComputeCeiling {
            peak: Some((1e12, "given".to_owned())),
            flops_per_token: Some((2e8, "2 x parameters".to_owned())),
            busy: None,
        };
        let rows = InferenceRows::of(&t, decode_use(), &c, &Thresholds::default());
        assert_eq!(rows.prefill_tok_s, Some(1000.0));
        // 1000 tok/s * 2e8 FLOP = 2e11 of 1e12.
        let e = rows.prefill_vs_compute.efficiency.unwrap();
        assert!((e - 0.2).abs() < 1e-12, "{e}");
        assert_eq!(rows.prefill_vs_compute.ceiling_tok_s, Some(5000.0));
        assert!(rows.prefill_vs_compute.basis.contains("given"));
        assert!(rows.not_available.contains_key("decode_tok_s"));
        assert!(rows.not_available.contains_key("tpot"));
        assert_eq!(rows.decode_tok_s, None);

        let busy = ComputeCeiling {
            busy: Some("8 other tasks runnable".to_owned()),
            ..c
        };
        let rows = InferenceRows::of(&t, decode_use(), &busy, &Thresholds::default());
        let p = rows.prefill_vs_compute;
        assert_eq!((p.efficiency, p.grade), (None, None));
        assert!(
            p.withheld
                .unwrap()
                .contains("busy machine (8 other tasks runnable)")
        );
    }

    #[test]
    fn without_flops_per_token_prefill_is_withheld_with_the_reason() {
        let t = TokenTimes {
            prefills: (1, 1),
            prefill_work: (10, 1_000_000),
            ..TokenTimes::default()
        };
        let c = ComputeCeiling {
            peak: Some((1e12, "measured on this machine".to_owned())),
            flops_per_token: None,
            busy: None,
        };
        let rows = InferenceRows::of(&t, decode_use(), &c, &Thresholds::default());
        let p = rows.prefill_vs_compute;
        assert_eq!((p.efficiency, p.grade), (None, None));
        assert!(p.withheld.unwrap().contains("FLOPs per token unknown"));
    }

    #[test]
    fn phases_outside_steps_withhold_their_rate() {
        let t = TokenTimes {
            decodes: (4, 3),
            decode_work: (3, 3_000_000),
            ..TokenTimes::default()
        };
        let c = ComputeCeiling {
            peak: None,
            flops_per_token: None,
            busy: None,
        };
        let rows = InferenceRows::of(&t, decode_use(), &c, &Thresholds::default());
        assert_eq!(rows.decode_tok_s, None);
        assert!(rows.not_available["decode_tok_s"].contains("1 of 4 decode phases"));
    }
}
