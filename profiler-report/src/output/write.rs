//! Writing rendered text to disk atomically (temporary file, then rename),
//! so a reader never sees a half-written export or report.

use std::path::Path;

use crate::output::error::ExportError;

/// Writes `text` to `path` atomically.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), ExportError> {
    profiler_core::fs::write_atomic(path, text.as_bytes()).map_err(|source| ExportError::Write {
        path: path.to_path_buf(),
        source,
    })
}
