//! Kernel-level reports: the tile table (and its digest, [`TileSummary`]),
//! the checksum divergence of two runs and the critical path of an
//! execution graph, each as terminal text, Markdown and an HTML fragment.
//! Pure functions of core types.

mod critical;
mod divergence;
mod table;
mod tiles;

#[cfg(test)]
mod tests;

pub use critical::{
    CriticalPathSummary, DEFAULT_CRITICAL_PATH_ROWS, PathEntry, critical_path_summary,
    format_critical_path_html, format_critical_path_markdown, format_critical_path_text,
};
pub use divergence::{
    MAX_DIVERGENCE_ROWS, format_divergence_html, format_divergence_line,
    format_divergence_markdown, format_divergence_text,
};
pub use tiles::{
    TileSummary, TileSummaryRow, format_tile_table_html, format_tile_table_markdown,
    format_tile_table_text,
};

pub(crate) use critical::critical_path_body;
pub(crate) use divergence::divergence_body;
pub(crate) use tiles::tile_table_body;
