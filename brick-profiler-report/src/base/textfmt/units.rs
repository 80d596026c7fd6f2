//! Numbers with their units as every text output writes them: SI prefixes,
//! durations and byte sizes with three significant digits, and one mark for
//! a value that cannot be shown. Every report uses these, so no two disagree.

/// What a value that cannot be shown (missing, NaN, infinite) prints as,
/// in every report.
pub(crate) const DASH: &str = "–";

/// Three significant digits, trailing zeros trimmed: `950`, `12.3`,
/// `1.62`, `0.05`, `1.0e-3` below 0.01; `1234` keeps its integer digits.
fn digits(v: f64) -> String {
    let a = v.abs();
    let fixed = if a >= 99.95 {
        return format!("{v:.0}");
    } else if a >= 9.995 {
        format!("{v:.1}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.2}")
    } else {
        return format!("{v:.1e}");
    };
    // `1.50` reads as `1.5`, `12.0` as `12`, `-0.00` as `0`.
    let trimmed = fixed.trim_end_matches('0').trim_end_matches('.');
    if trimmed == "-0" { "0" } else { trimmed }.to_owned()
}

/// `v` in the largest `scales` unit it reaches, with three significant
/// digits; a value that would round to 1000 of a unit counts as 1 of the
/// next (`999.96 k` is `1 M`); `below` as the unit when it reaches none.
fn scaled(v: f64, scales: &[(f64, &str)], below: &str) -> String {
    match scales.iter().find(|&&(scale, _)| v.abs() >= scale * 0.9995) {
        Some(&(scale, unit)) => format!("{} {unit}", digits(v / scale)),
        None => format!("{}{below}", digits(v)),
    }
}

/// A number with an SI prefix and three significant digits: `950`,
/// `11.7 k`, `1.62 M`, `82.6 T`; a number past 10^18 in exponent form;
/// [`DASH`] when not finite.
#[must_use]
pub(crate) fn si(v: f64) -> String {
    if !v.is_finite() {
        return DASH.to_owned();
    }
    if v.abs() >= 1e18 {
        return format!("{v:.2e}");
    }
    let scales = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    scaled(v, &scales, "")
}

/// A duration given in nanoseconds, in the unit that suits it with three
/// significant digits: `850 ns`, `12.5 µs`, `3.2 ms`, `1.25 s`, `4500 s`
/// (whole nanoseconds below a microsecond); [`DASH`] when not finite.
/// Negative durations (differences) keep their sign.
#[must_use]
pub(crate) fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return DASH.to_owned();
    }
    if ns.abs() < 999.5 {
        let whole = ns.round();
        // `-0.4 ns` rounds to `-0`.
        return format!("{} ns", if whole == 0.0 { 0.0 } else { whole });
    }
    scaled(ns, &[(1e9, "s"), (1e6, "ms"), (1e3, "µs")], " ns")
}

/// A byte count in decimal (SI) units, as bandwidth is quoted in GB/s:
/// `512 B`, `4.1 KB`, `158 MB`, `2.15 GB`, `1.2 TB` (1 KB = 1000 B);
/// [`DASH`] when not finite.
#[must_use]
pub(crate) fn bytes(v: f64) -> String {
    if !v.is_finite() {
        return DASH.to_owned();
    }
    if v.abs() < 999.5 {
        return format!("{} B", digits(v));
    }
    scaled(
        v,
        &[
            (1e15, "PB"),
            (1e12, "TB"),
            (1e9, "GB"),
            (1e6, "MB"),
            (1e3, "KB"),
        ],
        " B",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_keep_three_significant_digits() {
        let shown: Vec<String> = [950.0, 2.0, 1.5, 0.0, 0.001, 11_746.0, 1620.25, 1_153_153.0]
            .into_iter()
            .map(si)
            .collect();
        assert_eq!(
            shown,
            [
                "950", "2", "1.5", "0", "1.0e-3", "11.7 k", "1.62 k", "1.15 M"
            ]
        );
        assert_eq!(si(999_960.0), "1 M");
        assert_eq!(si(1e308), "1.00e308");
        assert_eq!(si(-2_000.0), "-2 k");
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                (si(v), duration(v), bytes(v)),
                (DASH.into(), DASH.into(), DASH.into())
            );
        }
    }

    #[test]
    fn durations_pick_their_unit() {
        let shown: Vec<String> = [
            0.0,
            850.0,
            999.4,
            999.6,
            1_000.0,
            12_500.0,
            415_000.0,
            3_250_000.0,
            1.2e9,
            4.5e12,
        ]
        .into_iter()
        .map(duration)
        .collect();
        assert_eq!(
            shown,
            [
                "0 ns", "850 ns", "999 ns", "1 µs", "1 µs", "12.5 µs", "415 µs", "3.25 ms",
                "1.2 s", "4500 s"
            ]
        );
        assert_eq!(duration(-12_345.0), "-12.3 µs");
        assert_eq!(duration(-0.2), "0 ns");
        assert_eq!(duration(999_960.0), "1 ms");
    }

    #[test]
    fn bytes_use_decimal_units() {
        let shown: Vec<String> = [
            12.0,
            512.0,
            4_096.0,
            222_480.0,
            158e6,
            2_147_483_648.0,
            1.2e12,
        ]
        .into_iter()
        .map(bytes)
        .collect();
        assert_eq!(
            shown,
            [
                "12 B", "512 B", "4.1 KB", "222 KB", "158 MB", "2.15 GB", "1.2 TB"
            ]
        );
        assert_eq!(bytes(1e-320), "1.0e-320 B");
    }
}
