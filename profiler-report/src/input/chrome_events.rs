//! Reading a Chrome trace as `torch.profiler` writes it into complete
//! events with their nesting: per thread, an event's parent is the
//! innermost event that encloses it.

use std::collections::HashMap;
use std::sync::Arc;

use super::chrome_raw::{Id, RawEvent, Sink, Tokens, Top};
use super::chrome_stream::read_document;
use crate::base::spill::ExternalSort;
use crate::model::chrome_trace::{Cat, ChromeTrace, Record};
use crate::model::parity_error::ParityError;

/// Records held before a sorted run is spilled (16 MiB of records).
const RUN_RECORDS: usize = 1 << 18;

/// Events left out that are named (the rest are counted).
const DROPPED_NAMED: usize = 16;

impl ChromeTrace {
    /// Reads a trace from `reader` without holding the document whole:
    /// in chunks of 1 MiB, each event parsed from the bytes in memory (the
    /// complete events of a chunk on two threads; one event or top-level
    /// value may hold at most 64 MiB), each kept as a 64-byte record,
    /// spilled sorted to temporary files past 16 MiB; `origin` names it in
    /// errors.
    ///
    /// # Errors
    /// [`ParityError::Malformed`] for invalid JSON, an event with a key
    /// given twice, or a value past 64 MiB (naming the event's index, its
    /// byte offset, line and column),
    /// [`ParityError::NotATrace`] without complete events,
    /// [`ParityError::InvalidValue`] for a bad `tokens_per_step`, and
    /// [`ParityError::Spill`] when the temporary files fail.
    pub fn from_reader(reader: impl std::io::Read, origin: &str) -> Result<Self, ParityError> {
        Self::from_reader_with(reader, origin, RUN_RECORDS)
    }

    /// As [`ChromeTrace::from_reader`], holding at most `run_records`
    /// records in memory before spilling a sorted run.
    pub(crate) fn from_reader_with(
        reader: impl std::io::Read,
        origin: &str,
        run_records: usize,
    ) -> Result<Self, ParityError> {
        let mut sink = Reader::new(run_records);
        let top = read_document(reader, &mut sink).map_err(|e| ParityError::Malformed {
            what: "PyTorch trace",
            origin: origin.to_owned(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
        sink.finish(top, origin)
    }

    /// Reads a trace from text; errors as [`ChromeTrace::from_reader`].
    ///
    /// # Errors
    /// As [`ChromeTrace::from_reader`].
    pub fn from_json(text: &str, origin: &str) -> Result<Self, ParityError> {
        Self::from_reader(text.as_bytes(), origin)
    }
}

/// The state of reading a trace: texts by id, the records so far, and the
/// first spill error (reported once the document is read).
struct Reader {
    texts: Vec<Arc<str>>,
    ids: HashMap<Arc<str>, u32>,
    records: ExternalSort<Record>,
    events: u64,
    dropped: Vec<(usize, String)>,
    dropped_count: usize,
    failed: Option<std::io::Error>,
    /// Room to name a thread in, kept to spare an allocation per event.
    scratch: String,
    /// The last thread named from whole-number ids.
    last_thread: Option<((i128, i128), u32)>,
}

impl Reader {
    fn new(run_records: usize) -> Self {
        Self {
            texts: Vec::new(),
            ids: HashMap::new(),
            records: ExternalSort::new(run_records),
            events: 0,
            dropped: Vec::new(),
            dropped_count: 0,
            failed: None,
            scratch: String::new(),
            last_thread: None,
        }
    }

    /// Checks what the top level held and sorts the records read.
    fn finish(self, top: Top, origin: &str) -> Result<ChromeTrace, ParityError> {
        let not_a_trace = |reason: &str| ParityError::NotATrace {
            origin: origin.to_owned(),
            reason: reason.to_owned(),
        };
        let spill = |source| ParityError::Spill {
            origin: origin.to_owned(),
            source,
        };
        if !top.container {
            return Err(not_a_trace("neither an object nor an array of events"));
        }
        if !top.has_events {
            return Err(not_a_trace("no `traceEvents` array"));
        }
        let tokens_per_step = match top.tokens_per_step {
            None => None,
            Some(Tokens::Number(t)) if t.is_finite() && t > 0.0 => Some(t),
            Some(Tokens::Number(t)) => return Err(bad_tokens(origin, t.to_string())),
            Some(Tokens::Other(v)) => return Err(bad_tokens(origin, v)),
        };
        if let Some(source) = self.failed {
            return Err(spill(source));
        }
        if self.events == 0 {
            return Err(not_a_trace(
                "no complete (\"ph\": \"X\") events with a time and a duration",
            ));
        }
        Ok(ChromeTrace {
            origin: origin.to_owned(),
            texts: self.texts,
            records: self.records.finish().map_err(spill)?,
            events: self.events,
            tokens_per_step,
            devices: top.devices,
            rank: top.rank,
            world_size: top.world_size,
            dropped: self.dropped,
            dropped_count: self.dropped_count,
        })
    }

    /// The id of `text`.
    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.texts.len()).unwrap_or(u32::MAX - 1);
        let t: Arc<str> = Arc::from(text);
        self.texts.push(Arc::clone(&t));
        self.ids.insert(t, id);
        id
    }

    /// The thread of an event, named `pid/tid`.
    fn thread(&mut self, pid: &Id<'_>, tid: &Id<'_>) -> u32 {
        use std::fmt::Write as _;
        // Events come in runs on one thread: spare those the naming.
        let ints = match (pid, tid) {
            (Id::Int(p), Id::Int(t)) => Some((*p, *t)),
            _ => None,
        };
        if let (Some(ints), Some((last, thread))) = (ints, self.last_thread)
            && ints == last
        {
            return thread;
        }
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        let _ = write!(name, "{pid}/{tid}");
        let thread = self.intern(&name);
        self.scratch = name;
        if let Some(ints) = ints {
            self.last_thread = Some((ints, thread));
        }
        thread
    }

    fn push(&mut self, record: Record) {
        if self.failed.is_none()
            && let Err(e) = self.records.push(record)
        {
            self.failed = Some(e);
        }
    }
}

fn bad_tokens(origin: &str, value: String) -> ParityError {
    ParityError::InvalidValue {
        origin: origin.to_owned(),
        field: "tokens_per_step".to_owned(),
        value,
        reason: "must be a number above 0".to_owned(),
    }
}

impl Sink for Reader {
    fn event(&mut self, index: usize, e: RawEvent<'_>) {
        let at = index as u64;
        match e.ph.get() {
            Some("X") => {}
            Some("s") if is_launch_flow(&e) => {
                if let (Some(id), Some(ts)) = (e.args.correlation.or(e.id.0), e.ts.0)
                    && ts.is_finite()
                {
                    let thread = self.thread(&e.pid, &e.tid);
                    self.push(Record::flow_start(thread, ts, id, at));
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
            self.dropped_count += 1;
            if self.dropped.len() < DROPPED_NAMED {
                self.dropped.push((index, name.to_owned()));
            }
            return;
        }
        let name = self.intern(name);
        let thread = self.thread(&e.pid, &e.tid);
        let dims = e.args.dims.as_deref().map(|d| self.intern(d));
        self.events += 1;
        self.push(Record::event(
            (name, thread, dims),
            cat,
            (ts, dur),
            (e.args.seq, e.args.external_id, e.args.correlation),
            at,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_events_and_launch_flows_are_kept_and_the_rest_skipped() {
        let text = r#"{"traceEvents": [
            {"ph": "X", "cat": "user_annotation", "name": "Outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
            {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 4},
            {"ph": "i", "name": "instant", "pid": 1, "tid": 1, "ts": 3},
            {"ph": "X", "name": "no duration", "pid": 1, "tid": 1, "ts": 3},
            {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 3, "dur": 1},
            {"ph": "s", "cat": "ac2g", "name": "launch", "id": 7, "pid": 1, "tid": 1, "ts": 2},
            {"ph": "X", "cat": "cpu_op", "name": "bad", "pid": 1, "tid": 1, "ts": -1, "dur": 1}
        ], "tokens_per_step": "256"}"#;
        // One record per run: every record is spilled and merged back.
        let trace = ChromeTrace::from_reader_with(text.as_bytes(), "t.json", 1).unwrap();
        assert_eq!(trace.tokens_per_step, Some(256.0));
        assert_eq!((trace.event_count(), trace.dropped_count()), (2, 1));
        assert_eq!(trace.dropped(), [(6, "bad".to_owned())]);
        let records: Vec<Record> = trace.records.iter().unwrap().map(Result::unwrap).collect();
        let order: Vec<(u64, bool)> = records.iter().map(|r| (r.index, r.flow)).collect();
        assert_eq!(order, [(0, false), (1, false), (5, true)], "by start");
        assert_eq!(trace.spilled_runs(), 2);
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
