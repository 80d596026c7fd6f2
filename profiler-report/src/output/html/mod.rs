//! The HTML report: one self-contained page (inline CSS and SVG, no network,
//! readable without scripts) built by [`HtmlReport`]. Built-in sections come
//! from the profile and the optional scorecard and flamegraph, then the
//! roofline, parity and contract sections when their inputs are given; any
//! other report slots in as a [`Section`].

mod bricks;
mod charts;
mod counters;
mod definitions;
mod embed;
mod kernels;
mod latency;
mod memory;
mod page;
mod parts;
mod report;
mod run;
mod sections;
mod step_chart;
mod steps;

use std::path::Path;

pub use crate::base::section::Section;
use crate::output::error::ExportError;
pub use report::HtmlReport;

/// Writes a rendered report to `path` atomically (temporary file, then
/// rename), so a browser never sees a half-written page.
///
/// # Errors
/// [`ExportError::Write`] naming the path.
pub fn write_html_report(html: &str, path: impl AsRef<Path>) -> Result<(), ExportError> {
    crate::output::write::write_text(path.as_ref(), html)
}
