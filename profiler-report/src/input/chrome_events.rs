//! Reading a Chrome trace as `torch.profiler` writes it into complete
//! events with their nesting: per thread, an event's parent is the
//! innermost event that encloses it.

use std::collections::HashSet;
use std::sync::Arc;

use super::chrome_raw::{Id, RawEvent, Sink, Tokens, Top};
use super::chrome_stream::read_document;
use crate::model::chrome_trace::{Cat, ChromeTrace, Event, FlowStart};
use crate::model::parity_error::ParityError;

impl ChromeTrace {
    /// Reads a trace from `reader` without holding the document whole:
    /// in chunks of 1 MiB, each event parsed from the bytes in memory (the
    /// complete events of a chunk on two threads; one event or top-level
    /// value may hold at most 64 MiB); `origin` names it in errors.
    ///
    /// # Errors
    /// [`ParityError::Malformed`] for invalid JSON, an event with a key
    /// given twice, or a value past 64 MiB (naming the event's index, its
    /// byte offset, line and column),
    /// [`ParityError::NotATrace`] without complete events, and
    /// [`ParityError::InvalidValue`] for a bad `tokens_per_step`.
    pub fn from_reader(reader: impl std::io::Read, origin: &str) -> Result<Self, ParityError> {
        let mut trace = Self::default();
        let top = read_document(reader, &mut trace).map_err(|e| ParityError::Malformed {
            what: "PyTorch trace",
            origin: origin.to_owned(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
        Self::finish(trace, top, origin)
    }

    /// Reads a trace from text; errors as [`ChromeTrace::from_reader`].
    ///
    /// # Errors
    /// As [`ChromeTrace::from_reader`].
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ParityError> {
        Self::from_reader(text.as_bytes(), origin)
    }

    /// Checks what the top level held and sorts and nests the events read.
    fn finish(mut trace: Self, top: Top, origin: &str) -> Result<Self, ParityError> {
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
        trace.texts = HashSet::new();
        trace.scratch = String::new();
        trace.last_thread = None;
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

impl ChromeTrace {
    /// The shared copy of `text`.
    fn intern(&mut self, text: &str) -> Arc<str> {
        if let Some(t) = self.texts.get(text) {
            return Arc::clone(t);
        }
        let t: Arc<str> = Arc::from(text);
        self.texts.insert(Arc::clone(&t));
        t
    }

    /// The thread of an event, named `pid/tid`.
    fn thread(&mut self, pid: &Id<'_>, tid: &Id<'_>) -> Arc<str> {
        use std::fmt::Write as _;
        // Events come in runs on one thread: spare those the naming.
        let ints = match (pid, tid) {
            (Id::Int(p), Id::Int(t)) => Some((*p, *t)),
            _ => None,
        };
        if let (Some(ints), Some((last, thread))) = (ints, &self.last_thread)
            && ints == *last
        {
            return Arc::clone(thread);
        }
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        let _ = write!(name, "{pid}/{tid}");
        let thread = self.intern(&name);
        self.scratch = name;
        if let Some(ints) = ints {
            self.last_thread = Some((ints, Arc::clone(&thread)));
        }
        thread
    }
}

impl Sink for ChromeTrace {
    fn event(&mut self, index: usize, e: RawEvent<'_>) {
        match e.ph.get() {
            Some("X") => {}
            Some("s") if is_launch_flow(&e) => {
                if let (Some(id), Some(ts)) = (e.args.correlation.or(e.id.0), e.ts.0) {
                    let thread = self.thread(&e.pid, &e.tid);
                    self.flows.insert(id, FlowStart { thread, ts });
                }
                return;
            }
            _ => return,
        }
        let (Some(ts), Some(dur)) = (e.ts.0, e.dur.0) else {
            return;
        };
        let name = e.name.get().unwrap_or_default();
        let Some(cat) = Cat::of(e.cat.get(), name) else {
            return;
        };
        if !(ts.is_finite() && dur.is_finite() && ts >= 0.0 && dur >= 0.0) {
            self.dropped.push((index, name.to_owned()));
            return;
        }
        let name = self.intern(name);
        let thread = self.thread(&e.pid, &e.tid);
        let dims = e.args.dims.as_deref().map(|d| self.intern(d));
        self.events.push(Event::new(
            (name, thread, dims),
            cat,
            (ts, dur),
            (e.args.seq, e.args.external_id, e.args.correlation),
        ));
    }
}

/// A flow from a launch to its device event: `ac2g` (older traces: an
/// `async` flow named `launch`).
fn is_launch_flow(e: &RawEvent<'_>) -> bool {
    match e.cat.get() {
        Some("ac2g") => true,
        Some("async") => e.name.get() == Some("launch"),
        _ => false,
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
        if events[i].cat.on_device() {
            continue;
        }
        while let Some(&top) = stack.last() {
            let (t, e) = (&events[top], &events[i]);
            if e.ts >= t.end() - EPS_US && e.dur > 0.0 || e.ts > t.end() + EPS_US {
                stack.pop(); // `top` ended before `e` began.
            } else if e.end() <= t.end() + EPS_US {
                events[i].set_parent(top);
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
            let e = events.iter().find(|e| &*e.name == name).unwrap();
            e.parent().map(|p| &*events[p].name)
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
