//! A user's file read whole as text, with the checks every input gets
//! (special files refused, the size limit, gzip decompressed), and its
//! refusals as [`InputError`]s naming the file and, for a binary file,
//! what it is.

use std::fs::File;
use std::path::Path;

use super::binary;
use super::error::InputError;
use super::sniff::{Head, SNIFF_BYTES};
use crate::base::decode::Failure;
use crate::base::user_file::{self, Refusal};

/// Opens the regular file at `path`, refusing anything else before it is
/// opened, and a file past the input limit.
pub(crate) fn checked(path: &Path) -> Result<File, InputError> {
    user_file::checked(path).map_err(|r| refused(path, r))
}

/// Reads the user's file at `path` whole as UTF-8 text, decompressed when
/// it is gzip.
///
/// # Errors
/// [`InputError`] naming the file: it cannot be opened or read, is not a
/// regular file, is too large (decompressed or not), is a corrupt gzip, is
/// a binary file (named for what it is, when its first bytes tell), or is
/// text that is not UTF-8.
pub fn read_text(path: impl AsRef<Path>) -> Result<String, InputError> {
    let path = path.as_ref();
    user_file::read_text(path).map_err(|r| refused(path, r))
}

/// A gzip stream's failure as an [`InputError`] naming `origin`.
pub(crate) fn gzip_error(origin: &str, failure: &Failure) -> InputError {
    InputError::Gzip {
        origin: origin.to_owned(),
        reason: failure.to_string(),
        past_limit: match failure {
            Failure::TooLarge { limit, .. } => Some(*limit),
            Failure::Gzip(_) => None,
        },
    }
}

/// A refusal of the file at `path` as an [`InputError`].
fn refused(path: &Path, refusal: Refusal) -> InputError {
    let origin = path.display().to_string();
    match refusal {
        Refusal::Io(source) => InputError::Read {
            path: path.to_path_buf(),
            source,
        },
        Refusal::NotAFile(what) => InputError::NotAFile {
            path: path.to_path_buf(),
            what,
        },
        Refusal::TooLarge { size, limit } => InputError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit,
        },
        Refusal::Decode(failure) => gzip_error(&origin, &failure),
        Refusal::NotText { bytes, gzip } => {
            let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
            // Binary by its magic, or by bytes that are not text from the
            // start; a text with a stray byte further on is only not UTF-8.
            if binary::by_magic(head).is_some() || Head::new(head).text().is_none() {
                let b = binary::name(head, Some(path));
                InputError::Binary {
                    origin,
                    what: b.what,
                    advice: b.advice,
                    gzip,
                }
            } else {
                InputError::NotText { origin }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::decode::gzip;

    #[test]
    fn text_is_read_plain_or_gzipped_and_binary_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let text = "threshold = 0.25\n".repeat(500);
        let gz = dir.path().join("t.toml.gz");
        std::fs::write(&gz, gzip(text.as_bytes())).unwrap();
        assert_eq!(read_text(&gz).unwrap(), text);

        let err = read_text(dir.path()).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::NotAFile {
                    what: "a directory",
                    ..
                }
            ),
            "{err}"
        );
        let zip = dir.path().join("a.zip.gz");
        std::fs::write(&zip, gzip(b"PK\x03\x04\x00\x01\x02\xff\xfe")).unwrap();
        let err = read_text(&zip).unwrap_err().to_string();
        assert!(err.contains("a zip archive (once decompressed"), "{err}");
        // Text whose first bytes read as text, with a stray byte further
        // on, is text that is not UTF-8, not a binary file.
        let latin = dir.path().join("latin1.txt");
        let mut bytes = b"cafe au lait\n".repeat(SNIFF_BYTES / 10);
        bytes.extend_from_slice(b"caf\xe9\n");
        std::fs::write(&latin, bytes).unwrap();
        assert!(matches!(
            read_text(&latin).unwrap_err(),
            InputError::NotText { .. }
        ));
        let mut cut = gzip(text.as_bytes());
        cut.truncate(cut.len() / 2);
        std::fs::write(&gz, cut).unwrap();
        let err = read_text(&gz).unwrap_err();
        assert!(
            matches!(
                err,
                InputError::Gzip {
                    past_limit: None,
                    ..
                }
            ),
            "{err}"
        );
    }
}
