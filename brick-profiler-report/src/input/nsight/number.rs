//! Numbers as the Nsight tools print them: thousands separators
//! (`1,234.5`), a decimal comma in some locales (`9,00`), `n/a`, and units
//! (`usecond`, `Kbyte/block`, `Gbyte/second`) scaled to base units.

/// How a file writes decimals. One file uses one locale, so the style is
/// decided once per file ([`NumberStyle::detect`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum NumberStyle {
    /// `1,234.5`: `,` groups thousands, `.` starts the fraction.
    #[default]
    DecimalPoint,
    /// `1.234,5`: `.` groups thousands, `,` starts the fraction.
    DecimalComma,
}

impl NumberStyle {
    /// [`NumberStyle::DecimalComma`] when some value can only be read that
    /// way (`9,00`, `1.234,5`) and none only the other way; `1,234` alone
    /// is read with a decimal point.
    pub(crate) fn detect<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let (mut point, mut comma) = (false, false);
        for v in values {
            let v = v.trim();
            if !v.contains([',', '.']) {
                continue;
            }
            let as_point = digits(v, Self::DecimalPoint).is_some();
            let as_comma = digits(v, Self::DecimalComma).is_some();
            point |= as_point && !as_comma;
            comma |= as_comma && !as_point;
        }
        if comma && !point {
            Self::DecimalComma
        } else {
            Self::DecimalPoint
        }
    }

    fn separators(self) -> (char, char) {
        match self {
            Self::DecimalPoint => (',', '.'),
            Self::DecimalComma => ('.', ','),
        }
    }
}

/// Why a value is not a number.
pub(crate) const NOT_A_NUMBER: &str = "is not a number";

/// Parses `text` in `style`: `Ok(None)` for an empty value or `n/a`, an
/// error for anything else that is not a finite number.
pub(crate) fn parse_number(text: &str, style: NumberStyle) -> Result<Option<f64>, &'static str> {
    let t = text.trim();
    if not_available(t) {
        return Ok(None);
    }
    let plain = digits(t, style).ok_or(NOT_A_NUMBER)?;
    let v: f64 = plain.parse().map_err(|_| NOT_A_NUMBER)?;
    if v.is_finite() {
        Ok(Some(v))
    } else {
        Err("is not finite")
    }
}

/// Whether a value is the tools' way of saying "no value": empty, `n/a`,
/// `-`, or a `(!)` marker.
pub(crate) fn not_available(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.eq_ignore_ascii_case("n/a") || t == "-" || t.starts_with("(!)")
}

/// `text` with grouping removed and a `.` decimal, if it is a well-formed
/// number in `style`: sign, digits grouped by three (or not at all), an
/// optional fraction and exponent.
fn digits(text: &str, style: NumberStyle) -> Option<String> {
    let (group, decimal) = style.separators();
    let (sign, rest) = match text.strip_prefix(['-', '+']) {
        Some(r) => (&text[..1], r),
        None => ("", text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.split_once(decimal) {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let groups: Vec<&str> = int.split(group).collect();
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let grouped_ok = match groups.as_slice() {
        [one] => all_digits(one),
        [first, rest @ ..] => {
            all_digits(first)
                && first.len() <= 3
                && rest.iter().all(|g| g.len() == 3 && all_digits(g))
        }
        [] => false,
    };
    if !grouped_ok || frac.is_some_and(|f| !all_digits(f)) {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        if !all_digits(e) {
            return None;
        }
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(sign);
    out.push_str(&groups.concat());
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    if let Some(e) = exponent {
        out.push('e');
        out.push_str(e);
    }
    Some(out)
}

/// What a metric measures, and so which units it may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quantity {
    /// Time, scaled to ns.
    Time,
    /// Bytes (also per block), scaled to bytes.
    Bytes,
    /// Bytes per second, scaled to bytes/s.
    BytesPerSecond,
    /// A percentage (`%`).
    Percent,
    /// A count or ratio: any unit, not scaled.
    Count,
}

impl Quantity {
    /// What this quantity is called in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Time => "a time",
            Self::Bytes => "a size in bytes",
            Self::BytesPerSecond => "a bandwidth",
            Self::Percent => "a percentage",
            Self::Count => "a count",
        }
    }

    /// The factor that scales a value in `unit` to this quantity's base
    /// unit, or `None` when `unit` does not measure it. An empty unit is
    /// the base unit.
    pub(crate) fn scale(self, unit: &str) -> Option<f64> {
        let unit = unit.trim();
        match self {
            Self::Count => Some(1.0),
            Self::Percent => matches!(unit, "%" | "").then_some(1.0),
            Self::Time => match unit {
                "" | "ns" | "nsecond" | "nsec" => Some(1.0),
                "us" | "usecond" | "usec" | "µs" | "μs" => Some(1e3),
                "ms" | "msecond" | "msec" => Some(1e6),
                "s" | "second" | "sec" => Some(1e9),
                _ => None,
            },
            Self::Bytes => {
                let unit = unit.strip_suffix("/block").unwrap_or(unit);
                byte_prefix(unit)
            }
            Self::BytesPerSecond => {
                let base = unit
                    .strip_suffix("/second")
                    .or_else(|| unit.strip_suffix("/s"))?;
                byte_prefix(base)
            }
        }
    }
}

/// Decimal byte multiples as Nsight Compute writes them (it prints 1 KiB of
/// shared memory as `1.02 Kbyte`).
fn byte_prefix(unit: &str) -> Option<f64> {
    match unit {
        "" | "byte" | "B" => Some(1.0),
        "Kbyte" | "KB" | "kB" => Some(1e3),
        "Mbyte" | "MB" => Some(1e6),
        "Gbyte" | "GB" => Some(1e9),
        "Tbyte" | "TB" => Some(1e12),
        "KiB" => Some(1024.0),
        "MiB" => Some(1_048_576.0),
        "GiB" => Some(1_073_741_824.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators_and_decimals() {
        let p = NumberStyle::DecimalPoint;
        assert_eq!(parse_number("1,234.5", p), Ok(Some(1234.5)));
        assert_eq!(parse_number(" 12,345,678 ", p), Ok(Some(12_345_678.0)));
        assert_eq!(parse_number("-3.5e2", p), Ok(Some(-350.0)));
        assert_eq!(parse_number("n/a", p), Ok(None));
        assert_eq!(parse_number("", p), Ok(None));
        assert!(parse_number("12,34", p).is_err(), "groups are three digits");
        assert!(parse_number("1,2345", p).is_err());
        assert!(parse_number("abc", p).is_err());
        assert!(parse_number("1e999", p).is_err(), "not finite");
        assert!(parse_number("NaN", p).is_err());
        let c = NumberStyle::DecimalComma;
        assert_eq!(parse_number("9,00", c), Ok(Some(9.0)));
        assert_eq!(parse_number("1.234,5", c), Ok(Some(1234.5)));
    }

    #[test]
    fn style_is_decided_by_unambiguous_values() {
        assert_eq!(
            NumberStyle::detect(["1,234", "5.5"]),
            NumberStyle::DecimalPoint
        );
        assert_eq!(
            NumberStyle::detect(["1,234", "9,00", "12"]),
            NumberStyle::DecimalComma
        );
        assert_eq!(
            NumberStyle::detect(["9,00", "1,234.5"]),
            NumberStyle::DecimalPoint,
            "conflicting values keep the default"
        );
        assert_eq!(NumberStyle::detect(["1,234"]), NumberStyle::DecimalPoint);
    }

    #[test]
    fn units_scale_to_base() {
        assert_eq!(Quantity::Time.scale("usecond"), Some(1e3));
        assert_eq!(Quantity::Time.scale("msecond"), Some(1e6));
        assert_eq!(Quantity::Time.scale("%"), None);
        assert_eq!(Quantity::Bytes.scale("Kbyte/block"), Some(1e3));
        assert_eq!(Quantity::BytesPerSecond.scale("Gbyte/second"), Some(1e9));
        assert_eq!(Quantity::BytesPerSecond.scale("Gbyte"), None);
        assert_eq!(Quantity::Percent.scale("%"), Some(1.0));
        assert_eq!(Quantity::Percent.scale("inst"), None);
        assert_eq!(Quantity::Count.scale("register/thread"), Some(1.0));
    }
}
