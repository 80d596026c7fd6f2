//! Reading a Chrome trace as `torch.profiler` writes it into complete
//! events with their nesting: per thread, an event's parent is the
//! innermost event that encloses it.

use super::raw::{RawEvent, Root, Sink, Tokens};
use crate::parity::error::ParityError;

/// Kind of a trace event, from its `cat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cat {
    /// `cpu_op` (or `operator` in older traces): an aten op or autograd node.
    CpuOp,
    /// `user_annotation`: a `record_function` range or a `ProfilerStep#N`.
    Annotation,
    /// `kernel`: a device kernel.
    Kernel,
    /// Anything else (Python frames, runtime calls, memcpy, ...).
    Other,
}

/// A complete (`ph: "X"`) event.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) name: String,
    pub(crate) cat: Cat,
    /// Start, µs.
    pub(crate) ts: f64,
    /// Duration, µs.
    pub(crate) dur: f64,
    /// `pid/tid` as written.
    pub(crate) thread: String,
    /// `args["Sequence number"]`: links an op to its autograd node.
    pub(crate) seq: Option<i64>,
    /// `args["External id"]`: links a kernel to the op that launched it.
    pub(crate) external_id: Option<i64>,
    /// Index of the enclosing event on the same thread.
    pub(crate) parent: Option<usize>,
}

impl Event {
    pub(crate) fn end(&self) -> f64 {
        self.ts + self.dur
    }
}

/// A Chrome trace read into complete events with their nesting, as
/// `torch.profiler` (Kineto) or this crate's export writes it. Read it with
/// [`ChromeTrace::from_reader`]; turn it into a parity baseline with
/// `import_chrome_trace`.
#[derive(Debug, Clone, Default)]
pub struct ChromeTrace {
    /// Complete events, sorted per thread by start (longer first on ties),
    /// parents set.
    pub(crate) events: Vec<Event>,
    /// Top-level `tokens_per_step` (number or numeric string).
    pub(crate) tokens_per_step: Option<f64>,
    /// Complete events left out for a negative or non-finite start or
    /// duration: (index in `traceEvents`, name).
    pub(crate) dropped: Vec<(usize, String)>,
}

impl ChromeTrace {
    /// Reads a trace from `reader` without holding the document whole;
    /// `origin` names it in errors.
    ///
    /// # Errors
    /// [`ParityError::Malformed`] for invalid JSON or an event with a key
    /// given twice (naming the key and the event's index),
    /// [`ParityError::NotATrace`] without complete events, and
    /// [`ParityError::InvalidValue`] for a bad `tokens_per_step`.
    pub fn from_reader(reader: impl std::io::Read, origin: &str) -> Result<Self, ParityError> {
        let mut de = serde_json::Deserializer::from_reader(reader);
        Self::read(&mut de, origin)
    }

    /// Reads a trace from text; errors as [`ChromeTrace::from_reader`].
    ///
    /// # Errors
    /// As [`ChromeTrace::from_reader`].
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ParityError> {
        let mut de = serde_json::Deserializer::from_str(text);
        Self::read(&mut de, origin)
    }

    /// Complete events read.
    #[must_use]
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    /// Complete events left out for a negative or non-finite start or
    /// duration: (index in `traceEvents`, name).
    #[must_use]
    pub fn dropped(&self) -> &[(usize, String)] {
        &self.dropped
    }

    fn read<'de, R: serde_json::de::Read<'de>>(
        de: &mut serde_json::Deserializer<R>,
        origin: &str,
    ) -> Result<Self, ParityError> {
        let json = |e: serde_json::Error| ParityError::json("PyTorch trace", origin, &e);
        let mut trace = Self::default();
        let top =
            serde::de::DeserializeSeed::deserialize(Root(&mut trace), &mut *de).map_err(json)?;
        de.end().map_err(json)?;
        let not_a_trace = |reason: &str| ParityError::NotATrace {
            origin: origin.to_owned(),
            reason: reason.to_owned(),
        };
        if !top.container {
            return Err(not_a_trace("neither an object nor an array of events"));
        }
        if !top.has_events {
            return Err(not_a_trace("no `traceEvents` array"));
        }
        trace.tokens_per_step = match top.tokens_per_step {
            None => None,
            Some(Tokens::Number(t)) if t.is_finite() && t > 0.0 => Some(t),
            Some(Tokens::Number(t)) => return Err(bad_tokens(origin, t.to_string())),
            Some(Tokens::Other(v)) => return Err(bad_tokens(origin, v)),
        };
        if trace.events.is_empty() {
            return Err(not_a_trace(
                "no complete (\"ph\": \"X\") events with a time and a duration",
            ));
        }
        trace.events.sort_by(|a, b| {
            a.thread
                .cmp(&b.thread)
                .then(a.ts.total_cmp(&b.ts))
                .then(b.dur.total_cmp(&a.dur))
        });
        nest(&mut trace.events);
        Ok(trace)
    }
}

/// Timestamps carry ns precision in µs; allow one ns of rounding when
/// deciding whether one event encloses another.
const EPS_US: f64 = 1e-3;

fn bad_tokens(origin: &str, value: String) -> ParityError {
    ParityError::InvalidValue {
        origin: origin.to_owned(),
        field: "tokens_per_step".to_owned(),
        value,
        reason: "must be a number above 0".to_owned(),
    }
}

impl Sink for ChromeTrace {
    fn event(&mut self, index: usize, e: RawEvent) {
        if e.ph.0.as_deref() != Some("X") {
            return;
        }
        let (Some(ts), Some(dur)) = (e.ts.0, e.dur.0) else {
            return;
        };
        let name = e.name.0.unwrap_or_default();
        if !(ts.is_finite() && dur.is_finite() && ts >= 0.0 && dur >= 0.0) {
            self.dropped.push((index, name));
            return;
        }
        let cat = match e.cat.0.as_deref() {
            Some("cpu_op" | "operator") => Cat::CpuOp,
            Some("user_annotation") => Cat::Annotation,
            Some("kernel") => Cat::Kernel,
            _ => Cat::Other,
        };
        self.events.push(Event {
            name,
            cat,
            ts,
            dur,
            thread: format!("{}/{}", e.pid.0, e.tid.0),
            seq: e.args.seq,
            external_id: e.args.external_id,
            parent: None,
        });
    }
}

/// Sets each event's parent: the innermost earlier event on its thread that
/// encloses it. Device kernels never nest (they run on streams).
fn nest(events: &mut [Event]) {
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..events.len() {
        if i > 0 && events[i].thread != events[i - 1].thread {
            stack.clear();
        }
        if events[i].cat == Cat::Kernel {
            continue;
        }
        while let Some(&top) = stack.last() {
            let (t, e) = (&events[top], &events[i]);
            if e.ts >= t.end() - EPS_US && e.dur > 0.0 || e.ts > t.end() + EPS_US {
                stack.pop(); // `top` ended before `e` began.
            } else if e.end() <= t.end() + EPS_US {
                events[i].parent = Some(top);
                break;
            } else {
                stack.pop(); // Overlap without nesting: not a parent.
            }
        }
        stack.push(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_nest_per_thread() {
        let text = r#"{"traceEvents": [
            {"ph": "X", "cat": "user_annotation", "name": "Outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
            {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 4},
            {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1},
            {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 1, "ts": 5, "dur": 5},
            {"ph": "X", "cat": "cpu_op", "name": "other", "pid": 1, "tid": 2, "ts": 1, "dur": 1},
            {"ph": "i", "name": "instant", "pid": 1, "tid": 1, "ts": 3},
            {"ph": "X", "name": "no duration", "pid": 1, "tid": 1, "ts": 3}
        ], "tokens_per_step": "256"}"#;
        let trace = ChromeTrace::from_json(text, "t.json").unwrap();
        let events = &trace.events;
        assert_eq!(trace.tokens_per_step, Some(256.0));
        let parent = |name: &str| {
            let e = events.iter().find(|e| e.name == name).unwrap();
            e.parent.map(|p| events[p].name.as_str())
        };
        assert_eq!(events.len(), 5);
        assert_eq!(parent("Outer"), None);
        assert_eq!(parent("a"), Some("Outer"));
        assert_eq!(parent("b"), Some("a"));
        assert_eq!(parent("c"), Some("Outer"), "starts as `a` ends");
        assert_eq!(parent("other"), None, "another thread");
    }

    #[test]
    fn not_a_trace_and_truncated_text_are_errors_naming_the_origin() {
        let e =
            ChromeTrace::from_json("{\"traceEvents\": [{\"ph\": \"X\"", "cut.json").unwrap_err();
        assert!(
            matches!(&e, ParityError::Malformed { origin, .. } if origin == "cut.json"),
            "{e}"
        );
        let e = ChromeTrace::from_json("{\"events\": []}", "x.json").unwrap_err();
        assert!(e.to_string().contains("traceEvents"), "{e}");
        let e = ChromeTrace::from_json("[]", "x.json").unwrap_err();
        assert!(matches!(e, ParityError::NotATrace { .. }), "{e}");
        let e = ChromeTrace::from_json(
            "{\"traceEvents\": [], \"tokens_per_step\": \"many\"}",
            "x.json",
        )
        .unwrap_err();
        assert!(e.to_string().contains("tokens_per_step"), "{e}");
    }
}
