//! [`ParityProfile`]: one runtime's per-step numbers for a parity
//! comparison, as saved to and read from JSON.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::parity_error::ParityError;
use crate::base::user_file;

/// One runtime's numbers for a parity comparison.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParityProfile {
    /// Runtime name: `ours`, `pytorch`, `llama.cpp`, ...
    pub runtime: String,
    /// Tokens per second (0 when unknown).
    pub throughput_tok_s: f64,
    /// Mean step time, ms (0 when unknown).
    pub step_time_ms: f64,
    /// Kernel launches (or op calls) per step.
    pub kernel_launches_per_step: u64,
    /// Time per op, ms per step.
    pub ops: BTreeMap<String, f64>,
    /// How the numbers were obtained and what they lack.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The clock the op times were read on: a verdict compares only times
    /// of one clock.
    #[serde(default)]
    pub clock: Clock,
    /// Device busy time per step, ms (kernels, memcpy, memset), when the op
    /// times are device time: what their share is of, rather than the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_time_ms: Option<f64>,
    /// The device the run used, as the trace or profile names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// The clock a side's op times were read on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// Device time: kernels (and copies) as the device ran them.
    Device,
    /// Host time: ranges timed on the CPU (a CPU run, or a GPU run timed
    /// from the host).
    Host,
    /// Not recorded (parity profiles written without it).
    #[default]
    Unknown,
}

impl Clock {
    /// `device clock`, `host clock`, `clock not recorded`.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Clock::Device => "device clock",
            Clock::Host => "host clock",
            Clock::Unknown => "clock not recorded",
        }
    }

    /// Whether times on `self` and on `other` may be compared: the same
    /// clock, or one not recorded (said next to the verdict).
    #[must_use]
    pub fn comparable(self, other: Clock) -> bool {
        self == other || self == Clock::Unknown || other == Clock::Unknown
    }
}

impl ParityProfile {
    /// Parses a parity profile from JSON; `origin` names it in errors.
    ///
    /// # Errors
    /// [`ParityError::Malformed`] with line and column;
    /// [`ParityError::InvalidValue`] naming the field of a negative
    /// throughput, step time or op time (`ops["matmul"]`).
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ParityError> {
        let profile: Self = serde_json::from_str(text)
            .map_err(|e| ParityError::json("parity profile", origin, &e))?;
        profile.validate(origin)?;
        Ok(profile)
    }

    /// Times and rates are non-negative (JSON has no NaN or infinity, and
    /// serde refuses numbers beyond `f64`).
    fn validate(&self, origin: &str) -> Result<(), ParityError> {
        let fields = [
            ("throughput_tok_s".to_owned(), self.throughput_tok_s),
            ("step_time_ms".to_owned(), self.step_time_ms),
            (
                "device_time_ms".to_owned(),
                self.device_time_ms.unwrap_or(0.0),
            ),
        ];
        let ops = self
            .ops
            .iter()
            .map(|(op, &ms)| (format!("ops[{op:?}]"), ms));
        for (field, value) in fields.into_iter().chain(ops) {
            if !(value.is_finite() && value >= 0.0) {
                return Err(ParityError::InvalidValue {
                    origin: origin.to_owned(),
                    field,
                    value: value.to_string(),
                    reason: "must be a finite number, 0 or more".to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Reads a parity profile JSON file.
    ///
    /// # Errors
    /// [`ParityError::Read`] or [`ParityError::Malformed`] naming the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, ParityError> {
        let path = path.as_ref();
        let text = user_file::read_to_string(path).map_err(|source| ParityError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// Writes this profile as pretty JSON, atomically.
    ///
    /// # Errors
    /// [`ParityError::Write`] naming the file.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), ParityError> {
        let path = path.as_ref();
        profiler_core::fs::write_atomic(path, crate::base::textfmt::pretty_json(self).as_bytes())
            .map_err(|source| ParityError::Write {
                path: path.to_path_buf(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_values_are_refused_naming_the_field() {
        let json = |tok_s: &str, step_ms: &str, ops: &str| {
            format!(
                r#"{{"runtime":"x","throughput_tok_s":{tok_s},"step_time_ms":{step_ms},
                    "kernel_launches_per_step":3,"ops":{{{ops}}}}}"#
            )
        };
        for (text, field) in [
            (json("-5", "1", ""), "throughput_tok_s"),
            (json("5", "-0.5", ""), "step_time_ms"),
            (json("5", "1", r#""mat\"mul":-1"#), r#"ops["mat\"mul"]"#),
        ] {
            let err = ParityProfile::from_json(&text, "p.json").unwrap_err();
            assert!(
                matches!(&err, ParityError::InvalidValue { field: f, .. } if f == field),
                "{text}: {err}"
            );
            assert!(err.to_string().contains("`p.json`"), "{err}");
        }
        let ok = ParityProfile::from_json(&json("0", "0", r#""a":0"#), "p.json");
        assert!(ok.is_ok(), "zero is a valid value: {ok:?}");
        let huge = ParityProfile::from_json(&json("5", "1e400", ""), "p.json");
        assert!(
            matches!(huge, Err(ParityError::Malformed { .. })),
            "{huge:?}"
        );
    }

    #[test]
    fn profiles_round_trip_and_bad_json_names_the_origin() {
        let p = ParityProfile {
            runtime: "ours".into(),
            throughput_tok_s: 1.5,
            kernel_launches_per_step: 3,
            ops: [("A".to_owned(), 0.25)].into(),
            ..ParityProfile::default()
        };
        let back = ParityProfile::from_json(&serde_json::to_string(&p).unwrap(), "x").unwrap();
        assert_eq!(back, p);
        let e = ParityProfile::from_json("{\"runtime\": 3}", "base.json").unwrap_err();
        assert!(
            e.to_string().contains("base.json") && e.to_string().contains("line 1"),
            "{e}"
        );
    }
}
