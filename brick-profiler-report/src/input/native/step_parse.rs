//! Reading the one-line JSON that trainers print to stderr, tagged
//! `"_profiler": "step_profiler_v2"` (or v1), from a line or a whole log.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::model::scorecard_error::ScorecardError;
use crate::model::step::{PerLayerData, PhaseData, StepProfilerInput};

/// Tags accepted in the `_profiler` field.
pub const STEP_PROFILER_TAGS: [&str; 2] = ["step_profiler_v2", "step_profiler_v1"];

/// Parses one tagged step-profiler line. A log prefix before the JSON object
/// (a timestamp, or a tracing span such as `train{epoch=1}:`) is skipped:
/// the object is the first `{` from which a JSON object parses.
///
/// # Errors
/// [`ScorecardError`] for invalid JSON, a missing or unknown tag, or a field
/// of the wrong type (named, e.g. `per_layer[2].fwd_ms`).
pub fn parse_step_profiler_line(line: &str) -> Result<StepProfilerInput, ScorecardError> {
    parse_at(line, None)
}

/// Parses the last tagged step-profiler line of a log that parses; a later
/// line that merely mentions the tag (a warning, say) does not hide it.
///
/// # Errors
/// [`ScorecardError::NoProfilerLine`] when the log has no tagged line, else
/// the error of the last tagged line when none parses, with its line number.
pub fn parse_last_step_profiler_line(log: &str) -> Result<StepProfilerInput, ScorecardError> {
    let mut last_error = None;
    for (i, line) in log
        .lines()
        .enumerate()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        if !is_tagged(line) {
            continue;
        }
        match parse_at(line, Some(i + 1)) {
            Ok(input) => return Ok(input),
            Err(e) => {
                last_error.get_or_insert(e);
            }
        }
    }
    Err(last_error.unwrap_or(ScorecardError::NoProfilerLine {
        lines: log.lines().count(),
    }))
}

pub(crate) fn is_tagged(line: &str) -> bool {
    line.contains("\"_profiler\"") && line.contains("step_profiler_v")
}

/// The last line of `log` carrying a step-profiler tag, with its 1-based
/// line number. Only looks for the tag; the line may still be malformed.
#[must_use]
pub fn find_last_step_profiler_line(log: &str) -> Option<(usize, &str)> {
    log.lines()
        .enumerate()
        .filter(|(_, l)| is_tagged(l))
        .last()
        .map(|(i, l)| (i + 1, l))
}

/// The JSON value of a line: parsed from the first `{` that starts a valid
/// object (skipping prefixes that contain braces), else the error of the
/// attempt at the first `{`.
fn json_of(line: &str, number: Option<usize>) -> Result<Value, ScorecardError> {
    let mut first_error = None;
    for (start, _) in line.match_indices('{') {
        match serde_json::from_str::<Value>(line[start..].trim_end()) {
            Ok(value @ Value::Object(_)) => return Ok(value),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(ScorecardError::MalformedJson {
                    line: number,
                    column: e.column() + start,
                    message: crate::base::json::message(&e),
                });
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        // No `{` at all: report what the whole line is.
        None => {
            serde_json::from_str::<Value>(line.trim()).map_err(|e| ScorecardError::MalformedJson {
                line: number,
                column: e.column(),
                message: crate::base::json::message(&e),
            })
        }
    }
}

pub(crate) fn parse_at(
    line: &str,
    number: Option<usize>,
) -> Result<StepProfilerInput, ScorecardError> {
    let value = json_of(line, number)?;
    let Value::Object(object) = value else {
        return Err(ScorecardError::NotAnObject { line: number });
    };
    match object.get("_profiler") {
        None => return Err(ScorecardError::MissingTag { line: number }),
        Some(Value::String(tag)) if STEP_PROFILER_TAGS.contains(&tag.as_str()) => {}
        Some(other) => {
            return Err(ScorecardError::UnknownTag {
                line: number,
                found: other.to_string(),
            });
        }
    }
    let fields = Fields {
        object: &object,
        line: number,
    };
    Ok(StepProfilerInput {
        steps: fields.get("steps")?,
        avg_step_ms: fields.duration("avg_step_ms")?,
        wall_coverage: fields.get("wall_coverage")?,
        phases: fields.map_of("phases", |name, v, line| {
            let phase = v
                .as_object()
                .ok_or_else(|| invalid(line, name, "expected an object"))?;
            let f = Fields {
                object: phase,
                line,
            };
            Ok(PhaseData {
                total_ms: f.nested(name, "total_ms")?,
                pct: f.nested(name, "pct")?,
                avg_ms: f.nested(name, "avg_ms")?,
            })
        })?,
        per_layer: fields.layers()?,
        bottleneck: fields.get("bottleneck")?,
        gemm_pct: fields.get("gemm_pct")?,
        total_ms: fields.duration("total_ms")?,
        ops: fields.get("ops")?,
        step_samples_ms: fields.durations("step_samples_ms")?,
        step_samples_tokens: fields.get("step_samples_tokens")?,
        empty_steps: fields.get("empty_steps")?,
        nested_steps: fields.get("nested_steps")?,
    })
}

fn invalid(line: Option<usize>, field: &str, message: &str) -> ScorecardError {
    ScorecardError::InvalidField {
        line,
        field: field.to_owned(),
        message: message.to_owned(),
    }
}

/// Typed access to an object's fields that names the field on error.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    line: Option<usize>,
}

impl Fields<'_> {
    fn typed<T: DeserializeOwned + Default>(
        &self,
        key: &str,
        path: &str,
    ) -> Result<T, ScorecardError> {
        match self.object.get(key) {
            // `null` reads as missing: trainers print it for "not measured".
            None | Some(Value::Null) => Ok(T::default()),
            Some(v) => T::deserialize(v).map_err(|e| invalid(self.line, path, &e.to_string())),
        }
    }

    fn get<T: DeserializeOwned + Default>(&self, key: &str) -> Result<T, ScorecardError> {
        self.typed(key, key)
    }

    /// A time in ms: a negative one is refused here, where it is read,
    /// rather than shown later as 0.
    fn duration(&self, key: &str) -> Result<f64, ScorecardError> {
        let ms: f64 = self.get(key)?;
        if ms < 0.0 {
            return Err(invalid(
                self.line,
                key,
                &format!("{ms} ms: a duration cannot be negative"),
            ));
        }
        Ok(ms)
    }

    /// Times in ms, none negative (see [`Fields::duration`]).
    fn durations(&self, key: &str) -> Result<Vec<f64>, ScorecardError> {
        let all: Vec<f64> = self.get(key)?;
        match all.iter().position(|ms| *ms < 0.0) {
            Some(i) => Err(invalid(
                self.line,
                &format!("{key}[{i}]"),
                &format!("{} ms: a duration cannot be negative", all[i]),
            )),
            None => Ok(all),
        }
    }

    fn nested<T: DeserializeOwned + Default>(
        &self,
        parent: &str,
        key: &str,
    ) -> Result<T, ScorecardError> {
        self.typed(key, &format!("{parent}.{key}"))
    }

    fn map_of<T>(
        &self,
        key: &str,
        item: impl Fn(&str, &Value, Option<usize>) -> Result<T, ScorecardError>,
    ) -> Result<std::collections::BTreeMap<String, T>, ScorecardError> {
        match self.object.get(key) {
            None | Some(Value::Null) => Ok(Default::default()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(name, v)| Ok((name.clone(), item(&format!("{key}.{name}"), v, self.line)?)))
                .collect(),
            Some(_) => Err(invalid(self.line, key, "expected an object")),
        }
    }

    fn layers(&self) -> Result<Vec<PerLayerData>, ScorecardError> {
        let items = match self.object.get("per_layer") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(invalid(self.line, "per_layer", "expected an array")),
        };
        items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let path = format!("per_layer[{i}]");
                let object = v
                    .as_object()
                    .ok_or_else(|| invalid(self.line, &path, "expected an object"))?;
                let f = Fields {
                    object,
                    line: self.line,
                };
                Ok(PerLayerData {
                    layer: f.nested(&path, "layer")?,
                    fwd_ms: f.nested(&path, "fwd_ms")?,
                    bwd_ms: f.nested(&path, "bwd_ms")?,
                    ops: f.nested(&path, "ops")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_with_braces_nulls_and_later_mentions() {
        let json = r#"{"_profiler":"step_profiler_v2","steps":3,"phases":null,"per_layer":null}"#;
        let line = format!("INFO train{{epoch=1 rank=0}}: {json}");
        let input = parse_step_profiler_line(&line).unwrap();
        assert_eq!(input.steps, 3);
        assert!(input.phases.is_empty() && input.per_layer.is_empty());
        let log = format!("{line}\nwarn: could not emit \"_profiler\" step_profiler_v2 line");
        assert_eq!(parse_last_step_profiler_line(&log).unwrap().steps, 3);
        let err =
            parse_last_step_profiler_line("x \"_profiler\" step_profiler_v2 {oops").unwrap_err();
        assert!(
            matches!(err, ScorecardError::MalformedJson { line: Some(1), .. }),
            "{err:?}"
        );
    }

    #[test]
    fn parses_a_v2_line_with_prefix_and_top_level_ops() {
        let line = r#"[2026-01-01T00:00:00Z] {"_profiler":"step_profiler_v2","steps":10,"avg_step_ms":105.0,"wall_coverage":0.85,"phases":{"forward":{"total_ms":300.0,"pct":28.6,"avg_ms":30.0}},"per_layer":[{"layer":0,"fwd_ms":1.5,"bwd_ms":3.0}],"ops":{"gemm_fwd":40.0}}"#;
        let input = parse_step_profiler_line(line).unwrap();
        assert_eq!(input.steps, 10);
        assert_eq!(input.phases["forward"].avg_ms, 30.0);
        assert_eq!(input.per_layer[0].bwd_ms, 3.0);
        assert_eq!(input.ops["gemm_fwd"], 40.0);
    }

    #[test]
    fn errors_name_the_field_and_line() {
        let log = "noise\n{\"_profiler\":\"step_profiler_v1\",\"per_layer\":[{\"layer\":0},{\"fwd_ms\":\"x\"}]}\n";
        let err = parse_last_step_profiler_line(log).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("per_layer[1].fwd_ms"), "{text}");
        assert!(text.contains("log line 2"), "{text}");
    }

    #[test]
    fn negative_step_times_are_refused_where_read() {
        let err = parse_step_profiler_line(
            r#"{"_profiler":"step_profiler_v2","steps":3,"avg_step_ms":-5}"#,
        )
        .unwrap_err();
        assert!(
            matches!(&err, ScorecardError::InvalidField { field, .. } if field == "avg_step_ms"),
            "{err}"
        );
        assert!(err.to_string().contains("cannot be negative"), "{err}");
        let err = parse_step_profiler_line(
            r#"{"_profiler":"step_profiler_v2","step_samples_ms":[1.0,-2.0]}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("step_samples_ms[1]"), "{err}");
    }

    #[test]
    fn untagged_and_wrongly_tagged_lines_are_rejected() {
        let err = parse_step_profiler_line(r#"{"steps":1}"#).unwrap_err();
        assert!(
            matches!(err, ScorecardError::MissingTag { line: None }),
            "{err}"
        );
        assert!(err.to_string().contains("_profiler"));
        let err = parse_step_profiler_line(r#"{"_profiler":"other"}"#).unwrap_err();
        assert!(matches!(err, ScorecardError::UnknownTag { .. }), "{err}");
        let err =
            parse_step_profiler_line(r#"{"_profiler":"step_profiler_v2","steps":"#).unwrap_err();
        assert!(matches!(err, ScorecardError::MalformedJson { .. }), "{err}");
        let err = parse_step_profiler_line("[1]").unwrap_err();
        assert!(matches!(err, ScorecardError::NotAnObject { .. }), "{err}");
    }

    #[test]
    fn scan_takes_the_last_tagged_line() {
        let log = "{\"_profiler\":\"step_profiler_v2\",\"steps\":1}\nx\n{\"_profiler\":\"step_profiler_v2\",\"steps\":7}\ntail";
        assert_eq!(find_last_step_profiler_line(log).map(|(n, _)| n), Some(3));
        assert_eq!(parse_last_step_profiler_line(log).unwrap().steps, 7);
        let err = parse_last_step_profiler_line("a\nb").unwrap_err();
        assert!(
            matches!(err, ScorecardError::NoProfilerLine { lines: 2 }),
            "{err}"
        );
    }
}
