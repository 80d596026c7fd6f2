//! Numbers as the scorecard prints them: rates with SI prefixes
//! (`11.7 k tok/s`), byte sizes (`222 KB`, decimal units like GB/s) and
//! signed percentages (`+10.9%`). A non-finite value prints as `n/a`, so no
//! rendering ever shows NaN or an unbounded number.

/// What a value that cannot be shown prints as.
const NOT_A_NUMBER: &str = "n/a";

/// Three significant digits, at most: `950`, `12.3`, `1.62`, `0.05`.
fn digits(v: f64) -> String {
    let a = v.abs();
    let fixed = if a >= 100.0 {
        return format!("{v:.0}");
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 || a == 0.0 {
        format!("{v:.2}")
    } else {
        return format!("{v:.1e}");
    };
    // `1.50` reads as `1.5`, `12.0` as `12`.
    fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A number with an SI prefix and three significant digits:
/// `950`, `11.7 k`, `1.62 k`, `1.15 M`.
pub(crate) fn si(v: f64) -> String {
    if !v.is_finite() {
        return NOT_A_NUMBER.to_owned();
    }
    if v.abs() >= 1e18 {
        return format!("{v:.2e}");
    }
    for (scale, prefix) in [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if v.abs() >= scale {
            return format!("{} {prefix}", digits(v / scale));
        }
    }
    digits(v)
}

/// Tokens per second: `11.7 k tok/s`.
pub(crate) fn tok_s(v: f64) -> String {
    format!("{} tok/s", si(v))
}

/// Milliseconds with three significant digits, small times in µs:
/// `24.3 ms`, `2.61 ms`, `112 µs`.
pub(crate) fn ms(v: f64) -> String {
    if !v.is_finite() {
        NOT_A_NUMBER.to_owned()
    } else if v.abs() >= 1.0 || v == 0.0 {
        format!("{} ms", digits(v))
    } else {
        format!("{} µs", digits(v * 1e3))
    }
}

/// Bytes in decimal units (as bandwidth is quoted in GB/s): `222 KB`,
/// `158 MB`, `12 B`.
pub(crate) fn bytes(v: f64) -> String {
    if !v.is_finite() {
        return NOT_A_NUMBER.to_owned();
    }
    for (scale, unit) in [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")] {
        if v.abs() >= scale {
            return format!("{} {unit}", digits(v / scale));
        }
    }
    format!("{} B", digits(v))
}

/// A relative change as a signed percentage with one decimal: `+10.9%`,
/// `-9.8%`.
pub(crate) fn signed_pct(delta: f64) -> String {
    if delta.is_finite() {
        format!("{:+.1}%", no_negative_zero(delta * 100.0))
    } else {
        NOT_A_NUMBER.to_owned()
    }
}

/// An absolute change of a share as signed percentage points: `-6.0 pts`.
pub(crate) fn signed_pts(delta: f64) -> String {
    if delta.is_finite() {
        format!("{:+.1} pts", no_negative_zero(delta * 100.0))
    } else {
        NOT_A_NUMBER.to_owned()
    }
}

/// A value that rounds to zero at one decimal prints as `+0.0`, never `-0.0`.
fn no_negative_zero(v: f64) -> f64 {
    if v.abs() < 0.05 { 0.0 } else { v }
}

/// A share in `[0, 1]` as a percentage with one decimal: `42.0%`.
pub(crate) fn pct(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}%", share * 100.0)
    } else {
        NOT_A_NUMBER.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_keep_three_significant_digits() {
        assert_eq!(tok_s(11_746.0), "11.7 k tok/s");
        assert_eq!(tok_s(1620.25), "1.62 k tok/s");
        assert_eq!(tok_s(1_153_153.0), "1.15 M tok/s");
        assert_eq!(si(950.0), "950");
        assert_eq!(si(2.0), "2");
        assert_eq!(si(1.5), "1.5");
        assert_eq!(si(0.0), "0");
        assert_eq!(si(0.001), "1.0e-3");
        assert_eq!(si(f64::INFINITY), "n/a");
        assert_eq!(si(f64::NAN), "n/a");
        assert_eq!(si(1e308), "1.00e308");
    }

    #[test]
    fn times_switch_to_microseconds_below_a_millisecond() {
        assert_eq!(ms(24.31), "24.3 ms");
        assert_eq!(ms(2.613), "2.61 ms");
        assert_eq!(ms(0.1123), "112 µs");
        assert_eq!(ms(0.0), "0 ms");
    }

    #[test]
    fn bytes_use_decimal_units() {
        assert_eq!(bytes(222_480.0), "222 KB");
        assert_eq!(bytes(158e6), "158 MB");
        assert_eq!(bytes(12.0), "12 B");
        assert_eq!(bytes(1e-320), "1.0e-320 B");
    }

    #[test]
    fn changes_carry_their_sign() {
        assert_eq!(signed_pct(0.109), "+10.9%");
        assert_eq!(signed_pct(-0.098), "-9.8%");
        assert_eq!(signed_pct(0.0), "+0.0%");
        assert_eq!(pct(0.5), "50.0%");
        assert_eq!(signed_pct(f64::NAN), "n/a");
        assert_eq!(signed_pct(-0.0001), "+0.0%");
        assert_eq!(signed_pts(-0.0004), "+0.0 pts");
        assert_eq!(signed_pts(-0.06), "-6.0 pts");
    }
}
