//! Flamegraph SVG from folded stacks, drawn by `inferno`.

use inferno::flamegraph::{Options, from_lines};

use crate::error::ExportError;

/// An interactive flamegraph SVG of folded stack lines (as made by
/// [`folded_stacks`](crate::folded_stacks) or
/// [`TraceAnalyzer::flamegraph_collapsed`](crate::TraceAnalyzer::flamegraph_collapsed)),
/// titled `title`, with counts in µs. Colours derive from frame names, so
/// the same input always gives the same SVG. Names and the title are
/// XML-escaped.
///
/// # Errors
/// [`ExportError::Flamegraph`] when there is nothing to draw (no line with a
/// positive weight) or the renderer fails.
pub fn flamegraph_svg(folded: &str, title: &str) -> Result<String, ExportError> {
    let mut options = Options::default();
    options.title = title.to_owned();
    options.count_name = "µs".to_owned();
    options.deterministic = true;
    let mut svg: Vec<u8> = Vec::new();
    from_lines(&mut options, folded.lines(), &mut svg).map_err(|e| ExportError::Flamegraph {
        message: e.to_string(),
    })?;
    String::from_utf8(svg).map_err(|e| ExportError::Flamegraph {
        message: format!("renderer wrote invalid UTF-8: {e}"),
    })
}
