//! The outcome of checking a profile against a contract: one
//! [`RuleResult`] per falsification test, gathered in a [`ContractReport`]
//! that prints as a readable failure message
//! (`assert!(report.passed(), "{report}")`).

use std::fmt;

use serde::Serialize;

use super::value::Value;

/// What a falsification test concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The check holds.
    Pass,
    /// The check does not hold: the profile falsifies the contract.
    Fail,
    /// The rule's `if` guard does not hold, so it does not apply.
    Skipped,
    /// The profile lacks what the check reads (e.g. a brick without
    /// samples); counts as not passed.
    Unmeasurable,
    /// The check names an unknown metric or mixes types; a contract error.
    Invalid,
    /// The input cannot carry what the check reads (latency histograms of an
    /// Nsight import): neither passed nor failed.
    NotApplicable,
    /// The test is prose (upstream contracts' `proptest with ...`): shown,
    /// never passed.
    NotMachineCheckable,
}

impl Verdict {
    /// Whether this verdict lets the contract pass (a contract passes only
    /// when at least one check was also made: see [`ContractReport::passed`]).
    #[must_use]
    pub const fn is_ok(self) -> bool {
        matches!(
            self,
            Self::Pass | Self::Skipped | Self::NotApplicable | Self::NotMachineCheckable
        )
    }

    /// Whether the check was made on the profile's data (passed or failed).
    #[must_use]
    pub const fn is_checked(self) -> bool {
        matches!(self, Self::Pass | Self::Fail)
    }

    /// Upper-case label for reports.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::Skipped => "SKIP",
            Self::Unmeasurable => "UNMEASURABLE",
            Self::Invalid => "INVALID",
            Self::NotApplicable => "N/A",
            Self::NotMachineCheckable => "PROSE",
        }
    }
}

/// The comparison behind a verdict: the measured side, the operator and the
/// bound it was held to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    /// The measured expression as written (`wall_coverage`).
    pub expr: String,
    /// Its value.
    pub measured: Value,
    /// The operator (`>=`).
    pub op: String,
    /// The bound's expression as written (`0.85`, `10 * brick(RmsNorm).avg_ns`).
    pub bound_expr: String,
    /// The bound's value.
    pub bound: Value,
    /// The quantified element the comparison was about (`b = RmsNorm`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
}

impl fmt::Display for Measurement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = &self.element {
            write!(f, "[{e}] ")?;
        }
        write!(f, "measured {} = {}", self.expr, self.measured)?;
        if self.bound_expr == self.bound.to_string() {
            write!(f, ", bound {} {}", self.op, self.bound)
        } else {
            write!(
                f,
                ", bound {} {} = {}",
                self.op, self.bound_expr, self.bound
            )
        }
    }
}

/// The verdict of one falsification test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleResult {
    /// The test's id (`GDP-001`).
    pub id: String,
    /// The rule in words.
    pub rule: String,
    /// The check as written.
    pub test: String,
    /// What it concluded.
    pub verdict: Verdict,
    /// The deciding comparison, when there is one.
    pub measurement: Option<Measurement>,
    /// Why (skipped guard, missing data, unknown metric), or extra context.
    pub detail: String,
    /// The contract's advice when the check fails.
    pub if_fails: String,
}

/// The verdicts of every falsification test of one contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractReport {
    /// The contract's name.
    pub contract: String,
    /// Its version.
    pub version: String,
    /// One result per falsification test, in file order.
    pub results: Vec<RuleResult>,
}

impl ContractReport {
    /// Whether no test failed, was unmeasurable or invalid (skipped, not
    /// applicable and prose tests do not fail), and at least one test was
    /// checked: a run that checked nothing is no verdict.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.verdict.is_ok()) && self.checked() > 0
    }

    /// Number of tests checked on the profile's data (passed or failed).
    #[must_use]
    pub fn checked(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.verdict.is_checked())
            .count()
    }

    /// What the verdict was computed over: `checked 3 of 5 rules, 1 not
    /// applicable, 1 not machine-checkable`, or that nothing was checked.
    #[must_use]
    pub fn coverage(&self) -> String {
        let mut s = if self.checked() == 0 {
            format!(
                "no verdict: none of {} rules was checked",
                self.results.len()
            )
        } else {
            format!("checked {} of {} rules", self.checked(), self.results.len())
        };
        for (v, what) in [
            (Verdict::Skipped, "skipped by their guard"),
            (Verdict::NotApplicable, "not applicable to this input"),
            (Verdict::NotMachineCheckable, "not machine-checkable"),
        ] {
            let n = self.count(v);
            if n > 0 {
                s.push_str(&format!(", {n} {what}"));
            }
        }
        s
    }

    /// The result of test `id`.
    #[must_use]
    pub fn result(&self, id: &str) -> Option<&RuleResult> {
        self.results.iter().find(|r| r.id == id)
    }

    /// Results that keep the contract from passing.
    pub fn failures(&self) -> impl Iterator<Item = &RuleResult> {
        self.results.iter().filter(|r| !r.verdict.is_ok())
    }

    /// Number of results with `verdict`.
    #[must_use]
    pub fn count(&self, verdict: Verdict) -> usize {
        self.results.iter().filter(|r| r.verdict == verdict).count()
    }

    /// The report as pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl fmt::Display for ContractReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bad = self.results.iter().filter(|r| !r.verdict.is_ok()).count();
        writeln!(
            f,
            "contract {} v{}: {} passed, {} skipped, {} not passed ({})",
            self.contract,
            self.version,
            self.count(Verdict::Pass),
            self.count(Verdict::Skipped),
            bad,
            self.coverage()
        )?;
        for r in &self.results {
            write!(f, "  {:<4} {}  {}", r.verdict.label(), r.id, r.test)?;
            if let Some(m) = &r.measurement {
                write!(f, "\n         {m}")?;
            }
            if !r.detail.is_empty() {
                write!(f, "\n         {}", r.detail)?;
            }
            if !r.verdict.is_ok() {
                write!(f, "\n         rule: {}", r.rule)?;
                write!(f, "\n         if it fails: {}", r.if_fails)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
