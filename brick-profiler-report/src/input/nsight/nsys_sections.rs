//! Telling the reports of `nsys stats` output apart: the banner that names
//! each report, the run (report file) a progress line names, and the
//! kernel summary's columns, which other summaries share only in part.

/// Report ids and titles of the kernel summary in the versions we know;
/// the grid/block variant (`cuda_gpu_kern_gb_sum`) is another report.
pub(crate) const KERNEL_REPORTS: [&str; 4] = [
    "cuda_gpu_kern_sum",
    "gpukernsum",
    "CUDA Kernel Statistics",
    "CUDA GPU Kernel Summary",
];

/// Column titles of the kernel summary, lower-case without spaces or units.
const KERNEL_COLUMNS: [&str; 14] = [
    "time",
    "time%",
    "totaltime",
    "instances",
    "avg",
    "average",
    "med",
    "median",
    "min",
    "minimum",
    "max",
    "maximum",
    "stddev",
    "name",
];

/// The header's titles, split roughly (CSV, boxed, or columns two spaces
/// apart), to tell the kernel summary from tables that share its first
/// columns (NVTX ranges, OS runtime and CUDA API summaries, grid/block).
fn header_titles(line: &str) -> Vec<String> {
    let t = line.trim().trim_matches('|');
    let cells: Vec<&str> = if t.starts_with('"') || t.contains("\",\"") || t.contains(',') {
        t.split(',').collect()
    } else if t.contains('|') {
        t.split('|').collect()
    } else {
        t.split("  ").collect()
    };
    cells
        .iter()
        .map(|c| c.trim().trim_matches('"').trim())
        .filter(|c| !c.is_empty())
        .map(|c| {
            let base = c.split('(').next().unwrap_or(c);
            let unit_pct = c.contains("(%)");
            let key: String = base.chars().filter(|ch| !ch.is_whitespace()).collect();
            let key = key.to_ascii_lowercase();
            if unit_pct && key == "time" {
                "time%".to_owned()
            } else {
                key
            }
        })
        .collect()
}

/// Whether a header is the kernel summary's: every column one of its
/// columns, with `Total Time`, `Instances` and `Name` among them.
pub(crate) fn kernel_columns(line: &str) -> bool {
    let titles = header_titles(line);
    ["totaltime", "instances", "name"]
        .iter()
        .all(|k| titles.iter().any(|t| t == k))
        && titles.iter().all(|t| KERNEL_COLUMNS.contains(&t.as_str()))
}

/// The report a banner line announces: `[6/8] Executing 'cuda_gpu_kern_sum'
/// stats report`, ` ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):`,
/// `Processing [x.sqlite] with [.../cuda_gpu_kern_sum.py]...`, or a legacy
/// `CUDA Kernel Statistics:` title.
pub(crate) fn banner(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(rest) = t.split_once("Executing '").map(|(_, r)| r) {
        return rest.split('\'').next().map(str::to_owned);
    }
    if t.starts_with("** ") {
        return Some(
            t.rsplit_once('(')
                .map_or(t, |(_, id)| id.trim_end_matches([')', ':']))
                .to_owned(),
        );
    }
    if t.starts_with("Processing [") {
        let script = t.rsplit_once('[')?.1;
        let file = script.rsplit('/').next().unwrap_or(script);
        return Some(file.split(".py").next().unwrap_or(file).to_owned());
    }
    if t.ends_with("Statistics:") || t.ends_with("Summary:") {
        return Some(t.trim_end_matches(':').to_owned());
    }
    // nsys of 2020: `CUDA Kernel Statistics (nanoseconds)`.
    if let Some((title, _)) = t.split_once(" Statistics (") {
        return Some(format!("{title} Statistics"));
    }
    None
}

/// The run a progress line names: `[1/8] [===100%] name.nsys-rep`,
/// `Generating SQLite file a.sqlite from b.nsys-rep`, or `Processing
/// [a.sqlite] ...`.
pub(crate) fn run_name(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some((_, from)) = t.split_once("Generating SQLite file ") {
        let from = from.rsplit(" from ").next().unwrap_or(from);
        return Some(base_name(from));
    }
    if t.starts_with('[') && (t.ends_with(".nsys-rep") || t.ends_with(".qdrep")) {
        return t.rsplit(' ').next().map(base_name);
    }
    if let Some(rest) = t.strip_prefix("Processing [") {
        return rest.split(']').next().map(base_name);
    }
    None
}

fn base_name(path: &str) -> String {
    let path = path.trim();
    path.rsplit('/').next().unwrap_or(path).to_owned()
}
