//! Chrome traces this crate exports (`trace chrome`): an object whose first
//! key is `traceEvents`, without the keys Kineto writes; read as a
//! [`ChromeTrace`] (usable as a parity baseline).

use super::pytorch::is_kineto;
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};
use crate::model::chrome_trace::{ChromeTrace, PRODUCER_KEY};

/// A Chrome trace of our own export.
#[derive(Debug)]
pub struct ChromeTraceFormat;

impl Format for ChromeTraceFormat {
    fn name(&self) -> &'static str {
        "chrome-trace"
    }

    fn what(&self) -> &'static str {
        "a Chrome trace"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Object)
            && (head.has_key(PRODUCER_KEY)
                || (head.keys().first().is_some_and(|k| k == "traceEvents") && !is_kineto(head)))
    }

    fn read(&self, mut source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let trace = ChromeTrace::from_reader(source.reader(), origin)?;
        Ok(Input::ChromeTrace(trace))
    }
}
