//! Reading and writing a [`Profile`]: the schema version check, JSON
//! parsing with errors that name the file and field, and atomic writes.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use serde::Deserialize;

use super::Profile;

/// Schema version written by this crate: `MAJOR.MINOR`. Readers accept any
/// minor version of the same major (unknown fields are ignored, missing ones
/// default) and reject a newer major.
pub const SCHEMA_VERSION: &str = "1.0";
const SCHEMA_MAJOR: u64 = 1;

/// Error reading or writing a [`Profile`].
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error("cannot read profile `{}`: {source}", path.display())]
    Read {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write profile `{}`: {source}", path.display())]
    Write {
        /// File that failed.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The text is not a valid profile.
    #[error(
        "malformed profile{}: {message} at line {line}, column {column}",
        origin(path)
    )]
    Malformed {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// What is wrong (names the offending field).
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// `schema_version` is missing or not `MAJOR.MINOR`.
    #[error("profile{} has {}; expected `schema_version: \"MAJOR.MINOR\"`", origin(path), found.as_deref().map_or("no `schema_version` field".to_owned(), |v| format!("schema_version `{v}`")))]
    BadVersion {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// What was found.
        found: Option<String>,
    },
    /// Written by a newer, incompatible version of the format.
    #[error(
        "profile{} has schema {found}, newer than the supported {supported}; upgrade the profiler to read it",
        origin(path)
    )]
    NewerSchema {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// Version in the file.
        found: String,
        /// Version this crate writes.
        supported: &'static str,
    },
}

impl ProfileError {
    /// The same error, naming `path` as the file it came from (for parse
    /// errors of text that was read elsewhere).
    #[must_use]
    pub fn with_path(self, path: impl Into<PathBuf>) -> Self {
        let path = Some(path.into());
        match self {
            Self::Malformed {
                message,
                line,
                column,
                ..
            } => Self::Malformed {
                path,
                message,
                line,
                column,
            },
            Self::BadVersion { found, .. } => Self::BadVersion { path, found },
            Self::NewerSchema {
                found, supported, ..
            } => Self::NewerSchema {
                path,
                found,
                supported,
            },
            io @ (Self::Read { .. } | Self::Write { .. }) => io,
        }
    }
}

fn origin(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!(" `{}`", p.display()))
        .unwrap_or_default()
}

impl Profile {
    /// Pretty JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        // A `Profile` holds only strings, integers, floats and string-keyed
        // maps; serde_json encodes all of them (non-finite floats as null),
        // so this cannot fail and a silent empty file can never be written.
        serde_json::to_string_pretty(self).expect("a Profile always serializes")
    }

    /// Parses a profile, checking the schema version first.
    ///
    /// # Errors
    /// [`ProfileError::Malformed`] for invalid JSON or fields,
    /// [`ProfileError::BadVersion`] / [`ProfileError::NewerSchema`] for the version.
    pub fn from_json(text: &str) -> Result<Self, ProfileError> {
        Self::parse(text, None)
    }

    fn parse(text: &str, path: Option<&Path>) -> Result<Self, ProfileError> {
        let path_buf = || path.map(Path::to_path_buf);
        let malformed = |e: serde_json::Error| ProfileError::Malformed {
            path: path_buf(),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned(),
            line: e.line(),
            column: e.column(),
        };
        #[derive(Deserialize)]
        struct VersionOnly {
            schema_version: Option<serde_json::Value>,
        }
        let version: VersionOnly = serde_json::from_str(text).map_err(malformed)?;
        let found = match version.schema_version {
            Some(serde_json::Value::String(s)) => s,
            other => {
                return Err(ProfileError::BadVersion {
                    path: path_buf(),
                    found: other.map(|v| v.to_string()),
                });
            }
        };
        let major = found.split('.').next().and_then(|m| m.parse::<u64>().ok());
        match major {
            None => {
                return Err(ProfileError::BadVersion {
                    path: path_buf(),
                    found: Some(found),
                });
            }
            Some(m) if m > SCHEMA_MAJOR => {
                return Err(ProfileError::NewerSchema {
                    path: path_buf(),
                    found,
                    supported: SCHEMA_VERSION,
                });
            }
            Some(_) => {}
        }
        serde_json::from_str(text).map_err(malformed)
    }

    /// Reads a profile from a JSON file.
    ///
    /// # Errors
    /// [`ProfileError::Read`] if the file cannot be read, else as [`Profile::from_json`].
    pub fn read(path: impl AsRef<Path>) -> Result<Self, ProfileError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, Some(path))
    }

    /// Writes the profile as JSON atomically: a temporary file in the same
    /// directory, flushed to disk, then renamed over `path`.
    ///
    /// # Errors
    /// [`ProfileError::Write`] naming the path.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), ProfileError> {
        write_atomic(path.as_ref(), self.to_json().as_bytes()).map_err(|source| {
            ProfileError::Write {
                path: path.as_ref().to_path_buf(),
                source,
            }
        })
    }
}

/// Writes `bytes` to `path` atomically (temp file in the same directory,
/// `fsync`, rename). Readers see the old file or the new one, never a torn one.
///
/// # Errors
/// Any I/O error; the temporary file is removed on failure.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Unique per call, so concurrent writers in one process never share a
    // temporary file; `create_new` refuses to reuse a stale one.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "path has no file name")
    })?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        file_name.to_string_lossy(),
        std::process::id(),
        NEXT.fetch_add(1, Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // Make the rename itself durable where directories can be synced.
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_atomic_writes_never_tear() {
        let dir = std::env::temp_dir().join(format!("profiler-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("out.bin");
        let writers: Vec<_> = [b'a', b'b']
            .into_iter()
            .map(|byte| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        write_atomic(&path, &vec![byte; 1 << 20]).expect("write");
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("writer");
        }
        let bytes = std::fs::read(&path).expect("read");
        assert_eq!(bytes.len(), 1 << 20);
        assert!(
            bytes.iter().all(|&b| b == bytes[0]),
            "one writer's file, whole"
        );
        let leftovers = std::fs::read_dir(&dir).expect("dir").count();
        assert_eq!(leftovers, 1, "no temporary files left");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn floats_round_trip_exactly_through_json() {
        // serde_json needs `float_roundtrip` for this; without it some values
        // come back one ULP off and saved profiles would not compare equal.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut p = Profile::empty();
            p.run.clock.ns_per_tick = (state >> 11) as f64 / (1u64 << 53) as f64 + 0.25;
            let back = Profile::from_json(&p.to_json()).expect("parses");
            assert_eq!(
                back.run.clock.ns_per_tick.to_bits(),
                p.run.clock.ns_per_tick.to_bits()
            );
        }
    }
}
