//! The [`Format`] trait every input format implements once, the [`Input`]
//! a format reads, and the [`Source`] it reads from.

use std::io::{BufRead, Read};
use std::path::Path;

use profiler_core::Profile;
use profiler_core::trace::RecordedExecutionTrace;

use super::error::InputError;
use super::sniff::{Head, MAX_INPUT_BYTES};
use crate::model::chrome_trace::ChromeTrace;
use crate::model::nsight::FullProfile;
use crate::model::nsight::{NcuReport, NsysReport};
use crate::model::run::RunSummary;
use crate::model::saved_scorecard::SavedScorecard;
use crate::model::step::StepProfilerInput;

/// One input format: its name, how it is told from the first bytes of a
/// file, and its reader. Each format lives in its own file of `input/` and
/// is listed once in the registry.
pub trait Format: Sync {
    /// Short name (`profile`, `ncu-csv`, ...), for listings and tests.
    fn name(&self) -> &'static str;

    /// What a file of this format holds, in words for messages (`a profile`).
    fn what(&self) -> &'static str;

    /// Whether an input starting with `head` is of this format. Only the
    /// first [`SNIFF_BYTES`](super::sniff::SNIFF_BYTES) are given; a byte-order
    /// mark and leading whitespace are already skipped.
    fn sniff(&self, head: &Head<'_>) -> bool;

    /// Reads the whole input.
    ///
    /// # Errors
    /// [`InputError`] naming the input and what is wrong with it.
    fn read(&self, source: Source<'_>) -> Result<Input, InputError>;
}

/// What an input held, read into the types the reports take.
#[derive(Debug)]
pub enum Input {
    /// A saved [`Profile`] (`schema_version`).
    Profile(Box<Profile>),
    /// A Chrome trace this crate exported (`traceEvents` first, no Kineto keys).
    ChromeTrace(ChromeTrace),
    /// A PyTorch (Kineto) trace, as `torch.profiler` exports it.
    PytorchTrace(ChromeTrace),
    /// An execution trace (`entries`).
    ExecutionTrace(RecordedExecutionTrace),
    /// A parity profile (`runtime`, `ops`).
    Parity(RunSummary),
    /// The last step-profiler line (`_profiler`) of a trainer's log.
    StepLog(StepProfilerInput),
    /// A saved scorecard (a baseline).
    Scorecard(SavedScorecard),
    /// `FullProfile`s saved by `import ncu --format json`.
    FullProfiles(Vec<FullProfile>),
    /// An `ncu --csv` export.
    Ncu(NcuReport),
    /// An `nsys stats` CUDA kernel summary.
    Nsys(NsysReport),
}

impl Input {
    /// What the input holds, in words for messages (`a profile`).
    #[must_use]
    pub fn what(&self) -> &'static str {
        match self {
            Self::Profile(_) => "a profile",
            Self::ChromeTrace(_) => "a Chrome trace",
            Self::PytorchTrace(_) => "a PyTorch trace",
            Self::ExecutionTrace(_) => "an execution trace",
            Self::Parity(_) => "a parity profile",
            Self::StepLog(_) => "a step-profiler line",
            Self::Scorecard(_) => "a scorecard",
            Self::FullProfiles(_) => "imported Nsight Compute launches",
            Self::Ncu(_) => "an Nsight Compute CSV",
            Self::Nsys(_) => "an Nsight Systems summary",
        }
    }
}

/// The input a [`Format`] reads: a name for messages, the file (when it is
/// one), and a buffered reader positioned at its first byte.
pub struct Source<'a> {
    origin: &'a str,
    path: Option<&'a Path>,
    reader: &'a mut dyn BufRead,
}

impl std::fmt::Debug for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl<'a> Source<'a> {
    /// A source named `origin` (the file's path, or a name for bytes given
    /// directly) reading from `reader`.
    pub fn new(origin: &'a str, path: Option<&'a Path>, reader: &'a mut dyn BufRead) -> Self {
        Self {
            origin,
            path,
            reader,
        }
    }

    /// The name errors give the input.
    #[must_use]
    pub fn origin(&self) -> &'a str {
        self.origin
    }

    /// The file, when the input is one.
    #[must_use]
    pub fn path(&self) -> Option<&'a Path> {
        self.path
    }

    /// The reader, for formats that stream.
    pub fn reader(&mut self) -> &mut dyn BufRead {
        self.reader
    }

    /// The whole input as text (at most
    /// [`MAX_INPUT_BYTES`](super::sniff::MAX_INPUT_BYTES)), for formats whose
    /// parsers take text; the kind is already known when this is called.
    ///
    /// # Errors
    /// [`InputError::Read`], [`InputError::TooLarge`] or
    /// [`InputError::NotText`].
    pub fn text(self) -> Result<String, InputError> {
        let mut bytes = Vec::new();
        let origin = self.origin;
        let read = self
            .reader
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|source| InputError::Read {
                path: origin.into(),
                source,
            })?;
        if read as u64 > MAX_INPUT_BYTES {
            return Err(InputError::TooLarge {
                path: origin.into(),
                size: read as u64,
                limit: MAX_INPUT_BYTES,
            });
        }
        String::from_utf8(bytes).map_err(|_| InputError::NotText {
            origin: origin.to_owned(),
        })
    }
}
