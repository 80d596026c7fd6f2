//! Saving a scorecard as the baseline of later runs, and loading it back.
//! The file is the scorecard's JSON (v1 scorecard files of other tools load too),
//! written atomically so a crash never leaves a torn baseline.

use std::path::Path;

use super::model::TrainingScorecard;
use crate::model::saved_scorecard::SavedScorecard;
use crate::model::scorecard_error::ScorecardError;

impl TrainingScorecard {
    /// Writes this scorecard as a baseline, atomically (temp file + rename).
    ///
    /// # Errors
    /// [`ScorecardError::BaselineWrite`] naming the file.
    pub fn save_baseline(&self, path: impl AsRef<Path>) -> Result<(), ScorecardError> {
        let path = path.as_ref();
        profiler_core::fs::write_atomic(path, self.to_json().as_bytes()).map_err(|source| {
            ScorecardError::BaselineWrite {
                path: path.to_path_buf(),
                source,
            }
        })
    }

    /// Reads a baseline scorecard saved by [`save_baseline`](Self::save_baseline)
    /// (or any tool writing the v1 format).
    ///
    /// # Errors
    /// [`ScorecardError::BaselineRead`] if the file cannot be read,
    /// [`ScorecardError::BaselineMalformed`] (with line and column) if it is
    /// not scorecard JSON.
    pub fn load_baseline(path: impl AsRef<Path>) -> Result<Self, ScorecardError> {
        let path = path.as_ref();
        let text =
            crate::input::read_to_string(path).map_err(|source| ScorecardError::BaselineRead {
                path: path.to_path_buf(),
                source,
            })?;
        Self::from_json(&text).map_err(|e| malformed(path, &e))
    }

    /// The scorecard a [`SavedScorecard`] (a baseline read by
    /// [`input::open`](crate::input::open)) holds.
    ///
    /// # Errors
    /// [`ScorecardError::BaselineMalformed`] (with line and column) naming
    /// the document when it is not scorecard JSON.
    pub fn from_saved(saved: &SavedScorecard) -> Result<Self, ScorecardError> {
        Self::from_json(saved.json()).map_err(|e| malformed(Path::new(saved.origin()), &e))
    }
}

fn malformed(path: &Path, e: &serde_json::Error) -> ScorecardError {
    ScorecardError::BaselineMalformed {
        path: path.to_path_buf(),
        message: crate::base::json::message(e),
        line: e.line(),
        column: e.column(),
    }
}
