//! Saved profiles: a JSON object whose top-level keys include
//! `schema_version`, read (version checked, values validated) by
//! [`Profile::from_json`] (or for their aggregates alone by
//! `input::open_profile_summary`).

use profiler_core::Profile;

use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::{Head, JsonRoot};

/// A saved [`Profile`].
#[derive(Debug)]
pub struct ProfileFormat;

impl Format for ProfileFormat {
    fn name(&self) -> &'static str {
        "profile"
    }

    fn what(&self) -> &'static str {
        "a profile"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        head.json_root() == Some(JsonRoot::Object) && head.has_key("schema_version")
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let path = source.path();
        let text = source.text()?;
        let profile = Profile::from_json(&text).map_err(|e| match path {
            Some(p) => e.with_path(p),
            None => e,
        })?;
        Ok(Input::Profile(Box::new(profile)))
    }
}
