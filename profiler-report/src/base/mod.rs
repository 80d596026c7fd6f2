//! The base floor: primitives every floor above uses: one escaper per
//! output format, numbers and dates as text, JSON error messages, the
//! glossary of metrics, the report-section type and the SVG chart writer.

pub(crate) mod escape;
pub(crate) mod glossary;
pub(crate) mod json;
pub(crate) mod plot;
pub(crate) mod section;
pub(crate) mod textfmt;
