//! [`HardwareSpec`]: a device's memory bandwidth and the bytes a token
//! moves, which give its throughput ceiling.

use serde::{Deserialize, Serialize};

/// Bytes moved per token that the presets carry: a placeholder (158 MB, a
/// 79M-parameter bf16 model read once per token), not a property of any
/// device. A ceiling with exactly this value counts as "bytes per token not
/// given": the scorecard then derives it from the bricks' byte annotations
/// when it can, and labels it a guess when it cannot. Give the real value
/// with `PROFILER_BYTES_PER_TOKEN` or the hardware file.
pub const DEFAULT_BYTES_PER_TOKEN: f64 = 158_000_000.0;

/// Memory-bound roofline parameters for throughput grading.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HardwareSpec {
    /// Peak memory bandwidth, GB/s.
    pub peak_bw_gb_s: f64,
    /// Bytes moved per token (model-dependent).
    pub bytes_per_token: f64,
}

impl HardwareSpec {
    /// RTX 4060 Laptop: 256 GB/s.
    #[must_use]
    pub fn rtx_4060l() -> Self {
        Self {
            peak_bw_gb_s: 256.0,
            bytes_per_token: DEFAULT_BYTES_PER_TOKEN,
        }
    }

    /// NVIDIA GB10 (DGX Spark): 273 GB/s.
    #[must_use]
    pub fn gb10() -> Self {
        Self {
            peak_bw_gb_s: 273.0,
            bytes_per_token: DEFAULT_BYTES_PER_TOKEN,
        }
    }

    /// Memory-bound throughput ceiling: `peak_bw_gb_s * 1e9 / bytes_per_token`.
    #[must_use]
    pub fn peak_throughput_tok_s(&self) -> f64 {
        (self.peak_bw_gb_s * 1e9) / self.bytes_per_token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_peaks_follow_the_compat_formula() {
        let peak = HardwareSpec::rtx_4060l().peak_throughput_tok_s();
        assert!((peak - 256e9 / 158e6).abs() < 1e-9);
        assert!((HardwareSpec::gb10().peak_throughput_tok_s() - 273e9 / 158e6).abs() < 1e-9);
    }
}
