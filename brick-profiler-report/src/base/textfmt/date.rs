//! Dates: nanoseconds since the Unix epoch as UTC ISO-8601, computed here
//! so the report needs no date crate.

use super::units::DASH;

/// Nanoseconds since the Unix epoch as UTC ISO-8601, e.g.
/// `2023-11-14T22:13:20Z`; a dash for 0 (unknown).
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
