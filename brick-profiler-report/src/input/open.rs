//! The one entry point: [`open`] checks that a path is a regular file under
//! the size limit, decompresses it as it reads when it is gzip, reads its
//! first bytes, [`detect`]s the format and reads the input with it;
//! [`open_profile_summary`] reads a saved profile's aggregates alone, after
//! the same checks.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use profiler_core::profile::ProfileSummary;

use super::binary::{self, Binary};
use super::error::InputError;
use super::file::{checked, gzip_error};
use super::format::{Format, Input, Source};
use super::registry::registry;
use super::sniff::{Head, JsonRoot, MAX_INPUT_BYTES, SNIFF_BYTES};
use crate::base::decode::Decoded;

/// The first format of the [`registry`] that recognises an input starting
/// with `head` (only its first [`SNIFF_BYTES`] are looked at).
#[must_use]
pub fn detect(head: &[u8]) -> Option<&'static dyn Format> {
    detect_in(registry(), head)
}

/// The first of `formats` that recognises an input starting with `head`.
pub(crate) fn detect_in<'f>(formats: &[&'f dyn Format], head: &[u8]) -> Option<&'f dyn Format> {
    let head = Head::new(head);
    formats.iter().copied().find(|f| f.sniff(&head))
}

/// Reads the file at `path`, whatever its format.
///
/// Devices, FIFOs, sockets and directories are refused before anything is
/// read, as are files past [`MAX_INPUT_BYTES`]. A gzip file is decompressed
/// as it is read (never whole), and what it holds counts against the same
/// limit. The format is told from the first [`SNIFF_BYTES`] (decompressed)
/// alone, then that format's reader reads the file.
///
/// # Errors
/// [`InputError`] naming the file: it cannot be opened, is not a regular
/// file, is too large (decompressed or not), a corrupt gzip, empty, binary
/// (named for what it is), of no known format, or its format's reader
/// refuses it.
pub fn open(path: impl AsRef<Path>) -> Result<Input, InputError> {
    open_in(registry(), path.as_ref())
}

/// [`open`] trying `formats`, in order, instead of the registry.
pub(crate) fn open_in(formats: &[&dyn Format], path: &Path) -> Result<Input, InputError> {
    let file = checked(path)?;
    let origin = path.display().to_string();
    read_from(
        formats,
        BufReader::new(file),
        &origin,
        Some(path),
        MAX_INPUT_BYTES,
    )
}

/// Reads only the aggregates of the saved profile at `path` (run, steps,
/// bricks, phases): the same file checks as [`open`] (a FIFO, device or
/// directory is refused before it is opened; a file past
/// [`MAX_INPUT_BYTES`] before it is read; gzip decompressed as it is read)
/// and the same version check and validation as a whole profile; the
/// timeline, trace and graph are skipped while parsing, so many profiles
/// read this way hold little memory.
///
/// # Errors
/// [`InputError::Read`] (an I/O error), [`InputError::NotAFile`],
/// [`InputError::TooLarge`], [`InputError::Gzip`], [`InputError::Binary`],
/// [`InputError::NotText`], or [`InputError::Profile`] for a profile that
/// does not read, each naming `path`.
pub fn open_profile_summary(path: impl AsRef<Path>) -> Result<ProfileSummary, InputError> {
    let path = path.as_ref();
    let text = super::file::read_text(path)?;
    Ok(ProfileSummary::from_json_at(&text, path)?)
}

/// Reads an input given as bytes (gzip included); `origin` names it in
/// errors.
///
/// # Errors
/// As [`open`], without the file checks.
pub fn read_bytes(bytes: &[u8], origin: &str) -> Result<Input, InputError> {
    read_from(registry(), bytes, origin, None, MAX_INPUT_BYTES)
}

/// Reads an input from `raw`, decompressed when it is gzip (at most `limit`
/// bytes once decompressed): the format is told from the first
/// [`SNIFF_BYTES`] of what it holds, then that format's reader reads it.
pub(crate) fn read_from(
    formats: &[&dyn Format],
    raw: impl BufRead,
    origin: &str,
    path: Option<&Path>,
    limit: u64,
) -> Result<Input, InputError> {
    let read_error = |source| InputError::Read {
        path: origin.into(),
        source,
    };
    let mut input = Decoded::new(raw, limit).map_err(read_error)?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let got = (&mut input).take(SNIFF_BYTES as u64).read_to_end(&mut head);
    if let Some(failure) = input.failure() {
        return Err(gzip_error(origin, failure));
    }
    got.map_err(read_error)?;
    let format = sniff(formats, &head, origin, path, input.is_gzip())?;
    // The reader sees the whole input again: the head it was told by, then the rest.
    let mut reader = BufReader::new(head.as_slice().chain(&mut input));
    let read = format.read(Source::new(origin, path, &mut reader));
    drop(reader);
    // A stream that failed part way yields no numbers, whatever the format
    // made of the bytes before the failure.
    match input.failure() {
        Some(failure) => Err(gzip_error(origin, failure)),
        None => read,
    }
}

/// The format of an input starting with `head`, or why there is none.
fn sniff<'f>(
    formats: &[&'f dyn Format],
    head: &[u8],
    origin: &str,
    path: Option<&Path>,
    gzip: bool,
) -> Result<&'f dyn Format, InputError> {
    let binary = |b: Binary| InputError::Binary {
        origin: origin.to_owned(),
        what: b.what,
        advice: b.advice,
        gzip,
    };
    // Magic bytes first: an SQLite file's first bytes are valid UTF-8.
    if let Some(b) = binary::by_magic(head) {
        return Err(binary(b));
    }
    if let Some(format) = detect_in(formats, head) {
        return Ok(format);
    }
    let head_view = Head::new(head);
    Err(if head_view.is_blank() {
        InputError::Empty {
            origin: origin.to_owned(),
            inspected: SNIFF_BYTES,
        }
    } else if let Some(text) = head_view.text() {
        if head_view.json_root() == Some(JsonRoot::Object) {
            InputError::UnrecognisedJson {
                origin: origin.to_owned(),
                keys: head_view.keys().iter().take(12).cloned().collect(),
                inspected: SNIFF_BYTES,
            }
        } else {
            InputError::Unrecognised {
                origin: origin.to_owned(),
                start: text.lines().next().unwrap_or("").chars().take(60).collect(),
            }
        }
    } else {
        binary(binary::name(head, path))
    })
}

#[cfg(test)]
mod tests;
