//! Reading `ncu --csv` output: the default details page (one row per
//! metric: `"ID",...,"Section Name","Metric Name","Metric Unit","Metric
//! Value"`) and the raw page (`--page raw`: one row per kernel, one column
//! per metric, then a row of units), told apart by the header. Columns are
//! found by name, so older and newer Nsight Compute versions both read.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::error::{ImportError, read_text};
use super::number::{NumberStyle, parse_number};

const FORMAT: &str = "Nsight Compute CSV (`ncu --csv`)";
const BINARY_HINT: &str =
    "a binary .ncu-rep report? export it with `ncu --import FILE --csv > FILE.csv`";

/// Which page of the report a CSV holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NcuLayout {
    /// The default details page: one row per metric.
    Details,
    /// `--page raw`: one row per kernel, one column per metric.
    Raw,
}

/// One metric of one kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuMetric {
    /// Section (details page only).
    pub section: Option<String>,
    /// Metric name: a raw name (`gpu__time_duration.sum`) or a details-page
    /// label (`Duration`).
    pub name: String,
    /// Unit as printed (`usecond`, `%`, `Kbyte/block`; empty when none).
    pub unit: String,
    /// The value, when it is a number (`None` for `n/a` and text values).
    pub value: Option<f64>,
    /// The value as printed.
    pub text: String,
    /// 1-based line it was read from.
    pub line: usize,
}

/// One profiled kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuKernel {
    /// `ID` of the launch in the report.
    pub id: String,
    /// Kernel name as printed (demangled, possibly with commas and templates).
    pub name: String,
    /// `Process ID`.
    pub process_id: Option<String>,
    /// `Process Name`.
    pub process_name: Option<String>,
    /// `Host Name`.
    pub host: Option<String>,
    /// `Context`.
    pub context: Option<String>,
    /// `Stream`.
    pub stream: Option<String>,
    /// `Block Size`, e.g. `(128, 1, 1)`.
    pub block_size: Option<String>,
    /// `Grid Size`.
    pub grid_size: Option<String>,
    /// `Device`: an index, or the device's name in some versions.
    pub device: Option<String>,
    /// `CC`: compute capability, e.g. `8.9`.
    pub compute_capability: Option<String>,
    /// Metrics in file order.
    pub metrics: Vec<NcuMetric>,
    /// 1-based line of its first row.
    pub line: usize,
}

impl NcuKernel {
    /// The first metric named `name` (any section).
    #[must_use]
    pub fn metric(&self, name: &str) -> Option<&NcuMetric> {
        self.metrics.iter().find(|m| m.name == name)
    }
}

/// Everything read from one `ncu --csv` export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcuReport {
    /// File (or stream) it came from.
    pub origin: String,
    /// Page layout.
    pub layout: NcuLayout,
    /// Kernel launches, in file order.
    pub kernels: Vec<NcuKernel>,
    /// Warnings the tool printed (`==WARNING==`) and reading notes.
    pub notes: Vec<String>,
}

/// Reads an `ncu --csv` export from `path`.
///
/// # Errors
/// As [`parse_ncu_csv`], plus [`ImportError::Read`] and
/// [`ImportError::NotText`].
pub fn read_ncu_csv(path: impl AsRef<Path>) -> Result<NcuReport, ImportError> {
    let path = path.as_ref();
    parse_ncu_csv(&read_text(path, BINARY_HINT)?, &path.display().to_string())
}

/// Identity columns; every other column of the raw page is a metric.
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
    let restricted = text.contains("ERR_NVGPUCTRPERM");
    let Some(header_at) = lines.iter().position(|l| is_header(l)) else {
        if restricted {
            return Err(ImportError::CountersRestricted {
                origin: origin.to_owned(),
            });
        }
        let reason = match tool_messages.iter().find(|m| m.starts_with("==ERROR==")) {
            Some(e) => format!("no header row starting with \"ID\"; the tool reported `{e}`"),
            None => "no header row starting with \"ID\"".to_owned(),
        };
        return Err(ImportError::NotRecognised {
            origin: origin.to_owned(),
            format: FORMAT,
            reason,
        });
    };
    // The table from the header on, without the tool's own lines; `origin_line`
    // maps a line of that text back to the file.
    let mut table = String::new();
    let mut origin_line = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(header_at) {
        if line.trim_start().starts_with("==") {
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
    let Some((_, header)) = rows.first().cloned() else {
        return Err(ImportError::malformed(
            origin,
            header_at + 1,
            "unreadable header row",
        ));
    };
    let columns = Columns::new(&header);
    for (line, fields) in &rows[1..] {
        if fields.len() != header.len() {
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
    let data = &rows[1..];
    let (layout, kernels) = if columns.name.is_some() && columns.value.is_some() {
        (NcuLayout::Details, details(&columns, data, origin)?)
    } else {
        (NcuLayout::Raw, raw(&columns, &header, data, origin)?)
    };
    if kernels.is_empty() {
        if restricted {
            return Err(ImportError::CountersRestricted {
                origin: origin.to_owned(),
            });
        }
        let reason = match tool_messages.first() {
            Some(m) => format!("a header but no kernel rows; the tool reported `{m}`"),
            None => "a header but no kernel rows".to_owned(),
        };
        return Err(ImportError::NoKernels {
            origin: origin.to_owned(),
            reason,
        });
    }
    Ok(NcuReport {
        origin: origin.to_owned(),
        layout,
        kernels,
        notes: tool_messages,
    })
}

fn is_header(line: &str) -> bool {
    let l = line.trim_start_matches('\u{feff}').trim_start();
    l.starts_with("\"ID\"") || l.starts_with("ID,") || l == "ID"
}

/// Column indices by name.
struct Columns {
    kernel: Option<usize>,
    section: Option<usize>,
    name: Option<usize>,
    unit: Option<usize>,
    value: Option<usize>,
    by_name: HashMap<String, usize>,
}

impl Columns {
    fn new(header: &[String]) -> Self {
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

fn details(
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

fn raw(
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
