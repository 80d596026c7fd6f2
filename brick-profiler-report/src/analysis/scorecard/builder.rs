//! Building a scorecard: [`scorecard`] with zero arguments (the live
//! profiler and the environment), and [`ScorecardBuilder`], a pure function
//! of a [`Profile`] or step-profiler data and explicit settings.

use std::path::Path;

use profiler_core::Profile;

use super::ceiling::{BytesPerTokenSource, Ceiling};
use super::compute::compute;
use super::measured::cpu_run_on_a_device;
use super::model::TrainingScorecard;
use super::thresholds::{CacheCeiling, ModelShape, ScorecardOptions, Thresholds};
use super::view::{Recorded, RunView};
use crate::model::hardware::{from_env, recorded};
use crate::model::scorecard_error::ScorecardError;
use crate::model::step::StepProfilerInput;
use profiler_core::hardware::{Hardware, MemoryLevel};

/// Environment variable naming a baseline scorecard file for [`scorecard`].
pub const ENV_BASELINE: &str = "PROFILER_BASELINE";

/// The training scorecard of the live global profiler: the one function of
/// this crate that reads the live profiler and the environment.
///
/// Hardware comes from the environment (`PROFILER_HARDWARE_FILE`,
/// `PROFILER_HARDWARE`, `PROFILER_PEAK_BW_GB_S`, `PROFILER_BYTES_PER_TOKEN`,
/// `PROFILER_PEAK_TFLOPS`; see [`from_vars`](crate::model::hardware::from_vars)), else from the
/// profile's `run.hardware`; without either the grade is omitted and the
/// warnings say how to set it. A baseline is read from `PROFILER_BASELINE`
/// when that file exists. Problems with either are reported in the
/// scorecard's warnings rather than failing. Everything else is
/// [`ScorecardBuilder::from_profile`] on [`profiler::snapshot`](profiler_core::snapshot).
///
/// ```no_run
/// println!("{}", profiler_report::scorecard());
/// ```
#[must_use]
pub fn scorecard() -> TrainingScorecard {
    let profile = profiler_core::snapshot();
    let mut notes = Vec::new();
    let hardware = from_env().unwrap_or_else(|e| {
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
            TrainingScorecard::load_baseline(&path)
                .map_err(|e| notes.push(format!("{e}; baseline ignored")))
                .ok()
        });
    let mut builder = ScorecardBuilder::from_profile(&profile);
    if let Some(hw) = hardware {
        builder = builder.hardware(hw);
    }
    if let Some(base) = baseline {
        builder = builder.baseline(base);
    }
    // Default thresholds always validate; the fallback only guards that.
    let mut sc = builder.build().unwrap_or_else(|e| {
        notes.push(e.to_string());
        compute(
            &RunView::from_step_log(
                &StepProfilerInput::default(),
                Err("no scorecard: see warnings".to_owned()),
            ),
            None,
            None,
            &ScorecardOptions::default(),
        )
    });
    sc.warnings.splice(0..0, notes);
    sc
}

/// Builds a [`TrainingScorecard`] from explicit inputs: a [`Profile`] (live
/// snapshot or read from disk) or step-profiler data, plus optional
/// hardware, baseline, thresholds and model shape. A pure function of its
/// inputs: it reads neither the environment nor the live profiler (that is
/// [`scorecard`]'s job).
///
/// Without explicit hardware, a profile's recorded `run.hardware` is used;
/// without either the grade is withheld and a warning says how to set it.
///
/// Bytes per token: a value given (settings, a hardware file,
/// [`bytes_per_token`](Self::bytes_per_token), or hardware whose value is
/// not the presets' placeholder [`DEFAULT_BYTES_PER_TOKEN`](crate::model::hardware::DEFAULT_BYTES_PER_TOKEN))
/// is used as is; otherwise a profile's own brick annotations give it (all
/// bricks' bytes over the recorded steps' tokens); otherwise the
/// placeholder stays, labelled as a guess. A throughput above the ceiling,
/// or a ceiling that is not a finite positive number, withholds the grade
/// with the reason.
///
/// ```
/// use profiler_report::{hardware, scorecard::ScorecardBuilder};
/// let profile = profiler::Profile::empty();
/// let sc = ScorecardBuilder::from_profile(&profile)
///     .hardware(hardware::preset("rtx_4060l").unwrap())
///     .build()
///     .unwrap();
/// assert!(sc.grade.is_none()); // no steps recorded: no grade is invented
/// ```
#[derive(Debug, Clone)]
pub struct ScorecardBuilder {
    run: RunView,
    hardware: Option<Hardware>,
    baseline: Option<TrainingScorecard>,
    options: ScorecardOptions,
    peak_tflops: Option<f64>,
    bytes_per_token: Option<f64>,
}

impl ScorecardBuilder {
    /// Scores `profile`: throughput from its steps, phases, layers and ops
    /// from its statistics, launch overhead from its measured coverage.
    /// The profile is read here, once.
    #[must_use]
    pub fn from_profile(profile: &Profile) -> Self {
        Self::with_run(RunView::from_profile(profile))
    }

    /// Scores step-profiler data (e.g. a trainer's log line, see
    /// `profiler_report::input::native::parse_last_step_profiler_line`)
    /// measured at `throughput_tok_s`.
    #[must_use]
    pub fn from_input(input: StepProfilerInput, throughput_tok_s: f64) -> Self {
        Self::with_run(RunView::from_step_log(&input, Ok(throughput_tok_s)))
    }

    fn with_run(run: RunView) -> Self {
        Self {
            run,
            hardware: None,
            baseline: None,
            options: ScorecardOptions::default(),
            peak_tflops: None,
            bytes_per_token: None,
        }
    }

    /// Grades against `hardware`: its DRAM bandwidth and bytes per token,
    /// its name, and its dense peak for MFU. Without bytes per token (a
    /// preset gives none), a profile's brick annotations give them when
    /// they can, else the placeholder
    /// [`DEFAULT_BYTES_PER_TOKEN`](crate::model::hardware::DEFAULT_BYTES_PER_TOKEN),
    /// labelled a guess.
    #[must_use]
    pub fn hardware(mut self, hardware: Hardware) -> Self {
        self.hardware = Some(hardware);
        self
    }

    /// Compares against `baseline` (e.g. from
    /// [`TrainingScorecard::load_baseline`]) to flag regressions.
    #[must_use]
    pub fn baseline(mut self, baseline: TrainingScorecard) -> Self {
        self.baseline = Some(baseline);
        self
    }

    /// Judges with `thresholds` instead of the standard ones (`Thresholds::default()`).
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

    /// Bytes moved per token for the ceiling (overrides the hardware's and
    /// the bricks' annotations).
    #[must_use]
    pub fn bytes_per_token(mut self, bytes: f64) -> Self {
        self.bytes_per_token = Some(bytes);
        self
    }

    /// Dense peak for MFU, TFLOP/s (overrides the hardware's).
    #[must_use]
    pub fn peak_tflops(mut self, tflops: f64) -> Self {
        self.peak_tflops = Some(tflops);
        self
    }

    /// Builds the scorecard.
    ///
    /// # Errors
    /// [`ScorecardError::InvalidThreshold`] naming the threshold out of range.
    pub fn build(self) -> Result<TrainingScorecard, ScorecardError> {
        self.options.thresholds.validate()?;
        let mut notes = Vec::new();
        let recorded = self.run.recorded.as_ref();
        // Hardware given here carries its own busy mark; the profile's
        // hardware was derived from the ceilings the run measured, so their
        // busy mark goes with it.
        let (hardware, busy) = match self.hardware {
            Some(hw) => {
                let busy = hw.busy.clone();
                (Some(hw), busy)
            }
            None => {
                let hw = recorded_hardware(recorded, &mut notes);
                let busy = hw
                    .as_ref()
                    .and(recorded.and_then(|r| r.busy_ceilings.clone()));
                (hw, busy)
            }
        };

        let mut options = self.options;
        options.busy_ceilings = busy;
        let mut spec = hardware.as_ref().and_then(Ceiling::of);
        if let Some(spec) = spec.as_mut() {
            let (bytes, source) = bytes_per_token(self.bytes_per_token, spec, recorded, &mut notes);
            spec.bytes_per_token = bytes;
            options.bytes_per_token_source = Some(source);
        }
        options.peak_flops_per_s = self
            .peak_tflops
            .or(hardware.as_ref().and_then(Hardware::dense_peak_tflops))
            .map(|t| t * 1e12);
        options.peak_flops_source = match self.peak_tflops {
            Some(_) => Some("given".to_owned()),
            None => hardware
                .as_ref()
                .and_then(Hardware::dense_peak)
                .map(|f| f.source.to_string()),
        };
        options.bandwidth_source = hardware
            .as_ref()
            .and_then(|h| h.memory(MemoryLevel::Dram))
            .map(|f| f.source.to_string());
        options.caches = hardware.as_ref().map(cache_ceilings).unwrap_or_default();
        let mut sc = compute(&self.run, spec.as_ref(), self.baseline.as_ref(), &options);
        let estimated_peak = self.peak_tflops.is_none()
            && hardware
                .as_ref()
                .and_then(Hardware::dense_peak)
                .is_some_and(|f| f.is_estimate());
        if sc.mfu.is_some() && estimated_peak {
            notes.push(format!(
                "MFU uses an estimated dense peak for {} (no published figure): treat it as approximate",
                hardware.as_ref().map_or("this device", |h| h.name.as_str())
            ));
        }
        if let Some(r) = recorded {
            let cpu_run = hardware
                .as_ref()
                .and_then(|hw| cpu_run_on_a_device(r.device_timed, r.sync_mode, hw));
            if let Some(alert) = cpu_run {
                // It makes the grade meaningless, so it goes first.
                sc.alerts.insert(0, alert);
            }
            notes.extend(r.notes.iter().cloned());
        }
        sc.hardware = hardware.map(|h| h.name);
        sc.warnings.splice(0..0, notes);
        Ok(sc)
    }
}

/// The bytes per token to grade with and where it came from: the builder's
/// override, else a value the hardware settings gave, else the bricks' annotations,
/// else the placeholder.
fn bytes_per_token(
    given: Option<f64>,
    spec: &Ceiling,
    recorded: Option<&Recorded>,
    notes: &mut Vec<String>,
) -> (f64, BytesPerTokenSource) {
    if let Some(bytes) = given {
        return (bytes, BytesPerTokenSource::Given);
    }
    match BytesPerTokenSource::of_ceiling(spec) {
        BytesPerTokenSource::Default => {
            let from_bricks = recorded.and_then(|r| r.brick_bytes_per_token);
            // Prompt tokens read the weights once per pass, not per token:
            // the bricks' bytes over all tokens are not a decode token's.
            let mixed = recorded.is_some_and(|r| r.tokens.prefills.0 > 0);
            match from_bricks {
                Some(_) if mixed => {
                    notes.push(
                        "decode bytes per token not taken from the bricks: their bytes mix                          prefill and decode; give them (weights read once plus the KV cache)                          with ScorecardBuilder::bytes_per_token or PROFILER_BYTES_PER_TOKEN"
                            .to_owned(),
                    );
                    (spec.bytes_per_token, BytesPerTokenSource::Default)
                }
                Some(bytes) => (bytes, BytesPerTokenSource::Bricks),
                None => (spec.bytes_per_token, BytesPerTokenSource::Default),
            }
        }
        source => (spec.bytes_per_token, source),
    }
}

/// The hardware the profile recorded, when usable.
fn recorded_hardware(run: Option<&Recorded>, notes: &mut Vec<String>) -> Option<Hardware> {
    let info = run?.hardware.as_ref()?;
    let config = recorded(info);
    if config.is_none() {
        notes.push(format!(
            "profile hardware `{}` has no peak bandwidth and is not a known device",
            info.name
        ));
    }
    config
}

/// `hw`'s caches that have both a size and a bandwidth, smallest first.
fn cache_ceilings(hw: &Hardware) -> Vec<CacheCeiling> {
    let mut caches: Vec<CacheCeiling> = hw
        .cache_sizes()
        .filter_map(|(level, size)| {
            let bw = hw.memory(level)?.value;
            (size.value > 0.0 && bw > 0.0).then_some(CacheCeiling {
                name: level.name(),
                bytes: size.value,
                gb_s: bw,
            })
        })
        .collect();
    caches.sort_by(|a, b| a.bytes.total_cmp(&b.bytes));
    caches
}
