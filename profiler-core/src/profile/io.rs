//! Reading and writing a [`Profile`]: the schema version check, JSON
//! parsing with errors that name the file and field, and atomic writes.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::data::{Profile, SCHEMA_VERSION};
use crate::fs::write_atomic;

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
    /// directory, flushed to disk, then renamed over `path` (which keeps its
    /// permissions; a symlink is written through; a read-only file is refused).
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

#[cfg(test)]
mod tests {
    use super::*;

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
