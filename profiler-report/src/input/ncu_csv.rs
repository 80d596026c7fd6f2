//! Nsight Compute CSV exports (`ncu --csv`): a header row starting with
//! `"ID"` in the first bytes, the tool's counter-permission error, a
//! failed capture (`==PROF==` and `==ERROR==` lines), or ncu output without
//! a table (`==PROF==` lines only, the human-readable `Section:` pages),
//! which the reader refuses saying why; read by [`parse_ncu_csv`].

use super::error::InputError;
use super::format::{Format, Input, Source};
use super::nsight::{parse_ncu_csv, reports_counters_restricted};
use super::sniff::Head;

/// An `ncu --csv` export.
#[derive(Debug)]
pub struct NcuCsvFormat;

impl Format for NcuCsvFormat {
    fn name(&self) -> &'static str {
        "ncu-csv"
    }

    fn what(&self) -> &'static str {
        "an Nsight Compute CSV"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        let Some(text) = head.text() else {
            return false;
        };
        let header = |l: &str| {
            let l = l.trim_start_matches('\u{feff}').trim_start();
            l.starts_with("\"ID\"") || l.starts_with("ID,")
        };
        // A failed capture holds the tool's `==ERROR==` lines and no table,
        // after `==PROF==` lines or, when ncu refused its options, first:
        // read as this format so the error shows the line.
        let tool = |prefix: &str| text.lines().any(|l| l.trim_start().starts_with(prefix));
        let starts_with_error = text
            .lines()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with("==ERROR=="));
        let failed = tool("==ERROR==") && (tool("==PROF==") || starts_with_error);
        // Output without a table (the human-readable pages, a capture that
        // profiled nothing) is read as this format so the error says why.
        // A line that starts with `==PROF==` or `Section:` is never JSON, so
        // output that opens with `[` (a program's `[W ...]` line) is text.
        // A step log kept while ncu ran stays a step log.
        let no_table = (tool("==PROF==") || tool("Section: ")) && !text.contains("\"_profiler\"");
        (head.json_root().is_none() || failed || no_table)
            && (text.lines().any(header)
                || reports_counters_restricted(&text)
                || failed
                || no_table)
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        Ok(Input::Ncu(parse_ncu_csv(&text, origin)?))
    }
}
