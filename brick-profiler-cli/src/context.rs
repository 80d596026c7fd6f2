//! What every subcommand shares: the global options, hardware resolution,
//! and rendering a report in the chosen format to stdout or `--output`.

use std::path::PathBuf;

use profiler_core::hardware::{Figure, Hardware, Source};
use profiler_report::contracts::ContractReport;
use profiler_report::diff::ProfileDiff;
use profiler_report::fleet::FleetReport;
use profiler_report::parity::{MultiParityComparison, ParityComparison};
use profiler_report::roofline::BrickRoofline;
use profiler_report::scorecard::TrainingScorecard;
use profiler_report::trace::TraceSummary;
use profiler_report::{
    export::{full_profiles_json, full_profiles_markdown, full_profiles_text},
    input::nsight::{FullProfile, NsysReport},
};

use crate::error::CliError;
use crate::output::{Format, emit};

/// The global options.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    /// Output format of text reports.
    pub(crate) format: Format,
    /// `--hardware`, unresolved.
    pub(crate) hardware: Option<String>,
    /// `--output`.
    pub(crate) output: Option<PathBuf>,
}

impl Context {
    /// The hardware given with `--hardware` (a device of the preset table
    /// or a hardware file, as `profiler_report::hardware::resolve` reads
    /// it), if any; `bytes_per_token` (from `--bytes-per-token`) replaces
    /// its own.
    pub(crate) fn hardware(
        &self,
        bytes_per_token: Option<f64>,
    ) -> Result<Option<Hardware>, CliError> {
        let Some(value) = self.hardware.as_deref() else {
            return Ok(None);
        };
        let mut hw = profiler_report::hardware::resolve(value)
            .map_err(|e| CliError::Input(format!("--hardware: {e}")))?;
        if let Some(b) = bytes_per_token {
            hw.set_bytes_per_token(Figure::new(b, Source::Given))
                .map_err(|e| CliError::Input(format!("--bytes-per-token: {e}")))?;
        }
        Ok(Some(hw))
    }

    /// How the hardware was given, e.g. `--hardware h100`, for messages.
    pub(crate) fn hardware_origin(&self) -> Option<String> {
        self.hardware.as_ref().map(|h| format!("--hardware {h}"))
    }

    /// Prints (or writes) `report` in the chosen format.
    pub(crate) fn show(&self, report: &dyn Report) -> Result<(), CliError> {
        let text = match self.format {
            Format::Table => report.table(),
            Format::Markdown => report.markdown(),
            Format::Json => report.json(),
            Format::Bmf | Format::Gab | Format::Junit => {
                return Err(CliError::Input(format!(
                    "--format {}: only `diff` writes this format; use table, markdown or json",
                    self.format.name()
                )));
            }
        };
        emit(&text, self.output.as_deref())
    }
}

/// A report in the three text formats.
pub(crate) trait Report {
    fn table(&self) -> String;
    fn markdown(&self) -> String;
    fn json(&self) -> String;
}

macro_rules! display_report {
    ($($t:ty),*) => {$(
        impl Report for $t {
            fn table(&self) -> String {
                self.to_string()
            }
            fn markdown(&self) -> String {
                self.to_markdown()
            }
            fn json(&self) -> String {
                self.to_json()
            }
        }
    )*};
}

display_report!(
    TrainingScorecard,
    BrickRoofline,
    ParityComparison,
    MultiParityComparison,
    ProfileDiff,
    FleetReport,
    TraceSummary,
    ContractReport
);

impl Report for NsysReport {
    fn table(&self) -> String {
        self.to_text()
    }
    fn markdown(&self) -> String {
        self.to_markdown()
    }
    fn json(&self) -> String {
        self.to_json()
    }
}

impl Report for Vec<FullProfile> {
    fn table(&self) -> String {
        full_profiles_text(self)
    }
    fn markdown(&self) -> String {
        full_profiles_markdown(self)
    }
    fn json(&self) -> String {
        full_profiles_json(self)
    }
}

/// Several contract reports, one after the other (JSON: an array).
pub(crate) struct ContractReports(pub(crate) Vec<ContractReport>);

impl Report for ContractReports {
    fn table(&self) -> String {
        self.0
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    }
    fn markdown(&self) -> String {
        self.0
            .iter()
            .map(ContractReport::to_markdown)
            .collect::<Vec<_>>()
            .join("\n")
    }
    fn json(&self) -> String {
        let values: Vec<serde_json::Value> = self
            .0
            .iter()
            .filter_map(|r| serde_json::from_str(&r.to_json()).ok())
            .collect();
        serde_json::to_string_pretty(&values).unwrap_or_default()
    }
}
