//! PyTorch (Kineto) traces as `torch.profiler` exports them: an object with
//! `traceEvents` (and Kineto's `schemaVersion`, `deviceProperties`, ...),
//! or a bare array of events; streamed into a [`ChromeTrace`].

use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};
use crate::model::chrome_trace::ChromeTrace;

/// Top-level keys only Kineto writes.
const KINETO_KEYS: [&str; 5] = [
    "schemaVersion",
    "deviceProperties",
    "distributedInfo",
    "baseTimeNanoseconds",
    "trace_id",
];

/// Whether the head carries a key only Kineto writes.
pub(crate) fn is_kineto(head: &Head<'_>) -> bool {
    KINETO_KEYS.iter().any(|k| head.has_key(k))
}

/// A PyTorch profiler trace.
#[derive(Debug)]
pub struct PytorchTraceFormat;

impl Format for PytorchTraceFormat {
    fn name(&self) -> &'static str {
        "pytorch-trace"
    }

    fn what(&self) -> &'static str {
        "a PyTorch trace"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        match head.json_root() {
            // Kineto's keys alone: `traceEvents` may come after a long
            // `deviceProperties`; the reader finds it wherever it is.
            Some(JsonRoot::Object) => head.has_key("traceEvents") || is_kineto(head),
            // The legacy export: a bare array of events.
            Some(JsonRoot::Array) => head.has_key("ph"),
            None => false,
        }
    }

    fn read(&self, mut source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let trace = ChromeTrace::from_reader(source.reader(), origin)?;
        Ok(Input::PytorchTrace(trace))
    }
}
