//! `FullProfile`s saved by `import ncu --format json`: a JSON array whose
//! first element has `version` and `kernel`, deserialized from the reader.

use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};
use crate::model::nsight::FullProfile;

/// Imported Nsight Compute launches.
#[derive(Debug)]
pub struct FullProfilesFormat;

impl Format for FullProfilesFormat {
    fn name(&self) -> &'static str {
        "full-profiles"
    }

    fn what(&self) -> &'static str {
        "imported Nsight Compute launches"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Array)
            && head.has_key("version")
            && head.has_key("kernel")
    }

    fn read(&self, mut source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let profiles: Vec<FullProfile> = serde_json::from_reader(source.reader())
            .map_err(|e| InputError::json("list of FullProfiles", origin, &e))?;
        Ok(Input::FullProfiles(profiles))
    }
}
