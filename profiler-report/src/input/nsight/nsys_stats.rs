//! Nsight Systems' CUDA kernel summary (`nsys stats --report
//! cuda_gpu_kern_sum`, the "CUDA Kernel Statistics" of `--stats=true`) as
//! an [`NsysReport`]: per kernel its total time, instances, average, median,
//! extremes and standard deviation, checked for consistency.

use std::path::Path;

use super::nsys_table::{FORMAT, RawTable, find_tables, none_found};
use super::number::{NumberStyle, Quantity, parse_number};
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::Head;
use crate::model::nsight::{ImportError, read_text};
use crate::model::nsight::{NsysKernel, NsysReport};

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

/// Which field a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    TimePct,
    Total,
    Instances,
    Avg,
    Med,
    Min,
    Max,
    StdDev,
    Name,
    Other,
}

/// `Total Time (ns)` -> (Total, scale to ns, whether a unit was given).
fn column(title: &str) -> (Field, f64, bool) {
    let (base, unit) = match title.split_once('(') {
        Some((b, u)) => (b.trim(), Some(u.trim_end_matches(')').trim())),
        None => (title.trim(), None),
    };
    let field = match base.to_ascii_lowercase().replace(' ', "").as_str() {
        "time" if unit == Some("%") => Field::TimePct,
        "time%" => Field::TimePct,
        "totaltime" => Field::Total,
        "instances" => Field::Instances,
        "avg" | "average" => Field::Avg,
        "med" | "median" => Field::Med,
        "min" | "minimum" => Field::Min,
        "max" | "maximum" => Field::Max,
        "stddev" => Field::StdDev,
        "name" => Field::Name,
        _ => Field::Other,
    };
    let scale = unit.and_then(|u| Quantity::Time.scale(u));
    (field, scale.unwrap_or(1.0), scale.is_some())
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

/// A summary's columns: each one's field, scale to ns and whether a unit
/// was printed; where the required ones are; how its numbers are written.
struct Layout<'t> {
    header: &'t [String],
    columns: Vec<(Field, f64, bool)>,
    total: usize,
    instances: usize,
    name: usize,
    style: NumberStyle,
}

impl<'t> Layout<'t> {
    /// The layout of `table`, which must have `Total Time`, `Instances`
    /// and `Name` columns.
    fn of(table: &'t RawTable, origin: &str) -> Result<Self, ImportError> {
        let columns: Vec<(Field, f64, bool)> = table.header.iter().map(|t| column(t)).collect();
        let at = |f: Field| columns.iter().position(|c| c.0 == f);
        let (Some(total), Some(instances), Some(name)) =
            (at(Field::Total), at(Field::Instances), at(Field::Name))
        else {
            return Err(ImportError::NotRecognised {
                origin: origin.to_owned(),
                format: FORMAT,
                reason: format!(
                    "line {}: columns `Total Time`, `Instances` and `Name` are required",
                    table.header_line
                ),
            });
        };
        let style = NumberStyle::detect(
            table
                .rows
                .iter()
                .flat_map(|(_, cells)| cells.iter().enumerate())
                .filter(|(i, _)| *i != name)
                .map(|(_, c)| c.as_str()),
        );
        Ok(Self {
            header: &table.header,
            columns,
            total,
            instances,
            name,
            style,
        })
    }

    /// The column holding `f`.
    fn at(&self, f: Field) -> Option<usize> {
        self.columns.iter().position(|c| c.0 == f)
    }

    /// The note naming time columns printed without a unit, if any.
    fn unitless_note(&self) -> Option<String> {
        let unitless: Vec<&str> = self
            .columns
            .iter()
            .zip(self.header)
            .filter(|(c, _)| {
                matches!(
                    c.0,
                    Field::Total
                        | Field::Avg
                        | Field::Med
                        | Field::Min
                        | Field::Max
                        | Field::StdDev
                ) && !c.2
            })
            .map(|(_, t)| t.as_str())
            .collect();
        (!unitless.is_empty()).then(|| {
            format!(
                "columns without a unit read as ns (what Nsight Systems prints): {}",
                unitless.join(", ")
            )
        })
    }

    /// The kernel of one row (at 1-based `line`), checked for consistency.
    fn kernel(
        &self,
        line: usize,
        cells: &[String],
        origin: &str,
    ) -> Result<NsysKernel, ImportError> {
        if cells.len() != self.header.len() {
            return Err(ImportError::malformed(
                origin,
                line,
                format!(
                    "{} fields where the header has {} (a truncated file?)",
                    cells.len(),
                    self.header.len()
                ),
            ));
        }
        let number = |i: usize| self.number(i, cells, line, origin);
        let required = |i: usize| -> Result<f64, ImportError> {
            number(i)?.ok_or_else(|| {
                ImportError::malformed(origin, line, format!("`{}` is empty", self.header[i]))
            })
        };
        let optional = |f: Field| self.at(f).map(number).transpose().map(Option::flatten);
        let total_ns = required(self.total)?;
        let n = required(self.instances)?;
        if n < 1.0 || n.fract() != 0.0 || n > u64::MAX as f64 {
            return Err(ImportError::malformed(
                origin,
                line,
                format!(
                    "`Instances` value `{}` is not a positive whole number",
                    cells[self.instances]
                ),
            ));
        }
        let avg_ns = optional(Field::Avg)?.unwrap_or(total_ns / n);
        let name = &cells[self.name];
        let kernel = NsysKernel {
            name: name.clone(),
            time_pct: optional(Field::TimePct)?,
            total_ns,
            instances: n as u64,
            avg_ns,
            med_ns: optional(Field::Med)?,
            min_ns: optional(Field::Min)?.unwrap_or(avg_ns),
            max_ns: optional(Field::Max)?.unwrap_or(avg_ns),
            stddev_ns: optional(Field::StdDev)?,
            truncated: name.ends_with('…') || name.ends_with("..."),
            line,
        };
        let scale = self.at(Field::Avg).map_or(1.0, |i| self.columns[i].1);
        check(&kernel, scale).map_err(|why| ImportError::malformed(origin, line, why))?;
        Ok(kernel)
    }

    /// Column `i` of a row in ns (or its own unit), `None` when empty;
    /// refused when not a number or negative.
    fn number(
        &self,
        i: usize,
        cells: &[String],
        line: usize,
        origin: &str,
    ) -> Result<Option<f64>, ImportError> {
        let bad = |why: String| {
            ImportError::malformed(
                origin,
                line,
                format!("`{}` value `{}` {why}", self.header[i], cells[i]),
            )
        };
        match parse_number(&cells[i], self.style).map_err(|why| bad(why.to_string()))? {
            Some(x) if x < 0.0 => Err(bad("is negative".to_owned())),
            v => Ok(v.map(|x| x * self.columns[i].1)),
        }
    }
}

/// Consistency of one row; `unit` is the ns in one printed unit (values
/// are rounded to 0.1 of it).
fn check(k: &NsysKernel, unit: f64) -> Result<(), String> {
    let slack = 0.05 * unit + 1e-9 * k.max_ns.abs();
    if k.min_ns > k.max_ns + slack {
        return Err(format!(
            "`Min` ({}) is above `Max` ({})",
            k.min_ns, k.max_ns
        ));
    }
    if k.avg_ns < k.min_ns - slack || k.avg_ns > k.max_ns + slack {
        return Err(format!(
            "`Avg` ({}) lies outside `Min`..`Max` ({}..{})",
            k.avg_ns, k.min_ns, k.max_ns
        ));
    }
    if let Some(med) = k.med_ns
        && (med < k.min_ns - slack || med > k.max_ns + slack)
    {
        return Err(format!(
            "`Med` ({med}) lies outside `Min`..`Max` ({}..{})",
            k.min_ns, k.max_ns
        ));
    }
    let n = k.instances as f64;
    let expected = k.avg_ns * n;
    if (expected - k.total_ns).abs() > (1e-3 * k.total_ns).max(n * slack + unit) {
        return Err(format!(
            "`Total Time` ({}) is not `Avg` x `Instances` ({} x {})",
            k.total_ns, k.avg_ns, k.instances
        ));
    }
    if k.time_pct.is_some_and(|p| p > 100.05) {
        return Err("`Time (%)` is above 100".to_owned());
    }
    Ok(())
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
