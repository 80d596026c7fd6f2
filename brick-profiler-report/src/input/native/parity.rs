//! Parity files: a JSON object with `runtime` and `ops` (ms per step), read
//! into a [`RunSummary`] and validated, and written from one. The file's
//! fields are its own; in memory a run is a [`RunSummary`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::base::user_file;
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};
use crate::model::parity_error::ParityError;
use crate::model::run::{Clock, OpSummary, RunSummary};

/// A parity file.
#[derive(Debug)]
pub struct ParityFormat;

impl Format for ParityFormat {
    fn name(&self) -> &'static str {
        "parity"
    }

    fn what(&self) -> &'static str {
        "a parity profile"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Object) && head.has_key("runtime") && head.has_key("ops")
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        Ok(Input::Parity(RunSummary::from_parity_json(&text, origin)?))
    }
}

/// A parity file as written: one runtime's per-step numbers, in ms, 0
/// meaning unknown for throughput and step time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct ParityFile {
    runtime: String,
    throughput_tok_s: f64,
    step_time_ms: f64,
    kernel_launches_per_step: u64,
    ops: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    #[serde(default)]
    clock: Clock,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device_time_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// `ms` as whole ns (a file's ms have no meaningful digits below 1 ns).
fn ns(ms: f64) -> u64 {
    (ms * 1e6).round() as u64
}

impl ParityFile {
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

    /// The file's numbers as a run: per-step times as the totals of a run
    /// whose step count is unknown, 0 read as unknown.
    fn into_summary(self) -> RunSummary {
        let known = |v: f64| (v > 0.0).then_some(v);
        RunSummary {
            name: self.runtime,
            device: self.device,
            clock: self.clock,
            ops: self
                .ops
                .into_iter()
                .map(|(name, ms)| OpSummary::total(name, ns(ms)))
                .collect(),
            steps: None,
            step_ns: known(self.step_time_ms).map(|ms| ns(ms) as f64),
            tokens_per_s: known(self.throughput_tok_s),
            launches_per_step: Some(self.kernel_launches_per_step),
            device_ns_per_step: self.device_time_ms.map(|ms| ns(ms) as f64),
            notes: self.notes,
            ..RunSummary::default()
        }
    }

    /// A run's per-step numbers, ms.
    fn of(run: &RunSummary) -> Self {
        let per_step = run.per_step_divisor();
        let mut ops = BTreeMap::new();
        for op in run.ops.iter().filter(|o| o.total_ns > 0) {
            *ops.entry(op.name.clone()).or_insert(0.0) += op.total_ns as f64 / 1e6 / per_step;
        }
        Self {
            runtime: run.name.clone(),
            throughput_tok_s: run.tokens_per_s.unwrap_or(0.0),
            step_time_ms: run.step_ns.map_or(0.0, |n| n / 1e6),
            kernel_launches_per_step: run.launches_per_step.unwrap_or(0),
            ops,
            notes: run.notes.clone(),
            clock: run.clock,
            device_time_ms: run.device_ns_per_step.map(|n| n / 1e6),
            device: run.device.clone(),
        }
    }
}

impl RunSummary {
    /// Parses a parity file; `origin` names it in errors. Its per-step
    /// times become op totals with no step count; a throughput or step
    /// time of 0 is unknown.
    ///
    /// # Errors
    /// [`ParityError::Malformed`] with line and column;
    /// [`ParityError::InvalidValue`] naming the field of a negative
    /// throughput, step time or op time (`ops["matmul"]`).
    pub fn from_parity_json(text: &str, origin: &str) -> Result<Self, ParityError> {
        let file: ParityFile = serde_json::from_str(text)
            .map_err(|e| ParityError::json("parity profile", origin, &e))?;
        file.validate(origin)?;
        Ok(file.into_summary())
    }

    /// Reads a parity file.
    ///
    /// # Errors
    /// [`ParityError::Read`] or [`ParityError::Malformed`] naming the file.
    pub fn read_parity(path: impl AsRef<Path>) -> Result<Self, ParityError> {
        let path = path.as_ref();
        let text = user_file::read_to_string(path).map_err(|source| ParityError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_parity_json(&text, &path.display().to_string())
    }

    /// This run's per-step numbers as a parity file's JSON: ops in ms per
    /// step (totals over the steps, divided by them), launches per step,
    /// step time and throughput (0 when unknown).
    #[must_use]
    pub fn to_parity_json(&self) -> String {
        crate::base::textfmt::pretty_json(&ParityFile::of(self))
    }

    /// Writes [`RunSummary::to_parity_json`] to `path`, atomically.
    ///
    /// # Errors
    /// [`ParityError::Write`] naming the file.
    pub fn write_parity(&self, path: impl AsRef<Path>) -> Result<(), ParityError> {
        let path = path.as_ref();
        profiler_core::fs::write_atomic(path, self.to_parity_json().as_bytes()).map_err(|source| {
            ParityError::Write {
                path: path.to_path_buf(),
                source,
            }
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
            let err = RunSummary::from_parity_json(&text, "p.json").unwrap_err();
            assert!(
                matches!(&err, ParityError::InvalidValue { field: f, .. } if f == field),
                "{text}: {err}"
            );
            assert!(err.to_string().contains("`p.json`"), "{err}");
        }
        let ok = RunSummary::from_parity_json(&json("0", "0", r#""a":0"#), "p.json");
        let ok = ok.expect("zero is a valid value");
        assert_eq!((ok.tokens_per_s, ok.step_ns), (None, None), "0 is unknown");
        let huge = RunSummary::from_parity_json(&json("5", "1e400", ""), "p.json");
        assert!(
            matches!(huge, Err(ParityError::Malformed { .. })),
            "{huge:?}"
        );
    }

    #[test]
    fn files_round_trip_and_bad_json_names_the_origin() {
        let text = r#"{"runtime":"ours","throughput_tok_s":1.5,"step_time_ms":9.288291,
            "kernel_launches_per_step":3,"ops":{"A":0.25,"B":8.03}}"#;
        let run = RunSummary::from_parity_json(text, "x").unwrap();
        assert_eq!(run.ops[1].total_ns, 8_030_000);
        assert_eq!(run.step_ns, Some(9_288_291.0));
        let file: ParityFile = serde_json::from_str(&run.to_parity_json()).unwrap();
        assert_eq!(file, serde_json::from_str::<ParityFile>(text).unwrap());
        let e = RunSummary::from_parity_json("{\"runtime\": 3}", "base.json").unwrap_err();
        assert!(
            e.to_string().contains("base.json") && e.to_string().contains("line 1"),
            "{e}"
        );
    }
}
