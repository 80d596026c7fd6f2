//! Steps and phases as a profile reports them, and the [`Schedule`] that
//! decides which steps are recorded (like `torch.profiler.schedule`).

use serde::{Deserialize, Serialize};

use crate::stats::LatencyHistogram;

/// Canonical training phase names, in step order.
pub const TRAINING_PHASES: [&str; 11] = [
    "embed",
    "h2d",
    "forward",
    "norm_lm",
    "loss",
    "grad_h2d",
    "lm_bwd",
    "norm_bwd",
    "blk_bwd",
    "embed_bwd",
    "opt",
];

/// Which steps are recorded: skip `wait` steps, run `warmup` steps without
/// recording, record `active` steps, and repeat the cycle `repeat` times
/// (0 = forever). After the last cycle recording stays paused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Schedule {
    /// Steps skipped at the start of each cycle.
    pub wait: u64,
    /// Warm-up steps (not recorded) after the wait.
    pub warmup: u64,
    /// Recorded steps per cycle (`u64::MAX`: all of them; `null` in JSON).
    #[serde(with = "crate::sentinel", default = "crate::sentinel::none")]
    pub active: u64,
    /// Number of cycles; 0 repeats forever.
    pub repeat: u64,
}

/// Where a step falls in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepRole {
    Wait,
    Warmup,
    Active,
    Done,
}

impl Schedule {
    /// Skips `warmup` steps, then records every step.
    #[must_use]
    pub const fn skip_warmup(warmup: u64) -> Self {
        Self {
            wait: 0,
            warmup,
            active: u64::MAX,
            repeat: 1,
        }
    }

    /// Where step `index` (0-based since the schedule was set) falls.
    pub(crate) fn role(&self, index: u64) -> StepRole {
        let cycle_len = self
            .wait
            .saturating_add(self.warmup)
            .saturating_add(self.active);
        if cycle_len == 0 || self.active == 0 {
            return StepRole::Done;
        }
        if self.repeat > 0 && index / cycle_len >= self.repeat {
            return StepRole::Done;
        }
        let pos = index % cycle_len;
        if pos < self.wait {
            StepRole::Wait
        } else if pos < self.wait + self.warmup {
            StepRole::Warmup
        } else {
            StepRole::Active
        }
    }
}

/// Recorded steps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSummary {
    /// Steps recorded.
    pub count: u64,
    /// Steps skipped by the schedule (wait and warm-up) while enabled.
    #[serde(default)]
    pub skipped: u64,
    /// Tokens of recorded steps.
    #[serde(default)]
    pub tokens: u64,
    /// Wall time of recorded steps, ns.
    #[serde(default)]
    pub total_ns: u64,
    /// Per-step wall times, ns (the first 100 000 recorded steps).
    #[serde(default)]
    pub samples_ns: Vec<u64>,
    /// Index of each step in `samples_ns` since the schedule was set (or
    /// since start): the gaps are steps the schedule left out.
    #[serde(default)]
    pub samples_index: Vec<u64>,
    /// Tokens of each step in `samples_ns`.
    #[serde(default)]
    pub samples_tokens: Vec<u64>,
    /// Steps beyond the sample cap (counted in totals, not in `samples_ns`).
    #[serde(default)]
    pub samples_dropped: u64,
    /// The schedule in force.
    #[serde(default)]
    pub schedule: Option<Schedule>,
    /// Recorded steps that ended before anything inside them ran on their
    /// thread (no brick, phase, layer or trace entry): usually a guard
    /// dropped at once (`let _ = profiler::step(n);`). Their times and
    /// tokens are in the totals, but mean nothing.
    #[serde(default)]
    pub empty: u64,
    /// Steps opened inside another open step on the same thread. Only the
    /// outermost counts; these are left out of every total.
    #[serde(default)]
    pub nested: u64,
}

impl StepSummary {
    /// Mean step time, ms (0 without steps).
    #[must_use]
    pub fn avg_step_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64 / 1e6
        }
    }

    /// Tokens per second over recorded steps (0 without time).
    #[must_use]
    pub fn tokens_per_s(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.tokens as f64 / (self.total_ns as f64 / 1e9)
        }
    }
}

/// Time spent in one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseStats {
    /// Phase name.
    pub name: String,
    /// Times the phase ran.
    pub count: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Shortest occurrence, ns.
    #[serde(default)]
    pub min_ns: u64,
    /// Longest occurrence, ns.
    #[serde(default)]
    pub max_ns: u64,
    /// Time of top-level occurrences inside recorded steps, ns (wall coverage).
    #[serde(default)]
    pub in_steps_ns: u64,
    /// Each occurrence's duration, in the bricks' latency buckets (absent
    /// from profiles before schema 1.4).
    #[serde(default, skip_serializing_if = "LatencyHistogram::is_empty")]
    pub latency: LatencyHistogram,
}

impl PhaseStats {
    /// Mean time per occurrence, ms.
    #[must_use]
    pub fn avg_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64 / 1e6
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_roles_follow_wait_warmup_active_repeat() {
        let s = Schedule {
            wait: 1,
            warmup: 2,
            active: 3,
            repeat: 2,
        };
        let roles: Vec<StepRole> = (0..14).map(|i| s.role(i)).collect();
        use StepRole::*;
        assert_eq!(
            roles,
            [
                Wait, Warmup, Warmup, Active, Active, Active, Wait, Warmup, Warmup, Active, Active,
                Active, Done, Done
            ]
        );
        let forever = Schedule { repeat: 0, ..s };
        assert_eq!(forever.role(100 * 6 + 3), Active);
        assert_eq!(Schedule::skip_warmup(2).role(1), Warmup);
        assert_eq!(Schedule::skip_warmup(2).role(1_000_000), Active);
        assert_eq!(
            Schedule::default().role(0),
            Done,
            "no active steps records nothing"
        );
    }
}
