//! Every input format, in the order they are tried: the first whose sniff
//! accepts an input's first bytes reads it. A new format is one file (in
//! `chrome/`, `nsight/` or `native/`) and one line here.

use super::chrome::{ChromeTraceFormat, PytorchTraceFormat};
use super::format::Format;
use super::native::{
    ExecutionTraceFormat, ParityFormat, ProfileFormat, ScorecardFormat, StepLogFormat,
};
use super::nsight::{FullProfilesFormat, NcuCsvFormat, NsysStatsFormat};

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
