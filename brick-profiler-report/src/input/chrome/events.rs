//! Reading a Chrome trace as `torch.profiler` writes it into complete
//! events with their nesting: per thread, an event's parent is the
//! innermost event that encloses it.

use std::io::BufReader;

use super::raw::{Id, RawEvent, Sink, Tokens, Top};
use super::stream::read_document;
use super::texts::{TextLimits, Texts};
use crate::base::decode::Decoded;
use crate::base::spill::ExternalSort;
use crate::input::sniff::MAX_INPUT_BYTES;
use crate::model::chrome_trace::{Cat, ChromeTrace, Record};
use crate::model::parity_error::ParityError;

/// Records held before a sorted run is spilled (16 MiB of records).
const RUN_RECORDS: usize = 1 << 18;

/// Events left out that are named (the rest are counted).
const DROPPED_NAMED: usize = 16;

impl ChromeTrace {
    /// Reads a trace from `reader` without holding the document whole,
    /// decompressing it as it reads when it is gzip (at most
    /// [`MAX_INPUT_BYTES`] once decompressed): in chunks of 1 MiB, each event parsed from the bytes in memory (the
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
    /// [`ParityError::Spill`] when the temporary files fail,
    /// [`ParityError::Read`] when the reader fails, or a gzip stream is
    /// corrupt or decompresses past the limit.
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
        Self::from_reader_within(reader, origin, run_records, TextLimits::default())
    }

    /// As [`ChromeTrace::from_reader_with`], holding texts within `limits`.
    pub(crate) fn from_reader_within(
        reader: impl std::io::Read,
        origin: &str,
        run_records: usize,
        limits: TextLimits,
    ) -> Result<Self, ParityError> {
        let mut sink = Reader::new(run_records, limits);
        let read_error = |source| ParityError::Read {
            path: origin.into(),
            source,
        };
        let mut input =
            Decoded::new(BufReader::new(reader), MAX_INPUT_BYTES).map_err(read_error)?;
        let top = read_document(&mut input, &mut sink);
        // A gzip stream that failed part way: say so, not where the JSON stopped.
        if let Some(failure) = input.failure() {
            let what = std::io::Error::new(std::io::ErrorKind::InvalidData, failure.to_string());
            return Err(read_error(what));
        }
        let top = top.map_err(|e| ParityError::Malformed {
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
    texts: Texts,
    /// An event on a thread past the thread limit was seen.
    too_many_threads: bool,
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
    fn new(run_records: usize, limits: TextLimits) -> Self {
        Self {
            texts: Texts::new(limits),
            too_many_threads: false,
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
        if self.too_many_threads {
            return Err(not_a_trace(&format!(
                "it has events on more than {} distinct threads (`pid`/`tid` pairs); \
                 a process has a few dozen",
                self.texts.thread_limit()
            )));
        }
        if self.events == 0 {
            return Err(not_a_trace(
                "no complete (\"ph\": \"X\") events with a time and a duration",
            ));
        }
        Ok(ChromeTrace {
            origin: origin.to_owned(),
            lumped_names: self.texts.lumped_names,
            dropped_shapes: self.texts.dropped_shapes,
            texts: self.texts.into_texts(),
            records: self.records.finish().map_err(spill)?,
            events: self.events,
            tokens_per_step,
            dropped: self.dropped,
            dropped_count: self.dropped_count,
            devices: top.devices,
            rank: top.rank,
        })
    }

    /// The thread of an event, named `pid/tid`; `None` past the thread
    /// limit (the trace is then refused).
    fn thread(&mut self, pid: &Id<'_>, tid: &Id<'_>) -> Option<u32> {
        use std::fmt::Write as _;
        // Events come in runs on one thread: spare those the naming.
        let ints = match (pid, tid) {
            (Id::Int(p), Id::Int(t)) => Some((*p, *t)),
            _ => None,
        };
        if let (Some(ints), Some((last, thread))) = (ints, self.last_thread)
            && ints == last
        {
            return Some(thread);
        }
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        let _ = write!(name, "{pid}/{tid}");
        let thread = self.texts.thread(&name);
        self.scratch = name;
        let Some(thread) = thread else {
            self.too_many_threads = true;
            return None;
        };
        if let Some(ints) = ints {
            self.last_thread = Some((ints, thread));
        }
        Some(thread)
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
                    && let Some(thread) = self.thread(&e.pid, &e.tid)
                {
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
        // Texts take ids in this order (name, thread, shape), as records of
        // one time order by thread id.
        let name = self.texts.name(name);
        let Some(thread) = self.thread(&e.pid, &e.tid) else {
            return;
        };
        let dims = e.args.dims.as_deref().and_then(|d| self.texts.shape(d));
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
mod tests;
