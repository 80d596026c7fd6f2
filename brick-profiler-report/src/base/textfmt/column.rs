//! Names in fixed-width terminal columns: shown through the terminal
//! sanitiser first, so control and bidi characters never reach the screen.

use crate::base::escape::visible;

/// `name` as [`visible`] shows it (one line, no escape sequences, no bidi
/// controls), cut to `width` characters with `…` and padded to `width`.
pub(crate) fn fit(name: &str, width: usize) -> String {
    format!("{:<width$}", cut(name, width))
}

/// `name` as [`visible`] shows it, cut to at most `width` characters with
/// `…` (not padded: for labels and cells that size themselves).
pub(crate) fn cut(name: &str, width: usize) -> String {
    let shown = visible(name);
    if shown.chars().count() > width {
        let mut cut: String = shown.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        shown.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_and_padded_to_the_column() {
        assert_eq!(fit("Gemm", 6), "Gemm  ");
        assert_eq!(fit("LongBrickName", 6), "LongB…");
        assert_eq!(fit("", 9), "(unnamed)");
        assert_eq!(cut("LongBrickName", 6), "LongB…");
        assert_eq!(cut("a\nb", 6), "a\\nb");
    }

    #[test]
    fn controls_and_bidi_never_reach_the_terminal() {
        for name in [
            "\u{202e}evil",
            "a\u{2066}b\u{2069}",
            "x\u{200e}\u{200f}",
            "\x1b[31mred",
            "two\nlines",
            "c1\u{9b}31m",
        ] {
            let shown = fit(name, 12);
            assert_eq!(shown.chars().count(), 12, "{shown:?}");
            assert!(
                !shown.chars().any(|c| c.is_control()
                    || matches!(u32::from(c), 0x202a..=0x202e | 0x2066..=0x2069 | 0x200e | 0x200f)),
                "{name:?} shown as {shown:?}"
            );
        }
        assert_eq!(fit("\u{202e}evil", 20).trim_end(), "\\u{202e}evil");
    }
}
