//! Building a scorecard from a [`Profile`] (live or read from disk):
//! [`scorecard`] with zero arguments, and [`ScorecardBuilder`] for explicit
//! hardware, baseline, thresholds and model shape.

use std::path::{Path, PathBuf};

use profiler_core::Profile;

use super::baseline::load_baseline;
use super::compute::compute;
use super::error::ScorecardError;
use super::input::StepProfilerInput;
use super::model::TrainingScorecard;
use super::thresholds::{LaunchRule, ModelShape, ScorecardOptions, Thresholds};
use crate::hardware::{DeviceSpec, HardwareConfig, HardwareSpec};

/// Environment variable naming a baseline scorecard file for [`scorecard`].
pub const ENV_BASELINE: &str = "PROFILER_BASELINE";

/// The training scorecard of the live global profiler.
///
/// Hardware comes from the environment ([`HardwareConfig::from_env`]), else
/// from the profile's `run.hardware`; without either the grade is omitted
/// and the warnings say how to set it. A baseline is read from
/// `PROFILER_BASELINE` when that file exists. Problems with either are
/// reported in the scorecard's warnings rather than failing.
///
/// ```no_run
/// println!("{}", profiler_report::scorecard());
/// ```
#[must_use]
pub fn scorecard() -> TrainingScorecard {
    let profile = profiler_core::snapshot();
    let mut notes = Vec::new();
    let hardware = HardwareConfig::from_env().unwrap_or_else(|e| {
        notes.push(format!("{e}; hardware settings ignored"));
        None
    });
    let baseline = std::env::var(ENV_BASELINE)
        .ok()
        .filter(|p| !p.trim().is_empty())
        .and_then(|path| {
            if !Path::new(&path).exists() {
                notes.push(format!(
                    "no baseline at `{path}` yet; save one with TrainingScorecard::save_baseline"
                ));
                return None;
            }
            load_baseline(&path)
                .map_err(|e| notes.push(format!("{e}; baseline ignored")))
                .ok()
        });
    let mut builder = ScorecardBuilder::new().profile(&profile).use_env(false);
    if let Some(hw) = hardware {
        builder = builder.hardware_config(hw);
    }
    if let Some(base) = baseline {
        builder = builder.baseline(base);
    }
    // Nothing fallible is left: no path to read, default thresholds, no env.
    let mut sc = builder.build().unwrap_or_else(|e| {
        notes.push(e.to_string());
        compute(
            &StepProfilerInput::default(),
            None,
            None,
            None,
            &ScorecardOptions::default(),
        )
    });
    sc.warnings.splice(0..0, notes);
    sc
}

/// Configures and builds a [`TrainingScorecard`].
///
/// ```
/// use profiler_report::{HardwareSpec, ScorecardBuilder};
/// let profile = profiler_core::Profile::empty();
/// let sc = ScorecardBuilder::new()
///     .profile(&profile)
///     .hardware(HardwareSpec::rtx_4060l())
///     .build()
///     .unwrap();
/// assert!(sc.grade.is_none()); // no steps recorded: no grade is invented
/// ```
#[derive(Debug, Clone)]
pub struct ScorecardBuilder<'a> {
    profile: Option<&'a Profile>,
    input: Option<(StepProfilerInput, f64)>,
    hardware: Option<HardwareConfig>,
    use_env: bool,
    baseline_path: Option<PathBuf>,
    baseline: Option<TrainingScorecard>,
    options: ScorecardOptions,
    peak_tflops: Option<f64>,
}

impl Default for ScorecardBuilder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> ScorecardBuilder<'a> {
    /// A builder reading the live profiler and the environment.
    #[must_use]
    pub fn new() -> Self {
        Self {
            profile: None,
            input: None,
            hardware: None,
            use_env: true,
            baseline_path: None,
            baseline: None,
            options: ScorecardOptions::default(),
            peak_tflops: None,
        }
    }

    /// Grades against `spec` instead of the environment's hardware.
    #[must_use]
    pub fn hardware(self, spec: HardwareSpec) -> Self {
        self.hardware_config(HardwareConfig {
            name: "custom".to_owned(),
            spec,
            dense_peak_tflops: None,
        })
    }

    /// Grades against `config` (name, spec and dense peak for MFU).
    #[must_use]
    pub fn hardware_config(mut self, config: HardwareConfig) -> Self {
        self.hardware = Some(config);
        self
    }

    /// Whether to read hardware from the environment when none is given
    /// (default `true`).
    #[must_use]
    pub fn use_env(mut self, yes: bool) -> Self {
        self.use_env = yes;
        self
    }

    /// Compares against the baseline scorecard saved at `path`.
    #[must_use]
    pub fn baseline_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.baseline_path = Some(path.into());
        self
    }

    /// Compares against `baseline`.
    #[must_use]
    pub fn baseline(mut self, baseline: TrainingScorecard) -> Self {
        self.baseline = Some(baseline);
        self
    }

    /// Judges with `thresholds` instead of the reference values.
    #[must_use]
    pub fn thresholds(mut self, thresholds: Thresholds) -> Self {
        self.options.thresholds = thresholds;
        self
    }

    /// Enables MFU for a model of this shape.
    #[must_use]
    pub fn model_shape(mut self, shape: ModelShape) -> Self {
        self.options.model_shape = Some(shape);
        self
    }

    /// Dense peak for MFU, TFLOP/s (overrides the hardware's).
    #[must_use]
    pub fn peak_tflops(mut self, tflops: f64) -> Self {
        self.peak_tflops = Some(tflops);
        self
    }

    /// Reads `profile` instead of the live profiler.
    #[must_use]
    pub fn profile(mut self, profile: &'a Profile) -> Self {
        self.profile = Some(profile);
        self
    }

    /// Scores step-profiler data (e.g. a trainer's log line) measured at
    /// `throughput_tok_s`, instead of a profile.
    #[must_use]
    pub fn input(mut self, input: StepProfilerInput, throughput_tok_s: f64) -> Self {
        self.input = Some((input, throughput_tok_s));
        self
    }

    /// Builds the scorecard.
    ///
    /// # Errors
    /// [`ScorecardError::InvalidThreshold`], a hardware error from the
    /// environment, or a baseline that cannot be read.
    pub fn build(self) -> Result<TrainingScorecard, ScorecardError> {
        self.options.thresholds.validate()?;
        let mut notes = Vec::new();
        let live;
        let input_from_profile = self.input.is_none();
        let (input, throughput, profile) = match (self.input, self.profile) {
            (Some((input, tok_s)), profile) => (input, Some(tok_s), profile),
            (None, profile) => {
                let profile = match profile {
                    Some(p) => p,
                    None => {
                        live = profiler_core::snapshot();
                        &live
                    }
                };
                let throughput = measured_throughput(profile, &mut notes);
                (
                    StepProfilerInput::from_profile(profile),
                    throughput,
                    Some(profile),
                )
            }
        };

        let hardware = match self.hardware {
            Some(hw) => Some(hw),
            None => {
                let env = if self.use_env {
                    HardwareConfig::from_env()?
                } else {
                    None
                };
                env.or_else(|| profile_hardware(profile, &mut notes))
            }
        };
        let baseline = match (self.baseline, &self.baseline_path) {
            (Some(b), _) => Some(b),
            (None, Some(path)) => Some(load_baseline(path)?),
            (None, None) => None,
        };

        let mut options = self.options;
        if profile.is_some() && input_from_profile {
            // Profiles measure coverage directly; their phase totals span the run.
            options.launch_rule = LaunchRule::Uncovered;
        }
        options.peak_flops_per_s = self
            .peak_tflops
            .or(hardware.as_ref().and_then(|h| h.dense_peak_tflops))
            .map(|t| t * 1e12);
        let mut sc = compute(
            &input,
            throughput,
            hardware.as_ref().map(|h| &h.spec),
            baseline.as_ref(),
            &options,
        );
        let estimated_peak = self.peak_tflops.is_none()
            && hardware
                .as_ref()
                .is_some_and(|h| h.dense_peak_tflops.is_some())
            && hardware
                .as_ref()
                .and_then(|h| DeviceSpec::lookup(&h.name))
                .is_some_and(|d| d.estimate);
        if sc.mfu.is_some() && estimated_peak {
            notes.push(format!(
                "MFU uses an estimated dense peak for {} (no published figure): treat it as approximate",
                hardware.as_ref().map_or("this device", |h| h.name.as_str())
            ));
        }
        sc.hardware = hardware.map(|h| h.name);
        sc.times_per_step = input_from_profile && profile.is_some_and(|p| p.steps.count > 0);
        if let Some(p) = profile {
            notes.extend(p.counters.warnings());
            notes.extend(p.run.notes.iter().cloned());
        }
        sc.warnings.splice(0..0, notes);
        Ok(sc)
    }
}

/// Tokens/s over recorded steps, or `None` with a note saying what is missing.
fn measured_throughput(profile: &Profile, notes: &mut Vec<String>) -> Option<f64> {
    let steps = &profile.steps;
    let missing = if steps.count == 0 {
        "no steps recorded: mark each training step with profiler::step(tokens); \
         throughput, step time and grade need steps"
    } else if steps.tokens == 0 {
        "steps carry no token counts: pass each step's tokens to profiler::step(tokens); \
         throughput and grade need them"
    } else if steps.total_ns == 0 {
        "steps have no recorded wall time; throughput and grade need it"
    } else {
        return Some(steps.tokens_per_s());
    };
    notes.push(missing.to_owned());
    None
}

/// The profile's `run.hardware`, when usable.
fn profile_hardware(profile: Option<&Profile>, notes: &mut Vec<String>) -> Option<HardwareConfig> {
    let info = profile?.run.hardware.as_ref()?;
    let config = HardwareConfig::from_info(info);
    if config.is_none() {
        notes.push(format!(
            "profile hardware `{}` has no peak bandwidth and is not a known device",
            info.name
        ));
    }
    config
}
