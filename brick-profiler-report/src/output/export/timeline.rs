//! [`write_timeline`]: the timeline file(s) a profile's run asked for
//! (`Config::trace_format`, recorded as `run.trace_format`): `trace.json`,
//! `trace.pftrace` or both.

use std::path::{Path, PathBuf};

use profiler_core::Profile;

use super::chrome::write_chrome_trace;
use super::perfetto::write_perfetto_trace;
use crate::output::error::ExportError;

/// One file [`write_timeline`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimelineFile {
    /// Where it is (`trace.json` or `trace.pftrace` in the directory).
    pub path: PathBuf,
    /// What the trace lacks (e.g. trace mode was off); the same text is in
    /// the file. Worth printing.
    pub warnings: Vec<String>,
}

/// Writes the timeline of `profile` into `dir` in the format(s) its run
/// recorded (`profile.run.trace_format`, set by `Config::trace_format`):
/// `trace.json` ([`write_chrome_trace`]) and/or `trace.pftrace`
/// ([`write_perfetto_trace`]),
/// JSON first. Both are streamed.
///
/// ```
/// use profiler::profile::TraceFormat;
/// let dir = std::env::temp_dir().join(format!("timeline-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let mut profile = profiler::Profile::empty();
/// profile.run.trace_format = TraceFormat::Perfetto;
/// let files = profiler_report::export::write_timeline(&profile, &dir)?;
/// assert_eq!(files.len(), 1);
/// assert!(files[0].path.ends_with("trace.pftrace"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`ExportError::Write`] naming the file.
pub fn write_timeline(
    profile: &Profile,
    dir: impl AsRef<Path>,
) -> Result<Vec<TimelineFile>, ExportError> {
    let dir = dir.as_ref();
    let format = profile.run.trace_format;
    let mut files = Vec::new();
    if format.json() {
        let path = dir.join("trace.json");
        let warnings = write_chrome_trace(profile, &path)?.warnings;
        files.push(TimelineFile { path, warnings });
    }
    if format.perfetto() {
        let path = dir.join("trace.pftrace");
        let warnings = write_perfetto_trace(profile, &path)?.warnings;
        files.push(TimelineFile { path, warnings });
    }
    Ok(files)
}
