//! The data read from an `nsys stats` CUDA kernel summary: how it was
//! printed, and per kernel its total time, instances and distribution (ns).

use serde::Serialize;

/// How the summary was printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NsysForm {
    /// The column-aligned text table (`nsys stats`, `--stats=true`).
    Table,
    /// The boxed table (`--format table`).
    Boxed,
    /// `--format csv`.
    Csv,
}

/// One kernel's row of the summary. Times are ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NsysKernel {
    /// Kernel name as printed (the text table cuts long names with `…`).
    pub name: String,
    /// Share of all kernel time, %.
    pub time_pct: Option<f64>,
    /// Total time, ns.
    pub total_ns: f64,
    /// Launches.
    pub instances: u64,
    /// Mean, ns.
    pub avg_ns: f64,
    /// Median, ns.
    pub med_ns: Option<f64>,
    /// Shortest launch, ns.
    pub min_ns: f64,
    /// Longest launch, ns.
    pub max_ns: f64,
    /// Standard deviation, ns.
    pub stddev_ns: Option<f64>,
    /// Whether the tool cut the name short.
    pub truncated: bool,
    /// 1-based line.
    pub line: usize,
}

/// The kernel summary of one `nsys stats` output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NsysReport {
    /// File (or stream) it came from.
    pub origin: String,
    /// How it was printed.
    pub form: NsysForm,
    /// The run (report file) the summary belongs to, when the output names
    /// it (`[1/8] ... name.nsys-rep`, `Processing [name.sqlite]`).
    pub run: Option<String>,
    /// 1-based line of the summary's header.
    pub header_line: usize,
    /// Kernels, in the tool's order (most time first).
    pub kernels: Vec<NsysKernel>,
    /// Reading notes (units assumed, names cut).
    pub notes: Vec<String>,
}
