//! The files every subcommand takes, read by the library's
//! [`input::load`] with the options of this run (`--report N`, tools on
//! `PATH`); here they are only handed to each command.

use std::path::Path;
use std::sync::OnceLock;

use profiler_report::input::{self, Input, LoadOptions, Run};

use crate::error::CliError;

/// Reads a text file (settings the commands take), naming it in the error.
pub(crate) fn read_text(path: &Path) -> Result<String, CliError> {
    Ok(input::read_text(path)?)
}

/// The load options of this run; set once from the global options before
/// any file is read.
static OPTIONS: OnceLock<LoadOptions> = OnceLock::new();

/// Records `--report N` for every Nsight Systems input of this run.
pub(crate) fn pick_report(n: Option<usize>) {
    let _ = OPTIONS.set(LoadOptions::from_env(n));
}

/// The load options of this run.
fn options() -> &'static LoadOptions {
    OPTIONS.get_or_init(|| LoadOptions::from_env(None))
}

/// Reads any input (see [`input::load`]).
pub(crate) fn load(path: &Path) -> Result<Input, CliError> {
    Ok(input::load(path, options())?)
}

/// Reads a run for the reports that take a profile (see [`Run::load`]).
pub(crate) fn load_run(path: &Path) -> Result<Run, CliError> {
    Ok(Run::load(path, options())?)
}

/// A file's stem, for labels.
pub(crate) fn stem(path: &Path) -> String {
    // A gzipped file is named after what it holds: `run.json.gz` is `run`,
    // as `run.json` is.
    let unzipped;
    let path = match path.extension() {
        Some(ext) if ext.eq_ignore_ascii_case("gz") => {
            unzipped = path.with_extension("");
            unzipped.as_path()
        }
        _ => path,
    };
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}
