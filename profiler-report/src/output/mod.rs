//! The output floor: exports for other viewers (Chrome trace, folded
//! stacks, flamegraphs, speedscope, merged ranks), the HTML report page
//! that gathers every analysis, and Nsight imports rendered, with the error
//! and atomic writes they share.
//! `export` and `html` are public at the crate root, with the exports of a
//! profile, `HtmlReport` and `write_html_report` at the root itself.

pub(crate) mod error;
pub mod export;
pub mod html;
pub(crate) mod nsight;
pub(crate) mod write;
