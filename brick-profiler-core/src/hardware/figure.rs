//! [`Figure`]: one hardware number together with [`Source`], where it came
//! from, so every report can say whether a ceiling is a datasheet figure,
//! an estimate, a measurement or the user's own.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::measurement::Measurement;

/// Where a hardware number came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Source {
    /// A published figure of the preset table.
    Preset,
    /// An estimate in the preset table (no published figure, or one that
    /// depends on clocks the table cannot know).
    PresetEstimate,
    /// Measured on this machine by the probes.
    Measured {
        /// How it was measured; absent where that was not kept (a figure
        /// given as measured, or one of a file written before it was).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        how: Option<Box<Measurement>>,
    },
    /// A hardware file.
    File {
        /// The file.
        path: PathBuf,
        /// Whether the file marks its figures as estimates.
        #[serde(default)]
        estimate: bool,
    },
    /// An environment variable (or a setting looked up like one).
    Env {
        /// The variable.
        var: String,
    },
    /// Recorded in a profile's `run.hardware`.
    Profile,
    /// Given by the caller: in code, or a command-line option.
    Given,
    /// Read from the operating system: cache sizes from sysfs.
    System {
        /// The files read.
        path: String,
    },
}

impl Source {
    /// Whether the number is an estimate rather than a published, measured
    /// or user-given figure.
    #[must_use]
    pub fn is_estimate(&self) -> bool {
        matches!(
            self,
            Self::PresetEstimate | Self::File { estimate: true, .. }
        )
    }

    /// Whether the number was measured on the machine by the probes.
    #[must_use]
    pub fn is_measured(&self) -> bool {
        matches!(self, Self::Measured { .. })
    }

    /// How the number was measured, when it was and that was kept.
    #[must_use]
    pub fn measurement(&self) -> Option<&Measurement> {
        match self {
            Self::Measured { how } => how.as_deref(),
            _ => None,
        }
    }

    /// Whether the number is the preset table's (published or estimated).
    #[must_use]
    pub fn is_preset(&self) -> bool {
        matches!(self, Self::Preset | Self::PresetEstimate)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Preset => f.write_str("preset"),
            Self::PresetEstimate => f.write_str("preset estimate"),
            Self::Measured { .. } => f.write_str("measured on this machine"),
            Self::File { path, estimate } => {
                write!(f, "file `{}`", path.display())?;
                if *estimate {
                    f.write_str(" (estimate)")?;
                }
                Ok(())
            }
            Self::Env { var } => write!(f, "environment variable {var}"),
            Self::Profile => f.write_str("profile's recorded hardware"),
            Self::Given => f.write_str("given"),
            Self::System { path } => write!(f, "{path}"),
        }
    }
}

/// A number and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The value, in the unit its field names (GB/s, TFLOP/s, bytes).
    pub value: f64,
    /// Where it came from.
    pub source: Source,
}

impl Figure {
    /// `value` from `source`.
    #[must_use]
    pub fn new(value: f64, source: Source) -> Self {
        Self { value, source }
    }

    /// Whether the value is an estimate.
    #[must_use]
    pub fn is_estimate(&self) -> bool {
        self.source.is_estimate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_say_where_and_whether_estimated() {
        let file = Source::File {
            path: "gpu.toml".into(),
            estimate: true,
        };
        assert_eq!(file.to_string(), "file `gpu.toml` (estimate)");
        assert!(file.is_estimate() && !file.is_preset());
        assert!(Source::PresetEstimate.is_estimate());
        assert!(!Source::Preset.is_estimate() && Source::Preset.is_preset());
        let env = Figure::new(
            100.0,
            Source::Env {
                var: "PROFILER_PEAK_BW_GB_S".into(),
            },
        );
        assert_eq!(
            env.source.to_string(),
            "environment variable PROFILER_PEAK_BW_GB_S"
        );
        assert!(!env.is_estimate());
    }
}
