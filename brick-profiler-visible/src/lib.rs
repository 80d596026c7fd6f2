//! [`visible`]: a name as humans read it, the base of every text sanitiser
//! of the brick profiler. A leaf crate, so the reports and the live metrics
//! (a Pushgateway's answer on stderr) share the one escaper of terminal
//! text without depending on each other.

use std::borrow::Cow;
use std::fmt::Write as _;

/// What a blank name (empty or only whitespace) is shown as.
pub const UNNAMED: &str = "(unnamed)";

/// A name as humans read it, in one line: `(unnamed)` when blank; control characters
/// (C0, DEL, C1), bidirectional controls, line and paragraph separators and
/// Unicode non-characters as visible escapes (`\n`, `\r`, `\t`, `\0`,
/// `\x1b`, `\u{202e}`); everything else, backslashes included, as is.
///
/// Those characters are what breaks outputs: line breaks end table rows and
/// records, escape sequences drive the terminal, bidi controls reorder what
/// is shown (a name can then pose as another), and XML and HTML forbid
/// control and non-characters even as character references.
pub fn visible(text: &str) -> Cow<'_, str> {
    if text.trim().is_empty() {
        return Cow::Borrowed(UNNAMED);
    }
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether [`visible`] escapes `c`.
fn needs_escape(c: char) -> bool {
    let u = u32::from(c);
    c.is_control() // C0, DEL and C1
        || matches!(u, 0x061c | 0x200e | 0x200f | 0x2028 | 0x2029)
        || (0x202a..=0x202e).contains(&u)
        || (0x2066..=0x2069).contains(&u)
        || (0xfdd0..=0xfdef).contains(&u)
        || u & 0xfffe == 0xfffe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_bidi_and_noncharacters_become_visible() {
        assert_eq!(
            visible("a\nb\r\t\0\x1b[31m\u{7f}\u{9b}"),
            "a\\nb\\r\\t\\0\\x1b[31m\\x7f\\u{9b}"
        );
        assert_eq!(
            visible("\u{202e}evil\u{2066}\u{200f}"),
            "\\u{202e}evil\\u{2066}\\u{200f}"
        );
        assert_eq!(visible("x\u{fffe}\u{10ffff}"), "x\\u{fffe}\\u{10ffff}");
        assert_eq!(visible("line\u{2028}sep"), "line\\u{2028}sep");
    }

    #[test]
    fn plain_names_are_borrowed_and_blank_ones_named() {
        for name in ["Gemm", "a\\b", "emoji 🔥", "ünïcödé", "x 123"] {
            assert!(
                matches!(visible(name), Cow::Borrowed(n) if n == name),
                "{name}"
            );
        }
        assert_eq!(visible(""), UNNAMED);
        assert_eq!(visible(" \t "), UNNAMED);
    }
}
