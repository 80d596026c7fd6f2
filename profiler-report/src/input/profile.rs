//! Saved profiles: a JSON object whose top-level keys include
//! `schema_version`, read (version checked, values validated) by
//! [`Profile::from_json`], or for their aggregates alone by
//! [`open_profile_summary`].

use std::io::Read;
use std::path::Path;

use profiler_core::Profile;
use profiler_core::profile::ProfileSummary;

use super::error::InputError;
use super::format::{Format, Input, Source};
use super::open::open_regular;
use super::sniff::{Head, JsonRoot, MAX_INPUT_BYTES};

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

/// Reads only the aggregates of the saved profile at `path` (run, steps,
/// bricks, phases): the same file checks as [`open`](super::open) (a FIFO,
/// device or directory is refused before it is opened; a file past
/// [`MAX_INPUT_BYTES`] before it is read) and the same version check and
/// validation as a whole profile; the timeline, trace and graph are skipped
/// while parsing, so many profiles read this way hold little memory.
///
/// # Errors
/// [`InputError::Read`] (an I/O error), [`InputError::NotAFile`],
/// [`InputError::TooLarge`], [`InputError::NotText`], or
/// [`InputError::Profile`] for a profile that does not read, each naming
/// `path`.
pub fn open_profile_summary(path: impl AsRef<Path>) -> Result<ProfileSummary, InputError> {
    let path = path.as_ref();
    let file = open_regular(path)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(usize::try_from(size.saturating_add(1)).unwrap_or(0));
    file.take(MAX_INPUT_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    let text = String::from_utf8(bytes).map_err(|_| InputError::NotText {
        origin: path.display().to_string(),
    })?;
    Ok(ProfileSummary::from_json_at(&text, path)?)
}
