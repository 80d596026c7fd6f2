//! A small SVG writer for the report's plots (roofline, parity bars, step
//! times, latency distributions, counters): one
//! place that escapes every name, refuses non-finite coordinates, and styles
//! through classes so a plot reads the same as a file and inline in the HTML
//! report (where the page's light/dark colours apply).
//!
//! A writer of our own rather than `plotters`' SVG backend: plots need a
//! `<title>` tooltip on every point and bar (plotters has no element for
//! it), class-based colours that follow the report's theme, and label
//! placement that avoids markers; the output is byte-stable for golden
//! tests, and no new dependency is needed.

mod axis;
mod frame;
mod labels;
mod series;
mod svg;

pub(crate) use axis::{LinearAxis, LogAxis};
pub(crate) use frame::{Drawn, Frame};
pub(crate) use labels::{Rect, place_labels};
pub(crate) use series::quantile;
pub(crate) use svg::{Anchor, Svg};
