//! The Markdown form of a [`ContractReport`]: a heading with the counts and
//! a table of every test, then what failed and the contract's advice.

use std::fmt::Write as _;

use super::report::ContractReport;
use crate::base::escape;

impl ContractReport {
    /// Markdown: `## Contract name vX: PASSED|FAILED`, a table with each
    /// test's verdict and measurement, then the failures with their rule and
    /// advice.
    #[must_use]
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "## Contract {} v{}: {}\n\n",
            escape::markdown(&self.contract),
            escape::markdown(&self.version),
            if self.passed() { "PASSED" } else { "FAILED" }
        );
        s.push_str(&format!("{}.\n\n", escape::markdown(&self.coverage())));
        s.push_str("| Test | Verdict | Check | Measured |\n|---|---|---|---|\n");
        for r in &self.results {
            let measured = r
                .measurement
                .as_ref()
                .map_or_else(|| r.detail.clone(), ToString::to_string);
            let verdict = if r.verdict.is_ok() {
                r.verdict.label().to_owned()
            } else {
                format!("**{}**", r.verdict.label())
            };
            let _ = writeln!(
                s,
                "| {} | {verdict} | {} | {} |",
                escape::markdown(&r.id),
                escape::markdown(&r.test),
                escape::markdown(&measured)
            );
        }
        let failures: Vec<_> = self.failures().collect();
        if !failures.is_empty() {
            s.push_str("\n### Not passed\n\n");
            for r in failures {
                let _ = writeln!(
                    s,
                    "- {} ({}): {}. If it fails: {}",
                    escape::markdown(&r.id),
                    r.verdict.label(),
                    escape::markdown(&r.rule),
                    escape::markdown(&r.if_fails)
                );
                if !r.detail.is_empty() {
                    let _ = writeln!(s, "  {}", escape::markdown(&r.detail));
                }
            }
        }
        s
    }
}
