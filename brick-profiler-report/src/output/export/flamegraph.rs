//! Flamegraph SVG from folded stacks, drawn by `inferno`. The lines are read
//! and their frames re-sanitised here first, so the SVG is valid XML and
//! every frame is the one written, whatever text comes in.

use std::collections::BTreeMap;

use inferno::flamegraph::{Options, TextTruncateDirection, from_lines};

use crate::base::escape;
use crate::output::error::ExportError;

/// Largest total drawn at full scale: 2^53 µs (285 years), up to which an
/// f64 (inferno's widths and percentages) still holds every count exactly.
const MAX_TOTAL: u128 = 1 << 53;

/// The subtitle of a graph whose stacks are all one frame deep.
const FLAT: &str = "flat: every stack is one frame, so there is no nesting to show (a run \
                    recorded without trace mode has per-brick totals only)";

/// An interactive flamegraph SVG of folded stack lines (as made by
/// [`folded_stacks`](super::folded::folded_stacks) or
/// [`trace::flamegraph_collapsed`](crate::analysis::trace::flamegraph_collapsed)),
/// titled `title`, with counts in µs. Colours derive from frame names, so
/// the same input always gives the same SVG.
///
/// Each line is `frame;frame;... count`: the count is a whole number (a
/// fraction is truncated, a count beyond `u64::MAX` saturates), lines of
/// identical stacks add up, empty lines and `# ` comment lines are skipped.
/// A line ending in two numbers is *not* a differential profile here: the
/// first number belongs to the last frame. Frames are sanitised as
/// `folded_stacks` does (escaped control characters, `(unnamed)` for blank
/// frames, a no-break space before a trailing number), and the title has
/// its control characters escaped, so the SVG is valid XML for any input.
///
/// When every stack is a single frame the graph is flat, and its subtitle
/// says so: there is no nesting to show (a profile recorded without trace
/// mode folds to per-brick totals).
///
/// When the counts add up to more than 2^53 µs (garbage data: 285 years),
/// they are drawn in units of a power-of-two multiple of µs, named in every
/// tooltip and the subtitle, so nothing overflows and no count is clamped.
///
/// # Errors
/// [`ExportError::FoldedLine`] naming the line without a count or with a
/// count that is not a number; [`ExportError::EmptyFlamegraph`] when no
/// stack has a positive count; [`ExportError::Flamegraph`] when the renderer
/// fails.
pub fn flamegraph_svg(folded: &str, title: &str) -> Result<String, ExportError> {
    let stacks = read_folded(folded)?;
    let total = stacks.values().fold(0u128, |a, &c| a.saturating_add(c));
    if total == 0 {
        return Err(ExportError::EmptyFlamegraph);
    }
    let scale = total.div_ceil(MAX_TOTAL).next_power_of_two();
    // Scaled counts are at most 2^53: each fits a u64 and their sum cannot
    // overflow inferno's counters. Every stack keeps at least 1.
    let lines: Vec<String> = stacks
        .iter()
        .map(|(stack, &count)| format!("{stack} {}", (count / scale).max(1)))
        .collect();

    let mut options = Options::default();
    options.title = escape::visible(title).into_owned();
    options.count_name = "µs".to_owned();
    options.deterministic = true;
    // Labels too long for their frame keep their start ("QkvProj..") rather
    // than their end ("..rd"): the script that redraws them on load reads
    // this setting too.
    options.text_truncate_direction = TextTruncateDirection::Right;
    let mut subtitle = Vec::new();
    if stacks.keys().all(|stack| !stack.contains(';')) {
        // Frames are sanitised, so `;` only ever separates frames.
        subtitle.push(FLAT.to_owned());
    }
    if scale > 1 {
        // Counts in units of `scale` µs, so no shown count is clamped.
        options.count_name = format!("× {scale} µs");
        subtitle.push(format!(
            "over 2^53 µs in total: counts shown in units of {scale} µs (rounded down)"
        ));
    }
    if !subtitle.is_empty() {
        options.subtitle = Some(subtitle.join("; "));
    }
    let mut svg: Vec<u8> = Vec::new();
    from_lines(&mut options, lines.iter().map(String::as_str), &mut svg).map_err(|e| {
        ExportError::Flamegraph {
            message: e.to_string(),
        }
    })?;
    String::from_utf8(svg).map_err(|e| ExportError::Flamegraph {
        message: format!("renderer wrote invalid UTF-8: {e}"),
    })
}

/// Stacks with positive counts, frames sanitised, identical stacks summed.
fn read_folded(folded: &str) -> Result<BTreeMap<String, u128>, ExportError> {
    let mut stacks: BTreeMap<String, u128> = BTreeMap::new();
    for (index, line) in folded.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("# ") {
            continue;
        }
        let bad = |reason: String| ExportError::FoldedLine {
            line: index + 1,
            reason,
        };
        let (stack, count) = line
            .rsplit_once(' ')
            .ok_or_else(|| bad("no count after the stack (`frame;frame count`)".to_owned()))?;
        let count = parse_count(count)
            .ok_or_else(|| bad(format!("count `{count}` is not a non-negative number")))?;
        if count == 0 {
            continue;
        }
        let mut frames = String::with_capacity(stack.len());
        for (i, frame) in stack.split(';').enumerate() {
            if i > 0 {
                frames.push(';');
            }
            frames.push_str(&escape::frame(frame));
        }
        let sum = stacks.entry(frames).or_default();
        *sum = sum.saturating_add(count);
    }
    Ok(stacks)
}

/// `digits[.digits]` as a whole number, saturating at `u64::MAX`.
fn parse_count(text: &str) -> Option<u128> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) {
        return None;
    }
    // Only overflow can fail now: saturate.
    Some(u128::from(whole.parse::<u64>().unwrap_or(u64::MAX)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_truncate_and_saturate() {
        assert_eq!(parse_count("12"), Some(12));
        assert_eq!(parse_count("12.9"), Some(12));
        assert_eq!(
            parse_count("99999999999999999999999"),
            Some(u128::from(u64::MAX))
        );
        for bad in ["", ".5", "-1", "1e3", "x", "1.2.3"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }

    #[test]
    fn lines_are_read_sanitised_and_summed() {
        let stacks = read_folded("a;b 1 2\n\n# note\na;b\u{a0}1 3\nz 0\n;x 1.9\n").unwrap();
        assert_eq!(
            stacks.into_iter().collect::<Vec<_>>(),
            [("(unnamed);x".to_owned(), 1), ("a;b\u{a0}1".to_owned(), 5)]
        );
        let err = read_folded("a 1\nb\n").unwrap_err();
        assert!(
            matches!(err, ExportError::FoldedLine { line: 2, .. }),
            "{err}"
        );
        let err = read_folded("a x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "folded stacks line 1: count `x` is not a non-negative number"
        );
    }
}
