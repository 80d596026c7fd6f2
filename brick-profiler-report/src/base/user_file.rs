//! A user's file, opened and read the one way every input is: devices,
//! FIFOs, sockets and directories are refused before anything is opened,
//! files past [`MAX_INPUT_BYTES`] are refused, and gzip is decompressed as
//! it is read (what it holds counts against the same limit). The input
//! layer's `open` reads through it, and so does every other reader of a
//! file a user hands in: settings, mappings, hardware files, baselines,
//! traces, Nsight exports and the profiles of a run directory.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use super::decode::{Decoded, Failure};

/// The largest input read (4 GiB); a larger file is refused before any of
/// it is read.
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

/// Why a user's file was not read; the caller names the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// It could not be opened or read.
    #[error("{0}")]
    Io(io::Error),
    /// A device, FIFO, socket or directory.
    #[error("it is {0}, not a regular file")]
    NotAFile(&'static str),
    /// Past the input limit before decompression.
    #[error("it holds {size} bytes, past the input limit of {limit} bytes")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A gzip stream that does not decompress, or decompresses (or grows)
    /// past the limit.
    #[error("{0}")]
    Decode(Failure),
    /// Bytes that are not UTF-8 text.
    #[error("it is not UTF-8 text")]
    NotText {
        /// The bytes read (decompressed), to name what they are.
        bytes: Vec<u8>,
        /// Whether they were decompressed from gzip.
        gzip: bool,
    },
}

impl Refusal {
    /// The refusal as an I/O error whose message leaves the path to the
    /// caller.
    pub(crate) fn into_io(self) -> io::Error {
        let kind = match self {
            Self::Io(e) => return e,
            Self::NotAFile(_) => io::ErrorKind::InvalidInput,
            Self::TooLarge { .. } => io::ErrorKind::FileTooLarge,
            Self::Decode(_) | Self::NotText { .. } => io::ErrorKind::InvalidData,
        };
        io::Error::new(kind, self.to_string())
    }
}

/// Opens the regular file at `path` after checking what it is: anything
/// else is refused before it is opened (opening a FIFO blocks until a
/// writer comes), and checked again on the handle.
pub(crate) fn checked(path: &Path) -> Result<File, Refusal> {
    let meta = std::fs::metadata(path).map_err(Refusal::Io)?;
    if !meta.is_file() {
        return Err(Refusal::NotAFile(file_kind(&meta)));
    }
    let file = File::open(path).map_err(Refusal::Io)?;
    // In case the path changed in between.
    let meta = file.metadata().map_err(Refusal::Io)?;
    if !meta.is_file() {
        return Err(Refusal::NotAFile(file_kind(&meta)));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(Refusal::TooLarge {
            size: meta.len(),
            limit: MAX_INPUT_BYTES,
        });
    }
    Ok(file)
}

/// Reads the user's file at `path` whole as UTF-8 text, decompressed when
/// it is gzip.
pub(crate) fn read_text(path: &Path) -> Result<String, Refusal> {
    let file = checked(path)?;
    let mut input = Decoded::new(BufReader::new(file), MAX_INPUT_BYTES).map_err(Refusal::Io)?;
    let mut bytes = Vec::new();
    if let Err(e) = input.read_to_end(&mut bytes) {
        return Err(match input.failure() {
            Some(f) => Refusal::Decode(f.clone()),
            None => Refusal::Io(e),
        });
    }
    String::from_utf8(bytes).map_err(|e| Refusal::NotText {
        bytes: e.into_bytes(),
        gzip: input.is_gzip(),
    })
}

/// Reads the user's file at `path` whole as UTF-8 text, decompressed when
/// it is gzip, for readers with their own error types that name the file
/// themselves.
///
/// # Errors
/// An I/O error saying what was wrong, without the path:
/// [`io::ErrorKind::InvalidInput`] for a path that is not a regular file
/// (a directory, FIFO or device), [`io::ErrorKind::FileTooLarge`], and
/// [`io::ErrorKind::InvalidData`] for a gzip stream that does not
/// decompress or decompresses past the limit, or bytes that are not text.
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    read_text(path.as_ref()).map_err(Refusal::into_io)
}

/// Opens the user's file at `path` with the checks of [`read_to_string`],
/// undecoded (for readers that decompress it themselves).
///
/// # Errors
/// As [`read_to_string`], for opening.
pub fn open_file(path: impl AsRef<Path>) -> io::Result<File> {
    checked(path.as_ref()).map_err(Refusal::into_io)
}

/// Opens the user's file at `path` with the checks of [`read_to_string`],
/// decompressed when it is gzip; a read past [`MAX_INPUT_BYTES`]
/// (decompressed), or of a corrupt gzip stream, fails with an error that
/// says so.
///
/// # Errors
/// As [`read_to_string`], for opening.
pub fn open_reader(path: impl AsRef<Path>) -> io::Result<impl Read> {
    let file = checked(path.as_ref()).map_err(Refusal::into_io)?;
    Decoded::new(BufReader::new(file), MAX_INPUT_BYTES)
}

/// The extension that names the format of the file at `path`, lowercased,
/// looking through a trailing `.gz` (`lab.toml.gz` is `toml`): a gzip file
/// is read as what it holds.
#[must_use]
pub fn format_extension(path: &Path) -> Option<String> {
    let ext = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
    };
    match ext(path).as_deref() {
        Some("gz") => path.file_stem().and_then(|s| ext(Path::new(s))),
        _ => ext(path),
    }
}

/// What a path that is not a regular file is, in words.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::decode::gzip;

    #[test]
    fn text_is_read_plain_or_gzipped_and_the_rest_is_refused_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let text = "threshold = 0.25\n".repeat(500);
        let plain = dir.path().join("t.toml");
        let gz = dir.path().join("t.toml.gz");
        std::fs::write(&plain, &text).unwrap();
        std::fs::write(&gz, gzip(text.as_bytes())).unwrap();
        assert_eq!(read_to_string(&plain).unwrap(), text);
        assert_eq!(read_to_string(&gz).unwrap(), text);
        let mut back = String::new();
        open_reader(&gz).unwrap().read_to_string(&mut back).unwrap();
        assert_eq!(back, text);

        assert_eq!(
            format_extension(Path::new("a/lab.TOML.gz")).as_deref(),
            Some("toml")
        );
        assert_eq!(
            format_extension(Path::new("lab.json")).as_deref(),
            Some("json")
        );
        assert_eq!(format_extension(Path::new("lab.gz")), None);

        let e = read_to_string(dir.path()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), "it is a directory, not a regular file");
        assert!(open_file(dir.path()).is_err() && open_reader(dir.path()).is_err());

        let latin = dir.path().join("latin1.txt");
        std::fs::write(&latin, b"caf\xe9 au lait\n").unwrap();
        assert!(matches!(
            read_text(&latin),
            Err(Refusal::NotText { gzip: false, .. })
        ));

        let mut cut = gzip(text.as_bytes());
        cut.truncate(cut.len() / 2);
        std::fs::write(&gz, cut).unwrap();
        let e = read_to_string(&gz).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("does not decompress"), "{e}");
    }
}
