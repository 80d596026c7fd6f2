//! One `nsys stats` kernel summary's rows as kernels: which field each
//! column holds and its unit, the numbers read in the summary's style, and
//! each row checked for consistency.

use super::nsys_table::{FORMAT, RawTable};
use super::number::{NumberStyle, Quantity, parse_number};
use crate::model::nsight::{ImportError, NsysKernel};

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

/// A summary's columns: each one's field, scale to ns and whether a unit
/// was printed; where the required ones are; how its numbers are written.
pub(crate) struct Layout<'t> {
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
    pub(crate) fn of(table: &'t RawTable, origin: &str) -> Result<Self, ImportError> {
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
    pub(crate) fn unitless_note(&self) -> Option<String> {
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
    pub(crate) fn kernel(
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
