//! Exports of a profile for external viewers: Chrome trace JSON (Perfetto,
//! chrome://tracing), folded stacks, flamegraph SVG and speedscope JSON.

mod chrome;
mod flamegraph;
mod folded;
pub(crate) mod nesting;
mod run_facts;
mod speedscope;

pub(crate) use chrome::{ChromeTrace, EXPORTER, write_text};
pub use chrome::{OPS_TID_BASE, chrome_trace_json, write_chrome_trace};
pub use flamegraph::flamegraph_svg;
pub use folded::folded_stacks;
pub(crate) use run_facts::RunFacts;
pub use speedscope::speedscope_json;
