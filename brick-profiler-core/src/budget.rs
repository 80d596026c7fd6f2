//! Performance budgets a test checks against a run: a brick's p90 latency,
//! its allocations per call, its efficiency (achieved FLOP/s over the
//! hardware's dense peak). [`Budget::check`] names every budget broken
//! with its numbers; a budget that cannot be checked (the brick never ran,
//! no memory tracking, no FLOP count or no peak) fails too, saying why: a
//! budget never passes on no data.
//!
//! ```
//! use std::time::Duration;
//! use profiler_core::budget::Budget;
//!
//! let profile = profiler_core::Profile::empty();
//! let budget = Budget::new().p90("Attention", Duration::from_micros(250));
//! let err = budget.check(&profile).unwrap_err();
//! assert!(err.to_string().contains("`Attention` has no calls in the run"));
//! ```

use std::fmt;
use std::time::Duration;

use crate::hardware::Precision;
use crate::profile::Profile;

/// One limit on one brick.
#[derive(Debug, Clone, PartialEq)]
enum Limit {
    /// 90th-percentile latency at most this.
    P90(Duration),
    /// Allocations per call at most this (every memory kind).
    AllocationsPerCall(f64),
    /// Achieved FLOP/s over the dense peak at least this.
    Efficiency(f64),
}

/// Budgets for the bricks of a run, checked by [`Budget::check`] or
/// [`Budget::assert_met`] (in a `#[test]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Budget {
    limits: Vec<(String, Limit)>,
}

/// A budget broken, or one that could not be checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Breach {
    /// The measured value is beyond the limit.
    Exceeded {
        /// Brick name.
        brick: String,
        /// What was measured: `p90`, `allocations per call`, `efficiency`.
        what: &'static str,
        /// The measured value, in words with its unit.
        measured: String,
        /// The limit, in words with its unit.
        limit: String,
    },
    /// The budget cannot be checked against this run.
    Unchecked {
        /// Brick name.
        brick: String,
        /// What was to be checked.
        what: &'static str,
        /// Why not.
        why: String,
    },
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exceeded {
                brick,
                what,
                measured,
                limit,
            } => write!(f, "`{brick}` {what} {measured}, budget {limit}"),
            Self::Unchecked { brick, what, why } => {
                write!(f, "`{brick}` {what} cannot be checked: {why}")
            }
        }
    }
}

/// The budgets a run broke or could not be checked against.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} budget(s) not met:\n  {}", .0.len(), list(.0))]
pub struct BudgetError(pub Vec<Breach>);

fn list(breaches: &[Breach]) -> String {
    breaches
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n  ")
}

impl Budget {
    /// No budgets yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `brick`'s 90th-percentile call takes at most `limit` (estimated from
    /// its latency histogram, within 3.1%).
    #[must_use]
    pub fn p90(mut self, brick: &str, limit: Duration) -> Self {
        self.limits.push((brick.to_owned(), Limit::P90(limit)));
        self
    }

    /// `brick` allocates at most `limit` times per call, every memory kind
    /// together (needs memory tracking).
    #[must_use]
    pub fn allocations_per_call(mut self, brick: &str, limit: f64) -> Self {
        self.limits
            .push((brick.to_owned(), Limit::AllocationsPerCall(limit)));
        self
    }

    /// `brick` reaches at least `fraction` of the run's hardware peak
    /// FLOP/s: the dense peak (BF16, else FP16), else FP32 (needs the
    /// brick's FLOP count and the run's hardware).
    #[must_use]
    pub fn efficiency(mut self, brick: &str, fraction: f64) -> Self {
        self.limits
            .push((brick.to_owned(), Limit::Efficiency(fraction)));
        self
    }

    /// Checks every budget against `profile`.
    ///
    /// # Errors
    /// [`BudgetError`] listing each budget broken, or not checkable, with
    /// its numbers.
    pub fn check(&self, profile: &Profile) -> Result<(), BudgetError> {
        let breaches: Vec<Breach> = self
            .limits
            .iter()
            .filter_map(|(brick, limit)| check_one(profile, brick, limit))
            .collect();
        if breaches.is_empty() {
            Ok(())
        } else {
            Err(BudgetError(breaches))
        }
    }

    /// Panics with every budget broken and its numbers: for `#[test]`s.
    ///
    /// # Panics
    /// When [`Budget::check`] fails.
    #[track_caller]
    pub fn assert_met(&self, profile: &Profile) {
        if let Err(e) = self.check(profile) {
            panic!("{e}");
        }
    }
}

fn check_one(profile: &Profile, brick: &str, limit: &Limit) -> Option<Breach> {
    let what = match limit {
        Limit::P90(_) => "p90",
        Limit::AllocationsPerCall(_) => "allocations per call",
        Limit::Efficiency(_) => "efficiency",
    };
    let unchecked = |why: String| {
        Some(Breach::Unchecked {
            brick: brick.to_owned(),
            what,
            why,
        })
    };
    let exceeded = |measured: String, limit: String| {
        Some(Breach::Exceeded {
            brick: brick.to_owned(),
            what,
            measured,
            limit,
        })
    };
    let Some(stats) = profile
        .bricks
        .iter()
        .find(|b| b.name == brick && b.count > 0)
    else {
        return unchecked(format!("`{brick}` has no calls in the run"));
    };
    match *limit {
        Limit::P90(max) => {
            let p90 = Duration::from_nanos(stats.percentile_ns(0.90));
            (p90 > max).then_some(())?;
            exceeded(
                format!(
                    "{p90:?} over {} calls (histogram estimate, within 3.1%)",
                    stats.count
                ),
                format!("{max:?}"),
            )
        }
        Limit::AllocationsPerCall(max) => {
            let Some(memory) = profile.memory.as_ref() else {
                return unchecked("the run did not track memory".to_owned());
            };
            let rows: Vec<_> = memory.bricks.iter().filter(|m| m.name == brick).collect();
            let calls = rows.iter().map(|m| m.calls).max().unwrap_or(0);
            if calls == 0 {
                return unchecked("no memory was charged to it".to_owned());
            }
            let allocations: u64 = rows.iter().map(|m| m.allocations).sum();
            let per_call = allocations as f64 / calls as f64;
            (per_call > max).then_some(())?;
            exceeded(
                format!("{per_call:.2} ({allocations} allocations over {calls} calls)"),
                format!("{max}"),
            )
        }
        Limit::Efficiency(min) => {
            if stats.total_flops == 0 || stats.total_ns == 0 {
                return unchecked("no FLOP count or no time recorded for it".to_owned());
            }
            // The dense peak MFU uses (BF16, else FP16), else FP32 on
            // hardware without one (a CPU).
            let Some(peak) = profile
                .run
                .hardware
                .as_ref()
                .and_then(|h| h.dense_peak().or_else(|| h.compute(Precision::Fp32)))
                .map(|f| f.value)
                .filter(|p| p.is_finite() && *p > 0.0)
            else {
                return unchecked("the run records no hardware peak".to_owned());
            };
            let achieved = stats.total_flops as f64 / stats.total_ns as f64 * 1e9;
            let efficiency = achieved / (peak * 1e12);
            (efficiency < min).then_some(())?;
            exceeded(
                format!(
                    "{:.1}% ({:.3} TFLOP/s of a {peak:.3} TFLOP/s peak)",
                    efficiency * 100.0,
                    achieved / 1e12
                ),
                format!("at least {:.1}%", min * 100.0),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{BrickMemory, MemoryKind, MemoryProfile};
    use crate::stats::{HistBucket, LatencyHistogram};
    use crate::{BrickCategory, BrickStats};

    fn profile() -> Profile {
        let mut p = Profile::empty();
        let mut b = BrickStats::new("Gemm", BrickCategory::Other);
        b.count = 10;
        b.total_ns = 1_000_000;
        b.total_flops = 1_000_000_000;
        b.min_ns = 90_000;
        b.max_ns = 120_000;
        b.latency = LatencyHistogram {
            buckets: vec![HistBucket {
                lo_ns: 90_000,
                hi_ns: 120_001,
                count: 10,
            }],
        };
        p.bricks = vec![b];
        p.memory = Some(MemoryProfile {
            bricks: vec![BrickMemory {
                name: "Gemm".to_owned(),
                kind: MemoryKind::Host,
                calls: 10,
                allocated_bytes: 4096,
                allocations: 30,
                freed_bytes: 4096,
                peak_bytes: 4096,
                retained_bytes: 0,
                self_allocated_bytes: 4096,
                self_allocations: 30,
                self_freed_bytes: 4096,
            }],
            ..MemoryProfile::default()
        });
        p
    }

    #[test]
    fn budgets_met_pass_and_broken_ones_name_their_numbers() {
        let p = profile();
        Budget::new()
            .p90("Gemm", Duration::from_micros(130))
            .allocations_per_call("Gemm", 3.0)
            .assert_met(&p);
        let err = Budget::new()
            .p90("Gemm", Duration::from_micros(50))
            .allocations_per_call("Gemm", 2.0)
            .check(&p)
            .unwrap_err();
        assert_eq!(err.0.len(), 2, "{err}");
        let text = err.to_string();
        assert!(text.starts_with("2 budget(s) not met:"), "{text}");
        assert!(text.contains("`Gemm` p90 "), "{text}");
        assert!(text.contains("budget 50µs"), "{text}");
        assert!(
            text.contains(
                "`Gemm` allocations per call 3.00 (30 allocations over 10 calls), budget 2"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_budget_without_data_fails_saying_why() {
        let mut p = profile();
        let err = Budget::new().efficiency("Gemm", 0.5).check(&p).unwrap_err();
        assert!(
            err.to_string().contains("records no hardware peak"),
            "{err}"
        );
        p.memory = None;
        let err = Budget::new()
            .allocations_per_call("Gemm", 9.0)
            .check(&p)
            .unwrap_err();
        assert!(err.to_string().contains("did not track memory"), "{err}");
        let err = Budget::new()
            .p90("Softmax", Duration::from_secs(1))
            .check(&p)
            .unwrap_err();
        assert!(err.to_string().contains("`Softmax` has no calls"), "{err}");
    }

    #[test]
    fn efficiency_is_achieved_flops_over_the_peak() {
        use crate::hardware::{Figure, Hardware, Source};
        let mut p = profile();
        let mut hw = Hardware::new("cpu");
        // 1 GFLOP in 1 ms: 1 TFLOP/s achieved, of a 4 TFLOP/s FP32 peak.
        hw.set_compute(Precision::Fp32, Figure::new(4.0, Source::Given))
            .unwrap();
        p.run.hardware = Some(hw);
        Budget::new().efficiency("Gemm", 0.25).assert_met(&p);
        let err = Budget::new()
            .efficiency("Gemm", 0.30)
            .check(&p)
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("`Gemm` efficiency 25.0% (1.000 TFLOP/s of a 4.000 TFLOP/s peak), budget at least 30.0%"),
            "{err}"
        );
    }

    #[test]
    #[should_panic(expected = "1 budget(s) not met")]
    fn assert_met_panics_with_the_numbers() {
        Budget::new()
            .p90("Gemm", Duration::from_micros(1))
            .assert_met(&profile());
    }
}
