//! Reading a run directory: every `rank-NNNNN/profile.json` through the
//! input layer's one profile reader, for its aggregates only, as the
//! [`RunSummary`] every report over runs reads (run facts, step count and
//! times, brick and phase totals), checked for the run it belongs to and
//! the rank it claims. Names are held once per run, so
//! memory grows with ranks x (steps + bricks), never with trace size.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use super::error::{FleetError, RankProblem, RankRange};
use crate::input::open_profile_summary;
use crate::model::run::RunSummary;

/// The file each rank directory holds.
pub(crate) const PROFILE_FILE: &str = "profile.json";
/// The run report a rank directory may hold beside its profile.
pub(crate) const REPORT_FILE: &str = "report.html";
/// The Chrome trace a rank directory may hold beside its profile.
pub(crate) const TRACE_FILE: &str = "trace.json";

/// Brick and phase names of a run, each held once; ranks refer to them by
/// index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Names {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Names {
    pub(super) fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The name of `id`.
    pub(crate) fn get(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Names known.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }
}

/// What the fleet analysis keeps of one rank.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RankData {
    pub(crate) rank: u32,
    /// The rank its directory names.
    pub(crate) dir_rank: u32,
    /// Whether the profile records its rank (else its directory's is used).
    pub(crate) recorded_rank: bool,
    pub(crate) world_size: Option<u32>,
    pub(crate) run_id: String,
    pub(crate) host: String,
    /// The profile, relative to the run directory.
    pub(crate) file: String,
    /// Steps recorded (the profile's count, which may exceed the samples
    /// kept).
    pub(crate) step_count: u64,
    /// Step wall times, ns, with their step index (the samples kept).
    pub(crate) steps: Vec<(u64, u64)>,
    /// `(name, total ns)` per brick.
    pub(crate) bricks: Vec<(u32, u64)>,
    /// The median call of each of `bricks`, ns: the histogram's median, or
    /// the mean call when a profile has no histogram.
    pub(crate) brick_calls: Vec<f64>,
    /// `(name, total ns)` per phase.
    pub(crate) phases: Vec<(u32, u64)>,
    /// The time of each of `phases` inside recorded steps (its top-level
    /// occurrences), ns: what splits the step.
    pub(crate) phase_in_steps: Vec<u64>,
    /// Wall time of the recorded steps, ns.
    pub(crate) step_total_ns: u64,
    /// The steps `step_total_ns` and `phase_in_steps` were taken over.
    pub(crate) steps_in_total: u64,
    /// Whether the rank directory holds a run report.
    pub(crate) has_report: bool,
    /// Whether the rank directory holds a Chrome trace.
    pub(crate) has_trace: bool,
}

/// The ranks of a run directory that can be analysed, and why the others
/// cannot.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunDir {
    /// Ranks analysed, ascending.
    pub(crate) ranks: Vec<RankData>,
    pub(crate) names: Names,
    pub(crate) problems: Vec<RankProblem>,
    /// Ranks of `0..world_size` not analysed.
    pub(crate) absent: Vec<RankRange>,
    pub(crate) world_size: u64,
    pub(crate) run_id: String,
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

/// Reads one rank directory's profile: its aggregates, by the profile
/// reader (file checks, version check, validation).
fn read_rank(
    dir: &Path,
    dir_name: &str,
    dir_rank: u32,
    names: &mut Names,
) -> Result<RankData, RankProblem> {
    let file = format!("{dir_name}/{PROFILE_FILE}");
    let summary = match open_profile_summary(dir.join(PROFILE_FILE)) {
        Ok(summary) => summary,
        Err(source) => {
            return Err(RankProblem::Unreadable {
                rank: dir_rank,
                file,
                source: Arc::new(source),
            });
        }
    };
    let run = RunSummary::from_profile_summary(&summary, file.clone());
    let phase_in_steps = summary.phases.iter().map(|p| p.in_steps_ns).collect();
    let step_total_ns = summary.steps.total_ns;
    let steps_in_total = summary.steps.count;
    drop(summary);
    let index = &run.step_index;
    let steps = run
        .step_samples_ns
        .iter()
        .enumerate()
        .map(|(i, &ns)| (index.get(i).copied().unwrap_or(i as u64), ns))
        .collect();
    Ok(RankData {
        // A profile without a rank (a single-process run copied in) is
        // taken at its directory's word.
        rank: run.rank.unwrap_or(dir_rank),
        dir_rank,
        recorded_rank: run.rank.is_some(),
        world_size: run.world_size,
        // The median call is robust to the few calls a preemption stretches.
        brick_calls: run.ops.iter().map(|b| b.median_or_mean_ns()).collect(),
        bricks: run
            .ops
            .iter()
            .map(|b| (names.id(&b.name), b.total_ns))
            .collect(),
        phases: run
            .phases
            .iter()
            .map(|p| (names.id(&p.name), p.total_ns))
            .collect(),
        phase_in_steps,
        step_total_ns,
        steps_in_total,
        has_report: dir.join(REPORT_FILE).is_file(),
        has_trace: dir.join(TRACE_FILE).is_file(),
        run_id: run.run_id.unwrap_or_default(),
        host: run.host.unwrap_or_default(),
        file,
        step_count: run.steps.unwrap_or(0),
        steps,
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

/// The `rank-NNNNN` directories of `path`, by rank.
fn rank_dirs(path: &Path) -> Result<Vec<(u32, String)>, FleetError> {
    let dir_error = |source| FleetError::Dir {
        path: path.to_path_buf(),
        source,
    };
    let mut dirs: Vec<(u32, String)> = Vec::new();
    for entry in std::fs::read_dir(path).map_err(dir_error)? {
        let entry = entry.map_err(dir_error)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // The directory entry's type needs no lookup; a link is followed.
        let is_dir = |entry: &std::fs::DirEntry| match entry.file_type() {
            Ok(t) if !t.is_symlink() => t.is_dir(),
            _ => entry.path().is_dir(),
        };
        if let Some(rank) = rank_of_dir(&name)
            && is_dir(&entry)
        {
            dirs.push((rank, name));
        }
    }
    // Directory order is the filesystem's: sort, so a duplicated rank
    // always keeps the directory named after it.
    dirs.sort();
    Ok(dirs)
}

/// Reads every `rank-NNNNN` directory of `path`. Ranks that cannot be
/// analysed are listed in `problems`, and the rest are still read. The
/// run's size is the largest of its profiles' `world_size` (the most common
/// claim) and its highest rank; the ranks it lacks are counted as ranges,
/// so memory grows with the directories present, not with the size claimed.
///
/// # Errors
/// [`FleetError::Dir`] when `path` cannot be listed,
/// [`FleetError::NoRanks`] when no rank can be analysed.
pub(crate) fn read_run_dir(path: &Path) -> Result<RunDir, FleetError> {
    let dirs = rank_dirs(path)?;
    let mut names = Names::default();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    for (dir_rank, name) in &dirs {
        match read_rank(&path.join(name), name, *dir_rank, &mut names) {
            Ok(data) => read.push(data),
            Err(problem) => problems.push(problem),
        }
    }
    let run_id = mode(read.iter().map(|d| d.run_id.as_str()))
        .unwrap_or_default()
        .to_owned();
    let world_claim = mode(read.iter().filter_map(|d| d.world_size));
    let mut ranks = analysable(read, &run_id, &mut problems);
    ranks.sort_by_key(|d| d.rank);
    let highest = dirs
        .iter()
        .map(|(r, _)| *r)
        .chain(ranks.iter().map(|d| d.rank))
        .max()
        .map_or(0, |r| u64::from(r) + 1);
    let world_size = world_claim.map_or(0, u64::from).max(highest);
    let missing = RankRange::gaps(dirs.iter().map(|(r, _)| *r), world_size);
    problems.extend(
        missing
            .into_iter()
            .map(|ranks| RankProblem::Missing { ranks }),
    );
    let absent = RankRange::gaps(ranks.iter().map(|d| d.rank), world_size);
    if ranks.is_empty() {
        return Err(FleetError::NoRanks {
            path: path.to_path_buf(),
            problems,
        });
    }
    Ok(RunDir {
        ranks,
        names,
        problems,
        absent,
        world_size,
        run_id,
    })
}

/// The ranks read that can be analysed: of run `run_id`, each rank once,
/// with step times. Why each other one is left out goes to `problems`, as
/// does a rank analysed under another rank than its directory's.
fn analysable(
    mut read: Vec<RankData>,
    run_id: &str,
    problems: &mut Vec<RankProblem>,
) -> Vec<RankData> {
    let mut ranks: Vec<RankData> = Vec::new();
    let mut seen: HashMap<u32, String> = HashMap::new();
    // A rank in its own directory wins over one that names it elsewhere.
    read.sort_by_key(|d| (d.rank != d.dir_rank, d.rank));
    for data in read {
        if data.run_id != run_id {
            problems.push(RankProblem::OtherRun {
                rank: data.rank,
                file: data.file,
                run_id: data.run_id,
                expected: run_id.to_owned(),
            });
            continue;
        }
        if let Some(first) = seen.get(&data.rank) {
            problems.push(RankProblem::Duplicate {
                rank: data.rank,
                file: data.file,
                first: first.clone(),
            });
            continue;
        }
        seen.insert(data.rank, data.file.clone());
        if data.recorded_rank && data.rank != data.dir_rank {
            problems.push(RankProblem::RankMismatch {
                rank: data.rank,
                dir_rank: data.dir_rank,
                file: data.file.clone(),
            });
        }
        if data.step_count == 0 || data.steps.is_empty() {
            // No step time to compare: a zero would drag the fleet's
            // median down and rank as fastest.
            problems.push(RankProblem::NoSteps {
                rank: data.rank,
                file: data.file,
            });
            continue;
        }
        ranks.push(data);
    }
    ranks
}
