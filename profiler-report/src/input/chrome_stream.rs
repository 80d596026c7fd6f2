//! A Chrome trace document read in large chunks: the top level and the
//! `traceEvents` array are walked here, and each element is parsed from a
//! byte slice, so memory holds one chunk (or one element), never the file.

use std::io::Read;

use serde::Deserialize;
use serde::de::{DeserializeOwned, IgnoredAny};

use super::chrome_batch::parse_batch;
use super::chrome_raw::{MaybeEvent, Sink, Tokens, Top};

/// Bytes read from the source at a time.
const CHUNK: usize = 1 << 20;

/// The largest single value held whole: one element of `traceEvents`, or
/// one value of the top-level object other than the events (64 MiB). An
/// event that large is a hostile or broken file, not a trace.
pub(crate) const MAX_VALUE_BYTES: usize = 64 << 20;

/// Why a document could not be read, and where.
#[derive(Debug)]
pub(crate) struct StreamError {
    /// Byte offset from the start of the document: of the value at fault
    /// when there is one, else of the error.
    pub(crate) offset: u64,
    /// 1-based line of the error.
    pub(crate) line: usize,
    /// 1-based column (bytes since the line's start).
    pub(crate) column: usize,
    /// What is wrong.
    pub(crate) message: String,
}

/// The bytes of the document not yet consumed, with enough bookkeeping to
/// turn a position back into a line and column.
struct Window<R> {
    reader: R,
    /// Bytes read at a time ([`CHUNK`]; tests cut documents finer).
    chunk: usize,
    /// The largest value held whole ([`MAX_VALUE_BYTES`]).
    limit: usize,
    buf: Vec<u8>,
    /// Next byte to consume in `buf`.
    pos: usize,
    /// Whether the reader is exhausted.
    eof: bool,
    /// Offset of `buf[0]` in the document.
    base: u64,
    /// Newlines before `buf[0]`.
    lines: usize,
    /// Offset just past the last newline before `buf[0]`.
    line_start: u64,
}

impl<R: Read> Window<R> {
    fn new(reader: R, chunk: usize, limit: usize) -> Self {
        Self {
            reader,
            chunk,
            limit,
            buf: Vec::with_capacity(chunk),
            pos: 0,
            eof: false,
            base: 0,
            lines: 0,
            line_start: 0,
        }
    }

    /// Drops the consumed bytes and reads at least one more chunk; `false`
    /// when nothing more came (the end of the document).
    fn fill(&mut self) -> Result<bool, StreamError> {
        if self.eof {
            return Ok(false);
        }
        let done = &self.buf[..self.pos];
        self.lines += done.iter().filter(|&&b| b == b'\n').count();
        if let Some(nl) = done.iter().rposition(|&b| b == b'\n') {
            self.line_start = self.base + nl as u64 + 1;
        }
        self.base += self.pos as u64;
        self.buf.drain(..self.pos);
        self.pos = 0;
        let kept = self.buf.len();
        // A value longer than a chunk is parsed again after each read:
        // reading as much again as is held keeps that linear in its size.
        let want = self.chunk.max(kept);
        self.buf.resize(kept + want, 0);
        let mut got = 0;
        while got < want {
            match self.reader.read(&mut self.buf[kept + got..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(kept + got);
                    return Err(self.error_at(self.pos, format!("read failed: {e}")));
                }
            }
        }
        self.buf.truncate(kept + got);
        Ok(got > 0)
    }

    /// The next byte that is not whitespace, left unconsumed; `None` at the
    /// end of the document.
    fn peek(&mut self) -> Result<Option<u8>, StreamError> {
        loop {
            while let Some(&b) = self.buf.get(self.pos) {
                if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// An error at `at` (an index into `buf`).
    fn error_at(&self, at: usize, message: String) -> StreamError {
        let at = at.min(self.buf.len());
        let seen = &self.buf[..at];
        let newlines = seen.iter().filter(|&&b| b == b'\n').count();
        let line_start = match seen.iter().rposition(|&b| b == b'\n') {
            Some(nl) => self.base + nl as u64 + 1,
            None => self.line_start,
        };
        let offset = self.base + at as u64;
        StreamError {
            offset,
            line: self.lines + newlines + 1,
            column: (offset - line_start) as usize + 1,
            message,
        }
    }

    /// An error at the next byte.
    fn error(&self, message: &str) -> StreamError {
        self.error_at(self.pos, message.to_owned())
    }

    /// Parses the value at the next byte with `parse` and consumes it.
    /// A value cut by the end of the window is parsed again once more of
    /// the document is in (at most [`MAX_VALUE_BYTES`] are held), so `parse`
    /// may run more than once and must act only on success.
    fn value<T>(
        &mut self,
        what: &dyn Fn() -> String,
        mut parse: impl FnMut(&[u8]) -> Option<Result<(T, usize), serde_json::Error>>,
    ) -> Result<T, StreamError> {
        loop {
            let slice = &self.buf[self.pos..];
            let outcome = parse(slice);
            // A value ending where the window ends may go on (a number).
            let cut = match &outcome {
                Some(Ok((_, end))) => *end == slice.len() && !self.eof,
                // A number cut short reads as an invalid number, not as EOF.
                Some(Err(e)) => !self.eof && (e.is_eof() || near_end(slice, e)),
                None => !self.eof,
            };
            if !cut {
                return match outcome {
                    Some(Ok((value, end))) => {
                        self.pos += end;
                        Ok(value)
                    }
                    Some(Err(e)) => Err(self.at_value(&e, what)),
                    None => Err(self.error(&format!("{}: EOF while parsing a value", what()))),
                };
            }
            if self.buf.len() - self.pos > self.limit {
                let offset = self.base + self.pos as u64;
                return Err(self.error(&format!(
                    "{}: a value of more than {} bytes (starting at byte {offset})",
                    what(),
                    self.limit
                )));
            }
            self.fill()?;
        }
    }

    /// A serde_json error inside the value at the next byte, placed in the
    /// document.
    fn at_value(&self, e: &serde_json::Error, what: &dyn Fn() -> String) -> StreamError {
        let start = self.error_at(self.pos, String::new());
        let message = format!(
            "{}: {} (value at byte {})",
            what(),
            crate::base::json::message(e),
            start.offset
        );
        // serde_json counts from 1, its column 0 meaning "before the line's first byte".
        let (line, column) = if e.line() <= 1 {
            (start.line, start.column + e.column().saturating_sub(1))
        } else {
            (start.line + e.line() - 1, e.column())
        };
        StreamError {
            offset: start.offset,
            line,
            column,
            message,
        }
    }

    /// Consumes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> Result<bool, StreamError> {
        if self.peek()? == Some(byte) {
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }
}

/// Whether `e` was found within the last bytes of `slice`, where a value
/// cut by the end of the window fails; past those, an error is the
/// document's own whatever follows.
fn near_end(slice: &[u8], e: &serde_json::Error) -> bool {
    const MARGIN: usize = 64;
    // serde_json counts lines from 1 and columns as the bytes read on the line.
    let line_start = match e.line().checked_sub(1) {
        Some(0) | None => 0,
        Some(n) => match slice
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(n - 1)
        {
            Some((at, _)) => at + 1,
            None => return true,
        },
    };
    line_start + e.column() + MARGIN >= slice.len()
}

/// One value of type `T` at the start of `slice`, with where it ends.
fn one<'a, T: Deserialize<'a>>(slice: &'a [u8]) -> Option<Result<(T, usize), serde_json::Error>> {
    first(slice)
}

/// [`one`] for a value that borrows nothing.
fn owned<T: DeserializeOwned>(slice: &[u8]) -> Option<Result<(T, usize), serde_json::Error>> {
    first(slice)
}

fn first<'a, T: Deserialize<'a>>(slice: &'a [u8]) -> Option<Result<(T, usize), serde_json::Error>> {
    let mut stream = serde_json::Deserializer::from_slice(slice).into_iter::<T>();
    let value = stream.next()?;
    Some(value.map(|v| (v, stream.byte_offset())))
}

/// Reads a trace document from `reader`, giving each element of its events
/// array to `sink`: `{"traceEvents": [...], ...}` (keys in any order) or a
/// bare array of events.
pub(crate) fn read_document<R: Read, S: Sink>(reader: R, sink: &mut S) -> Result<Top, StreamError> {
    read_in(Window::new(reader, CHUNK, MAX_VALUE_BYTES), sink)
}

fn read_in<R: Read, S: Sink>(mut w: Window<R>, sink: &mut S) -> Result<Top, StreamError> {
    let top = match w.peek()? {
        Some(b'[') => {
            events(&mut w, sink)?;
            Top {
                has_events: true,
                container: true,
                tokens_per_step: None,
            }
        }
        Some(b'{') => {
            w.pos += 1;
            object(&mut w, sink)?
        }
        Some(_) => {
            // Not a container: still valid JSON (a number, a string) or an error.
            let root = || "the document".to_owned();
            w.value(&root, owned::<IgnoredAny>)?;
            Top::default()
        }
        None => return Err(w.error("EOF while parsing a value")),
    };
    if w.peek()?.is_some() {
        return Err(w.error("trailing characters"));
    }
    Ok(top)
}

/// The members of the top-level object, its `{` consumed.
fn object<R: Read, S: Sink>(w: &mut Window<R>, sink: &mut S) -> Result<Top, StreamError> {
    let mut top = Top {
        container: true,
        ..Top::default()
    };
    if w.eat(b'}')? {
        return Ok(top);
    }
    loop {
        if w.peek()? != Some(b'"') {
            return Err(w.error("key must be a string"));
        }
        let key_what = || "a top-level key".to_owned();
        let key: String = w.value(&key_what, owned::<String>)?;
        if !w.eat(b':')? {
            return Err(w.error("expected `:`"));
        }
        let what = || format!("`{key}`");
        match key.as_str() {
            "traceEvents" if top.has_events => {
                return Err(w.error("duplicate field `traceEvents`"));
            }
            "traceEvents" => {
                if w.peek()? != Some(b'[') {
                    return Err(w.error("`traceEvents`: expected an array of events"));
                }
                events(w, sink)?;
                top.has_events = true;
            }
            "tokens_per_step" => {
                let v: serde_json::Value = w.value(&what, owned)?;
                let n = match &v {
                    serde_json::Value::Number(n) => n.as_f64(),
                    serde_json::Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                };
                top.tokens_per_step = Some(match n {
                    Some(n) => Tokens::Number(n),
                    None => Tokens::Other(v.to_string()),
                });
            }
            _ => {
                w.value(&what, owned::<IgnoredAny>)?;
            }
        }
        if w.eat(b',')? {
            continue;
        }
        if w.eat(b'}')? {
            return Ok(top);
        }
        return Err(match w.peek()? {
            None => w.error("EOF while parsing an object"),
            Some(_) => w.error("expected `,` or `}`"),
        });
    }
}

/// The elements of an events array, its `[` next: each object is an event
/// given to `sink` with its index; other elements are skipped.
fn events<R: Read, S: Sink>(w: &mut Window<R>, sink: &mut S) -> Result<(), StreamError> {
    w.pos += 1;
    if w.eat(b']')? {
        return Ok(());
    }
    let mut index = 0usize;
    loop {
        match w.peek()? {
            Some(b']') => return Err(w.error("trailing comma")),
            None => return Err(w.error("EOF while parsing a list")),
            Some(_) => {}
        }
        if let Some((batch, used)) = parse_batch(&w.buf[w.pos..]) {
            let count = batch.len();
            for (k, event) in batch.into_iter().enumerate() {
                if let Some(event) = event {
                    sink.event(index + k, event);
                }
            }
            index += count;
            w.pos += used;
            continue;
        }
        // Name the event: a position alone is hard to find in a one-line
        // trace of a million events.
        let what = || format!("traceEvents[{index}]");
        w.value(&what, |slice| {
            one::<MaybeEvent<'_>>(slice).map(|r| {
                r.map(|(MaybeEvent(event), end)| {
                    // Ending at the window's end, it is parsed again
                    // with more of the document: give it to `sink` then.
                    if end < slice.len()
                        && let Some(event) = event
                    {
                        sink.event(index, event);
                    }
                    ((), end)
                })
            })
        })?;
        index += 1;
        if w.eat(b',')? {
            continue;
        }
        if w.eat(b']')? {
            return Ok(());
        }
        return Err(match w.peek()? {
            None => w.error("EOF while parsing a list"),
            Some(_) => w.error("expected `,` or `]`"),
        });
    }
}

#[cfg(test)]
mod tests;
