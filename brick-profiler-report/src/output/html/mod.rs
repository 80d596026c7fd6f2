//! The HTML report: one self-contained page (inline CSS and SVG, no network,
//! readable without scripts) built by [`HtmlReport`](report::HtmlReport). Built-in sections come
//! from the profile and the optional scorecard and flamegraph, then the
//! roofline, parity and contract sections when their inputs are given; any
//! other report slots in as a [`Section`]. A run directory across ranks has
//! a page of its own in the same look, [`FleetPage`].

mod bricks;
mod charts;
mod counters;
mod definitions;
mod device_kernels;
mod embed;
mod fleet;
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
mod tokens;

pub use crate::base::section::Section;
pub use fleet::FleetPage;
