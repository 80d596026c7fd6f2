//! The project's roofline and parity as [`Computation`]s, so the shipped
//! roofline-model-v1 and parity-profiling-v1 contracts check the
//! implementation users run, not a copy of its formulas.

use profiler_core::Profile;

use super::computation::{Computation, Metrics};
use crate::analysis::parity::compute_parity_comparison;
use crate::analysis::roofline::{
    OPS_PER_TOKEN, RooflineBottleneck, analytical_peaks, compute_roofline,
};
use crate::model::run::RunSummary;
use profiler_core::hardware::Hardware;

/// `roofline.*`: the analytical roofline of a model on a device, and the
/// profile's measured tokens/s to hold against it.
///
/// ```
/// use profiler_report::contracts::{RooflineMetrics, Verifier};
/// use profiler_report::hardware::preset;
/// let profile = profiler::Profile::empty();
/// let a100 = preset("nvidia_a100").unwrap();
/// let report = Verifier::new()
///     .computation(RooflineMetrics::new(7_000_000_000, 4.0, a100))
///     .verify("roofline-model-v1", &profile)
///     .expect("shipped contract");
/// assert!(report.passed(), "{report}");
/// ```
#[derive(Debug, Clone)]
pub struct RooflineMetrics {
    total_params: u64,
    bits_per_weight: f64,
    hardware: Hardware,
}

impl RooflineMetrics {
    /// The roofline of a model of `total_params` at `bits_per_weight` on
    /// `hardware`.
    #[must_use]
    pub fn new(total_params: u64, bits_per_weight: f64, hardware: Hardware) -> Self {
        Self {
            total_params,
            bits_per_weight,
            hardware,
        }
    }
}

impl Computation for RooflineMetrics {
    fn namespace(&self) -> &str {
        "roofline"
    }

    fn compute(&self, profile: &Profile) -> Result<Metrics, String> {
        let r = compute_roofline(self.total_params, self.bits_per_weight, &self.hardware)
            .map_err(|e| e.to_string())?;
        let (bandwidth, peak) = analytical_peaks(&self.hardware).map_err(|e| e.to_string())?;
        let measured = profile.steps.tokens_per_s();
        let bottleneck = match r.bottleneck {
            RooflineBottleneck::Bandwidth => "bandwidth",
            RooflineBottleneck::Compute => "compute",
        };
        Ok(Metrics::new()
            .with("total_params", r.total_params as f64)
            .with("bits_per_weight", r.bits_per_weight)
            .with("bandwidth_gb_s", bandwidth.value)
            .with("compute_gflops", peak.value * 1e3)
            .with("ops_per_token", OPS_PER_TOKEN)
            .with("model_bytes", r.model_bytes)
            .with("bw_ceiling_tok_s", r.bw_ceiling)
            .with("compute_ceiling_tok_s", r.compute_ceiling)
            .with("ceiling_tok_s", r.throughput_ceiling)
            .with("bottleneck", bottleneck)
            .with("contract_id", r.contract_id)
            .with("measured_tok_s", (measured > 0.0).then_some(measured)))
    }
}

/// `parity.*`: the profile (as the run summary of its bricks, or one
/// given) against a baseline runtime, by `compute_parity_comparison`.
#[derive(Debug, Clone)]
pub struct ParityMetrics {
    baseline: RunSummary,
    ours: Option<RunSummary>,
}

impl ParityMetrics {
    /// The verified profile's bricks, per step, against `baseline`.
    #[must_use]
    pub fn against(baseline: RunSummary) -> Self {
        Self {
            baseline,
            ours: None,
        }
    }

    /// `ours` instead of the verified profile's bricks.
    #[must_use]
    pub fn ours(mut self, ours: RunSummary) -> Self {
        self.ours = Some(ours);
        self
    }
}

impl Computation for ParityMetrics {
    fn namespace(&self) -> &str {
        "parity"
    }

    fn compute(&self, profile: &Profile) -> Result<Metrics, String> {
        let ours = self
            .ours
            .clone()
            .unwrap_or_else(|| RunSummary::from_profile(profile, profile.run.name.clone()));
        let c = compute_parity_comparison(&ours, &self.baseline);
        let top_sorted = c.gaps.windows(2).all(|w| w[0].ratio >= w[1].ratio);
        Ok(Metrics::new()
            .with("ours_tok_s", ours.tokens_per_s.unwrap_or(0.0))
            .with("baseline_tok_s", self.baseline.tokens_per_s.unwrap_or(0.0))
            .with("throughput_ratio", c.throughput_ratio)
            .with("ours_launches", ours.launches_per_step.unwrap_or(0) as f64)
            .with(
                "baseline_launches",
                self.baseline.launches_per_step.unwrap_or(0) as f64,
            )
            .with("launch_ratio", c.launch_ratio)
            .with("parity_achieved", c.parity_achieved)
            .with("max_gap_ratio", c.all_gaps.first().map(|g| g.ratio))
            .with("gap_count", c.all_gaps.len() as u64)
            .with("top_gap_count", c.gaps.len() as u64)
            .with("top_gaps_sorted", top_sorted))
    }
}
