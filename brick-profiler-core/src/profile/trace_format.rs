//! [`TraceFormat`]: which timeline files a run's reports write: Chrome's
//! JSON trace (`trace.json`), Perfetto's protobuf trace (`trace.pftrace`),
//! or both. The runtime only carries the choice (`Config::trace_format`,
//! `RunInfo::trace_format`); the report writer reads it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The timeline format(s) to write, as `--trace-format json|perfetto|both`
/// names them: set with `Config::trace_format`, recorded in the profile's
/// `RunInfo::trace_format`, honoured
/// by the report crate's `write_timeline`.
///
/// JSON (`trace.json`, written by `write_chrome_trace`) is read by
/// Holistic Trace Analysis, `chrome://tracing`, `jq` and Perfetto;
/// Perfetto's protobuf format (`trace.pftrace`, written by
/// `write_perfetto_trace`) is a fifteenth of the size or less and suits
/// long runs in the Perfetto UI.
///
/// ```
/// use profiler_core::profile::TraceFormat;
/// let format: TraceFormat = "both".parse()?;
/// assert!(format.json() && format.perfetto());
/// assert_eq!(format.to_string(), "both");
/// assert!("protobuf".parse::<TraceFormat>().is_err());
/// # Ok::<(), profiler_core::profile::UnknownTraceFormat>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// Chrome's JSON trace only (`trace.json`).
    #[default]
    Json,
    /// Perfetto's protobuf trace only (`trace.pftrace`).
    Perfetto,
    /// Both files.
    Both,
}

impl TraceFormat {
    /// Whether `trace.json` is written.
    #[must_use]
    pub fn json(self) -> bool {
        matches!(self, Self::Json | Self::Both)
    }

    /// Whether `trace.pftrace` is written.
    #[must_use]
    pub fn perfetto(self) -> bool {
        matches!(self, Self::Perfetto | Self::Both)
    }

    /// Whether this is the default, JSON only (left out of saved profiles).
    #[must_use]
    pub fn is_default(&self) -> bool {
        *self == Self::Json
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Json => "json",
            Self::Perfetto => "perfetto",
            Self::Both => "both",
        })
    }
}

/// A trace format name that is not `json`, `perfetto` or `both`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown trace format {given:?}: expected json, perfetto or both")]
pub struct UnknownTraceFormat {
    /// The name given.
    pub given: String,
}

impl FromStr for TraceFormat {
    type Err = UnknownTraceFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "json" => Ok(Self::Json),
            "perfetto" => Ok(Self::Perfetto),
            "both" => Ok(Self::Both),
            _ => Err(UnknownTraceFormat {
                given: s.to_owned(),
            }),
        }
    }
}
