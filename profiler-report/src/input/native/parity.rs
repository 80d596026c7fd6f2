//! Parity profiles: a JSON object with `runtime` and `ops`, read and
//! validated by [`ParityProfile::from_json`].

use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};
use crate::model::parity::ParityProfile;

/// A parity profile.
#[derive(Debug)]
pub struct ParityFormat;

impl Format for ParityFormat {
    fn name(&self) -> &'static str {
        "parity"
    }

    fn what(&self) -> &'static str {
        "a parity profile"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Object) && head.has_key("runtime") && head.has_key("ops")
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        Ok(Input::Parity(ParityProfile::from_json(&text, origin)?))
    }
}
