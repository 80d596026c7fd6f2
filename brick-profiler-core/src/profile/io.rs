//! Reading and writing a [`Profile`]: the schema version check, JSON
//! parsing with errors that name the file and field, and atomic writes.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::data::{Profile, SCHEMA_VERSION};
use super::valid::InvalidValue;
use crate::fs::write_atomic;
use crate::kernel_data::GraphError;

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
    /// `schema_version` is missing, not `MAJOR.MINOR` in digits, or older
    /// than any format (major 0).
    #[error("profile{} has {}; expected `schema_version: \"MAJOR.MINOR\"` with MAJOR 1 or later (digits only, e.g. \"1.1\")", origin(path), found.as_deref().map_or("no `schema_version` field".to_owned(), |v| format!("schema_version {v}")))]
    BadVersion {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// What was found, as JSON.
        found: Option<String>,
    },
    /// A value no measurement can produce (a negative or non-finite
    /// duration, a total that overflows, a rate outside its range).
    #[error("invalid profile{}: {source}", origin(path))]
    Invalid {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// The field and what is wrong with it.
        source: InvalidValue,
    },
    /// An execution graph that cannot be analysed: its precedence edges
    /// form a cycle (the error names its nodes).
    #[error("invalid execution graph in profile{}: {source}", origin(path))]
    Graph {
        /// File, if read from one.
        path: Option<PathBuf>,
        /// What is wrong with the graph.
        source: GraphError,
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
            Self::Invalid { source, .. } => Self::Invalid { path, source },
            Self::Graph { source, .. } => Self::Graph { path, source },
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

/// Parses `text` as a `T` of a saved profile's schema: the text must be a
/// JSON object whose `schema_version` is `MAJOR.MINOR` with a major this
/// crate reads; a version this crate does not read is the error even when
/// fields are of the wrong shape too (a newer schema is named as such).
/// `path` names the file in errors.
///
/// # Errors
/// [`ProfileError::Malformed`], [`ProfileError::BadVersion`] or
/// [`ProfileError::NewerSchema`].
pub(super) fn parse_versioned<T: DeserializeOwned + Versioned>(
    text: &str,
    path: Option<&Path>,
) -> Result<T, ProfileError> {
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
    // Editors on some systems start UTF-8 files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text.trim_start();
    if !body.starts_with('{') {
        let consumed = &text[..text.len() - body.len()];
        let line = consumed.matches('\n').count() + 1;
        let column = consumed.len() - consumed.rfind('\n').map_or(0, |n| n + 1) + 1;
        let found: String = body.chars().take(16).collect();
        return Err(ProfileError::Malformed {
            path: path_buf(),
            message: if found.is_empty() {
                "empty file: expected a JSON object (a profile)".to_owned()
            } else {
                format!("expected a JSON object (a profile), found `{found}`")
            },
            line,
            column,
        });
    }
    // One parse when the text reads as `T`, its version then checked; when
    // it does not, a look at the version alone decides whether that is
    // the reason, as a version error comes before any field's.
    let version_error = |found: Option<&serde_json::Value>| check_version(found, path_buf).err();
    match serde_json::from_str::<T>(text) {
        Ok(parsed) => {
            let found = serde_json::Value::String(parsed.schema_version().to_owned());
            match version_error(Some(&found)) {
                Some(e) => Err(e),
                None => Ok(parsed),
            }
        }
        Err(e) => {
            #[derive(Deserialize)]
            struct Header {
                schema_version: Option<serde_json::Value>,
            }
            let header: Header = serde_json::from_str(text).map_err(malformed)?;
            Err(version_error(header.schema_version.as_ref()).unwrap_or_else(|| malformed(e)))
        }
    }
}

/// What a profile's `schema_version` must be: a string `MAJOR.MINOR` in
/// digits, of a major this crate reads.
fn check_version(
    found: Option<&serde_json::Value>,
    path: impl Fn() -> Option<PathBuf>,
) -> Result<(), ProfileError> {
    let bad_version = || ProfileError::BadVersion {
        path: path(),
        found: found.map(ToString::to_string),
    };
    let Some(serde_json::Value::String(version)) = found else {
        return Err(bad_version());
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let major = match version.split_once('.') {
        Some((major, minor)) if digits(major) && digits(minor) => major.parse::<u64>().ok(),
        _ => None,
    };
    match major {
        Some(m) if m > SCHEMA_MAJOR => Err(ProfileError::NewerSchema {
            path: path(),
            found: version.clone(),
            supported: SCHEMA_VERSION,
        }),
        Some(m) if m >= 1 => Ok(()),
        _ => Err(bad_version()),
    }
}

/// A type read from a saved profile, which carries its schema version.
pub(super) trait Versioned {
    /// The `schema_version` it was read with.
    fn schema_version(&self) -> &str;
}

impl Versioned for Profile {
    fn schema_version(&self) -> &str {
        &self.schema_version
    }
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
    /// [`ProfileError::Malformed`] for invalid JSON or fields (a leading
    /// UTF-8 byte-order mark is accepted), [`ProfileError::BadVersion`] /
    /// [`ProfileError::NewerSchema`] for the version, and
    /// [`ProfileError::Invalid`] for values no measurement can produce,
    /// [`ProfileError::Graph`] for an execution graph whose precedence
    /// edges form a cycle.
    pub fn from_json(text: &str) -> Result<Self, ProfileError> {
        Self::parse(text, None)
    }

    fn parse(text: &str, path: Option<&Path>) -> Result<Self, ProfileError> {
        let path_buf = || path.map(Path::to_path_buf);
        let profile: Profile = parse_versioned(text, path)?;
        profile.validate().map_err(|source| ProfileError::Invalid {
            path: path_buf(),
            source,
        })?;
        profile
            .validate_graph()
            .map_err(|source| ProfileError::Graph {
                path: path_buf(),
                source,
            })?;
        Ok(profile)
    }

    /// Reads a profile from a JSON file.
    ///
    /// This reads whatever `path` names: a report that takes paths from
    /// users opens them through its input layer, which refuses FIFOs and
    /// devices before they are opened.
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

    #[test]
    fn a_saved_graph_with_a_three_node_cycle_is_refused_with_its_nodes() {
        use crate::kernel_data::{EdgeKind, ExecutionGraph, NodeKind};
        let mut graph = ExecutionGraph::new();
        let ids: Vec<_> = ["load", "gemm", "store"]
            .into_iter()
            .map(|name| graph.add_node(NodeKind::function(name)).expect("room"))
            .collect();
        for (from, to) in [(0, 1), (1, 2), (2, 0)] {
            graph
                .add_edge(ids[from], ids[to], EdgeKind::DependsOn)
                .expect("valid edge");
        }
        let mut p = Profile::empty();
        p.graph = Some(graph);
        let saved = p.to_json();
        match Profile::from_json(&saved) {
            Err(ProfileError::Graph {
                source: GraphError::Cycle { cycle },
                ..
            }) => {
                let mut named: Vec<usize> = cycle.iter().map(|id| id.index()).collect();
                named.sort_unstable();
                assert_eq!(named, [0, 1, 2]);
            }
            other => panic!("expected a cycle error, got {other:?}"),
        }
        let message = Profile::from_json(&saved).unwrap_err().to_string();
        assert!(message.contains("cycle"), "{message}");
        assert!(
            ["0", "1", "2"].iter().all(|n| message.contains(n)),
            "{message}"
        );
        // The same graph without the closing edge reads back.
        let mut open = p.clone();
        if let Some(g) = open.graph.as_mut() {
            let mut acyclic = ExecutionGraph::new();
            for node in g.nodes() {
                acyclic.add_node(node.kind.clone());
            }
            for (from, to) in [(0, 1), (1, 2)] {
                acyclic
                    .add_edge(ids[from], ids[to], EdgeKind::DependsOn)
                    .expect("valid edge");
            }
            *g = acyclic;
        }
        assert!(Profile::from_json(&open.to_json()).is_ok());
    }
}
