//! Numbers as the scorecard prints them, in its own units: rates in tokens
//! per second (`11.7 k tok/s`), step times given in milliseconds, and shares
//! in `[0, 1]` as percentages. The formatting itself is the shared one.

pub(crate) use crate::base::textfmt::{bytes, si, signed_pct, signed_pts};
use crate::base::textfmt::{duration, pct as percent};

/// Tokens per second: `11.7 k tok/s`; a dash alone when not finite.
pub(crate) fn tok_s(v: f64) -> String {
    if v.is_finite() {
        format!("{} tok/s", si(v))
    } else {
        crate::base::textfmt::DASH.to_owned()
    }
}

/// A time given in milliseconds: `24.3 ms`, `112 µs`.
pub(crate) fn ms(v: f64) -> String {
    duration(v * 1e6)
}

/// A share in `[0, 1]` as a percentage with one decimal: `42.0%`.
pub(crate) fn pct(share: f64) -> String {
    percent(share * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::textfmt::DASH;

    #[test]
    fn scorecard_units_convert_before_formatting() {
        assert_eq!(tok_s(11_746.0), "11.7 k tok/s");
        assert_eq!(tok_s(f64::NAN), DASH);
        assert_eq!(ms(24.31), "24.3 ms");
        assert_eq!(ms(0.1123), "112 µs");
        assert_eq!(ms(0.0), "0 ns");
        assert_eq!(pct(0.5), "50.0%");
        assert_eq!(pct(f64::NAN), DASH);
    }
}
