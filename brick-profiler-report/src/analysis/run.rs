//! What a loaded [`Run`] gives the reports: a profile (kernels become
//! bricks for Nsight imports), the Nsight Compute launches for the
//! hierarchical roofline, and its run summary (one side of a diff). Here, above the
//! roofline, because Nsight Compute launches are placed on the device's
//! roofline first.

use profiler_core::Profile;

use crate::analysis::roofline::FullProfileOptions;
use crate::input::Run;
use crate::input::nsight::{FullProfile, full_profiles_to_profile, full_profiles_to_run_summary};
use crate::model::nsight::ImportError;
use crate::model::run::RunSummary;

impl Run {
    /// The run as a profile (kernels become bricks for Nsight imports).
    ///
    /// # Errors
    /// [`ImportError::InvalidOption`] when `ncu` selects no launch or a FLOP
    /// assumption would apply to several kernels.
    pub fn into_profile(self, ncu: &FullProfileOptions) -> Result<Profile, ImportError> {
        Ok(match self {
            Self::Profile(p) => *p,
            Self::Nsys(r) => r.to_profile(),
            Self::Ncu(r) => full_profiles_to_profile(&r.full_profiles(ncu)?, &r.origin),
            Self::FullProfiles(p, origin) => full_profiles_to_profile(&p, &origin),
        })
    }

    /// The Nsight Compute launches of the run (none for other runs), for
    /// the hierarchical roofline of their per-level traffic.
    ///
    /// # Errors
    /// As [`Run::into_profile`].
    pub fn launches(&self, ncu: &FullProfileOptions) -> Result<Vec<FullProfile>, ImportError> {
        Ok(match self {
            Self::Ncu(r) => r.full_profiles(ncu)?,
            Self::FullProfiles(p, _) => p.clone(),
            Self::Profile(_) | Self::Nsys(_) => Vec::new(),
        })
    }

    /// The run's summary (one side of a diff or a parity), named `label`.
    ///
    /// # Errors
    /// As [`Run::into_profile`], with the default options.
    pub fn run_summary(&self, label: &str) -> Result<RunSummary, ImportError> {
        Ok(match self {
            Self::Profile(p) => RunSummary::from_profile(p, label),
            Self::Nsys(r) => RunSummary {
                name: label.to_owned(),
                ..r.to_run_summary()
            },
            Self::Ncu(r) => full_profiles_to_run_summary(
                &r.full_profiles(&FullProfileOptions::default())?,
                label,
            ),
            Self::FullProfiles(p, _) => full_profiles_to_run_summary(p, label),
        })
    }
}
