//! The files every subcommand takes: the library's [`input::open`] tells
//! the format from the content and reads it; binary Nsight reports are
//! exported with the tool when it is on `PATH`. Here the inputs are only
//! mapped to what each command needs.

use std::path::Path;
use std::sync::OnceLock;

use profiler_core::Profile;
use profiler_report::import::{
    FullProfile, FullProfileOptions, ImportError, NcuReport, NsightTool, NsysReport,
    full_profiles_to_profile, full_profiles_to_run_summary, parse_ncu_csv, parse_nsys_report,
    parse_nsys_stats,
};
use profiler_report::input::{self, Input, InputError};
use profiler_report::model::RunSummary;

use crate::error::CliError;

/// Reads a text file (settings the commands take), naming it in the error.
pub(crate) fn read_text(path: &Path) -> Result<String, CliError> {
    Ok(input::read_text(path)?)
}

/// The tool that exports a binary Nsight report, by its extension.
fn binary_report(path: &Path) -> Option<&'static str> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ncu-rep") => Some("ncu"),
        Some("nsys-rep" | "qdrep" | "sqlite") => Some("nsys"),
        _ => None,
    }
}

/// The kernel summary `--report N` picks (1-based) from `nsys stats` output
/// holding several; set once from the global option before any file is read.
static REPORT: OnceLock<usize> = OnceLock::new();

/// Records `--report N` for every Nsight Systems input of this run.
pub(crate) fn pick_report(n: Option<usize>) {
    if let Some(n) = n {
        let _ = REPORT.set(n);
    }
}

/// Reads `nsys stats` text: the one summary, or the one `--report` names.
fn nsys(text: &str, origin: &str) -> Result<Input, CliError> {
    Ok(Input::Nsys(match REPORT.get().copied() {
        Some(n) => parse_nsys_report(text, origin, n)
            .map_err(|e| flag_named(e, &format!("--report {n}")))?,
        None => parse_nsys_stats(text, origin)?,
    }))
}

/// The library names the summary it could not find by number; here it was
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

/// Reads any input: a binary Nsight report through its tool, anything else
/// through the library. `FILE#N` reads the N-th kernel summary of `nsys
/// stats` output that holds several (one input of a diff or a parity).
pub(crate) fn load(path: &Path) -> Result<Input, CliError> {
    if let Some((file, n)) = report_suffix(path) {
        let mut report = parse_nsys_report(&read_text(file)?, &file.display().to_string(), n)
            .map_err(|e| flag_named(e, &path.display().to_string()))?;
        report.origin = path.display().to_string();
        return Ok(Input::Nsys(report));
    }
    let Some(tool) = binary_report(path) else {
        // `--report N` picks among several summaries, and is refused where
        // there is no N-th, one summary or several, like `FILE#N`.
        let pick = REPORT.get().copied();
        return match input::open(path) {
            Err(InputError::Import(ImportError::SeveralReports { .. })) if pick.is_some() => {
                nsys(&read_text(path)?, &path.display().to_string())
            }
            Ok(Input::Nsys(_)) if pick.is_some_and(|n| n != 1) => {
                nsys(&read_text(path)?, &path.display().to_string())
            }
            other => Ok(other?),
        };
    };
    let origin = path.display().to_string();
    if !path.is_file() {
        return Err(CliError::Input(format!(
            "cannot read `{origin}`: no such file"
        )));
    }
    let t = NsightTool::find(tool, std::env::var_os("PATH").as_deref())?;
    Ok(if tool == "ncu" {
        Input::Ncu(parse_ncu_csv(&t.ncu_export(path)?, &origin)?)
    } else {
        nsys(&t.nsys_stats(path)?, &origin)?
    })
}

/// A run for the reports that take a profile.
#[derive(Debug)]
pub(crate) enum Run {
    /// A saved profile.
    Profile(Box<Profile>),
    /// Nsight Compute launches.
    Ncu(NcuReport),
    /// Imported launches saved as JSON.
    FullProfiles(Vec<FullProfile>, String),
    /// An Nsight Systems kernel summary.
    Nsys(NsysReport),
}

impl Run {
    /// Reads a run: a profile, an Nsight export, or a binary Nsight report.
    pub(crate) fn load(path: &Path) -> Result<Self, CliError> {
        Self::from_input(load(path)?, path)
    }

    /// The run an input read from `path` holds, if it holds one.
    pub(crate) fn from_input(input: Input, path: &Path) -> Result<Self, CliError> {
        match input {
            Input::Profile(p) => Ok(Self::Profile(p)),
            Input::Ncu(r) => Ok(Self::Ncu(r)),
            Input::Nsys(r) => Ok(Self::Nsys(r)),
            Input::FullProfiles(p) => Ok(Self::FullProfiles(p, path.display().to_string())),
            other => Err(CliError::Input(format!(
                "`{}` holds {}, not a profile: give a saved profile.json, an `ncu --csv` \
                 export or an `nsys stats` kernel summary",
                path.display(),
                other.what()
            ))),
        }
    }

    /// The run as a profile (kernels become bricks for Nsight imports).
    pub(crate) fn into_profile(self, ncu: &FullProfileOptions) -> Result<Profile, CliError> {
        Ok(match self {
            Self::Profile(p) => *p,
            Self::Nsys(r) => r.to_profile(),
            Self::Ncu(r) => full_profiles_to_profile(&r.full_profiles(ncu)?, &r.origin),
            Self::FullProfiles(p, origin) => full_profiles_to_profile(&p, &origin),
        })
    }

    /// The Nsight Compute launches of the run (none for other runs), for
    /// the hierarchical roofline of their per-level traffic.
    pub(crate) fn launches(&self, ncu: &FullProfileOptions) -> Result<Vec<FullProfile>, CliError> {
        Ok(match self {
            Self::Ncu(r) => r.full_profiles(ncu)?,
            Self::FullProfiles(p, _) => p.clone(),
            Self::Profile(_) | Self::Nsys(_) => Vec::new(),
        })
    }

    /// The run as one side of a diff.
    pub(crate) fn run_summary(&self, label: &str) -> Result<RunSummary, CliError> {
        Ok(match self {
            Self::Profile(p) => RunSummary::from_profile(p, label),
            Self::Nsys(r) => RunSummary {
                name: label.to_owned(),
                ..r.to_run_summary()
            },
            Self::Ncu(r) => full_profiles_to_run_summary(
                &r.full_profiles(&FullProfileOptions::default())?,
                label,
            ),
            Self::FullProfiles(p, _) => full_profiles_to_run_summary(p, label),
        })
    }
}

/// A file's stem, for labels.
pub(crate) fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}
