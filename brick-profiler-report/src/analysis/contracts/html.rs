//! The Contracts section of the HTML report: per contract its verdict and a
//! table of every test with the measurement and, for failures, the advice.

use std::fmt::Write as _;

use super::report::ContractReport;
use crate::base::escape;
use crate::base::section::Section;

/// The report section (id `contracts`) for `reports`.
#[must_use]
pub fn contracts_section(reports: &[ContractReport]) -> Section {
    let mut s = String::new();
    for r in reports {
        let _ = writeln!(
            s,
            "<h3>{} v{}: {}</h3>\n<p>{}</p>",
            escape::html(&r.contract),
            escape::html(&r.version),
            if r.passed() {
                "passed"
            } else {
                "<strong>not passed</strong>"
            },
            escape::html(&r.coverage())
        );
        s.push_str(
            "<table><thead><tr><th>Test</th><th>Verdict</th><th>Check</th><th>Measured</th></tr></thead><tbody>\n",
        );
        for t in &r.results {
            let measured = t
                .measurement
                .as_ref()
                .map_or_else(|| t.detail.clone(), ToString::to_string);
            let verdict = if t.verdict.is_ok() {
                t.verdict.label().to_owned()
            } else {
                format!("<strong>{}</strong>", t.verdict.label())
            };
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{verdict}</td><td><code>{}</code></td><td>{}</td></tr>",
                escape::html(&t.id),
                escape::html(&t.test),
                escape::html(&measured)
            );
        }
        s.push_str("</tbody></table>\n");
        let failures: Vec<_> = r.failures().collect();
        if !failures.is_empty() {
            s.push_str("<ul>\n");
            for t in failures {
                let _ = writeln!(
                    s,
                    "<li>{}: {}. If it fails: {}</li>",
                    escape::html(&t.id),
                    escape::html(&t.rule),
                    escape::html(&t.if_fails)
                );
            }
            s.push_str("</ul>\n");
        }
    }
    Section::new("contracts", "Contracts", s)
}
