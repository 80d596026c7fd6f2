//! Saved scorecards (baselines): a JSON object with `efficiency` or
//! `hotspot_ops`, read as a [`SavedScorecard`] document (the training
//! analysis reads its fields: `TrainingScorecard::from_saved`).

use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};
use crate::model::saved_scorecard::SavedScorecard;

/// A saved scorecard.
#[derive(Debug)]
pub struct ScorecardFormat;

impl Format for ScorecardFormat {
    fn name(&self) -> &'static str {
        "scorecard"
    }

    fn what(&self) -> &'static str {
        "a scorecard"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Object)
            && (head.has_key("efficiency") || head.has_key("hotspot_ops"))
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        let saved = SavedScorecard::new(origin, text)
            .map_err(|e| InputError::json("scorecard", origin, &e))?;
        Ok(Input::Scorecard(saved))
    }
}
