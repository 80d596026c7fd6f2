//! The HTML report: one self-contained page (inline CSS and SVG, no network,
//! readable without scripts) built by [`HtmlReport`](report::HtmlReport). Built-in sections come
//! from the profile and the optional scorecard and flamegraph, then the
//! roofline, parity and contract sections when their inputs are given; any
//! other report slots in as a [`Section`].

mod bricks;
mod charts;
mod counters;
mod definitions;
mod device_kernels;
mod embed;
mod kernels;
mod latency;
mod memory;
mod page;
mod parts;
pub(crate) mod report;
mod run;
mod sections;
mod step_chart;
mod steps;

pub use crate::base::section::Section;
