//! Frame names for folded stacks (`frame;frame;frame count` lines, the input
//! of flamegraph tools such as inferno and flamegraph.pl).

use std::borrow::Cow;

/// What replaces the space before a trailing number, or after a leading
/// `#`: U+00A0 NO-BREAK SPACE, which looks the same but is not the ASCII
/// space that folded-stack readers split on.
pub(crate) const NUMBER_SPACE: char = '\u{a0}';

/// A name made safe for one folded-stack frame.
///
/// - [`visible`](super::visible::visible) first: a line break would end the record,
///   control characters are invalid in the SVG drawn from it, and a blank
///   name becomes `(unnamed)` instead of an empty frame (`step;;`).
/// - `;` separates frames, so it becomes `_`.
/// - Surrounding whitespace goes (readers trim lines, so it could not
///   survive anyway).
/// - A frame must never end in ` <number>`: readers take a line ending in
///   two numbers as a *differential* profile, so `microbatch 1` and
///   `microbatch 2` would merge into one frame `microbatch` with a delta.
///   The space before a trailing number becomes a no-break space
///   ([`NUMBER_SPACE`]): `microbatch 1` reads `microbatch 1` but stays
///   its own frame.
/// - A leading `# ` marks a comment line, so its space becomes a no-break
///   space too.
pub(crate) fn frame(name: &str) -> Cow<'_, str> {
    let shown = super::visible::visible(name);
    let trimmed = shown.trim();
    let number_at = trailing_number(trimmed);
    if trimmed == name && number_at.is_none() && !name.contains(';') && !name.starts_with("# ") {
        return Cow::Borrowed(name);
    }
    let mut out = trimmed.replace(';', "_");
    let mut space = [0; 4];
    let space: &str = NUMBER_SPACE.encode_utf8(&mut space);
    if let Some(at) = number_at {
        out.replace_range(at..=at, space);
    }
    if out.starts_with("# ") {
        out.replace_range(1..2, space);
    }
    Cow::Owned(out)
}

/// Byte index of the space before a trailing ` <digits and dots>`.
fn trailing_number(text: &str) -> Option<usize> {
    let space = text.rfind(' ')?;
    let tail = &text[space + 1..];
    (!tail.is_empty() && tail.chars().all(|c| c.is_ascii_digit() || c == '.')).then_some(space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_line_breaks_cannot_add_frames_or_lines() {
        assert_eq!(frame("a;b"), "a_b");
        assert_eq!(
            frame("evil\nfake_root 999999"),
            "evil\\nfake_root\u{a0}999999"
        );
        assert!(matches!(frame("layer 0 fwd"), Cow::Borrowed("layer 0 fwd")));
    }

    #[test]
    fn trailing_numbers_blank_names_and_comments() {
        assert_eq!(frame("microbatch 1"), "microbatch\u{a0}1");
        assert_eq!(frame("x 1.5"), "x\u{a0}1.5");
        assert_eq!(frame("x 1 2"), "x 1\u{a0}2");
        assert_eq!(frame("step 12a"), "step 12a");
        assert_eq!(frame(""), "(unnamed)");
        assert_eq!(frame("  "), "(unnamed)");
        assert_eq!(frame(" padded "), "padded");
        assert_eq!(frame("# note"), "#\u{a0}note");
        // Sanitised frames are fixed points: writers may sanitise again.
        for name in ["microbatch 1", "a;b 7", "# 3", "\0 9", ""] {
            let once = frame(name).into_owned();
            assert_eq!(frame(&once), once, "{name:?}");
        }
    }
}
