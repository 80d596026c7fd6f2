//! The two pages of an `ncu --csv` export, split into kernels: the details
//! page (one row per metric, grouped by `ID`) and the raw page (one row per
//! kernel, one column per metric, a row of units under the header).
//! Columns are found by name.

use std::collections::HashMap;

use super::number::{NumberStyle, parse_number};
use crate::model::nsight::ImportError;
use crate::model::nsight::{NCU_FORMAT as FORMAT, NcuKernel, NcuMetric};

/// What is not a metric: identity columns (every other column of the raw
/// page is one).
const IDENTITY: [&str; 22] = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Function Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
];

/// Column indices by name.
pub(crate) struct Columns {
    kernel: Option<usize>,
    section: Option<usize>,
    name: Option<usize>,
    unit: Option<usize>,
    value: Option<usize>,
    by_name: HashMap<String, usize>,
}

impl Columns {
    /// Whether the header is the details page's (a metric per row).
    pub(crate) fn is_details(&self) -> bool {
        self.name.is_some() && self.value.is_some()
    }

    pub(crate) fn new(header: &[String]) -> Self {
        let mut by_name = HashMap::new();
        for (i, h) in header.iter().enumerate() {
            by_name.entry(h.trim().to_owned()).or_insert(i);
        }
        let find = |names: &[&str]| names.iter().find_map(|n| by_name.get(*n).copied());
        Self {
            kernel: find(&["Kernel Name", "Function Name", "Name"]),
            section: find(&["Section Name"]),
            name: find(&["Metric Name"]),
            unit: find(&["Metric Unit"]),
            value: find(&["Metric Value"]),
            by_name,
        }
    }

    /// Fields a row must have: every column up to `Metric Value` on the
    /// details page (the rule columns after it are optional), every column
    /// of the raw page.
    pub(crate) fn required_width(&self, header_len: usize) -> usize {
        if !self.is_details() {
            return header_len;
        }
        [self.kernel, self.section, self.name, self.unit, self.value]
            .into_iter()
            .flatten()
            .max()
            .map_or(header_len, |last| last + 1)
    }

    fn get<'a>(&self, fields: &'a [String], column: &str) -> Option<&'a str> {
        let i = *self.by_name.get(column)?;
        fields.get(i).map(|s| s.trim()).filter(|s| !s.is_empty())
    }

    fn kernel(&self, id: &str, line: usize, fields: &[String]) -> NcuKernel {
        let text = |c: &str| self.get(fields, c).map(str::to_owned);
        NcuKernel {
            id: id.to_owned(),
            name: self
                .kernel
                .and_then(|i| fields.get(i))
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| format!("kernel {id}")),
            process_id: text("Process ID"),
            process_name: text("Process Name"),
            host: text("Host Name"),
            context: text("Context"),
            stream: text("Stream"),
            block_size: text("Block Size"),
            grid_size: text("Grid Size"),
            device: text("Device"),
            compute_capability: text("CC"),
            metrics: Vec::new(),
            line,
        }
    }
}

fn require_id<'a>(fields: &'a [String], line: usize, origin: &str) -> Result<&'a str, ImportError> {
    match fields.first().map(|s| s.trim()) {
        Some(id) if !id.is_empty() => Ok(id),
        _ => Err(ImportError::malformed(origin, line, "field `ID` is empty")),
    }
}

pub(crate) fn details(
    columns: &Columns,
    rows: &[(usize, Vec<String>)],
    origin: &str,
) -> Result<Vec<NcuKernel>, ImportError> {
    let (Some(name_at), Some(value_at)) = (columns.name, columns.value) else {
        return Ok(Vec::new());
    };
    let style = NumberStyle::detect(rows.iter().map(|(_, f)| f[value_at].as_str()));
    let mut kernels: Vec<NcuKernel> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    for (line, fields) in rows {
        let id = require_id(fields, *line, origin)?;
        let key = (
            id.to_owned(),
            columns.get(fields, "Process ID").unwrap_or("").to_owned(),
        );
        let k = *index.entry(key).or_insert_with(|| {
            kernels.push(columns.kernel(id, *line, fields));
            kernels.len() - 1
        });
        let name = fields[name_at].trim();
        // Rule rows of newer versions carry no metric.
        if name.is_empty() {
            continue;
        }
        let text = fields[value_at].trim().to_owned();
        kernels[k].metrics.push(NcuMetric {
            section: columns
                .section
                .map(|i| fields[i].trim().to_owned())
                .filter(|s| !s.is_empty()),
            name: name.to_owned(),
            unit: columns
                .unit
                .map_or(String::new(), |i| fields[i].trim().to_owned()),
            value: parse_number(&text, style).ok().flatten(),
            text,
            line: *line,
        });
    }
    Ok(kernels)
}

pub(crate) fn raw(
    columns: &Columns,
    header: &[String],
    rows: &[(usize, Vec<String>)],
    origin: &str,
) -> Result<Vec<NcuKernel>, ImportError> {
    let metric_columns: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.trim().is_empty() && !IDENTITY.contains(&h.trim()))
        .map(|(i, _)| i)
        .collect();
    if metric_columns.is_empty() {
        return Err(ImportError::NotRecognised {
            origin: origin.to_owned(),
            format: FORMAT,
            reason: "the header has neither `Metric Name`/`Metric Value` columns (details page) \
                     nor metric columns (raw page)"
                .to_owned(),
        });
    }
    // The raw page's second row gives units; its ID is empty.
    let (units, rows) = match rows.split_first() {
        Some(((_, first), rest)) if first.first().is_some_and(|id| id.trim().is_empty()) => {
            (Some(first), rest)
        }
        _ => (None, rows),
    };
    let style = NumberStyle::detect(
        rows.iter()
            .flat_map(|(_, f)| metric_columns.iter().map(move |&i| f[i].as_str())),
    );
    let mut kernels = Vec::new();
    for (line, fields) in rows {
        let id = require_id(fields, *line, origin)?;
        let mut kernel = columns.kernel(id, *line, fields);
        for &i in &metric_columns {
            let text = fields[i].trim().to_owned();
            kernel.metrics.push(NcuMetric {
                section: None,
                name: header[i].trim().to_owned(),
                unit: units.map_or(String::new(), |u| u[i].trim().to_owned()),
                value: parse_number(&text, style).ok().flatten(),
                text,
                line: *line,
            });
        }
        kernels.push(kernel);
    }
    Ok(kernels)
}
