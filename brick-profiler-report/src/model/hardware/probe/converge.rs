//! When a probe may stop repeating: its best result is the ceiling, so it
//! repeats until the best three of its repetitions agree (the practice of
//! STREAM and the roofline toolkits: best of repetitions, converged, with
//! the spread stated) and the best one ran with the whole of its CPU, or
//! until its share of the time budget is spent. Pure rules over the
//! repetitions, so recorded ones can be judged again.

use std::time::Duration;

/// The best three repetitions must agree within this, % of the best.
pub const CONVERGED_PCT: f64 = 3.0;

/// Share of its CPU time, %, below which a repetition counts as one that
/// other work or the hypervisor slowed: a loss the size of the
/// convergence tolerance moves the best by more than it is stated to.
pub const FULL_CPU_PCT: f64 = 100.0 - CONVERGED_PCT;

/// One timed repetition of a probe on all its threads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Round {
    /// Wall time, from the first thread's start to the last one's end.
    pub(crate) wall: Duration,
    /// Lowest share of its own wall time any thread spent on the CPU, %:
    /// the slowest thread sets the round's time. `None` where thread CPU
    /// time cannot be read.
    pub(crate) cpu_pct: Option<f64>,
}

/// A probe's repetitions as rates (work per second), with how each ran.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    /// What was measured, as the reasons name it: "FP32 peak", "L1 bandwidth".
    pub(crate) what: String,
    /// Bytes or FLOPs of one repetition.
    pub(crate) work: f64,
    /// Every timed repetition, in order.
    pub(crate) rounds: Vec<Round>,
}

/// The rounds, fastest first.
fn ranked(rounds: &[Round]) -> Vec<Round> {
    let mut r = rounds.to_vec();
    r.sort_by_key(|r| r.wall);
    r
}

/// How far the third-best rate lies below the best, % of the best;
/// `None` before three repetitions.
pub(crate) fn best_spread_pct(rounds: &[Round]) -> Option<f64> {
    let r = ranked(rounds);
    let (best, third) = (r.first()?.wall, r.get(2)?.wall);
    let third = third.as_secs_f64();
    (third > 0.0).then(|| (1.0 - best.as_secs_f64() / third) * 100.0)
}

/// The CPU share the best repetition ran with, %, when known.
pub(crate) fn best_cpu_pct(rounds: &[Round]) -> Option<f64> {
    ranked(rounds).first()?.cpu_pct
}

/// Whether the best three agree within [`CONVERGED_PCT`].
pub(crate) fn converged(rounds: &[Round]) -> bool {
    best_spread_pct(rounds).is_some_and(|s| s <= CONVERGED_PCT)
}

/// Whether the best repetition kept at least [`FULL_CPU_PCT`] of its CPU
/// (true where that cannot be measured).
pub(crate) fn best_ran_alone(rounds: &[Round]) -> bool {
    best_cpu_pct(rounds).is_none_or(|p| p >= FULL_CPU_PCT)
}

impl Series {
    /// A series of `rounds` doing `work` each.
    pub(crate) fn new(what: impl Into<String>, work: f64, rounds: Vec<Round>) -> Self {
        Self {
            what: what.into(),
            work,
            rounds,
        }
    }

    fn rate(&self, r: &Round) -> f64 {
        self.work / r.wall.as_secs_f64().max(1e-12)
    }

    /// Best rate (0 when nothing was timed).
    pub(crate) fn best(&self) -> f64 {
        ranked(&self.rounds).first().map_or(0.0, |r| self.rate(r))
    }

    /// Median rate (0 when nothing was timed): reported, never disqualifying.
    pub(crate) fn median(&self) -> f64 {
        let r = ranked(&self.rounds);
        r.get(r.len() / 2).map_or(0.0, |r| self.rate(r))
    }

    /// How far the median lies below the best, % of the best.
    pub(crate) fn median_spread_pct(&self) -> f64 {
        let best = self.best();
        if best > 0.0 {
            (1.0 - self.median() / best) * 100.0
        } else {
            0.0
        }
    }

    /// See [`best_spread_pct`].
    pub(crate) fn best_spread_pct(&self) -> Option<f64> {
        best_spread_pct(&self.rounds)
    }

    /// See [`best_cpu_pct`].
    pub(crate) fn best_cpu_pct(&self) -> Option<f64> {
        best_cpu_pct(&self.rounds)
    }

    /// See [`converged`].
    pub(crate) fn converged(&self) -> bool {
        converged(&self.rounds)
    }

    /// See [`best_ran_alone`].
    pub(crate) fn best_ran_alone(&self) -> bool {
        best_ran_alone(&self.rounds)
    }

    /// Timed repetitions.
    pub(crate) fn repetitions(&self) -> u32 {
        self.rounds.len() as u32
    }
}

/// How long a probe repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Repetitions always run.
    pub(crate) min: u32,
    /// Repetitions never exceeded.
    pub(crate) max: u32,
    /// Timed time after which no new repetition starts once `min` have run.
    pub(crate) budget: Duration,
}

impl Plan {
    /// Whether to run another repetition after `so_far`: until `min`, then
    /// while the best has not converged or did not run alone, within the
    /// budget (the repetitions' own time) and `max`.
    pub(crate) fn more(&self, so_far: &[Round]) -> bool {
        let n = so_far.len() as u32;
        if n < self.min {
            return true;
        }
        let spent: Duration = so_far.iter().map(|r| r.wall).sum();
        let settled = converged(so_far) && best_ran_alone(so_far);
        !settled && n < self.max && spent < self.budget
    }

    /// The same plan with `parts` of `whole` shares of the budget.
    pub(crate) fn share(self, parts: u32, whole: u32) -> Self {
        Self {
            budget: self.budget * parts / whole.max(1),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of 1 unit of work at these rates, each with full CPU.
    pub(crate) fn series(rates: &[f64]) -> Series {
        let rounds = rates
            .iter()
            .map(|r| Round {
                wall: Duration::from_secs_f64(1.0 / r),
                cpu_pct: Some(99.9),
            })
            .collect();
        Series::new("test", 1.0, rounds)
    }

    #[test]
    fn the_best_three_set_convergence_and_the_median_does_not() {
        // Noisy but idle: the median 30% below, the best three within 1%.
        let s = series(&[100.0, 70.0, 99.5, 60.0, 99.0, 70.0, 65.0]);
        assert!((s.best() - 100.0).abs() < 1e-4);
        assert!((s.median() - 70.0).abs() < 1e-4);
        assert!((s.median_spread_pct() - 30.0).abs() < 1e-4);
        assert!((s.best_spread_pct().unwrap() - 1.0).abs() < 1e-4);
        assert!(s.converged());
        // Never converging: the best three spread 10%.
        let s = series(&[100.0, 95.0, 90.0, 85.0]);
        assert!(!s.converged());
        assert!((s.best_spread_pct().unwrap() - 10.0).abs() < 1e-4, "{s:?}");
        assert_eq!(series(&[100.0, 100.0]).best_spread_pct(), None);
        assert_eq!(series(&[]).best(), 0.0);
    }

    #[test]
    fn a_probe_repeats_until_settled_or_out_of_time() {
        let plan = Plan {
            min: 3,
            max: 10,
            budget: Duration::from_millis(100),
        };
        // Rates of 100/s and so on: rounds of 10 ms each.
        let settled = series(&[100.0, 99.0, 99.5]);
        assert!(plan.more(&series(&[100.0, 100.0]).rounds), "below min");
        assert!(!plan.more(&settled.rounds));
        let apart = series(&[100.0, 90.0, 80.0]);
        assert!(plan.more(&apart.rounds));
        // Out of time: nine rounds of 10 to 14 ms, 110 ms in all.
        let slow = series(&[100.0, 90.0, 80.0, 100.0, 90.0, 80.0, 70.0, 70.0, 70.0]);
        assert!(plan.more(&slow.rounds[..8]));
        assert!(!plan.more(&slow.rounds));
        // Rounds that outlast the budget at once stop at the fewest.
        assert!(!plan.more(&series(&[1.0, 2.0, 3.0]).rounds));
        assert_eq!(plan.share(2, 5).budget, Duration::from_millis(40));
        // Out of repetitions: fast rounds, never converging.
        let many: Vec<f64> = (0..10).map(|i| 1e6 * (1.0 + 0.1 * f64::from(i))).collect();
        assert!(!plan.more(&series(&many).rounds));
        assert!(plan.more(&series(&many[..9]).rounds));
        // Converged, but the best lost a tenth of its CPU: repeat.
        let mut stolen = settled.clone();
        for r in &mut stolen.rounds {
            r.cpu_pct = Some(90.0);
        }
        assert!(!stolen.best_ran_alone());
        assert!(plan.more(&stolen.rounds));
    }
}
