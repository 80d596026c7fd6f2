//! Reading execution traces from disk with errors that point at the file,
//! line, column, entry and field at fault.

use std::io::{BufReader, Read};
use std::path::Path;

use profiler_core::{Profile, trace::RecordedExecutionTrace};
use serde_json::Value;

use crate::base::decode::Decoded;
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::MAX_INPUT_BYTES;
use crate::input::sniff::{Head, JsonRoot};
use crate::model::trace_error::TraceError;

/// Reads a trace file (gzip-compressed or not): a [`RecordedExecutionTrace`]
/// as JSON (the established format), or a whole profile (any JSON object with `schema_version`), whose
/// `trace` is returned.
///
/// # Errors
/// [`TraceError::Read`] when the file cannot be read; [`TraceError::Malformed`]
/// with line, column and the field path (`entries[3].duration_us`) for bad
/// JSON; [`TraceError::Invalid`] naming the entry index and field for a
/// negative or non-finite duration or start, or durations whose sum
/// overflows; [`TraceError::Profile`] for a bad profile.
pub fn read_execution_trace(path: impl AsRef<Path>) -> Result<RecordedExecutionTrace, TraceError> {
    let path = path.as_ref();
    let read_error = |source| TraceError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = crate::base::user_file::open_file(path).map_err(read_error)?;
    let mut input = Decoded::new(BufReader::new(file), MAX_INPUT_BYTES).map_err(read_error)?;
    let mut text = String::new();
    if let Err(e) = input.read_to_string(&mut text) {
        // A gzip stream's failure in its own words, not the decoder's.
        return Err(read_error(match input.failure() {
            Some(f) => std::io::Error::new(std::io::ErrorKind::InvalidData, f.to_string()),
            None => e,
        }));
    }
    parse_trace(&text, Some(path))
}

/// Parses a trace from JSON text; errors as [`read_execution_trace`], without a file.
///
/// # Errors
/// As [`read_execution_trace`].
pub fn parse_execution_trace(text: &str) -> Result<RecordedExecutionTrace, TraceError> {
    parse_trace(text, None)
}

pub(crate) fn parse_trace(
    text: &str,
    path: Option<&Path>,
) -> Result<RecordedExecutionTrace, TraceError> {
    // A profile also parses as an (empty) trace, so look for its marker first.
    let trace = if is_profile(text) {
        match path {
            Some(p) => Profile::from_json(text).map_err(|e| e.with_path(p))?.trace,
            None => Profile::from_json(text)?.trace,
        }
    } else {
        serde_json::from_str::<RecordedExecutionTrace>(text).map_err(|e| {
            let message = crate::base::json::message(&e);
            let message = match e.is_data().then(|| field_path(text)).flatten() {
                Some(field) => format!("{field}: {message}"),
                None => message,
            };
            TraceError::Malformed {
                path: path.map(Path::to_path_buf),
                message,
                line: e.line(),
                column: e.column(),
            }
        })?
    };
    // The same check every reader of traces makes (profiles included).
    trace.validate("").map_err(|source| TraceError::Invalid {
        path: path.map(Path::to_path_buf),
        source,
    })?;
    Ok(with_consistent_total(trace))
}

/// A total below the sum of its entries' durations (hand-edited or
/// truncated files) would inflate every ratio of total time; it is raised
/// to that sum.
fn with_consistent_total(mut trace: RecordedExecutionTrace) -> RecordedExecutionTrace {
    let sum: f64 = trace.entries.iter().map(|e| e.duration_us).sum();
    if trace.total_duration_us < sum {
        trace.total_duration_us = sum;
    }
    trace
}

fn is_profile(text: &str) -> bool {
    // The substring test keeps large plain traces to one parse.
    if !text.contains("\"schema_version\"") {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Probe {
        schema_version: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_str::<Probe>(text).is_ok_and(|p| p.schema_version.is_some())
}

/// Finds the field a data error is about by re-reading the document one
/// field at a time (only on the error path, so its cost does not matter).
fn field_path(text: &str) -> Option<String> {
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    for (key, value) in &root {
        if key == "entries" {
            let Value::Array(entries) = value else {
                return Some("entries".to_owned());
            };
            for (index, entry) in entries.iter().enumerate() {
                if let Some(field) = bad_entry_field(entry) {
                    return Some(format!("entries[{index}]{field}"));
                }
            }
        } else {
            let single = Value::Object([(key.clone(), value.clone())].into_iter().collect());
            if serde_json::from_value::<RecordedExecutionTrace>(single).is_err() {
                return Some(key.clone());
            }
        }
    }
    None
}

/// `""` when the entry itself is wrong (not an object, a field missing),
/// `.field` for the first field of the wrong type, `None` when it parses.
fn bad_entry_field(entry: &Value) -> Option<String> {
    let probe = |v: Value| {
        serde_json::from_value::<RecordedExecutionTrace>(serde_json::json!({ "entries": [v] }))
    };
    probe(entry.clone()).err()?;
    let Value::Object(fields) = entry else {
        return Some(String::new());
    };
    for (key, value) in fields {
        let mut minimal = serde_json::Map::new();
        minimal.insert("step".to_owned(), Value::from(0));
        minimal.insert("operation".to_owned(), Value::from(""));
        minimal.insert(key.clone(), value.clone());
        if probe(Value::Object(minimal)).is_err() {
            return Some(format!(".{key}"));
        }
    }
    Some(String::new())
}

/// An execution trace.
#[derive(Debug)]
pub struct ExecutionTraceFormat;

impl Format for ExecutionTraceFormat {
    fn name(&self) -> &'static str {
        "execution-trace"
    }

    fn what(&self) -> &'static str {
        "an execution trace"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Object) && head.has_key("entries")
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let path = source.path();
        let text = source.text()?;
        Ok(Input::ExecutionTrace(parse_trace(&text, path)?))
    }
}

#[cfg(test)]
mod tests {
    use profiler_core::trace::RecordedTraceEntry;

    #[test]
    fn totals_are_validated_and_never_below_the_entries() {
        let err = super::parse_execution_trace(r#"{"entries": [], "total_duration_us": -5}"#)
            .unwrap_err();
        assert!(
            matches!(&err, TraceError::Invalid { source, .. } if source.field == "total_duration_us"),
            "{err:?}"
        );
        assert!(err.to_string().contains("`total_duration_us`: -5"), "{err}");
        let text = r#"{"entries": [{"step": 0, "operation": "allreduce", "duration_us": 600}], "total_duration_us": 0}"#;
        let trace = super::parse_execution_trace(text).unwrap();
        assert_eq!(trace.total_duration_us, 600.0);
        let comm = crate::trace::communication_bottlenecks(&trace, 0.0);
        assert_eq!(comm[0].ratio_of_total, 1.0);
    }

    use super::*;

    #[test]
    fn nan_and_infinite_times_name_entry_and_field() {
        let mut trace = RecordedExecutionTrace::new();
        trace.add_entry(RecordedTraceEntry::new(0, "ok"));
        let mut bad = RecordedTraceEntry::new(1, "bad");
        bad.duration_us = f64::NAN;
        trace.add_entry(bad);
        let err = trace.validate("").expect_err("NaN");
        assert_eq!(err.field, "entries[1].duration_us");
        trace.entries[1].duration_us = 1.0;
        trace.entries[1].start_us = Some(f64::INFINITY);
        assert_eq!(
            trace.validate("").expect_err("inf").field,
            "entries[1].start_us"
        );
    }

    #[test]
    fn a_gzipped_trace_file_reads_as_its_text() {
        use std::io::Write as _;
        let text = r#"{"entries": [{"step": 0, "operation": "matmul", "duration_us": 120.0}], "total_duration_us": 120.0}"#;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.json.gz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        let mut bytes = gz.finish().unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let trace = read_execution_trace(&path).unwrap();
        assert_eq!(trace.entries[0].operation, "matmul");
        bytes.truncate(bytes.len() - 12);
        std::fs::write(&path, &bytes).unwrap();
        let e = read_execution_trace(&path).unwrap_err();
        assert!(e.to_string().contains("does not decompress"), "{e}");
    }

    #[test]
    fn field_paths_of_data_errors() {
        assert_eq!(field_path(r#"{"entries": {}}"#).as_deref(), Some("entries"));
        let bad_entry = r#"{"entries": [{"step": 0, "operation": "a", "thread": "x"}]}"#;
        assert_eq!(field_path(bad_entry).as_deref(), Some("entries[0].thread"));
        assert_eq!(
            field_path(r#"{"entries": [3]}"#).as_deref(),
            Some("entries[0]")
        );
        assert_eq!(
            field_path(r#"{"metadata": {"a": 1}}"#).as_deref(),
            Some("metadata")
        );
        assert_eq!(field_path(r#"{"entries": []}"#), None);
    }
}
