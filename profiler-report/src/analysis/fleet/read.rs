//! Reading a run directory: every `rank-NNNNN/profile.json`, parsed into
//! its per-rank aggregates only (run facts, step times, brick and phase
//! totals). The timeline and trace entries are skipped while parsing, so
//! memory grows with ranks x bricks, never with trace size.

use std::collections::{BTreeMap, HashMap};
use std::io::BufReader;
use std::path::Path;

use profiler_core::stats::LatencyHistogram;
use serde::Deserialize;

use super::error::{FleetError, RankProblem};

/// The file each rank directory holds.
pub(crate) const PROFILE_FILE: &str = "profile.json";

/// What the fleet analysis keeps of one rank.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RankData {
    pub(crate) rank: u32,
    pub(crate) world_size: Option<u32>,
    pub(crate) run_id: String,
    pub(crate) host: String,
    /// The profile, relative to the run directory.
    pub(crate) file: String,
    /// Step wall times, ns, with their step index.
    pub(crate) steps: Vec<(u64, u64)>,
    /// `(name, total ns)` per brick.
    pub(crate) bricks: Vec<(String, u64)>,
    /// `(name, median ns per call)` per brick: the histogram's median, or
    /// the mean call when a profile has no histogram.
    pub(crate) brick_calls: Vec<(String, f64)>,
    /// `(name, total ns)` per phase.
    pub(crate) phases: Vec<(String, u64)>,
}

/// The ranks of a run directory that can be analysed, and why the others
/// cannot.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunDir {
    pub(crate) ranks: Vec<RankData>,
    pub(crate) problems: Vec<RankProblem>,
    /// Ranks of `0..world_size` not analysed, ascending.
    pub(crate) absent: Vec<u32>,
    pub(crate) world_size: u32,
    pub(crate) run_id: String,
}

// The parts of a profile the analysis reads; serde skips every other field
// (the timeline above all) without keeping it.
#[derive(Deserialize)]
struct Lean {
    #[serde(default)]
    run: LeanRun,
    #[serde(default)]
    steps: LeanSteps,
    #[serde(default)]
    bricks: Vec<LeanBrick>,
    #[serde(default)]
    phases: Vec<Named>,
}

#[derive(Deserialize, Default)]
struct LeanRun {
    #[serde(default)]
    rank: Option<u32>,
    #[serde(default)]
    world_size: Option<u32>,
    #[serde(default)]
    run_id: String,
    #[serde(default)]
    host: String,
}

#[derive(Deserialize, Default)]
struct LeanSteps {
    #[serde(default)]
    samples_ns: Vec<u64>,
    #[serde(default)]
    samples_index: Vec<u64>,
}

#[derive(Deserialize)]
struct LeanBrick {
    name: String,
    #[serde(default)]
    total_ns: u64,
    #[serde(default)]
    count: u64,
    #[serde(default)]
    min_ns: Option<u64>,
    #[serde(default)]
    max_ns: u64,
    #[serde(default)]
    latency: LatencyHistogram,
}

impl LeanBrick {
    /// The median call, ns: robust to the few calls a preemption stretches.
    fn median_call_ns(&self) -> f64 {
        if self.latency.count() > 0 {
            let min = self.min_ns.unwrap_or(0);
            return self.latency.quantile_ns(0.5, min, self.max_ns.max(min)) as f64;
        }
        self.total_ns as f64 / self.count.max(1) as f64
    }
}

#[derive(Deserialize)]
struct Named {
    name: String,
    #[serde(default)]
    total_ns: u64,
}

/// The rank a directory name gives: `rank-00042` is 42.
pub(crate) fn rank_of_dir(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("rank-")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The rank profile of `run_dir` that `path` is (as `rank-NNNNN/profile.json`),
/// when the fleet analysis of `run_dir` reads it, existing or not yet:
/// through any spelling or link of the path, of the run directory, or of
/// a rank directory. An output written there would replace a rank's
/// profile (or plant one), so a caller refuses it.
#[must_use]
pub fn rank_profile_at(run_dir: &Path, path: &Path) -> Option<String> {
    let run = std::fs::canonicalize(run_dir).ok()?;
    // The path as it resolves: the file itself when it exists, else its
    // (existing) folder and its name.
    let resolved = std::fs::canonicalize(path).ok().or_else(|| {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
    })?;
    let named = |dir_name: &str| format!("{dir_name}/{PROFILE_FILE}");
    // The only file the analysis reads in a rank directory.
    if resolved.file_name() != Some(PROFILE_FILE.as_ref()) {
        return None;
    }
    let dir = resolved.parent()?;
    if let Some(dir_name) = dir.file_name().and_then(|n| n.to_str())
        && rank_of_dir(dir_name).is_some()
        && dir.parent() == Some(run.as_path())
    {
        return Some(named(dir_name));
    }
    // A rank directory that is a link to elsewhere: its profile resolves
    // outside the run directory.
    std::fs::read_dir(&run).ok()?.flatten().find_map(|entry| {
        let name = entry.file_name();
        let dir_name = name.to_str().filter(|n| rank_of_dir(n).is_some())?;
        let profile = std::fs::canonicalize(entry.path()).ok()?.join(PROFILE_FILE);
        let profile = std::fs::canonicalize(&profile).unwrap_or(profile);
        (profile == resolved).then(|| named(dir_name))
    })
}

/// Reads one rank directory's profile.
fn read_rank(dir: &Path, dir_name: &str, dir_rank: u32) -> Result<RankData, RankProblem> {
    let file = format!("{dir_name}/{PROFILE_FILE}");
    let unreadable = |reason: String| RankProblem::Unreadable {
        file: file.clone(),
        reason,
    };
    // The one reader of user files: no FIFO or directory is opened, a gzip
    // profile is decompressed, and the input limit holds.
    let handle = crate::input::open_reader(dir.join(PROFILE_FILE))
        .map_err(|e| unreadable(format!("cannot read it: {e}")))?;
    let lean: Lean = serde_json::from_reader(BufReader::new(handle)).map_err(|e| {
        if e.is_io() {
            unreadable(format!("cannot read it: {e}"))
        } else if e.is_eof() {
            unreadable(format!("truncated ({e})"))
        } else {
            unreadable(format!("malformed ({e})"))
        }
    })?;
    let index = &lean.steps.samples_index;
    let steps = lean
        .steps
        .samples_ns
        .iter()
        .enumerate()
        .map(|(i, &ns)| (index.get(i).copied().unwrap_or(i as u64), ns))
        .collect();
    Ok(RankData {
        // A profile without a rank (a single-process run copied in) is
        // taken at its directory's word.
        rank: lean.run.rank.unwrap_or(dir_rank),
        world_size: lean.run.world_size,
        run_id: lean.run.run_id,
        host: lean.run.host,
        file,
        steps,
        brick_calls: lean
            .bricks
            .iter()
            .map(|b| (b.name.clone(), b.median_call_ns()))
            .collect(),
        bricks: lean
            .bricks
            .into_iter()
            .map(|b| (b.name, b.total_ns))
            .collect(),
        phases: lean
            .phases
            .into_iter()
            .map(|p| (p.name, p.total_ns))
            .collect(),
    })
}

/// The most common value, ties broken by the smallest.
fn mode<T: Ord + Clone>(values: impl Iterator<Item = T>) -> Option<T> {
    let mut counts: BTreeMap<T, usize> = BTreeMap::new();
    for v in values {
        *counts.entry(v).or_default() += 1;
    }
    let best = counts.values().copied().max()?;
    counts.into_iter().find(|(_, c)| *c == best).map(|(v, _)| v)
}

/// Reads every `rank-NNNNN` directory of `path`. Ranks that cannot be
/// analysed are listed in `problems`, and the rest are still read.
///
/// # Errors
/// [`FleetError::Dir`] when `path` cannot be listed,
/// [`FleetError::NoRanks`] when no rank can be analysed.
pub(crate) fn read_run_dir(path: &Path) -> Result<RunDir, FleetError> {
    let dir_error = |source| FleetError::Dir {
        path: path.to_path_buf(),
        source,
    };
    let mut dirs: Vec<(u32, String)> = Vec::new();
    for entry in std::fs::read_dir(path).map_err(dir_error)? {
        let entry = entry.map_err(dir_error)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(rank) = rank_of_dir(&name)
            && entry.path().is_dir()
        {
            dirs.push((rank, name));
        }
    }
    // Directory order is the filesystem's: sort, so a duplicated rank
    // always keeps the directory named after it.
    dirs.sort();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    for (dir_rank, name) in &dirs {
        match read_rank(&path.join(name), name, *dir_rank) {
            Ok(data) => read.push((*dir_rank, data)),
            Err(problem) => problems.push(problem),
        }
    }
    let run_id = mode(read.iter().map(|(_, d)| d.run_id.clone())).unwrap_or_default();
    let mut ranks: Vec<RankData> = Vec::new();
    let mut seen: HashMap<u32, String> = HashMap::new();
    // A rank in its own directory wins over one that names it elsewhere.
    read.sort_by_key(|(dir_rank, d)| (d.rank != *dir_rank, d.rank));
    for (_, data) in read {
        if data.run_id != run_id {
            problems.push(RankProblem::OtherRun {
                file: data.file,
                run_id: data.run_id,
                expected: run_id.clone(),
            });
        } else if let Some(first) = seen.get(&data.rank) {
            problems.push(RankProblem::Duplicate {
                rank: data.rank,
                file: data.file,
                first: first.clone(),
            });
        } else {
            seen.insert(data.rank, data.file.clone());
            ranks.push(data);
        }
    }
    ranks.sort_by_key(|d| d.rank);
    let highest = dirs.iter().map(|(r, _)| r + 1).max().unwrap_or(0);
    let world_size = mode(ranks.iter().filter_map(|d| d.world_size))
        .unwrap_or(0)
        .max(highest);
    let present: std::collections::HashSet<u32> = dirs.iter().map(|(r, _)| *r).collect();
    for rank in (0..world_size).filter(|r| !present.contains(r)) {
        problems.push(RankProblem::Missing { rank });
    }
    let absent = (0..world_size).filter(|r| !seen.contains_key(r)).collect();
    if ranks.is_empty() {
        return Err(FleetError::NoRanks {
            path: path.to_path_buf(),
            problems,
        });
    }
    Ok(RunDir {
        ranks,
        problems,
        absent,
        world_size,
        run_id,
    })
}
