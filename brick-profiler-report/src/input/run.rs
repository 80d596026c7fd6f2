//! [`Run`]: what a loaded file holds for the reports that take a run (a
//! saved profile, Nsight Compute launches, or an Nsight Systems kernel
//! summary). The conversions that place Nsight Compute launches on a
//! roofline (`Run::into_profile`, `Run::launches`, `Run::run_summary`) sit
//! with the analyses that need them.

use std::path::Path;

use profiler_core::Profile;

use super::error::InputError;
use super::format::Input;
use super::load::{LoadOptions, load};
use crate::model::nsight::FullProfile;
use crate::model::nsight::{NcuReport, NsysReport};

/// A run for the reports that take a profile.
#[derive(Debug)]
pub enum Run {
    /// A saved profile.
    Profile(Box<Profile>),
    /// Nsight Compute launches.
    Ncu(NcuReport),
    /// Imported launches saved as JSON, and the file they came from.
    FullProfiles(Vec<FullProfile>, String),
    /// An Nsight Systems kernel summary.
    Nsys(NsysReport),
}

impl Run {
    /// Reads a run: a profile, an Nsight export, or a binary Nsight report
    /// (see [`load`]).
    ///
    /// # Errors
    /// As [`load`], and [`InputError::NotARun`] for a file that holds
    /// something else.
    pub fn load(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Self, InputError> {
        let path = path.as_ref();
        Self::from_input(load(path, options)?, path)
    }

    /// The run an input read from `path` holds, if it holds one.
    ///
    /// # Errors
    /// [`InputError::NotARun`] naming what the input holds instead.
    pub fn from_input(input: Input, path: &Path) -> Result<Self, InputError> {
        match input {
            Input::Profile(p) => Ok(Self::Profile(p)),
            Input::Ncu(r) => Ok(Self::Ncu(r)),
            Input::Nsys(r) => Ok(Self::Nsys(r)),
            Input::FullProfiles(p) => Ok(Self::FullProfiles(p, path.display().to_string())),
            other => Err(InputError::NotARun {
                origin: path.display().to_string(),
                what: other.what(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_holds_no_run_says_what_it_holds_and_what_to_give() {
        let input = crate::input::read_bytes(b"{\"entries\": []}", "t.json").unwrap();
        let err = Run::from_input(input, Path::new("t.json")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`t.json` holds an execution trace, not a profile: give a saved profile.json, an \
             `ncu --csv` export or an `nsys stats` kernel summary"
        );
    }
}
