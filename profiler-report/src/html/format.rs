//! Number, time and date formatting for the HTML report. Every function
//! here renders a non-finite value as an en dash, so no page ever shows
//! `NaN` or `inf`.

use crate::textfmt::ns_time;
pub(crate) use crate::textfmt::{DASH, int, num, si};

/// Nanoseconds as milliseconds.
pub(crate) fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// A number with exactly `decimals` decimals.
pub(crate) fn fixed(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        DASH.to_owned()
    }
}

/// A percentage with one decimal, e.g. `42.0%`.
pub(crate) fn pct(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1}%")
    } else {
        DASH.to_owned()
    }
}

/// `part / whole`, or `None` when it would not be a finite number.
pub(crate) fn ratio(part: f64, whole: f64) -> Option<f64> {
    let r = part / whole;
    (whole != 0.0 && r.is_finite()).then_some(r)
}

/// An axis tick with an SI suffix and no trailing zeros: `0`, `500`,
/// `1.5k`, `20k`, `1.25M`.
pub(crate) fn si_tick(v: f64) -> String {
    if !v.is_finite() {
        return DASH.to_owned();
    }
    let (scaled, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(scale, _)| v.abs() >= *scale)
        .map_or((v, ""), |(scale, suffix)| (v / scale, suffix));
    let text = format!("{scaled:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    // `-0.00` trims to `-0`.
    let text = if text == "-0" { "0" } else { text };
    format!("{text}{suffix}")
}

/// A duration with three significant digits at most, in the unit that
/// suits it: `850 ns`, `12.5 µs`, `3.25 ms`, `1.20 s`.
pub(crate) fn short_duration(ns: f64) -> String {
    if !ns.is_finite() || ns < 0.0 {
        return DASH.to_owned();
    }
    let (v, unit) = match ns {
        n if n < 1e3 => (n, "ns"),
        n if n < 1e6 => (n / 1e3, "µs"),
        n if n < 1e9 => (n / 1e6, "ms"),
        n => (n / 1e9, "s"),
    };
    let decimals = match v {
        v if v >= 99.95 => 0,
        v if v >= 9.995 => 1,
        _ => 2,
    };
    let decimals = if unit == "ns" { 0 } else { decimals };
    format!("{v:.decimals$} {unit}")
}

/// A duration in the unit that suits it: `850 ns`, `12.50 µs`, `3.250 ms`,
/// `12.35 s` (whole nanoseconds below a microsecond).
pub(crate) fn duration(ns: u64) -> String {
    if ns < 1_000 {
        format!("{ns} ns")
    } else {
        ns_time(ns as f64)
    }
}

/// Nanoseconds since the Unix epoch as UTC ISO-8601, e.g.
/// `2023-11-14T22:13:20Z`; an en dash for 0 (unknown).
pub(crate) fn utc_iso8601(unix_ns: u64) -> String {
    if unix_ns == 0 {
        return DASH.to_owned();
    }
    let secs = unix_ns / 1_000_000_000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, for non-negative days).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let doe = z % 146_097; // day of the 400-year era
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year
    let mp = (5 * doy + 2) / 153; // March = 0
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_render_as_a_dash() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(num(v), DASH);
            assert_eq!(fixed(v, 2), DASH);
            assert_eq!(pct(v), DASH);
        }
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(0.0, 0.0), None);
        assert_eq!(ratio(1.0, 4.0), Some(0.25));
        assert_eq!(pct(42.04), "42.0%");
    }

    #[test]
    fn ticks_and_short_durations_stay_short() {
        assert_eq!(si_tick(0.0), "0");
        assert_eq!(si_tick(500.0), "500");
        assert_eq!(si_tick(1_500.0), "1.5k");
        assert_eq!(si_tick(20_000.0), "20k");
        assert_eq!(si_tick(1_250_000.0), "1.25M");
        assert_eq!(si_tick(-2_000.0), "-2k");
        assert_eq!(si_tick(0.25), "0.25");
        assert_eq!(si_tick(f64::NAN), DASH);
        assert_eq!(short_duration(850.0), "850 ns");
        assert_eq!(short_duration(12_500.0), "12.5 µs");
        assert_eq!(short_duration(3_250_000.0), "3.25 ms");
        assert_eq!(short_duration(415_000.0), "415 µs");
        assert_eq!(short_duration(1_200_000_000.0), "1.20 s");
        assert_eq!(short_duration(f64::INFINITY), DASH);
    }

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration(850), "850 ns");
        assert_eq!(duration(12_500), "12.50 µs");
        assert_eq!(duration(3_250_000), "3.250 ms");
        assert_eq!(duration(12_345_000_000), "12.35 s");
    }

    #[test]
    fn utc_dates_match_known_instants() {
        assert_eq!(utc_iso8601(0), DASH);
        assert_eq!(utc_iso8601(1), "1970-01-01T00:00:00Z");
        assert_eq!(
            utc_iso8601(1_700_000_000_000_000_000),
            "2023-11-14T22:13:20Z"
        );
        // Leap day of a year divisible by 400, and the last second of a century.
        assert_eq!(
            utc_iso8601(951_782_400 * 1_000_000_000),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            utc_iso8601(4_102_444_799 * 1_000_000_000),
            "2099-12-31T23:59:59Z"
        );
        assert_eq!(utc_iso8601(u64::MAX), "2554-07-21T23:34:33Z");
    }
}
