//! Execution traces (`RecordedExecutionTrace`): a JSON object with
//! `entries`, read with the field-naming errors of
//! [`parse_execution_trace`](super::trace_read::parse_execution_trace).

use super::error::InputError;
use super::format::{Format, Input, Source};
use super::sniff::{Head, JsonRoot};
use super::trace_read::parse_trace;

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
