//! Text shared by the DOT and ASCII exports: node details (durations and
//! sizes from [`crate::units`], as the reports write them), the counters line, and escaping so any name keeps each output valid.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::node::NodeKind;
use super::store::ExecutionGraph;
use crate::units;

/// A duration in the unit that suits it: `512 ns`, `12.5 µs`, `3.2 ms`.
pub(super) fn format_ns(ns: u64) -> String {
    units::duration(ns as f64)
}

/// A size in decimal units: `512 B`, `4.1 KB`, `1.05 MB`.
pub(super) fn format_bytes(bytes: u64) -> String {
    units::bytes(bytes as f64)
}

/// Appends facts about a node beyond its name, each item preceded by `sep`.
// `write!` to a String cannot fail: its results are ignored throughout.
pub(super) fn write_details(out: &mut String, kind: &NodeKind, sep: &str) {
    let time = |out: &mut String, ns: Option<u64>| {
        out.push_str(sep);
        match ns {
            Some(ns) => out.push_str(&format_ns(ns)),
            None => out.push_str("time unknown"),
        }
    };
    match kind {
        NodeKind::Brick {
            timing_ns,
            elements,
            ..
        }
        | NodeKind::CustomBrick {
            timing_ns,
            elements,
            ..
        } => {
            time(out, Some(*timing_ns));
            let _ = write!(out, "{sep}{elements} elements");
        }
        NodeKind::Kernel(k) => {
            let [gx, gy, gz] = k.grid;
            let [bx, by, bz] = k.block;
            let _ = write!(out, "{sep}grid {gx}x{gy}x{gz}{sep}block {bx}x{by}x{bz}");
            if k.shared_mem > 0 {
                let _ = write!(out, "{sep}smem {}", format_bytes(u64::from(k.shared_mem)));
            }
            time(out, k.timing_ns);
            if let Some(ai) = k.arithmetic_intensity.filter(|v| v.is_finite()) {
                let _ = write!(out, "{sep}AI {ai:.2}");
            }
            if let Some(tf) = k.achieved_tflops.filter(|v| v.is_finite()) {
                let _ = write!(out, "{sep}{tf:.2} TFLOP/s");
            }
            if k.ptx_hash != 0 {
                let _ = write!(out, "{sep}ptx {:016x}", k.ptx_hash);
            }
        }
        NodeKind::Transfer(t) => {
            let _ = write!(out, "{sep}{} {}", t.direction, format_bytes(t.bytes));
            time(out, t.timing_ns);
        }
        NodeKind::Function { file, line, .. } => {
            if let Some(file) = file {
                let _ = write!(out, "{sep}{file}");
                if let Some(line) = line {
                    let _ = write!(out, ":{line}");
                }
            }
        }
        NodeKind::Layer { .. } | NodeKind::Step { .. } => {}
        NodeKind::AsyncTask {
            poll_count,
            yield_count,
            total_poll_ns,
            ..
        } => {
            let _ = write!(out, "{sep}{poll_count} polls{sep}{yield_count} yields");
            time(out, Some(*total_poll_ns));
        }
    }
}

/// The node's name, borrowed where the node stores it.
pub(super) fn name_of(kind: &NodeKind) -> Cow<'_, str> {
    match kind {
        NodeKind::Brick { id, .. } => Cow::Borrowed(id.name()),
        NodeKind::CustomBrick { name, .. }
        | NodeKind::Function { name, .. }
        | NodeKind::AsyncTask { name, .. } => Cow::Borrowed(name),
        NodeKind::Kernel(k) => Cow::Borrowed(&k.name),
        other => Cow::Owned(other.name()),
    }
}

/// `5 nodes, 6 edges; dropped 0 nodes, 0 edges` plus scope problems.
pub(super) fn counts_line(graph: &ExecutionGraph) -> String {
    let c = graph.counters();
    let mut s = format!(
        "{} nodes, {} edges; dropped {} nodes, {} edges",
        graph.len(),
        graph.edges().len(),
        c.dropped_nodes,
        c.dropped_edges
    );
    if c.dropped_nodes > 0 || c.dropped_edges > 0 {
        let l = graph.limits();
        let _ = write!(s, " (budget {} nodes, {} edges)", l.max_nodes, l.max_edges);
    }
    if c.open_scopes > 0 {
        let _ = write!(s, "; {} scopes open", c.open_scopes);
    }
    if c.scope_errors > 0 {
        let _ = write!(s, "; {} unbalanced scope pops", c.scope_errors);
    }
    s
}

/// Text for a DOT double-quoted string: `"` and `\` escaped (a backslash
/// would otherwise start an escape such as `\N`), line breaks as `\n`,
/// other control characters as spaces. `<`, `>`, `{`, `}` and `|` need no
/// escape inside a quoted (non-record, non-HTML) label.
pub(super) fn dot_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    dot_escape_into(&mut out, text);
    out
}

/// [`dot_escape`] appending to `out`.
pub(super) fn dot_escape_into(out: &mut String, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push_str("\\n");
                }
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// Appends `text` on one line: line breaks and tabs as `\n`, `\r`, `\t`,
/// other control characters as `\u{..}`.
pub(super) fn one_line_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_sizes_pick_a_readable_unit() {
        let times: Vec<_> = [0, 999, 1_000, 12_500, 3_200_000, 1_250_000_000]
            .into_iter()
            .map(format_ns)
            .collect();
        assert_eq!(
            times,
            ["0 ns", "999 ns", "1 µs", "12.5 µs", "3.2 ms", "1.25 s"]
        );
        let sizes: Vec<_> = [512, 4_096, 1_572_864, 2 << 30]
            .into_iter()
            .map(format_bytes)
            .collect();
        assert_eq!(sizes, ["512 B", "4.1 KB", "1.57 MB", "2.15 GB"]);
    }

    #[test]
    fn dot_escape_keeps_any_name_inside_its_quotes() {
        assert_eq!(dot_escape(r#"say "hi""#), r#"say \"hi\""#);
        assert_eq!(dot_escape(r"a\N\"), r"a\\N\\");
        assert_eq!(
            dot_escape("two\nlines\r\nthree\rfour"),
            r"two\nlines\nthree\nfour"
        );
        assert_eq!(dot_escape("tab\there\u{0}"), "tab here ");
        assert_eq!(dot_escape("<b>{x|y}</b>"), "<b>{x|y}</b>");
    }

    #[test]
    fn one_line_escapes_breaks_and_controls() {
        let mut out = String::from(">");
        one_line_into(&mut out, "a\nb\r\tc\u{1b}");
        assert_eq!(out, r">a\nb\r\tc\u{1b}");
    }
}
