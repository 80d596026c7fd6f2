//! Reading the files every subcommand takes, whatever produced them: a
//! saved profile, an Nsight Compute CSV, an Nsight Systems kernel summary,
//! imported `FullProfile`s, parity profiles, traces. The kind is told from
//! the content, not the extension; binary Nsight reports are exported with
//! the tool when it is on `PATH`.

use std::path::Path;

use profiler_core::Profile;
use profiler_report::diff::DiffInput;
use profiler_report::import::{
    FullProfile, FullProfileOptions, NcuReport, NsightTool, NsysReport,
    full_profiles_to_diff_input, full_profiles_to_profile, parse_ncu_csv, parse_nsys_stats,
};
use serde_json::Value;

use crate::error::CliError;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A saved `Profile` (`schema_version`).
    Profile,
    /// `FullProfile`s written by `import ncu --format json`.
    FullProfiles,
    /// A parity profile (`runtime`, `ops`).
    Parity,
    /// A Chrome/PyTorch profiler trace (`traceEvents`).
    ChromeTrace,
    /// An execution trace (`entries`).
    ExecutionTrace,
    /// A saved scorecard.
    Scorecard,
    /// A trainer's step-profiler line (`_profiler`), alone or in a log.
    StepLine,
    /// `ncu --csv` output.
    Ncu,
    /// `nsys stats` output.
    Nsys,
}

/// Reads a text file, naming it in the error.
pub(crate) fn read_text(path: &Path) -> Result<String, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::Input(format!("cannot read `{}`: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|_| {
        CliError::Input(format!(
            "`{}` is not UTF-8 text (a binary report? export it to CSV or JSON first)",
            path.display()
        ))
    })
}

/// What `text` (read from `path`) holds.
pub(crate) fn kind(text: &str, path: &Path) -> Result<Kind, CliError> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') || t.starts_with('[') {
        let v: Value = serde_json::from_str(t)
            .map_err(|e| CliError::Input(format!("`{}` is not valid JSON: {e}", path.display())))?;
        let has = |k: &str| v.get(k).is_some();
        return match &v {
            Value::Object(_) if has("schema_version") => Ok(Kind::Profile),
            Value::Object(_) if has("_profiler") => Ok(Kind::StepLine),
            Value::Object(_) if has("runtime") && has("ops") => Ok(Kind::Parity),
            Value::Object(_) if has("traceEvents") => Ok(Kind::ChromeTrace),
            Value::Object(_) if has("entries") => Ok(Kind::ExecutionTrace),
            Value::Object(_) if has("hotspot_ops") || has("efficiency") => Ok(Kind::Scorecard),
            Value::Array(a)
                if a.iter()
                    .all(|x| x.get("version").is_some() && x.get("kernel").is_some())
                    && !a.is_empty() =>
            {
                Ok(Kind::FullProfiles)
            }
            Value::Array(_) => Ok(Kind::ChromeTrace),
            _ => Err(CliError::Input(format!(
                "`{}` is JSON but not a profile, parity profile, trace or scorecard \
                 (no `schema_version`, `runtime`/`ops`, `traceEvents`, `entries` or `efficiency`)",
                path.display()
            ))),
        };
    }
    let header = |l: &str| {
        let l = l.trim_start();
        l.starts_with("\"ID\"") || l.starts_with("ID,")
    };
    if t.lines().any(header) {
        Ok(Kind::Ncu)
    } else if t.contains("Total Time") && t.contains("Instances") {
        Ok(Kind::Nsys)
    } else if t.contains("\"_profiler\"") {
        Ok(Kind::StepLine)
    } else if profiler_report::import::reports_counters_restricted(t) {
        Ok(Kind::Ncu)
    } else {
        let first = t
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(60)
            .collect::<String>();
        Err(CliError::Input(format!(
            "`{}` is not a profile, Nsight Compute CSV or Nsight Systems kernel summary \
             (it starts with `{first}`)",
            path.display()
        )))
    }
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

/// Whether `path` is a binary Nsight report (read through the tool).
pub(crate) fn is_binary_report(path: &Path) -> bool {
    binary_report(path).is_some()
}

fn binary_report(path: &Path) -> Option<&'static str> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ncu-rep") => Some("ncu"),
        Some("nsys-rep" | "qdrep" | "sqlite") => Some("nsys"),
        _ => None,
    }
}

impl Run {
    /// Reads a run: a profile, an Nsight export, or a binary Nsight report
    /// (exported with the tool found on `PATH`).
    pub(crate) fn load(path: &Path) -> Result<Self, CliError> {
        let origin = path.display().to_string();
        if let Some(tool) = binary_report(path) {
            if !path.is_file() {
                return Err(CliError::Input(format!(
                    "cannot read `{origin}`: no such file"
                )));
            }
            let t = NsightTool::find(tool, std::env::var_os("PATH").as_deref())?;
            return Ok(if tool == "ncu" {
                Self::Ncu(parse_ncu_csv(&t.ncu_export(path)?, &origin)?)
            } else {
                Self::Nsys(parse_nsys_stats(&t.nsys_stats(path)?, &origin)?)
            });
        }
        let text = read_text(path)?;
        match kind(&text, path)? {
            Kind::Profile => Profile::from_json(&text)
                .map(|p| Self::Profile(Box::new(p)))
                .map_err(|e| CliError::input(e.with_path(path))),
            Kind::Ncu => Ok(Self::Ncu(parse_ncu_csv(&text, &origin)?)),
            Kind::Nsys => Ok(Self::Nsys(parse_nsys_stats(&text, &origin)?)),
            Kind::FullProfiles => serde_json::from_str(&text)
                .map(|p| Self::FullProfiles(p, origin.clone()))
                .map_err(|e| {
                    CliError::Input(format!("`{origin}`: not a list of FullProfiles: {e}"))
                }),
            other => Err(CliError::Input(format!(
                "`{origin}` holds {}, not a profile: give a saved profile.json, an `ncu --csv` \
                 export or an `nsys stats` kernel summary",
                describe(other)
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

    /// The run as one side of a diff.
    pub(crate) fn diff_input(&self, label: &str) -> Result<DiffInput, CliError> {
        Ok(match self {
            Self::Profile(p) => DiffInput::from_profile(p, label),
            Self::Nsys(r) => DiffInput {
                label: label.to_owned(),
                ..r.to_diff_input()
            },
            Self::Ncu(r) => full_profiles_to_diff_input(
                &r.full_profiles(&FullProfileOptions::default())?,
                label,
            ),
            Self::FullProfiles(p, _) => full_profiles_to_diff_input(p, label),
        })
    }
}

/// A kind in words, for messages.
pub(crate) fn describe(kind: Kind) -> &'static str {
    match kind {
        Kind::Profile => "a profile",
        Kind::FullProfiles => "imported Nsight Compute launches",
        Kind::Parity => "a parity profile",
        Kind::ChromeTrace => "a Chrome/PyTorch trace",
        Kind::ExecutionTrace => "an execution trace",
        Kind::Scorecard => "a scorecard",
        Kind::StepLine => "a step-profiler line",
        Kind::Ncu => "an Nsight Compute CSV",
        Kind::Nsys => "an Nsight Systems summary",
    }
}

/// A file's stem, for labels.
pub(crate) fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}
