//! An external sort for fixed-size records, so that a trace larger than
//! memory can be imported in order with bounded memory.
//!
//! Records are pushed one at a time into [`ExternalSort`]. It holds at most
//! `run_len` of them; when a record arrives and the buffer is full, the
//! buffer is sorted and written to a temporary file as a *run*.
//! [`ExternalSort::finish`] sorts what is left and gives a [`Sorted`], which
//! reads the records back in order, as often as wanted, by a k-way merge of
//! the runs and the in-memory tail. When nothing was spilled, no temporary
//! file is made: the sorted buffer is read directly.
//!
//! Memory stays bounded by `run_len` records, a write buffer and a read
//! buffer per run, whatever the number of records. Run files are unlinked
//! as they are created (the open handle is all that names them), so no
//! exit, crash or signal can leave one behind; each [`Sorted::iter`] reads
//! every run from its start at offsets of its own.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, IntoInnerError, Read, Write};
use std::slice;

/// Bytes buffered while a run is written (256 KiB).
const WRITE_BUFFER: usize = 256 << 10;

/// Bytes buffered per run while the runs are merged (64 KiB).
const READ_BUFFER: usize = 64 << 10;

/// A fixed-size binary form of a record, for spilling.
pub(crate) trait Spill: Copy + Ord {
    /// Bytes of one encoded record.
    const SIZE: usize;
    /// Writes the record into `out` (exactly `SIZE` bytes).
    fn encode(&self, out: &mut [u8]);
    /// Reads a record written by `encode` (exactly `SIZE` bytes).
    fn decode(bytes: &[u8]) -> Self;
}

/// One sorted run on disk: its temporary file, already unlinked (the
/// space is freed when the handle is dropped), and how many records it holds.
struct Run {
    /// The file the run was written to, read back at explicit offsets.
    file: File,
    /// Records in the file.
    records: usize,
}

/// Sorts records pushed one at a time, spilling sorted runs to temporary
/// files so that at most `run_len` records are held in memory.
pub(crate) struct ExternalSort<T: Spill> {
    /// Records held before a run is spilled.
    run_len: usize,
    /// Records not yet spilled (unsorted until spilled or finished).
    buffer: Vec<T>,
    /// Runs spilled so far.
    runs: Vec<Run>,
    /// Records pushed so far.
    len: u64,
}

impl<T: Spill> ExternalSort<T> {
    /// At most `run_len` records are held before a sorted run is spilled
    /// (`run_len >= 1`; 0 is taken as 1). The buffer grows as records
    /// come, so a small input costs what it holds.
    pub(crate) fn new(run_len: usize) -> Self {
        let run_len = run_len.max(1);
        Self {
            run_len,
            buffer: Vec::new(),
            runs: Vec::new(),
            len: 0,
        }
    }

    /// Adds a record; spills a sorted run when the buffer is full.
    ///
    /// A full buffer is spilled only when one more record arrives.
    pub(crate) fn push(&mut self, item: T) -> io::Result<()> {
        if self.buffer.len() >= self.run_len {
            self.spill()?;
        }
        self.buffer.push(item);
        self.len += 1;
        Ok(())
    }

    /// Records pushed so far.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Sorts what is left; the result reads the records in order.
    pub(crate) fn finish(mut self) -> io::Result<Sorted<T>> {
        self.buffer.sort_unstable();
        Ok(Sorted {
            tail: self.buffer,
            runs: self.runs,
            len: self.len,
        })
    }

    /// Sorts the buffer, writes it as a new run and empties it.
    fn spill(&mut self) -> io::Result<()> {
        self.buffer.sort_unstable();
        self.runs.push(Run::write(&self.buffer)?);
        self.buffer.clear();
        Ok(())
    }
}

impl Run {
    /// Writes sorted records to a new temporary file, flushed.
    fn write<T: Spill>(sorted: &[T]) -> io::Result<Self> {
        // Unlinked at once: a signal between here and the end leaves nothing.
        let mut writer = BufWriter::with_capacity(WRITE_BUFFER, tempfile::tempfile()?);
        let mut bytes = vec![0u8; T::SIZE];
        for item in sorted {
            item.encode(&mut bytes);
            writer.write_all(&bytes)?;
        }
        let file = writer.into_inner().map_err(IntoInnerError::into_error)?;
        let records = sorted.len();
        Ok(Self { file, records })
    }
}

/// Records in order: in memory, or runs in temporary files merged on read.
pub(crate) struct Sorted<T: Spill> {
    /// The records never spilled, sorted.
    tail: Vec<T>,
    /// The sorted runs on disk.
    runs: Vec<Run>,
    /// Records in all, tail and runs.
    len: u64,
}

impl<T: Spill> fmt::Debug for Sorted<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sorted")
            .field("len", &self.len)
            .field("runs", &self.runs.len())
            .finish_non_exhaustive()
    }
}

impl<T: Spill> Sorted<T> {
    /// Records in all.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Runs written to disk (0: all in memory).
    pub(crate) fn runs(&self) -> usize {
        self.runs.len()
    }

    /// The records in ascending order (`T`'s `Ord`). Can be called any
    /// number of times; each call reads from the start, through its own
    /// handle on every run.
    pub(crate) fn iter(&self) -> io::Result<Merged<'_, T>> {
        let state = if self.runs.is_empty() {
            State::Memory(self.tail.iter())
        } else {
            State::Merge(Merge::open(&self.runs, &self.tail)?)
        };
        Ok(Merged { state })
    }
}

/// Iterator over the records of a [`Sorted`], in order: yields
/// `io::Result<T>`; after an `Err` it yields `None`.
pub(crate) struct Merged<'a, T: Spill> {
    /// Where the next record comes from.
    state: State<'a, T>,
}

/// The states of a [`Merged`].
enum State<'a, T: Spill> {
    /// Nothing was spilled: the sorted tail is read directly.
    Memory(slice::Iter<'a, T>),
    /// Runs (and the tail) merged.
    Merge(Merge<'a, T>),
    /// Ended, by exhaustion or an error.
    Done,
}

impl<T: Spill> Iterator for Merged<'_, T> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = match &mut self.state {
            State::Memory(items) => return items.next().copied().map(Ok),
            State::Merge(merge) => merge.next().transpose(),
            State::Done => return None,
        };
        if !matches!(next, Some(Ok(_))) {
            self.state = State::Done;
        }
        next
    }
}

/// A k-way merge: the smallest head of every source, kept in a heap.
struct Merge<'a, T: Spill> {
    /// The sources merged, indexed as in `heads`.
    sources: Vec<Source<'a, T>>,
    /// The next record of every source not yet exhausted, smallest on top.
    heads: BinaryHeap<Reverse<(T, usize)>>,
}

impl<'a, T: Spill> Merge<'a, T> {
    /// Opens every run and the tail, and reads the first record of each.
    fn open(runs: &'a [Run], tail: &'a [T]) -> io::Result<Self> {
        let mut sources = Vec::with_capacity(runs.len() + 1);
        for run in runs {
            sources.push(Source::Run(RunReader::open(run)));
        }
        sources.push(Source::Tail(tail.iter()));
        let mut heads = BinaryHeap::with_capacity(sources.len());
        for (index, source) in sources.iter_mut().enumerate() {
            if let Some(item) = source.next()? {
                heads.push(Reverse((item, index)));
            }
        }
        Ok(Self { sources, heads })
    }

    /// The smallest record left, replaced in the heap by the next record of
    /// its source.
    fn next(&mut self) -> io::Result<Option<T>> {
        let Some(Reverse((item, index))) = self.heads.pop() else {
            return Ok(None);
        };
        if let Some(source) = self.sources.get_mut(index)
            && let Some(next) = source.next()?
        {
            self.heads.push(Reverse((next, index)));
        }
        Ok(Some(item))
    }
}

/// One input of a merge.
enum Source<'a, T: Spill> {
    /// A run on disk.
    Run(RunReader<'a>),
    /// The sorted in-memory tail.
    Tail(slice::Iter<'a, T>),
}

impl<T: Spill> Source<'_, T> {
    /// The source's next record, or `None` when it is exhausted.
    fn next(&mut self) -> io::Result<Option<T>> {
        match self {
            Self::Run(reader) => reader.next(),
            Self::Tail(items) => Ok(items.next().copied()),
        }
    }
}

/// Reads one run from its start, at offsets of its own (readers of one
/// run never move each other).
struct RunReader<'a> {
    /// The buffered reads.
    reader: BufReader<At<'a>>,
    /// Records not yet read.
    left: usize,
    /// Scratch for one encoded record.
    bytes: Vec<u8>,
}

impl<'a> RunReader<'a> {
    /// Reads `run` anew, from its start.
    fn open(run: &'a Run) -> Self {
        let at = At {
            file: &run.file,
            offset: 0,
        };
        Self {
            reader: BufReader::with_capacity(READ_BUFFER, at),
            left: run.records,
            bytes: Vec::new(),
        }
    }

    /// The run's next record; a file shorter than its record count is an
    /// `UnexpectedEof` error.
    fn next<T: Spill>(&mut self) -> io::Result<Option<T>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.bytes.resize(T::SIZE, 0);
        self.reader.read_exact(&mut self.bytes)?;
        self.left -= 1;
        Ok(Some(T::decode(&self.bytes)))
    }
}

/// A file read from an offset of its own: positional reads leave the
/// handle's shared cursor alone, so several readers share one handle.
struct At<'a> {
    file: &'a File,
    offset: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.offset)?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.file, buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
