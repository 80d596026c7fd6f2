//! [`ProfileSummary`]: a saved profile read for its aggregates only (the
//! run, steps, bricks and phases), for reports over many profiles that
//! never look at a timeline. Same schema types, same version check, same
//! validation of the fields it keeps as a full [`Profile`] read; the other
//! sections are skipped while parsing and never held.

use std::path::Path;

use serde::Deserialize;

use super::data::Profile;
use super::io::{ProfileError, Versioned, parse_versioned};
use super::run::RunInfo;
use super::steps::{PhaseStats, StepSummary};
use crate::stats::BrickStats;

/// The aggregates of a saved profile: what [`Profile`] holds in `run`,
/// `steps`, `bricks` and `phases`, read without its timeline, trace,
/// graph, counters or memory.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProfileSummary {
    /// `MAJOR.MINOR` of the format.
    pub schema_version: String,
    /// Facts about the run.
    #[serde(default)]
    pub run: RunInfo,
    /// Training/inference steps.
    #[serde(default)]
    pub steps: StepSummary,
    /// Bricks with at least one sample, by total time descending.
    #[serde(default)]
    pub bricks: Vec<BrickStats>,
    /// Phases, in first-seen order.
    #[serde(default)]
    pub phases: Vec<PhaseStats>,
}

impl ProfileSummary {
    /// Parses a profile's aggregates, checking the schema version first and
    /// the values kept after, as [`Profile::from_json`] does.
    ///
    /// # Errors
    /// [`ProfileError::Malformed`] for invalid JSON or fields (including
    /// those of skipped sections that are not JSON),
    /// [`ProfileError::BadVersion`] / [`ProfileError::NewerSchema`] for the
    /// version, [`ProfileError::Invalid`] for run values no measurement can
    /// produce.
    pub fn from_json(text: &str) -> Result<Self, ProfileError> {
        Self::parse(text, None)
    }

    /// As [`ProfileSummary::from_json`], naming `path` in errors.
    ///
    /// # Errors
    /// As [`ProfileSummary::from_json`].
    pub fn from_json_at(text: &str, path: &Path) -> Result<Self, ProfileError> {
        Self::parse(text, Some(path))
    }

    fn parse(text: &str, path: Option<&Path>) -> Result<Self, ProfileError> {
        let summary: Self = parse_versioned(text, path)?;
        summary
            .run
            .validate()
            .map_err(|source| ProfileError::Invalid {
                path: path.map(Path::to_path_buf),
                source,
            })?;
        Ok(summary)
    }

    /// Steps the profile recorded: its `steps.count`, or the step samples
    /// it kept when it holds more of them than its count says (a count can
    /// be no smaller than the samples it kept).
    #[must_use]
    pub fn step_count(&self) -> u64 {
        self.steps.count.max(self.steps.samples_ns.len() as u64)
    }
}

impl Versioned for ProfileSummary {
    fn schema_version(&self) -> &str {
        &self.schema_version
    }
}

impl From<Profile> for ProfileSummary {
    fn from(p: Profile) -> Self {
        Self {
            schema_version: p.schema_version,
            run: p.run,
            steps: p.steps,
            bricks: p.bricks,
            phases: p.phases,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_keeps_what_the_profile_holds_and_checks_the_same() {
        let mut p = Profile::empty();
        p.run.rank = Some(3);
        p.steps.count = 200_000;
        p.steps.samples_ns = vec![5; 10];
        p.bricks
            .push(BrickStats::new("MatMul", crate::BrickCategory::Ffn));
        let json = p.to_json();
        let summary = ProfileSummary::from_json(&json).expect("reads");
        assert_eq!(summary, ProfileSummary::from(p.clone()));
        assert_eq!(summary.step_count(), 200_000);

        let newer = json.replacen(crate::profile::SCHEMA_VERSION, "9.0", 1);
        assert!(matches!(
            ProfileSummary::from_json(&newer),
            Err(ProfileError::NewerSchema { .. })
        ));
        let unversioned = json.replacen("\"schema_version\"", "\"version\"", 1);
        assert!(matches!(
            ProfileSummary::from_json(&unversioned),
            Err(ProfileError::BadVersion { found: None, .. })
        ));
        p.run.clock.ns_per_tick = -1.0;
        let err = ProfileSummary::from_json_at(&p.to_json(), Path::new("r/profile.json"))
            .expect_err("a negative clock ratio is refused");
        assert!(
            err.to_string().contains("r/profile.json") && err.to_string().contains("ns_per_tick"),
            "{err}"
        );
    }
}
