//! [`TraceFormat`]: which timeline files a run writes: Chrome's JSON trace
//! (`trace.json`), Perfetto's protobuf trace (`trace.pftrace`), or both.

use std::fmt;
use std::str::FromStr;

/// The timeline format(s) to write, as `--trace-format json|perfetto|both`
/// names them.
///
/// JSON (`trace.json`, written by `write_chrome_trace`) is read by
/// Holistic Trace Analysis, `chrome://tracing`, `jq` and Perfetto;
/// Perfetto's protobuf format (`trace.pftrace`, written by
/// `write_perfetto_trace`) is a twentieth of the size or less and suits
/// long runs in the Perfetto UI.
///
/// ```
/// use profiler_report::export::TraceFormat;
/// let format: TraceFormat = "both".parse()?;
/// assert!(format.json() && format.perfetto());
/// assert_eq!(format.to_string(), "both");
/// assert!("protobuf".parse::<TraceFormat>().is_err());
/// # Ok::<(), profiler_report::export::UnknownTraceFormat>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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
