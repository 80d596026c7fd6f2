//! The base floor: primitives every floor above uses: one escaper per
//! output format, numbers and dates as text, JSON error messages, the
//! glossary of metrics, the report-section type, the SVG chart writer and
//! an external sort for inputs larger than memory; and the one way a
//! user's file is opened (special files refused, bounded, gzip decompressed).

pub(crate) mod decode;
pub(crate) mod escape;
pub(crate) mod glossary;
pub(crate) mod json;
pub(crate) mod plot;
pub(crate) mod section;
pub(crate) mod spill;
pub(crate) mod textfmt;
pub(crate) mod user_file;
