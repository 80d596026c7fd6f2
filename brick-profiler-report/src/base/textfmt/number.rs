//! Plain numbers: readable decimals, thousands separators, percentages and
//! signed changes, axis ticks. Every one prints a non-finite value as a
//! dash.

use super::units::{DASH, si};

/// A number with enough decimals to stay readable at any magnitude:
/// `1234.5`, `12.35`, `0.123`, `0.0012`; `0` for zero; a dash when not
/// finite, so no output ever shows `NaN` or `inf`.
pub(crate) fn num(v: f64) -> String {
    if !v.is_finite() {
        return DASH.to_owned();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".to_owned()
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else if a >= 1e-4 {
        format!("{v:.5}")
    } else {
        format!("{v:.2e}")
    }
}

/// A number with exactly `decimals` decimals; a dash when not finite.
pub(crate) fn fixed(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        DASH.to_owned()
    }
}

/// An integer with thousands separators, e.g. `1,234,567`.
pub(crate) fn int(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A percentage with one decimal, `42.0%`; small ones keep their digits
/// (`0.019%`, never a misleading `0.0%`); a dash when not finite.
pub(crate) fn pct(v: f64) -> String {
    if !v.is_finite() {
        DASH.to_owned()
    } else if v != 0.0 && v.abs() < 0.1 {
        format!("{}%", num(v))
    } else {
        format!("{v:.1}%")
    }
}

/// A relative change as a signed percentage with one decimal: `+10.9%`,
/// `-9.8%` (`delta` 0.109 and -0.098).
pub(crate) fn signed_pct(delta: f64) -> String {
    if delta.is_finite() {
        format!("{:+.1}%", no_negative_zero(delta * 100.0))
    } else {
        DASH.to_owned()
    }
}

/// An absolute change of a share as signed percentage points: `-6.0 pts`.
pub(crate) fn signed_pts(delta: f64) -> String {
    if delta.is_finite() {
        format!("{:+.1} pts", no_negative_zero(delta * 100.0))
    } else {
        DASH.to_owned()
    }
}

/// A value that rounds to zero at one decimal prints as `+0.0`, never `-0.0`.
fn no_negative_zero(v: f64) -> f64 {
    if v.abs() < 0.05 { 0.0 } else { v }
}

/// An axis tick: [`si`] without the space, `0`, `500`, `1.5k`,
/// `20k`, `1.25M`.
pub(crate) fn si_tick(v: f64) -> String {
    si(v).replace(' ', "")
}

/// Nanoseconds as milliseconds.
pub(crate) fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// `part / whole`, or `None` when it would not be a finite number.
pub(crate) fn ratio(part: f64, whole: f64) -> Option<f64> {
    let r = part / whole;
    (whole != 0.0 && r.is_finite()).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_never_render_non_finite() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let shown = [
                num(v),
                fixed(v, 2),
                pct(v),
                signed_pct(v),
                signed_pts(v),
                si_tick(v),
            ];
            assert!(shown.iter().all(|s| s == DASH), "{shown:?}");
        }
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(0.0, 0.0), None);
        assert_eq!(ratio(1.0, 4.0), Some(0.25));
    }

    #[test]
    fn numbers_keep_readable_precision() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1234.56), "1234.6");
        assert_eq!(num(12.345_6), "12.35");
        assert_eq!(num(1.5), "1.500");
        assert_eq!(num(0.001_23), "0.00123");
        assert_eq!(num(1.5e-7), "1.50e-7");
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(1_000), "1,000");
        assert_eq!(int(1_234_567), "1,234,567");
        assert_eq!(fixed(2.0, 2), "2.00");
    }

    #[test]
    fn percentages_and_changes_carry_their_sign() {
        assert_eq!((pct(12.345), pct(42.04)), ("12.3%".into(), "42.0%".into()));
        assert_eq!((pct(0.0192), pct(0.0)), ("0.019%".into(), "0.0%".into()));
        assert_eq!(signed_pct(0.109), "+10.9%");
        assert_eq!(signed_pct(-0.098), "-9.8%");
        assert_eq!(signed_pct(-0.0001), "+0.0%");
        assert_eq!(signed_pts(-0.0004), "+0.0 pts");
        assert_eq!(signed_pts(-0.06), "-6.0 pts");
    }

    #[test]
    fn ticks_stay_short() {
        let ticks: Vec<String> = [0.0, 500.0, 1_500.0, 20_000.0, 1_250_000.0, -2_000.0, 0.25]
            .into_iter()
            .map(si_tick)
            .collect();
        assert_eq!(ticks, ["0", "500", "1.5k", "20k", "1.25M", "-2k", "0.25"]);
    }
}
