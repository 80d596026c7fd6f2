//! Exports of a profile for external viewers: Chrome trace JSON (Perfetto,
//! chrome://tracing), merged rank traces, folded stacks, flamegraph SVG and
//! speedscope JSON.

mod chrome;
mod flamegraph;
mod folded;
mod ranks;
mod run_facts;
mod speedscope;

pub use chrome::{ChromeTraceSummary, chrome_trace_json, write_chrome_trace};
pub use flamegraph::flamegraph_svg;
pub use folded::folded_stacks;
pub use ranks::{MergedTrace, merge_rank_files, merge_ranked, merge_ranks};
pub(crate) use run_facts::EXPORTER;
pub use speedscope::speedscope_json;

pub use crate::error::ExportError;
