//! Exports of a profile for external viewers: Chrome trace JSON (Perfetto,
//! chrome://tracing), merged rank traces, folded stacks, flamegraph SVG and
//! speedscope JSON, and (feature `parquet`) a profile's aggregates as
//! Parquet tables.

mod chrome;
mod flamegraph;
mod folded;
#[cfg(feature = "parquet")]
mod parquet;
mod ranks;
mod run_facts;
mod speedscope;

pub use chrome::{ChromeTraceSummary, chrome_trace_json, write_chrome_trace};
pub use flamegraph::flamegraph_svg;
pub use folded::folded_stacks;
#[cfg(feature = "parquet")]
pub use parquet::{PARQUET_FILES, write_parquet};
pub use ranks::{MergedTrace, merge_rank_files, merge_ranked, merge_ranks};
pub(crate) use run_facts::EXPORTER;
pub use speedscope::speedscope_json;

pub use crate::output::error::ExportError;
