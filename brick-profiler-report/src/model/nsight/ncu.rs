//! The data read from an `ncu --csv` export: the page it came from, the
//! kernel launches with their identity columns, and each launch's metrics
//! as printed (value, unit, section, line).

use serde::Serialize;

/// The format, for messages.
pub(crate) const FORMAT: &str = "Nsight Compute CSV (`ncu --csv`)";

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
