//! Exports for external viewers beyond the root's exports of one profile
//! ([`write_chrome_trace`](chrome::write_chrome_trace),
//! [`chrome_trace_json`](chrome::chrome_trace_json),
//! [`folded_stacks`](folded::folded_stacks),
//! [`flamegraph_svg`](flamegraph::flamegraph_svg),
//! [`speedscope_json`](speedscope::speedscope_json),
//! [`write_perfetto_trace`](perfetto::write_perfetto_trace)): merged rank traces, the
//! launches of an Nsight Compute import as text, Markdown and JSON, and
//! (feature `parquet`) a profile's aggregates as Parquet tables; Perfetto's
//! protobuf trace into any writer, and [`write_timeline`], the file(s) a
//! profile's `run.trace_format` names.

pub(crate) mod chrome;
pub(crate) mod flamegraph;
pub(crate) mod folded;
#[cfg(feature = "parquet")]
mod parquet;
pub(crate) mod perfetto;
mod ranks;
mod run_facts;
pub(crate) mod speedscope;
mod timeline;

pub use crate::output::nsight::{full_profiles_json, full_profiles_markdown, full_profiles_text};
pub use chrome::ChromeTraceSummary;
#[cfg(feature = "parquet")]
pub use parquet::{PARQUET_FILES, write_parquet};
pub use perfetto::{PerfettoTraceSummary, write_perfetto_trace_to};
pub use ranks::{
    MergedTrace, merge_rank_files, merge_ranked, merge_ranks, write_ranked_perfetto_trace_to,
};
pub(crate) use run_facts::EXPORTER;
pub use timeline::{TimelineFile, write_timeline};
