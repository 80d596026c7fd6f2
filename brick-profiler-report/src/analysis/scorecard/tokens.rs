//! Token latencies of a run's `prefill` and `decode` phases, named as
//! serving benchmarks name them: TTFT (prefill start to its end, the first
//! token), TPOT (per request, `(last token - first token) / (tokens - 1)`),
//! ITL (every gap between consecutive tokens of a request), and prefill
//! and decode tokens per second over the phases' own time.

use std::collections::BTreeMap;

use profiler_core::Profile;
use profiler_core::profile::{GenerationLog, GenerationPhase, StepSummary, TokenEvent};

/// Token timings of a run, before any ceiling: the samples behind each
/// percentile, in ms, and the tokens and time of each phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TokenTimes {
    /// Requests: a prefill starts one; decodes before any prefill make one.
    pub(crate) requests: usize,
    /// Time to first token of each request that had a prefill, ms.
    pub(crate) ttft_ms: Vec<f64>,
    /// Time per output token of each request with two tokens or more, ms.
    pub(crate) tpot_ms: Vec<f64>,
    /// Every gap between consecutive tokens of a request, ms.
    pub(crate) itl_ms: Vec<f64>,
    /// Prefill occurrences, and those of them inside a step (tokens known).
    pub(crate) prefills: (usize, usize),
    /// Decode occurrences, and those of them inside a step.
    pub(crate) decodes: (usize, usize),
    /// Tokens and ns of the prefills inside steps.
    pub(crate) prefill_work: (u64, u64),
    /// Tokens and ns of the decodes inside steps.
    pub(crate) decode_work: (u64, u64),
    /// Occurrences beyond the recording cap (not in the samples).
    pub(crate) dropped: u64,
}

impl TokenTimes {
    /// Reads the generation log, taking each occurrence's tokens from the
    /// recorded step it ran in.
    pub(crate) fn of(log: &GenerationLog, steps: &StepSummary) -> Self {
        let step_tokens: BTreeMap<u64, u64> =
            if steps.samples_index.len() == steps.samples_tokens.len() {
                steps
                    .samples_index
                    .iter()
                    .copied()
                    .zip(steps.samples_tokens.iter().copied())
                    .collect()
            } else {
                BTreeMap::new()
            };
        let mut t = Self {
            dropped: log.dropped,
            ..Self::default()
        };
        let mut request: Vec<u64> = Vec::new();
        for e in &log.events {
            let tokens = e.step.and_then(|s| step_tokens.get(&s).copied());
            match e.phase {
                GenerationPhase::Prefill => {
                    t.close(&request);
                    request.clear();
                    t.requests += 1;
                    t.ttft_ms.push(ms(e.duration_ns));
                    count(&mut t.prefills, &mut t.prefill_work, e, tokens);
                }
                GenerationPhase::Decode => {
                    if request.is_empty() {
                        // Decodes before any prefill: a request of their own.
                        t.requests += 1;
                    }
                    count(&mut t.decodes, &mut t.decode_work, e, tokens);
                }
            }
            request.push(e.end_ns());
        }
        t.close(&request);
        t
    }

    /// Adds one request's gaps and its time per output token.
    fn close(&mut self, token_ends: &[u64]) {
        let gaps: Vec<f64> = token_ends
            .windows(2)
            .map(|w| ms(w[1].saturating_sub(w[0])))
            .collect();
        if let (Some(first), Some(last)) = (token_ends.first(), token_ends.last())
            && !gaps.is_empty()
        {
            self.tpot_ms
                .push(ms(last.saturating_sub(*first)) / gaps.len() as f64);
        }
        self.itl_ms.extend(gaps);
    }

    /// Whether the run generated tokens (a prefill or decode phase ran).
    pub(crate) fn generated(&self) -> bool {
        self.prefills.0 + self.decodes.0 > 0 || self.dropped > 0
    }
}

/// Counts an occurrence, and its tokens and time when its step is known.
fn count(n: &mut (usize, usize), work: &mut (u64, u64), e: &TokenEvent, tokens: Option<u64>) {
    n.0 += 1;
    if let Some(tokens) = tokens {
        n.1 += 1;
        work.0 = work.0.saturating_add(tokens);
        work.1 = work.1.saturating_add(e.duration_ns);
    }
}

/// The TTFT, TPOT and ITL samples of `profile`, ms, each with its name,
/// for charts.
pub(crate) fn token_latencies(profile: &Profile) -> [(&'static str, Vec<f64>); 3] {
    let t = TokenTimes::of(&profile.generation, &profile.steps);
    [("TTFT", t.ttft_ms), ("TPOT", t.tpot_ms), ("ITL", t.itl_ms)]
}

/// Tokens per second of a phase's own time from its `(tokens, ns)` and
/// `(occurrences, occurrences inside steps)`, or why there is none.
pub(crate) fn phase_rate(
    (tokens, ns): (u64, u64),
    (ran, in_steps): (usize, usize),
    phase: &str,
) -> Result<f64, String> {
    if ran == 0 {
        Err(format!("no {phase} phase recorded"))
    } else if in_steps < ran {
        Err(format!(
            "{} of {ran} {phase} phases ran outside profiler::step(n), so their tokens are unknown",
            ran - in_steps
        ))
    } else if tokens == 0 || ns == 0 {
        Err(format!(
            "the {phase} steps carried no tokens or took no time"
        ))
    } else {
        Ok(tokens as f64 / (ns as f64 / 1e9))
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The `q`-quantile of `samples` by the nearest-rank rule (the
/// `ceil(q * n)`-th smallest), as serving benchmarks report them; `None`
/// when empty.
pub(crate) fn quantile(samples: &[f64], q: f64) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use GenerationPhase::{Decode, Prefill};

    fn event(phase: GenerationPhase, start_ms: u64, dur_ms: u64, step: Option<u64>) -> TokenEvent {
        TokenEvent {
            phase,
            start_ns: start_ms * 1_000_000,
            duration_ns: dur_ms * 1_000_000,
            step,
        }
    }

    fn steps(tokens: &[u64]) -> StepSummary {
        StepSummary {
            samples_index: (0..tokens.len() as u64).collect(),
            samples_tokens: tokens.to_vec(),
            ..StepSummary::default()
        }
    }

    #[test]
    fn two_requests_give_ttft_tpot_and_itl_per_request() {
        // Request 1: prefill 0..10 (8 tokens), decodes ending at 14, 20.
        // Request 2: prefill 30..36 (4 tokens), decodes ending at 40, 43, 47.
        let log = GenerationLog {
            events: vec![
                event(Prefill, 0, 10, Some(0)),
                event(Decode, 11, 3, Some(1)),
                event(Decode, 15, 5, Some(2)),
                event(Prefill, 30, 6, Some(3)),
                event(Decode, 37, 3, Some(4)),
                event(Decode, 41, 2, Some(5)),
                event(Decode, 44, 3, Some(6)),
            ],
            dropped: 0,
        };
        let t = TokenTimes::of(&log, &steps(&[8, 1, 1, 4, 1, 1, 1]));
        assert_eq!(t.requests, 2);
        assert_eq!(t.ttft_ms, [10.0, 6.0]);
        // (20 - 10) / 2 and (47 - 36) / 3.
        assert_eq!(t.tpot_ms, [5.0, 11.0 / 3.0]);
        assert_eq!(t.itl_ms, [4.0, 6.0, 4.0, 3.0, 4.0]);
        assert_eq!(t.prefill_work, (12, 16_000_000));
        assert_eq!(t.decode_work, (5, 16_000_000));
        assert_eq!((t.prefills, t.decodes), ((2, 2), (5, 5)));
    }

    #[test]
    fn decodes_without_a_prefill_have_no_ttft_and_outside_steps_no_tokens() {
        let log = GenerationLog {
            events: vec![
                event(Decode, 0, 2, None),
                event(Decode, 2, 2, None),
                event(Decode, 5, 2, None),
            ],
            dropped: 0,
        };
        let t = TokenTimes::of(&log, &StepSummary::default());
        assert_eq!(t.requests, 1);
        assert!(t.ttft_ms.is_empty());
        assert_eq!(t.itl_ms, [2.0, 3.0]);
        assert_eq!(t.tpot_ms, [2.5]);
        assert_eq!(t.decodes, (3, 0));
        assert_eq!(t.decode_work, (0, 0));
    }

    #[test]
    fn nothing_generated_is_said() {
        let t = TokenTimes::of(&GenerationLog::default(), &StepSummary::default());
        assert!(!t.generated());
        assert_eq!(t.requests, 0);
    }

    #[test]
    fn nearest_rank_quantiles() {
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(quantile(&xs, 0.5), Some(5.0));
        assert_eq!(quantile(&xs, 0.9), Some(9.0));
        assert_eq!(quantile(&xs, 0.99), Some(10.0));
        assert_eq!(quantile(&[3.0], 0.99), Some(3.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
