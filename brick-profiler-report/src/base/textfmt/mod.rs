//! Text formatting shared by every renderer: numbers that never print `NaN`
//! or `inf`, SI prefixes, durations, byte sizes, dates and terminal columns.
//! A value that cannot be shown prints as [`DASH`] in every report.
//! Byte sizes are in decimal units (1 KB = 1000 B), as bandwidth is quoted
//! in GB/s.

mod column;
mod date;
mod number;
mod units;

pub(crate) use column::{cut, fit};
pub(crate) use date::utc_iso8601;
pub(crate) use number::{fixed, int, ms, num, pct, ratio, si_tick, signed_pct, signed_pts};
pub(crate) use units::{DASH, bytes, duration, si};

/// Pretty JSON of a report. Reports hold plain numbers, strings and
/// string-keyed maps, which always serialise; non-finite numbers become
/// `null`, so the text never holds `NaN` or `inf`.
pub(crate) fn pretty_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string())
}
