//! Finding the CUDA kernel summary in `nsys stats` output and splitting it
//! into cells: the column-aligned text table (columns from its dashed
//! rule), the boxed table (`| ... |`), and CSV (`--format csv`). The name
//! is the last column and may hold spaces, commas and `|`.

use super::nsys_sections::{KERNEL_REPORTS, banner, kernel_columns, run_name};
use crate::model::nsight::{ImportError, NsysForm};

/// A table split into cells.
#[derive(Debug)]
pub(crate) struct RawTable {
    pub(crate) form: NsysForm,
    pub(crate) header: Vec<String>,
    pub(crate) header_line: usize,
    /// (1-based line, cells) per data row.
    pub(crate) rows: Vec<(usize, Vec<String>)>,
    /// The run the table belongs to (its report file), when the output names it.
    pub(crate) run: Option<String>,
    /// Index of the first line after the table.
    pub(crate) end: usize,
}

pub(crate) const FORMAT: &str =
    "an Nsight Systems CUDA kernel summary (`nsys stats --report cuda_gpu_kern_sum`)";

fn is_header(line: &str) -> bool {
    line.contains("Total Time") && line.contains("Instances") && line.contains("Name")
}

fn is_rule(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.chars().all(|c| c == '-' || c == ' ')
}

/// What a scan of the output found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Every kernel summary, in file order.
    pub(crate) tables: Vec<RawTable>,
    /// Kernel summaries the tool skipped, with its message and line.
    pub(crate) skipped: Vec<(usize, String)>,
}

/// Finds every kernel summary table of the output (one per run of a
/// console capture of several `nsys profile --stats=true` runs) and splits
/// each into cells; tables of other reports are passed over.
pub(crate) fn find_tables(text: &str, origin: &str) -> Result<Found, ImportError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Found::default();
    let (mut report, mut run): (Option<String>, Option<String>) = (None, None);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.contains("Generating '") && line.contains(".qdstrm") {
            run = None;
        }
        if let Some(name) = run_name(line) {
            run = Some(name);
        }
        if let Some(id) = banner(line) {
            report = Some(id);
        }
        let kernel_report = report
            .as_deref()
            .is_some_and(|r| KERNEL_REPORTS.iter().any(|k| r.contains(k)));
        if (kernel_report && line.contains("SKIPPED:"))
            || line.contains("does not contain CUDA kernel data")
        {
            found.skipped.push((i + 1, line.trim().to_owned()));
            report = None;
        }
        let other_report = report.is_some() && !kernel_report;
        if is_header(line) && !other_report && kernel_columns(line) {
            let mut table = parse_at(&lines, i, origin)?;
            table.run.clone_from(&run);
            i = table.end.max(i + 1);
            found.tables.push(table);
            report = None;
            continue;
        }
        i += 1;
    }
    Ok(found)
}

/// The error of output without a kernel summary.
pub(crate) fn none_found(found: &Found, origin: &str) -> ImportError {
    match found.skipped.first() {
        Some((line, why)) => ImportError::NoKernels {
            origin: origin.to_owned(),
            reason: format!("line {line}: the report says `{why}`"),
        },
        None => ImportError::NotRecognised {
            origin: origin.to_owned(),
            format: FORMAT,
            reason: "no header with `Total Time`, `Instances` and `Name` columns".to_owned(),
        },
    }
}

fn parse_at(lines: &[&str], h: usize, origin: &str) -> Result<RawTable, ImportError> {
    let header = lines[h];
    let next = lines.get(h + 1).copied().unwrap_or("");
    if header.trim_start().starts_with('|') {
        Ok(boxed(lines, h))
    } else if is_rule(next) {
        table(lines, h, origin)
    } else if header.contains(',') {
        csv_rows(lines, h, origin)
    } else {
        Err(ImportError::malformed(
            origin,
            h + 2,
            "the header is neither CSV nor followed by the dashed rule of a text table",
        ))
    }
}

/// The end of a table: a blank line, the next report's banner, or the
/// fence of a Markdown code block the output was pasted into.
fn ends_table(line: &str) -> bool {
    let t = line.trim();
    t.is_empty()
        || t.starts_with("Processing [")
        || t.starts_with("** ")
        || t.starts_with("```")
        || t.starts_with("~~~")
}

fn table(lines: &[&str], h: usize, origin: &str) -> Result<RawTable, ImportError> {
    let header_text = lines[h];
    let rule = lines[h + 1];
    // Column extents from the runs of dashes.
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in rule
        .char_indices()
        .chain(std::iter::once((rule.len(), ' ')))
    {
        match (c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let header: Vec<String> = spans
        .iter()
        .enumerate()
        .map(|(k, &(s, e))| {
            // The last column's title may run past its rule.
            let e = if k + 1 == spans.len() {
                header_text.len()
            } else {
                e
            };
            header_text
                .get(s.min(header_text.len())..e.min(header_text.len()))
                .unwrap_or("")
                .trim()
                .to_owned()
        })
        .collect();
    if header.iter().any(String::is_empty) || header.last().map(String::as_str) != Some("Name") {
        return Err(ImportError::malformed(
            origin,
            h + 1,
            "header columns do not line up with the dashed rule below them, or `Name` is not last",
        ));
    }
    let n = header.len();
    let mut rows = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(h + 2) {
        if ends_table(line) {
            end = i;
            break;
        }
        // Numbers hold no spaces; the name (last) may.
        let mut cells = Vec::with_capacity(n);
        let mut rest = *line;
        for _ in 0..n - 1 {
            rest = rest.trim_start();
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            cells.push(rest[..end].to_owned());
            rest = &rest[end..];
        }
        let name = rest.trim();
        if name.is_empty() || cells.iter().any(String::is_empty) {
            return Err(ImportError::malformed(
                origin,
                i + 1,
                format!("fewer than the header's {n} columns (a truncated file?)"),
            ));
        }
        cells.push(name.to_owned());
        rows.push((i + 1, cells));
    }
    Ok(RawTable {
        form: NsysForm::Table,
        header,
        header_line: h + 1,
        rows,
        run: None,
        end,
    })
}

fn boxed(lines: &[&str], h: usize) -> RawTable {
    let split = |line: &str, n: Option<usize>| -> Vec<String> {
        let t = line.trim();
        let t = t.strip_prefix('|').unwrap_or(t);
        let t = t.strip_suffix('|').unwrap_or(t);
        match n {
            Some(n) => t.splitn(n, '|').map(|c| c.trim().to_owned()).collect(),
            None => t.split('|').map(|c| c.trim().to_owned()).collect(),
        }
    };
    let header = split(lines[h], None);
    let mut rows = Vec::new();
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(h + 1) {
        let t = line.trim();
        if t.starts_with('+') {
            continue;
        }
        if !t.starts_with('|') {
            end = i;
            break;
        }
        rows.push((i + 1, split(line, Some(header.len()))));
    }
    RawTable {
        form: NsysForm::Boxed,
        header,
        header_line: h + 1,
        rows,
        run: None,
        end,
    }
}

fn csv_rows(lines: &[&str], h: usize, origin: &str) -> Result<RawTable, ImportError> {
    let end = lines[h + 1..]
        .iter()
        .position(|l| ends_table(l))
        .map_or(lines.len(), |i| i + h + 1);
    let text = lines[h..end].join("\n");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(h + 1, |p| p.line() as usize + h);
            ImportError::malformed(origin, line, e.to_string())
        })?;
        let line = record.position().map_or(h + 1, |p| p.line() as usize + h);
        records.push((
            line,
            record
                .iter()
                .map(|c| c.trim().to_owned())
                .collect::<Vec<_>>(),
        ));
    }
    let Some(((_, header), rows)) = records.split_first() else {
        return Err(ImportError::malformed(
            origin,
            h + 1,
            "unreadable header row",
        ));
    };
    Ok(RawTable {
        form: NsysForm::Csv,
        header: header.clone(),
        header_line: h + 1,
        rows: rows.to_vec(),
        run: None,
        end,
    })
}
