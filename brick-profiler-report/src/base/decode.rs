//! Gzip read transparently: an input that starts with gzip's magic bytes is
//! decompressed as it is read (a stream, never a whole buffer), and the
//! bytes it yields count against the input limit, so a gzip bomb stops at
//! the limit with an error that says so.

use std::fmt;
use std::io::{self, BufRead, Read};

use flate2::bufread::MultiGzDecoder;

/// The first bytes of every gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Why a [`Decoded`] stopped before the end of its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The bytes read went past the limit.
    TooLarge {
        /// The limit, bytes.
        limit: u64,
        /// Whether they were decompressed (else the file grew as it was read).
        gzip: bool,
    },
    /// The gzip stream is corrupt or cut (the decoder's words).
    Gzip(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLarge { limit, gzip: true } => write!(
                f,
                "it decompresses past the input limit of {limit} bytes (a gzip bomb?); \
                 refused after {limit} bytes"
            ),
            Self::TooLarge { limit, gzip: false } => write!(
                f,
                "it grew past the input limit of {limit} bytes while it was read"
            ),
            Self::Gzip(e) => write!(f, "it is gzip-compressed but does not decompress: {e}"),
        }
    }
}

impl Failure {
    /// The failure as an I/O error, for readers that only pass those on.
    fn io_error(&self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self.to_string())
    }
}

/// The source as it is read: plain, or gzip decompressed.
enum Inner<R> {
    Plain(R),
    Gzip(Box<MultiGzDecoder<R>>),
}

/// An input's bytes, decompressed when the input is gzip: at most `limit`
/// bytes are yielded, and the first failure is kept for the error message.
pub(crate) struct Decoded<R: BufRead> {
    inner: Inner<R>,
    read: u64,
    limit: u64,
    failure: Option<Failure>,
}

impl<R: BufRead> Decoded<R> {
    /// Looks at the first bytes of `reader` (nothing is consumed) and reads
    /// it through a gzip decoder when they are gzip's magic.
    ///
    /// # Errors
    /// The reader's own error, when its first bytes cannot be read.
    pub(crate) fn new(mut reader: R, limit: u64) -> io::Result<Self> {
        let inner = if is_gzip(&mut reader)? {
            Inner::Gzip(Box::new(MultiGzDecoder::new(reader)))
        } else {
            Inner::Plain(reader)
        };
        Ok(Self {
            inner,
            read: 0,
            limit,
            failure: None,
        })
    }

    /// Whether the input is gzip.
    pub(crate) fn is_gzip(&self) -> bool {
        matches!(self.inner, Inner::Gzip(_))
    }

    /// Why reading stopped early, when it did (a later read error of the
    /// source itself is not kept: the caller's error names it).
    pub(crate) fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    fn fail(&mut self, failure: Failure) -> io::Error {
        let e = failure.io_error();
        self.failure.get_or_insert(failure);
        e
    }
}

/// Whether `reader` starts with gzip's magic bytes (nothing is consumed).
fn is_gzip(reader: &mut impl BufRead) -> io::Result<bool> {
    loop {
        match reader.fill_buf() {
            // One byte alone cannot say; a source that gives one at a time
            // is not worth a copy: compare what there is.
            Ok(head) => return Ok(head.len() >= 2 && head[..2] == GZIP_MAGIC),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

impl<R: BufRead> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(f) = &self.failure {
            return Err(f.io_error());
        }
        // One byte past the limit is asked for, to tell "exactly the limit"
        // from "more".
        let room = self.limit.saturating_add(1).saturating_sub(self.read);
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let got = match &mut self.inner {
            Inner::Plain(r) => r.read(&mut buf[..want])?,
            Inner::Gzip(r) => match r.read(&mut buf[..want]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
                Err(e) => return Err(self.fail(Failure::Gzip(e.to_string()))),
            },
        };
        self.read += got as u64;
        if self.read > self.limit {
            let (limit, gzip) = (self.limit, self.is_gzip());
            return Err(self.fail(Failure::TooLarge { limit, gzip }));
        }
        Ok(got)
    }
}

/// `bytes` gzip-compressed, for the tests of every reader.
#[cfg(test)]
pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("writing to memory");
    e.finish().expect("writing to memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8], limit: u64) -> (io::Result<Vec<u8>>, Option<Failure>, bool) {
        let mut d = Decoded::new(bytes, limit).unwrap();
        let mut out = Vec::new();
        let r = d.read_to_end(&mut out).map(|_| out);
        (r, d.failure().cloned(), d.is_gzip())
    }

    #[test]
    fn gzip_is_decompressed_and_plain_text_passes_through() {
        let text = b"{\"traceEvents\": []}".repeat(1000);
        let (out, failure, gz) = read_all(&gzip(&text), u64::MAX);
        assert_eq!((out.unwrap(), failure, gz), (text.clone(), None, true));
        let (out, failure, gz) = read_all(&text, u64::MAX);
        assert_eq!((out.unwrap(), failure, gz), (text, None, false));
        // Two members, as `cat a.gz b.gz` makes them.
        let two = [gzip(b"ab"), gzip(b"cd")].concat();
        assert_eq!(read_all(&two, 4).0.unwrap(), b"abcd");
    }

    #[test]
    fn past_the_limit_and_corrupt_streams_are_failures() {
        let bomb = gzip(&vec![b' '; 1 << 20]);
        assert!(bomb.len() < 4 << 10, "{} bytes", bomb.len());
        let (out, failure, _) = read_all(&bomb, 1000);
        assert!(out.is_err());
        let too_large = Failure::TooLarge {
            limit: 1000,
            gzip: true,
        };
        assert_eq!(failure, Some(too_large));
        assert!(
            failure
                .unwrap()
                .to_string()
                .contains("past the input limit of 1000 bytes")
        );
        // Exactly the limit is allowed.
        assert!(read_all(&gzip(&[b'x'; 1000]), 1000).0.is_ok());
        let (_, failure, _) = read_all(&[b'x'; 1001], 1000);
        assert!(
            failure
                .unwrap()
                .to_string()
                .contains("grew past the input limit")
        );
        let mut cut = gzip(&[b'x'; 10_000]);
        cut.truncate(cut.len() / 2);
        let (_, failure, _) = read_all(&cut, u64::MAX);
        assert!(matches!(failure, Some(Failure::Gzip(_))), "{failure:?}");
        let mut garbled = gzip(b"{\"a\": 1}");
        garbled[12] ^= 0xff;
        let (out, failure, _) = read_all(&garbled, u64::MAX);
        assert!(out.is_err() && failure.is_some(), "{failure:?}");
    }
}
