//! [`HardwareError`]: what can be wrong with hardware settings, naming the
//! variable, or the file, line and field at fault.

use std::fmt;
use std::path::PathBuf;

/// Error resolving or validating hardware.
#[derive(Debug, thiserror::Error)]
pub enum HardwareError {
    /// A number that cannot be a ceiling: non-numeric, NaN/inf, <= 0 or
    /// beyond any real device.
    #[error("invalid {origin} `{value}`: {reason}")]
    InvalidValue {
        /// The variable, or the device and ceiling.
        origin: String,
        /// The text found.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// A field of a hardware file with a value that cannot be used.
    #[error("hardware file `{}`{} field `{field}`: `{value}` {reason}", path.display(), AtLine(*line))]
    InvalidField {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the field, when it could be found.
        line: Option<usize>,
        /// The field, dotted: `bandwidth_gb_s.dram`.
        field: String,
        /// The value found.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// A device name not in the preset table.
    #[error("unknown device `{name}` in {origin}; known: {known}")]
    UnknownDevice {
        /// The name given.
        name: String,
        /// The variable, or file and field.
        origin: String,
        /// Accepted names.
        known: String,
    },
    /// Settings given without a bandwidth to apply them to.
    #[error(
        "{origin} given without a bandwidth: set PROFILER_HARDWARE=<device> or PROFILER_PEAK_BW_GB_S, or `device`/`peak_bw_gb_s` in the file"
    )]
    MissingBandwidth {
        /// Where the incomplete settings came from.
        origin: String,
    },
    /// A hardware file that gives no ceiling at all.
    #[error(
        "hardware file `{}` gives no ceiling: set `device`, or `bandwidth_gb_s` and `peak_tflops`",
        path.display()
    )]
    NoCeiling {
        /// The file.
        path: PathBuf,
    },
    /// The hardware file could not be read.
    #[error("cannot read hardware file `{}`: {source}", path.display())]
    ReadFile {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// Ceilings measured on a busy machine, which saving would make the
    /// ceilings of every later run.
    #[error(
        "not saving ceilings measured on a busy machine ({why}): stop the other work and measure again"
    )]
    BusyMachine {
        /// The signs of other work.
        why: String,
    },
    /// No user cache directory: neither `XDG_CACHE_HOME` nor `HOME` is set.
    #[error("no cache directory for saved ceilings: set XDG_CACHE_HOME or HOME")]
    NoCacheDir,
    /// The saved-ceilings file could not be written.
    #[error("cannot write saved ceilings `{}`: {source}", path.display())]
    WriteFile {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The hardware file is not TOML or JSON of the expected shape.
    #[error("malformed hardware file `{}`{}: {message}", path.display(), AtLine(*line))]
    MalformedFile {
        /// File that failed.
        path: PathBuf,
        /// The 1-based line of the problem, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

impl From<profiler_core::hardware::CeilingError> for HardwareError {
    /// The model's refusal of a figure, as [`HardwareError::InvalidValue`].
    fn from(e: profiler_core::hardware::CeilingError) -> Self {
        Self::InvalidValue {
            origin: e.origin,
            value: e.value,
            reason: e.reason,
        }
    }
}

/// ` line N`, or nothing when the line is unknown.
struct AtLine(Option<usize>);

impl fmt::Display for AtLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(line) => write!(f, " line {line}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_errors_name_file_line_and_field() {
        let e = HardwareError::InvalidField {
            path: "gpu.toml".into(),
            line: Some(3),
            field: "bandwidth_gb_s.dram".into(),
            value: "-5".into(),
            reason: "must be greater than 0".into(),
        };
        assert_eq!(
            e.to_string(),
            "hardware file `gpu.toml` line 3 field `bandwidth_gb_s.dram`: `-5` must be greater than 0"
        );
        let e = HardwareError::MalformedFile {
            path: "gpu.json".into(),
            line: None,
            message: "expected value".into(),
        };
        assert_eq!(
            e.to_string(),
            "malformed hardware file `gpu.json`: expected value"
        );
    }
}
