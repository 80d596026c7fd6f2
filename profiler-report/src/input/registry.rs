//! Every input format, in the order they are tried: the first whose sniff
//! accepts an input's first bytes reads it. A new format is one file and
//! one line here.

use super::chrome_trace::ChromeTraceFormat;
use super::execution_trace::ExecutionTraceFormat;
use super::format::Format;
use super::full_profiles::FullProfilesFormat;
use super::ncu_csv::NcuCsvFormat;
use super::nsys_stats::NsysStatsFormat;
use super::parity_json::ParityFormat;
use super::profile::ProfileFormat;
use super::pytorch_trace::PytorchTraceFormat;
use super::scorecard_baseline::ScorecardFormat;
use super::step_log::StepLogFormat;

/// The formats, most specific first: JSON formats by their keys, then the
/// Nsight text exports by their headers, then logs (any other text).
static REGISTRY: &[&dyn Format] = &[
    &ProfileFormat,
    &ParityFormat,
    &ChromeTraceFormat,
    &PytorchTraceFormat,
    &ExecutionTraceFormat,
    &ScorecardFormat,
    &FullProfilesFormat,
    &NcuCsvFormat,
    &NsysStatsFormat,
    &StepLogFormat,
];

/// Every input format, in the order `detect` tries them.
#[must_use]
pub fn registry() -> &'static [&'static dyn Format] {
    REGISTRY
}
