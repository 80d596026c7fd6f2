//! Nsight Systems' CUDA kernel summary (`nsys stats --report
//! cuda_gpu_kern_sum`, the "CUDA Kernel Statistics" of `--stats=true`) as
//! an [`NsysReport`]: per kernel its total time, instances, average, median,
//! extremes and standard deviation, checked for consistency; and the
//! format ([`NsysStatsFormat`]) that tells it from its first bytes.

use std::path::Path;

use super::nsys_rows::Layout;
use super::nsys_table::{RawTable, find_tables, none_found};
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::Head;
use crate::model::nsight::NsysReport;
use crate::model::nsight::{ImportError, read_text};

/// Reads `nsys stats` output from `path`.
///
/// # Errors
/// As [`parse_nsys_stats`], plus [`ImportError::Read`] and
/// [`ImportError::NotText`].
pub fn read_nsys_stats(path: impl AsRef<Path>) -> Result<NsysReport, ImportError> {
    let path = path.as_ref();
    let hint = "a binary .nsys-rep or .sqlite report? summarise it with \
                `nsys stats --report cuda_gpu_kern_sum --format csv FILE`";
    parse_nsys_stats(&read_text(path, hint)?, &path.display().to_string())
}

/// Parses `nsys stats` output holding the CUDA kernel summary: the text
/// table, the boxed table or CSV, alone or among other reports.
///
/// # Errors
/// [`ImportError::NotRecognised`] without the summary's header;
/// [`ImportError::NoKernels`] when the report has no kernel data;
/// [`ImportError::Malformed`] naming the line and field of a row that is
/// truncated, not numeric, or inconsistent (min above max, a total that is
/// not average x instances).
///
/// Output holding several kernel summaries (a console capture of several
/// `nsys profile --stats=true` runs) is refused with
/// [`ImportError::SeveralReports`] naming each; read them all with
/// [`parse_nsys_stats_all`] or one with [`parse_nsys_report`].
pub fn parse_nsys_stats(text: &str, origin: &str) -> Result<NsysReport, ImportError> {
    let mut all = parse_nsys_stats_all(text, origin)?;
    if all.len() > 1 {
        return Err(ImportError::SeveralReports {
            origin: origin.to_owned(),
            reports: all.iter().map(NsysReport::describe).collect(),
        });
    }
    Ok(all.remove(0))
}

/// The `n`-th (1-based) kernel summary of output that holds several (or
/// one: then `n` must be 1).
///
/// # Errors
/// As [`parse_nsys_stats_all`]; [`ImportError::InvalidOption`] (the option
/// named `kernel summary #n`) when there is no `n`-th summary.
pub fn parse_nsys_report(text: &str, origin: &str, n: usize) -> Result<NsysReport, ImportError> {
    let mut all = parse_nsys_stats_all(text, origin)?;
    if n == 0 || n > all.len() {
        return Err(ImportError::InvalidOption {
            option: format!("kernel summary #{n}"),
            reason: format!(
                "`{origin}` holds {} kernel summar{} (numbered from 1): {}",
                all.len(),
                if all.len() == 1 { "y" } else { "ies" },
                all.iter()
                    .map(NsysReport::describe)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        });
    }
    Ok(all.swap_remove(n - 1))
}

/// Every kernel summary of `nsys stats` output, in file order: one per run
/// of a console capture of several runs. Tables of other reports that share
/// the summary's first columns (NVTX ranges, OS runtime, CUDA API, the
/// grid/block summary) are passed over.
///
/// # Errors
/// As [`parse_nsys_stats`], except that several summaries are no error.
pub fn parse_nsys_stats_all(text: &str, origin: &str) -> Result<Vec<NsysReport>, ImportError> {
    let found = find_tables(text, origin)?;
    if found.tables.is_empty() {
        return Err(none_found(&found, origin));
    }
    found
        .tables
        .into_iter()
        .map(|t| report_of(t, origin))
        .collect()
}

impl NsysReport {
    /// Where the summary sits, for listings: line, run and kernel count.
    fn describe(&self) -> String {
        let run = self
            .run
            .as_deref()
            .map_or_else(String::new, |r| format!(" of `{r}`"));
        format!(
            "line {}{run} ({} kernel{})",
            self.header_line,
            self.kernels.len(),
            if self.kernels.len() == 1 { "" } else { "s" }
        )
    }
}

/// One kernel summary table as a report.
fn report_of(table: RawTable, origin: &str) -> Result<NsysReport, ImportError> {
    let layout = Layout::of(&table, origin)?;
    let mut notes: Vec<String> = layout.unitless_note().into_iter().collect();
    let kernels = table
        .rows
        .iter()
        .map(|(line, cells)| layout.kernel(*line, cells, origin))
        .collect::<Result<Vec<_>, _>>()?;
    if kernels.is_empty() {
        return Err(ImportError::NoKernels {
            origin: origin.to_owned(),
            reason: format!("the summary at line {} has no rows", table.header_line),
        });
    }
    let cut = kernels.iter().filter(|k| k.truncated).count();
    if cut > 0 {
        notes.push(format!(
            "{cut} kernel name(s) were cut short by nsys (ending in …): kernels that differ only \
             after the cut are listed separately but cannot be told apart by name; \
             `--format csv` keeps full names"
        ));
    }
    Ok(NsysReport {
        origin: origin.to_owned(),
        form: table.form,
        run: table.run.clone(),
        header_line: table.header_line,
        kernels,
        notes,
    })
}

/// An `nsys stats` kernel summary.
#[derive(Debug)]
pub struct NsysStatsFormat;

impl Format for NsysStatsFormat {
    fn name(&self) -> &'static str {
        "nsys-stats"
    }

    fn what(&self) -> &'static str {
        "an Nsight Systems summary"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        let Some(text) = head.text() else {
            return false;
        };
        (head.json_root().is_none() || starts_with_progress(&text))
            && text.contains("Total Time")
            && text.contains("Instances")
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        Ok(Input::Nsys(parse_nsys_stats(&text, origin)?))
    }
}

/// Whether text starts with a progress line of `nsys profile --stats=true`
/// (`[3/8] Executing 'nvtx_sum' stats report`, `[1/8] [====...`): the `[`
/// that opens a JSON array, followed by `digits/digits]`, which no JSON
/// document holds.
fn starts_with_progress(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('[') else {
        return false;
    };
    let Some((step, rest)) = rest.split_once('/') else {
        return false;
    };
    let Some((steps, _)) = rest.split_once(']') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(step) && digits(steps)
}

#[cfg(test)]
mod tests {
    use super::starts_with_progress;

    #[test]
    fn progress_lines_are_told_from_json_arrays() {
        assert!(starts_with_progress(
            "[3/8] Executing 'nvtx_sum' stats report"
        ));
        assert!(starts_with_progress("[1/8] [====100%] a.nsys-rep"));
        assert!(!starts_with_progress("[3, 8]"));
        assert!(!starts_with_progress("[{\"ph\": \"X\"}]"));
        assert!(!starts_with_progress("[/8]"));
        assert!(!starts_with_progress("Executing [3/8]"));
    }
}
