//! Text formatting shared by every renderer: numbers that never print
//! `NaN` or `inf`, thousands separators, SI prefixes, durations, and
//! Markdown escaping.

/// What a value that cannot be shown renders as.
pub(crate) const DASH: &str = "–";

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

/// A rate with an SI prefix: `950`, `12.4 k`, `1.20 M`, `3.40 G`, `5.00 T`
/// (a dash when not finite).
pub(crate) fn si(v: f64) -> String {
    if !v.is_finite() {
        return DASH.to_owned();
    }
    let a = v.abs();
    for (scale, prefix) in [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if a >= scale {
            return format!("{} {prefix}", trim_zeros(&format!("{:.2}", v / scale)));
        }
    }
    num(v)
}

/// `"1.50"` -> `"1.5"`, `"2.00"` -> `"2"`.
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A duration in ns with a readable unit: `850.0 ns`, `12.35 µs`,
/// `1.235 ms`, `2.000 s`; a dash when not finite.
pub(crate) fn ns_time(ns: f64) -> String {
    if !ns.is_finite() {
        return DASH.to_owned();
    }
    let a = ns.abs();
    if a >= 1e9 {
        format!("{} s", num(ns / 1e9))
    } else if a >= 1e6 {
        format!("{} ms", num(ns / 1e6))
    } else if a >= 1e3 {
        format!("{} µs", num(ns / 1e3))
    } else {
        format!("{} ns", num(ns))
    }
}

/// Markdown table-cell text: see [`md_line`]; `|` is escaped too.
pub(crate) fn md_cell(text: &str) -> String {
    md_line(text).replace('|', "\\|")
}

/// Markdown text on one line, shown as written: line breaks flattened (they
/// would end a list item or heading), characters that would start markup
/// (`\`, `` ` ``, `*`, `[`, `]`, `<`, `>`, `&`) backslash-escaped, control
/// characters replaced. `_` stays: inside names like `train_tiny` it cannot
/// start emphasis.
pub(crate) fn md_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\r' | '\n' => out.push(' '),
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '&' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
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

/// Pretty JSON of a report. Reports hold plain numbers, strings and
/// string-keyed maps, which always serialise; non-finite numbers become
/// `null`, so the text never holds `NaN` or `inf`.
pub(crate) fn pretty_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_never_render_non_finite() {
        assert_eq!(num(f64::NAN), DASH);
        assert_eq!(num(f64::INFINITY), DASH);
        assert_eq!(num(1234.56), "1234.6");
        assert_eq!(num(0.5), "0.500");
        assert_eq!(num(0.00012), "0.00012");
        assert_eq!(si(f64::NEG_INFINITY), DASH);
        assert_eq!(si(1.5e12), "1.5 T");
        assert_eq!(si(2e9), "2 G");
        assert_eq!(si(12.0), "12.00");
        assert_eq!(ns_time(850.0), "850.0 ns");
        assert_eq!(ns_time(12_345.0), "12.35 µs");
        assert_eq!(ns_time(1_234_560.0), "1.235 ms");
        assert_eq!(ns_time(f64::NAN), DASH);
    }

    #[test]
    fn numbers_keep_readable_precision() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(12.345_6), "12.35");
        assert_eq!(num(1.5), "1.500");
        assert_eq!(num(0.001_23), "0.00123");
        assert_eq!(num(1.5e-7), "1.50e-7");
        assert_eq!(int(0), "0");
        assert_eq!(int(999), "999");
        assert_eq!(int(1_000), "1,000");
        assert_eq!(int(1_234_567), "1,234,567");
        assert_eq!(si(0.0), "0");
        assert_eq!(si(950.0), "950.0");
        assert_eq!(si(12_345.0), "12.35 k");
        assert_eq!(si(1.2e6), "1.2 M");
        assert_eq!(si(5e12), "5 T");
    }

    #[test]
    fn markdown_cells_stay_in_their_cell() {
        assert_eq!(md_cell("a|b\nc"), "a\\|b c");
        assert_eq!(md_cell("x\\|"), "x\\\\\\|");
        assert_eq!(md_line("<b>&`x`*\u{1}"), "\\<b\\>\\&\\`x\\`\\*\u{FFFD}");
        assert_eq!(md_line("train_tiny [v2]"), "train_tiny \\[v2\\]");
        assert_eq!(
            (pct(12.345), pct(f64::NAN)),
            ("12.3%".to_owned(), DASH.to_owned())
        );
        assert_eq!(
            (pct(0.0192), pct(0.0)),
            ("0.019%".to_owned(), "0.0%".to_owned())
        );
    }
}
