//! The noise test behind regressions: per-step samples of two runs
//! (step times, or per-step throughput) compared with a Mann-Whitney U test
//! and against a noise floor of the baseline's spread, with the verdict
//! explained in words, naming the condition that failed when a change is
//! not flagged.

use super::stats::{mann_whitney, median, scaled_mad};
use super::thresholds::Thresholds;
use super::units::{ms, tok_s};

/// The noise test's answer for one metric.
pub(crate) struct NoiseVerdict {
    /// Whether the change stands out of the noise.
    pub(crate) flagged: bool,
    /// Why, in words: the test, its p-value and the shift against the floor.
    pub(crate) why: String,
}

/// Per-step samples of one metric and how to speak of them.
pub(crate) struct Samples {
    base: Vec<f64>,
    current: Vec<f64>,
    /// Whether a larger value is worse (step time) or better (throughput).
    larger_is_worse: bool,
    noun: &'static str,
    unit: fn(f64) -> String,
}

/// Finite, positive values.
fn usable(s: &[f64]) -> Vec<f64> {
    s.iter()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect()
}

/// Tokens / time of each step with a positive time.
fn per_step_throughput(times_ms: &[f64], tokens: &[u64]) -> Vec<f64> {
    times_ms
        .iter()
        .zip(tokens)
        .filter(|(ms, _)| ms.is_finite() && **ms > 0.0)
        .map(|(ms, &t)| t as f64 / (ms / 1e3))
        .collect()
}

impl Samples {
    /// Step times, ms, of the baseline and the current run.
    pub(crate) fn step_times(base_ms: &[f64], current_ms: &[f64]) -> Self {
        Self {
            base: usable(base_ms),
            current: usable(current_ms),
            larger_is_worse: true,
            noun: "step time",
            unit: ms,
        }
    }

    /// Per-step throughput (tokens / time of each step) when both runs
    /// have tokens per step, else step times: the one sample set that
    /// judges throughput and step time together.
    pub(crate) fn shared(
        (base_ms, base_tokens): (&[f64], &[u64]),
        (current_ms, current_tokens): (&[f64], &[u64]),
    ) -> Self {
        let paired =
            |times: &[f64], tokens: &[u64]| !times.is_empty() && times.len() == tokens.len();
        if paired(base_ms, base_tokens) && paired(current_ms, current_tokens) {
            Self {
                base: per_step_throughput(base_ms, base_tokens),
                current: per_step_throughput(current_ms, current_tokens),
                larger_is_worse: false,
                noun: "throughput per step",
                unit: tok_s,
            }
        } else {
            Self::step_times(base_ms, current_ms)
        }
    }

    /// The test, when both sides have `min_samples` samples: flagged when
    /// the distributions differ (Mann-Whitney U, p < alpha) and the median
    /// moved the bad way by more than the noise floor (a multiple of the
    /// baseline's MAD).
    pub(crate) fn verdict(&self, t: &Thresholds) -> Option<NoiseVerdict> {
        let need = t.min_samples.max(2);
        if self.base.len() < need || self.current.len() < need {
            return None;
        }
        let test = mann_whitney(&self.current, &self.base)?;
        let moved = median(&self.current) - median(&self.base);
        let worse_by = if self.larger_is_worse { moved } else { -moved };
        let floor = t.noise_floor_mads * scaled_mad(&self.base);
        let p = if test.p_value >= 0.001 {
            format!("{:.3}", test.p_value)
        } else {
            format!("{:.1e}", test.p_value)
        };
        let alpha = t.significance_alpha;
        let test_text = format!(
            "Mann-Whitney U test of {} ({} vs {} steps): p={p}",
            self.noun,
            self.current.len(),
            self.base.len(),
        );
        let (direction, bad_word) = if self.larger_is_worse {
            (if moved >= 0.0 { "rose" } else { "fell" }, "rise")
        } else {
            (if moved >= 0.0 { "rose" } else { "fell" }, "fall")
        };
        let shift = format!(
            "the median {} {direction} {}",
            self.noun,
            (self.unit)(moved.abs())
        );
        let floor_text = format!(
            "the noise floor of {} ({} baseline standard deviations, estimated from its median \
             absolute deviation)",
            (self.unit)(floor),
            t.noise_floor_mads
        );
        let significant = test.p_value < alpha;
        let (flagged, why) = if !significant {
            (
                false,
                format!(
                    "not significant: {test_text} (needs < {alpha}), so the two runs' {} may \
                     well be the same",
                    plural(self.noun)
                ),
            )
        } else if worse_by <= 0.0 {
            (
                false,
                format!(
                    "the typical step did not get worse: {test_text}, but {shift}; the mean \
                     moved with a few outlying steps"
                ),
            )
        } else if worse_by <= floor {
            (
                false,
                format!(
                    "significant ({test_text} < {alpha}) but small: {shift}, within {floor_text}"
                ),
            )
        } else {
            (
                true,
                format!(
                    "significant: {test_text} < {alpha}, and {shift}, a {bad_word} above \
                     {floor_text}"
                ),
            )
        };
        Some(NoiseVerdict { flagged, why })
    }
}

fn plural(noun: &str) -> String {
    match noun {
        "step time" => "step times".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(center: f64, spread: f64, n: usize) -> Vec<f64> {
        // Deterministic spread: a symmetric saw-tooth around the centre.
        (0..n)
            .map(|i| center + spread * ((i % 5) as f64 - 2.0) / 2.0)
            .collect()
    }

    fn judge(base: &[f64], current: &[f64]) -> Option<NoiseVerdict> {
        Samples::step_times(base, current).verdict(&Thresholds::default())
    }

    #[test]
    fn each_failed_condition_is_named() {
        let base = samples(100.0, 1.0, 30);
        let v = judge(&base, &samples(115.0, 1.0, 30)).unwrap();
        assert!(v.flagged, "{}", v.why);
        assert!(
            v.why
                .starts_with("significant: Mann-Whitney U test of step time (30 vs 30 steps): p="),
            "{}",
            v.why
        );
        assert!(v.why.contains("a rise above the noise floor"), "{}", v.why);

        let noisy = judge(&samples(100.0, 60.0, 30), &samples(112.0, 60.0, 30)).unwrap();
        assert!(!noisy.flagged);
        assert!(noisy.why.starts_with("not significant: "), "{}", noisy.why);

        // A tiny p-value with a shift inside the noise floor: significant but
        // small, never "within noise" beside p=1e-7.
        let wide = [90.0, 95.0, 100.0, 105.0, 110.0].repeat(80);
        let nudged: Vec<f64> = wide.iter().map(|x| x + 4.5).collect();
        let small = judge(&wide, &nudged).unwrap();
        assert!(!small.flagged, "{}", small.why);
        assert!(
            small.why.starts_with("significant (Mann-Whitney"),
            "{}",
            small.why
        );
        assert!(small.why.contains("but small"), "{}", small.why);

        // Faster: significant, but the typical step did not get worse.
        let faster = judge(&base, &samples(90.0, 1.0, 30)).unwrap();
        assert!(!faster.flagged);
        assert!(
            faster.why.starts_with("the typical step did not get worse"),
            "{}",
            faster.why
        );
    }

    #[test]
    fn too_few_samples_fall_back_to_the_reference_rule() {
        assert!(judge(&[100.0; 3], &[120.0; 3]).is_none());
    }

    #[test]
    fn per_step_throughput_is_tokens_over_each_step_time() {
        assert_eq!(
            per_step_throughput(&[100.0, 0.0, 50.0], &[200, 7, 100]),
            [2000.0, 2000.0]
        );
    }
}
