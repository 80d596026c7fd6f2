//! Reading a Chrome trace as `torch.profiler` writes it into complete
//! events with their nesting: per thread, an event's parent is the
//! innermost event that encloses it.

use serde_json::Value;

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

/// What the trace says beyond its events.
#[derive(Debug, Default)]
pub(crate) struct TraceMeta {
    /// Top-level `tokens_per_step` (number or numeric string).
    pub(crate) tokens_per_step: Option<f64>,
}

/// Timestamps carry ns precision in µs; allow one ns of rounding when
/// deciding whether one event encloses another.
const EPS_US: f64 = 1e-3;

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Parses the trace text into complete events (sorted per thread by start,
/// longer first on ties) with parents set, plus its metadata.
pub(crate) fn parse(text: &str, origin: &str) -> Result<(Vec<Event>, TraceMeta), ParityError> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| ParityError::json("PyTorch trace", origin, &e))?;
    let not_a_trace = |reason: &str| ParityError::NotATrace {
        origin: origin.to_owned(),
        reason: reason.to_owned(),
    };
    let (raw, meta) = match &root {
        Value::Array(events) => (events, TraceMeta::default()),
        Value::Object(map) => {
            let events = map
                .get("traceEvents")
                .ok_or_else(|| not_a_trace("no `traceEvents` array"))?
                .as_array()
                .ok_or_else(|| not_a_trace("`traceEvents` is not an array"))?;
            let tokens_per_step = match map.get("tokens_per_step") {
                None => None,
                Some(v) => Some(number(v).filter(|t| t.is_finite() && *t > 0.0).ok_or_else(
                    || ParityError::InvalidValue {
                        origin: origin.to_owned(),
                        field: "tokens_per_step".to_owned(),
                        value: v.to_string(),
                        reason: "must be a number above 0".to_owned(),
                    },
                )?),
            };
            (events, TraceMeta { tokens_per_step })
        }
        _ => return Err(not_a_trace("neither an object nor an array of events")),
    };
    let mut events: Vec<Event> = raw
        .iter()
        .filter(|e| e.get("ph").and_then(Value::as_str) == Some("X"))
        .filter_map(|e| {
            let ts = e.get("ts").and_then(number)?;
            let dur = e.get("dur").and_then(number)?;
            if !(ts.is_finite() && dur.is_finite() && dur >= 0.0) {
                return None;
            }
            let cat = match e.get("cat").and_then(Value::as_str) {
                Some("cpu_op" | "operator") => Cat::CpuOp,
                Some("user_annotation") => Cat::Annotation,
                Some("kernel") => Cat::Kernel,
                _ => Cat::Other,
            };
            let args = e.get("args");
            let arg = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_i64);
            let id = |k: &str| e.get(k).map_or_else(String::new, |v| v.to_string());
            Some(Event {
                name: e
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                cat,
                ts,
                dur,
                thread: format!("{}/{}", id("pid"), id("tid")),
                seq: arg("Sequence number"),
                external_id: arg("External id"),
                parent: None,
            })
        })
        .collect();
    if events.is_empty() {
        return Err(not_a_trace(
            "no complete (\"ph\": \"X\") events with a time and a duration",
        ));
    }
    events.sort_by(|a, b| {
        a.thread
            .cmp(&b.thread)
            .then(a.ts.total_cmp(&b.ts))
            .then(b.dur.total_cmp(&a.dur))
    });
    nest(&mut events);
    Ok((events, meta))
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
        let (events, meta) = parse(text, "t.json").unwrap();
        assert_eq!(meta.tokens_per_step, Some(256.0));
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
        let e = parse("{\"traceEvents\": [{\"ph\": \"X\"", "cut.json").unwrap_err();
        assert!(
            matches!(&e, ParityError::Malformed { origin, .. } if origin == "cut.json"),
            "{e}"
        );
        let e = parse("{\"events\": []}", "x.json").unwrap_err();
        assert!(e.to_string().contains("traceEvents"), "{e}");
        let e = parse("[]", "x.json").unwrap_err();
        assert!(matches!(e, ParityError::NotATrace { .. }), "{e}");
        let e = parse(
            "{\"traceEvents\": [], \"tokens_per_step\": \"many\"}",
            "x.json",
        )
        .unwrap_err();
        assert!(e.to_string().contains("tokens_per_step"), "{e}");
    }
}
