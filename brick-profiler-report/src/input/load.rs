//! [`load`]: a file as the commands give it, beyond what [`open`](super::open)
//! tells from its content: a binary Nsight report is exported with its tool
//! found on `PATH`, and one kernel summary is picked from `nsys stats`
//! output that holds several (`FILE#N` for one file, [`LoadOptions::report`]
//! for every file).

use std::ffi::OsString;
use std::path::Path;

use super::error::InputError;
use super::file::read_text;
use super::format::Input;
use super::nsight::{NsightTool, binary_report_tool, parse_ncu_csv};
use super::nsight::{parse_nsys_report, parse_nsys_stats};
use super::open::open;
use crate::model::nsight::ImportError;

/// How [`load`] reads what [`open`](super::open) alone cannot.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The kernel summary (1-based) read from `nsys stats` output, for
    /// every Nsight Systems input (`--report N`); refused where there is no
    /// N-th. `None` reads the one summary and refuses several.
    pub report: Option<usize>,
    /// Where `ncu` and `nsys` are looked up to export a binary report (the
    /// value of `PATH`); `None` finds no tool.
    pub tool_path: Option<OsString>,
}

impl LoadOptions {
    /// `report` picked, tools looked up on this process's `PATH`.
    #[must_use]
    pub fn from_env(report: Option<usize>) -> Self {
        Self {
            report,
            tool_path: std::env::var_os("PATH"),
        }
    }
}

/// Reads any input: `FILE#N` (for a file that does not exist under that
/// whole name) reads the N-th kernel summary of `nsys stats` output that
/// holds several; a binary Nsight report (`.ncu-rep`, `.nsys-rep`,
/// `.qdrep`, `.sqlite`) is exported with its tool; anything else is
/// [`open`](super::open)ed.
///
/// # Errors
/// [`InputError`] naming the file; a missing or failing tool, a summary
/// that is not there, or several where none was picked are
/// [`InputError::Import`].
pub fn load(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Input, InputError> {
    let path = path.as_ref();
    let origin = path.display().to_string();
    if let Some((file, n)) = report_suffix(path) {
        let mut report = parse_nsys_report(&read_text(file)?, &file.display().to_string(), n)
            .map_err(|e| flag_named(e, &origin))?;
        report.origin = origin;
        return Ok(Input::Nsys(report));
    }
    let Some(tool) = binary_report_tool(path) else {
        // A pick applies where there are several summaries, and is refused
        // where there is no N-th, one summary or several, like `FILE#N`.
        let pick = options.report;
        return match open(path) {
            Err(InputError::Import(ImportError::SeveralReports { .. })) if pick.is_some() => {
                nsys(&read_text(path)?, &origin, pick)
            }
            Ok(Input::Nsys(_)) if pick.is_some_and(|n| n != 1) => {
                nsys(&read_text(path)?, &origin, pick)
            }
            other => other,
        };
    };
    if !path.is_file() {
        return Err(InputError::NoSuchFile { origin });
    }
    let t = NsightTool::find(tool, options.tool_path.as_deref())?;
    Ok(if tool == "ncu" {
        Input::Ncu(parse_ncu_csv(&t.ncu_export(path)?, &origin)?)
    } else {
        nsys(&t.nsys_stats(path)?, &origin, options.report)?
    })
}

/// Reads `nsys stats` text: the one summary, or the one `pick` names.
fn nsys(text: &str, origin: &str, pick: Option<usize>) -> Result<Input, InputError> {
    Ok(Input::Nsys(match pick {
        Some(n) => parse_nsys_report(text, origin, n)
            .map_err(|e| flag_named(e, &format!("--report {n}")))?,
        None => parse_nsys_stats(text, origin)?,
    }))
}

/// The reader names the summary it could not find by number; here it was
/// asked for by `flag` (`--report N` or `FILE#N`).
fn flag_named(e: ImportError, flag: &str) -> ImportError {
    match e {
        ImportError::InvalidOption { reason, .. } => ImportError::InvalidOption {
            option: format!("`{flag}`"),
            reason,
        },
        other => other,
    }
}

/// `FILE#N` for a file that does not exist under that whole name: `FILE`
/// and `N`, the kernel summary to read from it.
fn report_suffix(path: &Path) -> Option<(&Path, usize)> {
    if path.exists() {
        return None;
    }
    let (file, n) = path.to_str()?.rsplit_once('#')?;
    let n: usize = n.parse().ok()?;
    let file = Path::new(file);
    file.is_file().then_some((file, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_report_that_is_not_there_is_named_before_any_tool_is_sought() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("run.ncu-rep");
        let err = load(&missing, &LoadOptions::default()).unwrap_err();
        assert!(matches!(err, InputError::NoSuchFile { .. }), "{err}");
        assert!(err.to_string().ends_with(": no such file"), "{err}");
        std::fs::write(&missing, b"binary").unwrap();
        let err = load(&missing, &LoadOptions::default()).unwrap_err();
        assert!(
            matches!(err, InputError::Import(ImportError::ToolNotFound { .. })),
            "{err}"
        );
    }

    #[test]
    fn file_hash_n_is_read_only_when_the_whole_name_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a#2");
        std::fs::write(&plain, b"{\"entries\": []}").unwrap();
        assert!(report_suffix(&plain).is_none(), "the file itself exists");
        let file = dir.path().join("b.txt");
        std::fs::write(&file, b"x").unwrap();
        let with = dir.path().join("b.txt#3");
        assert_eq!(report_suffix(&with), Some((file.as_path(), 3)));
        assert!(report_suffix(&dir.path().join("b.txt#x")).is_none());
        assert!(report_suffix(&dir.path().join("c.txt#1")).is_none());
    }
}
