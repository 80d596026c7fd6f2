//! The output floor: exports for other viewers (Chrome trace, folded
//! stacks, flamegraphs, speedscope, merged ranks), drawings of the
//! execution graph, a profile's quick summaries, the HTML report page
//! that gathers every analysis, and Nsight imports rendered, with the error
//! and atomic writes they share.
//! `export`, `graph` and `html` are public at the crate root, with the
//! exports of a profile, `HtmlReport`, `write_html_report` and the
//! summaries at the root itself.

pub(crate) mod error;
pub mod export;
pub mod graph;
pub mod html;
pub(crate) mod nsight;
pub(crate) mod summary;
