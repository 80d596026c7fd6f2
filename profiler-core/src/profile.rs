//! [`Profile`]: the versioned, serialisable snapshot every report reads.
//!
//! A profile is plain data. It round-trips through JSON, is written
//! atomically (temp file + rename), and a reader rejects a newer major schema
//! with a clear error while filling missing optional fields with defaults.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use serde::{Deserialize, Serialize};

use crate::catalogue::BrickCategory;
use crate::clock::ClockSource;
use crate::layers::{Direction, LayerStats};
use crate::session::Schedule;
use crate::site::SiteInfo;
use crate::stats::{BrickStats, CategoryStats};
use crate::sync::SyncMode;
use crate::timeline::Timeline;
use crate::trace::RecordedExecutionTrace;

/// Schema version written by this crate: `MAJOR.MINOR`. Readers accept any
/// minor version of the same major (unknown fields are ignored, missing ones
/// default) and reject a newer major.
pub const SCHEMA_VERSION: &str = "1.0";
const SCHEMA_MAJOR: u64 = 1;

/// A snapshot of everything the profiler recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// `MAJOR.MINOR` of the format.
    pub schema_version: String,
    /// Facts about the run.
    #[serde(default)]
    pub run: RunInfo,
    /// Bricks with at least one sample, by total time descending.
    #[serde(default)]
    pub bricks: Vec<BrickStats>,
    /// Totals per category, in category index order.
    #[serde(default)]
    pub categories: Vec<CategoryEntry>,
    /// Every `#[brick]` call site linked into the program.
    #[serde(default)]
    pub sites: Vec<SiteInfo>,
    /// Training/inference steps.
    #[serde(default)]
    pub steps: StepSummary,
    /// Phases, in first-seen order.
    #[serde(default)]
    pub phases: Vec<PhaseStats>,
    /// Layers by index, forward before backward.
    #[serde(default)]
    pub layers: Vec<LayerStats>,
    /// Threads that recorded.
    #[serde(default)]
    pub threads: Vec<ThreadInfo>,
    /// Trace-mode timeline (empty unless trace mode was on).
    #[serde(default)]
    pub timeline: Timeline,
    /// `#[trace_op]` entries of all threads, by start time.
    #[serde(default)]
    pub trace: RecordedExecutionTrace,
    /// Records dropped, pending or lost: never silently discarded.
    #[serde(default)]
    pub counters: Counters,
}

/// Facts about the run a profile came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// Run name (program name unless set).
    #[serde(default)]
    pub name: String,
    /// When recording started, ns since the Unix epoch (aligns the timelines
    /// of several processes or ranks).
    #[serde(default)]
    pub started_at_unix_ns: u64,
    /// This process's rank in a distributed run (`set_rank`, or `RANK`).
    #[serde(default)]
    pub rank: Option<u32>,
    /// Number of ranks in the run (`set_rank`, or `WORLD_SIZE`).
    #[serde(default)]
    pub world_size: Option<u32>,
    /// Wall time from the first `enable()` to the snapshot, ns.
    #[serde(default)]
    pub wall_ns: u64,
    /// Host name, if known.
    #[serde(default)]
    pub host: String,
    /// Process id.
    #[serde(default)]
    pub pid: u32,
    /// Threads that recorded since the last reset.
    #[serde(default)]
    pub threads_seen: u32,
    /// Sync mode at snapshot time.
    #[serde(default)]
    pub sync_mode: SyncMode,
    /// Whether a device timer was installed.
    #[serde(default)]
    pub device_timer: bool,
    /// Clock behind the timestamps.
    #[serde(default)]
    pub clock: ClockInfo,
    /// Measured cost of the profiler itself, when calibrated.
    #[serde(default)]
    pub overhead: Option<Overhead>,
    /// Hardware the run used, when known.
    #[serde(default)]
    pub hardware: Option<HardwareInfo>,
    /// L2 cache hit rate in `[0, 1]`, when measured.
    #[serde(default)]
    pub l2_cache_hit_rate: Option<f32>,
    /// Whether zero-copy transfers were used.
    #[serde(default)]
    pub zero_copy: bool,
    /// Caveats a reader must know (e.g. overhead subtracted).
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The clock behind a profile's timestamps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// Counter used.
    pub source: ClockSource,
    /// Calibrated nanoseconds per tick.
    pub ns_per_tick: f64,
}

/// The profiler's own per-call cost, measured at run time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// Time an enabled `#[brick]` adds to its caller, ns per call.
    pub per_call_ns: f64,
    /// Time an empty brick records as its own duration, ns: the bias in every
    /// sample, and what subtraction removes.
    pub floor_ns: f64,
    /// Whether `floor_ns` was subtracted from every sample in this profile.
    pub subtracted: bool,
}

/// Hardware a run used (set with `set_hardware`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HardwareInfo {
    /// Device name, e.g. "RTX 4090".
    pub name: String,
    /// Peak memory bandwidth, GB/s.
    #[serde(default)]
    pub peak_bw_gb_s: Option<f64>,
    /// Dense peak, TFLOP/s.
    #[serde(default)]
    pub peak_tflops: Option<f64>,
    /// Bytes moved per token (for memory-bound throughput ceilings).
    #[serde(default)]
    pub bytes_per_token: Option<f64>,
}

/// One category's totals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CategoryEntry {
    /// The category.
    pub category: BrickCategory,
    /// Its totals.
    #[serde(flatten)]
    pub stats: CategoryStats,
}

/// Recorded steps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepSummary {
    /// Steps recorded.
    pub count: u64,
    /// Steps skipped by the schedule (wait and warm-up) while enabled.
    #[serde(default)]
    pub skipped: u64,
    /// Tokens of recorded steps.
    #[serde(default)]
    pub tokens: u64,
    /// Wall time of recorded steps, ns.
    #[serde(default)]
    pub total_ns: u64,
    /// Per-step wall times, ns (the first 100 000 steps).
    #[serde(default)]
    pub samples_ns: Vec<u64>,
    /// Steps beyond the sample cap (counted in totals, not in `samples_ns`).
    #[serde(default)]
    pub samples_dropped: u64,
    /// The schedule in force.
    #[serde(default)]
    pub schedule: Option<Schedule>,
}

impl StepSummary {
    /// Mean step time, ms (0 without steps).
    #[must_use]
    pub fn avg_step_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64 / 1e6
        }
    }

    /// Tokens per second over recorded steps (0 without time).
    #[must_use]
    pub fn tokens_per_s(&self) -> f64 {
        if self.total_ns == 0 {
            0.0
        } else {
            self.tokens as f64 / (self.total_ns as f64 / 1e9)
        }
    }
}

/// Time spent in one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseStats {
    /// Phase name.
    pub name: String,
    /// Times the phase ran.
    pub count: u64,
    /// Total time, ns.
    pub total_ns: u64,
    /// Shortest occurrence, ns.
    #[serde(default)]
    pub min_ns: u64,
    /// Longest occurrence, ns.
    #[serde(default)]
    pub max_ns: u64,
    /// Time of top-level occurrences inside recorded steps, ns (wall coverage).
    #[serde(default)]
    pub in_steps_ns: u64,
}

impl PhaseStats {
    /// Mean time per occurrence, ms.
    #[must_use]
    pub fn avg_ms(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.count as f64 / 1e6
        }
    }
}

/// A thread that recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadInfo {
    /// Dense thread number, 1-based in registration order.
    pub thread: u32,
    /// Thread name, if it had one.
    #[serde(default)]
    pub name: Option<String>,
    /// Whether the thread had exited by the snapshot.
    #[serde(default)]
    pub exited: bool,
}

/// Everything that did not become a sample, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Deferred records still waiting for `finalize` at snapshot time.
    #[serde(default)]
    pub pending: u64,
    /// Deferred records refused because a thread's queue was full.
    #[serde(default)]
    pub pending_overflow: u64,
    /// Deferred records never finalized before their thread exited.
    #[serde(default)]
    pub pending_abandoned: u64,
    /// Device times that could not be resolved (launch-to-sync used instead).
    #[serde(default)]
    pub device_timer_fallbacks: u64,
    /// Timeline events dropped because a thread's buffer was full.
    #[serde(default)]
    pub timeline_dropped: u64,
    /// Samples that arrived after their thread's storage was torn down.
    #[serde(default)]
    pub lost_at_thread_exit: u64,
    /// Samples of bricks beyond the slot table, kept under one overflow entry.
    #[serde(default)]
    pub slot_overflow_samples: u64,
    /// Sync-hook calls that panicked.
    #[serde(default)]
    pub sync_hook_panics: u64,
    /// `#[trace_op]` entries dropped because a thread's store was full.
    #[serde(default)]
    pub trace_entries_dropped: u64,
}

impl Counters {
    /// Records that never became samples (pending ones excluded: they still may).
    #[must_use]
    pub fn lost(&self) -> u64 {
        [
            self.pending_overflow,
            self.pending_abandoned,
            self.timeline_dropped,
            self.lost_at_thread_exit,
            self.trace_entries_dropped,
        ]
        .into_iter()
        .fold(0u64, u64::saturating_add)
    }

    /// Human-readable lines for every non-zero counter, for report footers.
    #[must_use]
    pub fn warnings(&self) -> Vec<String> {
        let lines = [
            (
                self.pending,
                "deferred records still pending (call finalize after the device sync)",
            ),
            (
                self.pending_overflow,
                "deferred records dropped: pending queue full (raise set_pending_capacity)",
            ),
            (
                self.pending_abandoned,
                "deferred records abandoned: their thread exited before finalize",
            ),
            (
                self.device_timer_fallbacks,
                "device times unresolved: launch-to-sync time used instead",
            ),
            (
                self.timeline_dropped,
                "timeline events dropped: trace buffer full (raise the trace capacity)",
            ),
            (
                self.lost_at_thread_exit,
                "samples lost: recorded during thread teardown",
            ),
            (
                self.slot_overflow_samples,
                "samples of bricks beyond the slot table (reported as one entry)",
            ),
            (self.sync_hook_panics, "sync hook calls panicked"),
            (
                self.trace_entries_dropped,
                "trace_op entries dropped: store full (raise set_trace_entry_capacity)",
            ),
        ];
        lines
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect()
    }
}

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
    /// An empty profile of the current schema.
    #[must_use]
    pub fn empty() -> Self {
        Self {
            schema_version: SCHEMA_VERSION.to_owned(),
            run: RunInfo::default(),
            bricks: Vec::new(),
            categories: Vec::new(),
            sites: Vec::new(),
            steps: StepSummary::default(),
            phases: Vec::new(),
            layers: Vec::new(),
            threads: Vec::new(),
            timeline: Timeline::default(),
            trace: RecordedExecutionTrace::default(),
            counters: Counters::default(),
        }
    }

    /// Sum of elements over all bricks.
    #[must_use]
    pub fn total_tokens(&self) -> u64 {
        self.bricks
            .iter()
            .fold(0u64, |acc, b| acc.saturating_add(b.total_elements))
    }

    /// Sum of time over all bricks, ns.
    #[must_use]
    pub fn total_ns(&self) -> u64 {
        self.bricks
            .iter()
            .fold(0u64, |acc, b| acc.saturating_add(b.total_ns))
    }

    /// `total_tokens / (total_ns / 1e9)` (0 without time).
    #[must_use]
    pub fn total_throughput(&self) -> f64 {
        let ns = self.total_ns();
        if ns == 0 {
            0.0
        } else {
            self.total_tokens() as f64 / (ns as f64 / 1e9)
        }
    }

    /// The brick named `name` (built-in aliases resolve), if it has samples.
    #[must_use]
    pub fn brick(&self, name: &str) -> Option<&BrickStats> {
        let canonical = crate::BrickId::from_str(name).map_or(name, |id| id.name());
        self.bricks.iter().find(|b| b.name == canonical)
    }

    /// Totals of one category (zeros if absent).
    #[must_use]
    pub fn category(&self, category: BrickCategory) -> CategoryStats {
        self.categories
            .iter()
            .find(|c| c.category == category)
            .map(|c| c.stats)
            .unwrap_or_default()
    }

    /// Registered call sites whose brick never recorded a sample.
    #[must_use]
    pub fn uncalled_sites(&self) -> Vec<&SiteInfo> {
        self.sites
            .iter()
            .filter(|s| self.brick(&s.name).is_none())
            .collect()
    }

    /// The layer `index` in `direction`, if recorded.
    #[must_use]
    pub fn layer(&self, index: u32, direction: Direction) -> Option<&LayerStats> {
        self.layers
            .iter()
            .find(|l| l.index == index && l.direction == direction)
    }

    /// Time inside top-level phases over step wall time, in `[0, 1]`;
    /// `None` without recorded steps.
    #[must_use]
    pub fn wall_coverage(&self) -> Option<f64> {
        if self.steps.total_ns == 0 {
            return None;
        }
        let covered = self
            .phases
            .iter()
            .fold(0u64, |acc, p| acc.saturating_add(p.in_steps_ns));
        Some((covered as f64 / self.steps.total_ns as f64).clamp(0.0, 1.0))
    }

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
