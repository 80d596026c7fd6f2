//! The one entry point: [`open`] checks that a path is a regular file under
//! the size limit, reads its first bytes, [`detect`]s the format and reads
//! the input with it; [`open_profile_summary`] reads a saved profile's
//! aggregates alone, after the same checks.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use profiler_core::profile::ProfileSummary;

use super::error::InputError;
use super::format::{Format, Input, Source};
use super::registry::registry;
use super::sniff::{Head, MAX_INPUT_BYTES, SNIFF_BYTES};

/// The first format of the [`registry`] that recognises an input starting
/// with `head` (only its first [`SNIFF_BYTES`] are looked at).
#[must_use]
pub fn detect(head: &[u8]) -> Option<&'static dyn Format> {
    let head = Head::new(head);
    registry().iter().copied().find(|f| f.sniff(&head))
}

/// Reads the file at `path`, whatever its format.
///
/// Devices, FIFOs, sockets and directories are refused before anything is
/// read, as are files past [`MAX_INPUT_BYTES`]; the format is told from the
/// first [`SNIFF_BYTES`] alone, then that format's reader reads the file.
///
/// # Errors
/// [`InputError`] naming the file: it cannot be opened, is not a regular
/// file, is too large, empty, not text, of no known format, or its format's
/// reader refuses it.
pub fn open(path: impl AsRef<Path>) -> Result<Input, InputError> {
    let path = path.as_ref();
    let file = open_regular(path)?;
    let read_error = |source| InputError::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(read_error)?;
    let origin = path.display().to_string();
    let format = sniff(&head, &origin)?;
    // The reader sees the whole file again: the head it was told by, then the rest.
    let mut reader = BufReader::new(head.as_slice().chain(file));
    format.read(Source::new(&origin, Some(path), &mut reader))
}

/// Opens `path` for reading when it is a regular file under
/// [`MAX_INPUT_BYTES`]: devices, FIFOs, sockets and directories are refused
/// before they are opened (opening a FIFO blocks until a writer comes), and
/// again on the handle, in case the path changed in between.
///
/// # Errors
/// [`InputError::Read`], [`InputError::NotAFile`] or
/// [`InputError::TooLarge`], naming `path`.
fn open_regular(path: &Path) -> Result<File, InputError> {
    let read_error = |source| InputError::Read {
        path: path.to_path_buf(),
        source,
    };
    let not_a_file = |meta: &std::fs::Metadata| InputError::NotAFile {
        path: path.to_path_buf(),
        what: file_kind(meta),
    };
    let meta = std::fs::metadata(path).map_err(read_error)?;
    if !meta.is_file() {
        return Err(not_a_file(&meta));
    }
    let file = File::open(path).map_err(read_error)?;
    let meta = file.metadata().map_err(read_error)?;
    if !meta.is_file() {
        return Err(not_a_file(&meta));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: MAX_INPUT_BYTES,
        });
    }
    Ok(file)
}

/// Reads only the aggregates of the saved profile at `path` (run, steps,
/// bricks, phases): the same file checks as [`open`] (a FIFO,
/// device or directory is refused before it is opened; a file past
/// [`MAX_INPUT_BYTES`] before it is read) and the same version check and
/// validation as a whole profile; the timeline, trace and graph are skipped
/// while parsing, so many profiles read this way hold little memory.
///
/// # Errors
/// [`InputError::Read`] (an I/O error), [`InputError::NotAFile`],
/// [`InputError::TooLarge`], [`InputError::NotText`], or
/// [`InputError::Profile`] for a profile that does not read, each naming
/// `path`.
pub fn open_profile_summary(path: impl AsRef<Path>) -> Result<ProfileSummary, InputError> {
    let path = path.as_ref();
    let file = open_regular(path)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(usize::try_from(size.saturating_add(1)).unwrap_or(0));
    file.take(MAX_INPUT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let text = String::from_utf8(bytes).map_err(|_| InputError::NotText {
        origin: path.display().to_string(),
    })?;
    Ok(ProfileSummary::from_json_at(&text, path)?)
}

/// Reads an input given as bytes; `origin` names it in errors.
///
/// # Errors
/// As [`open`], without the file checks.
pub fn read_bytes(bytes: &[u8], origin: &str) -> Result<Input, InputError> {
    let format = sniff(bytes, origin)?;
    let mut reader = bytes;
    format.read(Source::new(origin, None, &mut reader))
}

/// The format of an input starting with `head`, or why there is none.
fn sniff(head: &[u8], origin: &str) -> Result<&'static dyn Format, InputError> {
    if let Some(format) = detect(head) {
        return Ok(format);
    }
    let head = Head::new(head);
    Err(if head.is_blank() {
        InputError::Empty {
            origin: origin.to_owned(),
            inspected: SNIFF_BYTES,
        }
    } else if let Some(text) = head.text() {
        InputError::Unrecognised {
            origin: origin.to_owned(),
            start: text.lines().next().unwrap_or("").chars().take(60).collect(),
        }
    } else {
        InputError::NotText {
            origin: origin.to_owned(),
        }
    })
}

fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}
