//! The bytes of a Chrome trace document not yet consumed: read from the
//! source in chunks, each value parsed from a slice of them, and every
//! position turned back into a line and column for errors.

use std::io::Read;

use serde::Deserialize;
use serde::de::DeserializeOwned;

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
pub(crate) struct Window<R> {
    pub(crate) reader: R,
    /// Bytes read at a time (`CHUNK` of the stream; tests cut documents finer).
    pub(crate) chunk: usize,
    /// The largest value held whole (`MAX_VALUE_BYTES` of the stream).
    pub(crate) limit: usize,
    pub(crate) buf: Vec<u8>,
    /// Next byte to consume in `buf`.
    pub(crate) pos: usize,
    /// Whether the reader is exhausted.
    pub(crate) eof: bool,
    /// Offset of `buf[0]` in the document.
    pub(crate) base: u64,
    /// Newlines before `buf[0]`.
    pub(crate) lines: usize,
    /// Offset just past the last newline before `buf[0]`.
    pub(crate) line_start: u64,
}

impl<R: Read> Window<R> {
    pub(crate) fn new(reader: R, chunk: usize, limit: usize) -> Self {
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
    pub(crate) fn fill(&mut self) -> Result<bool, StreamError> {
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
    pub(crate) fn peek(&mut self) -> Result<Option<u8>, StreamError> {
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
    pub(crate) fn error_at(&self, at: usize, message: String) -> StreamError {
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
    pub(crate) fn error(&self, message: &str) -> StreamError {
        self.error_at(self.pos, message.to_owned())
    }

    /// Parses the value at the next byte with `parse` and consumes it.
    /// A value cut by the end of the window is parsed again once more of
    /// the document is in (at most `MAX_VALUE_BYTES` are held), so `parse`
    /// may run more than once and must act only on success.
    pub(crate) fn value<T>(
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
    pub(crate) fn at_value(&self, e: &serde_json::Error, what: &dyn Fn() -> String) -> StreamError {
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
    pub(crate) fn eat(&mut self, byte: u8) -> Result<bool, StreamError> {
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
pub(crate) fn one<'a, T: Deserialize<'a>>(
    slice: &'a [u8],
) -> Option<Result<(T, usize), serde_json::Error>> {
    first(slice)
}

/// [`one`] for a value that borrows nothing.
pub(crate) fn owned<T: DeserializeOwned>(
    slice: &[u8],
) -> Option<Result<(T, usize), serde_json::Error>> {
    first(slice)
}

fn first<'a, T: Deserialize<'a>>(slice: &'a [u8]) -> Option<Result<(T, usize), serde_json::Error>> {
    let mut stream = serde_json::Deserializer::from_slice(slice).into_iter::<T>();
    let value = stream.next()?;
    Some(value.map(|v| (v, stream.byte_offset())))
}
