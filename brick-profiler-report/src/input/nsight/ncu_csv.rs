//! Reading `ncu --csv` output: the default details page (one row per
//! metric: `"ID",...,"Section Name","Metric Name","Metric Unit","Metric
//! Value"`) and the raw page (`--page raw`: one row per kernel, one column
//! per metric, then a row of units), told apart by the header. Lines of the
//! tool and the profiled program around the table are skipped.

use std::path::Path;

use super::ncu_pages::{Columns, details, raw};
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::Head;
use crate::model::nsight::{ImportError, read_text};
use crate::model::nsight::{NCU_FORMAT as FORMAT, NcuLayout, NcuReport};

const BINARY_HINT: &str =
    "a binary .ncu-rep report? export it with `ncu --import FILE --csv > FILE.csv`";

/// Reads an `ncu --csv` export from `path`.
///
/// # Errors
/// As [`parse_ncu_csv`], plus [`ImportError::Read`] and
/// [`ImportError::NotText`].
pub fn read_ncu_csv(path: impl AsRef<Path>) -> Result<NcuReport, ImportError> {
    let path = path.as_ref();
    parse_ncu_csv(&read_text(path, BINARY_HINT)?, &path.display().to_string())
}

/// Whether `ncu` output reports that the GPU counters are restricted: a
/// tool line `==ERROR== ERR_NVGPUCTRPERM ...`. A file that merely mentions
/// the code (documentation, a log) is not such output.
#[must_use]
pub fn reports_counters_restricted(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("==ERROR==") && l.contains("ERR_NVGPUCTRPERM")
    })
}

/// The first `==ERROR==` line of `ncu` output: its 1-based line and text.
#[must_use]
pub fn first_tool_error(text: &str) -> Option<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .find(|(_, l)| l.starts_with("==ERROR=="))
}

/// Parses `ncu --csv` output. Lines before the header row (the profiled
/// program's output) and `==PROF==`/`==WARNING==` lines anywhere are
/// skipped; warnings become notes.
///
/// # Errors
/// [`ImportError::CountersRestricted`] when the output reports
/// `ERR_NVGPUCTRPERM` and holds no data; [`ImportError::NotRecognised`]
/// without a header row starting with `"ID"` (or without metric columns);
/// [`ImportError::Malformed`] naming the line of a row with the wrong number
/// of fields (a truncated file) or without an `ID`;
/// [`ImportError::NoKernels`] for a header without rows.
pub fn parse_ncu_csv(text: &str, origin: &str) -> Result<NcuReport, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let tool_messages: Vec<String> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| l.starts_with("==WARNING==") || l.starts_with("==ERROR=="))
        .map(str::to_owned)
        .collect();
    let restricted = reports_counters_restricted(text);
    let Some(header_at) = lines.iter().position(|l| is_header(l)) else {
        return Err(no_header(text, &lines, restricted, origin));
    };
    let rows = table_rows(&lines, header_at, origin)?;
    let Some((_, header)) = rows.first().cloned() else {
        return Err(ImportError::malformed(
            origin,
            header_at + 1,
            "unreadable header row",
        ));
    };
    let columns = Columns::new(&header);
    let data = &rows[1..];
    check_widths(&columns, &header, data, origin)?;
    let (layout, kernels) = if columns.is_details() {
        (NcuLayout::Details, details(&columns, data, origin)?)
    } else {
        (NcuLayout::Raw, raw(&columns, &header, data, origin)?)
    };
    if kernels.is_empty() {
        return Err(no_kernels(restricted, &tool_messages, origin));
    }
    Ok(NcuReport {
        origin: origin.to_owned(),
        layout,
        kernels,
        notes: tool_messages,
    })
}

/// Why output without a header row holds no table: the counters were
/// restricted, the capture failed, or it holds something else.
fn no_header(text: &str, lines: &[&str], restricted: bool, origin: &str) -> ImportError {
    if restricted {
        return ImportError::CountersRestricted {
            origin: origin.to_owned(),
        };
    }
    if let Some((line, message)) = first_tool_error(text) {
        return ImportError::CaptureFailed {
            origin: origin.to_owned(),
            line,
            message: message.to_owned(),
        };
    }
    without_table(lines, origin)
}

/// The table's rows from the header on, each with its 1-based line in the
/// file, without the tool's own lines.
fn table_rows(
    lines: &[&str],
    header_at: usize,
    origin: &str,
) -> Result<Vec<(usize, Vec<String>)>, ImportError> {
    // `origin_line` maps a line of the table's text back to the file.
    let mut table = String::new();
    let mut origin_line = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(header_at) {
        // Exports concatenated with `cat` carry each file's byte-order mark
        // at the start of a line, and repeat the header row: neither is data.
        let line = line.trim_start_matches('\u{feff}');
        if line.trim_start().starts_with("==") || (i > header_at && is_header(line)) {
            continue;
        }
        table.push_str(line);
        table.push('\n');
        origin_line.push(i + 1);
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(table.as_bytes());
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e
                .position()
                .and_then(|p| origin_line.get(p.line() as usize - 1).copied())
                .unwrap_or(header_at + 1);
            ImportError::malformed(origin, line, e.to_string())
        })?;
        let at = record.position().map_or(1, |p| p.line() as usize);
        let line = origin_line.get(at - 1).copied().unwrap_or(at);
        rows.push((line, record.iter().map(str::to_owned).collect()));
    }
    Ok(rows)
}

/// Every data row has the header's width, less the details page's rule
/// columns after `Metric Value` (ncu 2025 writes them only on rule rows).
fn check_widths(
    columns: &Columns,
    header: &[String],
    data: &[(usize, Vec<String>)],
    origin: &str,
) -> Result<(), ImportError> {
    let needed = columns.required_width(header.len());
    for (line, fields) in data {
        if fields.len() < needed || fields.len() > header.len() {
            return Err(ImportError::malformed(
                origin,
                *line,
                format!(
                    "{} fields where the header has {} (a truncated or hand-edited file?)",
                    fields.len(),
                    header.len()
                ),
            ));
        }
    }
    Ok(())
}

/// Why a table with a header holds no kernel: the counters were
/// restricted, or what the tool said.
fn no_kernels(restricted: bool, tool_messages: &[String], origin: &str) -> ImportError {
    if restricted {
        return ImportError::CountersRestricted {
            origin: origin.to_owned(),
        };
    }
    let reason = match tool_messages.first() {
        Some(m) => format!("a header but no kernel rows; the tool reported `{m}`"),
        None => "a header but no kernel rows".to_owned(),
    };
    ImportError::NoKernels {
        origin: origin.to_owned(),
        reason,
    }
}

/// Why ncu output without a CSV header holds no table: the human-readable
/// output (no `--csv`), results saved to a report file, no kernel profiled
/// (only the tool's `==PROF==` lines), or not ncu output at all.
fn without_table(lines: &[&str], origin: &str) -> ImportError {
    let tool_line = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.trim_start().starts_with(prefix))
            .map(|i| (i + 1, lines[i].trim()))
    };
    let launches = lines
        .iter()
        .filter(|l| {
            l.trim_start()
                .starts_with("Section: GPU Speed Of Light Throughput")
        })
        .count();
    if launches > 0
        || lines
            .iter()
            .any(|l| l.trim_start().starts_with("Section: "))
    {
        return ImportError::NotCsv {
            origin: origin.to_owned(),
            launches,
        };
    }
    if let Some((line, text)) = tool_line("==PROF== Report:") {
        let report = text.trim_start_matches("==PROF== Report:").trim();
        return ImportError::SavedToReport {
            origin: origin.to_owned(),
            line,
            report: report.to_owned(),
        };
    }
    if tool_line("==PROF==").is_some() || tool_line("==WARNING==").is_some() {
        let profiled = lines
            .iter()
            .filter(|l| l.trim_start().starts_with("==PROF== Profiling "))
            .count();
        let warned = tool_line("==WARNING== No kernels were profiled")
            .map_or_else(String::new, |(line, _)| {
                format!(" (line {line}: `==WARNING== No kernels were profiled.`)")
            });
        let reason = if profiled > 0 {
            format!(
                "ncu profiled {profiled} launch(es) but printed none of their results here: \
                 rerun with `--csv` (`ncu --csv --page details ...`) and keep its standard output"
            )
        } else {
            format!(
                "no kernel was profiled{warned}: the output holds the tool's lines but no \
                 table. Usual causes: a filter (`--kernel-name`, `--kernel-id`, `--launch-skip`, \
                 `--launch-count`, `--nvtx-include`) matched no launch; the application launched \
                 no kernel (it failed first, or ran on the CPU); or its kernels ran in a child \
                 process (add `--target-processes all`)"
            )
        };
        return ImportError::NoKernels {
            origin: origin.to_owned(),
            reason,
        };
    }
    ImportError::NotRecognised {
        origin: origin.to_owned(),
        format: FORMAT,
        reason: "no header row starting with \"ID\"".to_owned(),
    }
}

fn is_header(line: &str) -> bool {
    let l = line.trim_start_matches('\u{feff}').trim_start();
    l.starts_with("\"ID\"") || l.starts_with("ID,") || l == "ID"
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_capture_shows_the_tools_error_line() {
        let text = "==PROF== Connected to process 42 (/usr/bin/python3)\n\
                    ==PROF== Profiling \"k\" - 0: 0%\n\
                    ==ERROR== An error was reported by the driver\n\
                    ==WARNING== No kernels were profiled.\n";
        let e = parse_ncu_csv(text, "cap.txt").unwrap_err();
        assert!(
            matches!(e, ImportError::CaptureFailed { line: 3, .. }),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("`==ERROR== An error was reported by the driver`"),
            "{msg}"
        );
        assert!(msg.starts_with("`cap.txt` line 3"), "{msg}");
    }

    #[test]
    fn a_capture_that_profiled_nothing_says_so_and_why() {
        let text = "==PROF== Connected to process 42 (/usr/bin/python3)\n\
                    hello\n\
                    ==PROF== Disconnected from process 42\n\
                    ==WARNING== No kernels were profiled.\n";
        let e = parse_ncu_csv(text, "cap.txt").unwrap_err();
        assert!(matches!(e, ImportError::NoKernels { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("no kernel was profiled (line 4:"), "{msg}");
        assert!(
            msg.contains("`--kernel-name`") && msg.contains("--target-processes all"),
            "{msg}"
        );
    }
}
