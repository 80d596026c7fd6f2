//! [`Hardware`] itself: the figures of one machine, the checks every figure
//! passes, and the error a figure that cannot be a ceiling gives.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::figure::Figure;
use super::measurement::ProbeRun;
use super::units::{
    MAX_BANDWIDTH_GB_S, MAX_TFLOPS, MemoryLevel, Precision, ceiling_problem, shown,
};

/// Most bytes a token may move: a petabyte, beyond any model.
pub const MAX_BYTES_PER_TOKEN: f64 = 1e15;

/// Largest cache size accepted, bytes: a terabyte, beyond any cache.
pub const MAX_CACHE_BYTES: f64 = 1e12;

/// A device's ceilings, each with where it came from.
///
/// `brick-profiler-report` builds one from a row of its preset table, a hardware
/// file, `PROFILER_*` settings or the probes of this machine; every figure
/// set through [`Hardware::set_compute`] and its siblings is finite, above
/// zero and within what a real device can reach ([`Hardware::validate`]
/// checks one read from elsewhere).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    /// Display name: the device's, the file's `name`, or `"custom"`.
    pub name: String,
    /// The preset row the figures started from, when one did.
    pub preset: Option<String>,
    pub(super) compute: BTreeMap<Precision, Figure>,
    pub(super) memory: BTreeMap<MemoryLevel, Figure>,
    pub(super) bytes_per_token: Option<Figure>,
    /// Size of each cache level one core sees, bytes.
    #[serde(default)]
    pub(super) cache_bytes: BTreeMap<MemoryLevel, Figure>,
    /// Set when the measured figures were taken while other work ran on the
    /// machine: why they are too low. Figures judged against them say so,
    /// and the scorecard withholds its grade.
    #[serde(default)]
    pub busy: Option<String>,
    /// When the figures were measured by the probes: when they ran, what
    /// else ran meanwhile and the caveats of the run; each figure's own
    /// measurement is in its [`Source::Measured`](super::figure::Source::Measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeRun>,
}

impl Hardware {
    /// Hardware with no ceilings yet.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            preset: None,
            compute: BTreeMap::new(),
            memory: BTreeMap::new(),
            bytes_per_token: None,
            cache_bytes: BTreeMap::new(),
            busy: None,
            probe: None,
        }
    }

    /// Sets (or replaces) the compute ceiling of `precision`, TFLOP/s (TOP/s
    /// for INT8).
    ///
    /// # Errors
    /// [`CeilingError`] naming the device and precision when
    /// the value is not finite, not above zero or beyond any real device.
    pub fn set_compute(
        &mut self,
        precision: Precision,
        figure: Figure,
    ) -> Result<(), CeilingError> {
        let what = format!("{} {precision} peak (TFLOP/s)", self.name);
        check(&what, &figure, MAX_TFLOPS)?;
        self.compute.insert(precision, figure);
        Ok(())
    }

    /// Sets (or replaces) the bandwidth ceiling of `level`, GB/s.
    ///
    /// # Errors
    /// [`CeilingError`] naming the device and level when the
    /// value is not finite, not above zero or beyond any real device.
    pub fn set_memory(&mut self, level: MemoryLevel, figure: Figure) -> Result<(), CeilingError> {
        let what = format!("{} {level} bandwidth (GB/s)", self.name);
        check(&what, &figure, MAX_BANDWIDTH_GB_S)?;
        self.memory.insert(level, figure);
        Ok(())
    }

    /// Sets the bytes a token moves, for the scorecard's ceiling.
    ///
    /// # Errors
    /// [`CeilingError`] when the value is not finite, not
    /// above zero or above [`MAX_BYTES_PER_TOKEN`].
    pub fn set_bytes_per_token(&mut self, figure: Figure) -> Result<(), CeilingError> {
        check("bytes per token", &figure, MAX_BYTES_PER_TOKEN)?;
        self.bytes_per_token = Some(figure);
        Ok(())
    }

    /// Sets (or replaces) the size of cache `level` one core sees, bytes.
    ///
    /// # Errors
    /// [`CeilingError`] when the size is not finite, not
    /// above zero or beyond [`MAX_CACHE_BYTES`].
    pub fn set_cache_bytes(
        &mut self,
        level: MemoryLevel,
        figure: Figure,
    ) -> Result<(), CeilingError> {
        let what = format!("{} {level} cache size (bytes)", self.name);
        check(&what, &figure, MAX_CACHE_BYTES)?;
        self.cache_bytes.insert(level, figure);
        Ok(())
    }

    /// The size of cache `level` one core sees, bytes.
    #[must_use]
    pub fn cache_bytes(&self, level: MemoryLevel) -> Option<&Figure> {
        self.cache_bytes.get(&level)
    }

    /// Cache sizes, fastest level first.
    pub fn cache_sizes(&self) -> impl Iterator<Item = (MemoryLevel, &Figure)> {
        self.cache_bytes.iter().map(|(l, f)| (*l, f))
    }

    /// The compute ceiling of `precision`, TFLOP/s.
    #[must_use]
    pub fn compute(&self, precision: Precision) -> Option<&Figure> {
        self.compute.get(&precision)
    }

    /// The bandwidth ceiling of `level`, GB/s.
    #[must_use]
    pub fn memory(&self, level: MemoryLevel) -> Option<&Figure> {
        self.memory.get(&level)
    }

    /// Compute ceilings, in [`Precision`] order.
    pub fn compute_ceilings(&self) -> impl Iterator<Item = (Precision, &Figure)> {
        self.compute.iter().map(|(p, f)| (*p, f))
    }

    /// Bandwidth ceilings, fastest level first.
    pub fn memory_ceilings(&self) -> impl Iterator<Item = (MemoryLevel, &Figure)> {
        self.memory.iter().map(|(l, f)| (*l, f))
    }

    /// Bytes a token moves, when given.
    #[must_use]
    pub fn bytes_per_token(&self) -> Option<&Figure> {
        self.bytes_per_token.as_ref()
    }

    /// Whether the model holds no ceiling at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.compute.is_empty() && self.memory.is_empty()
    }

    /// The dense peak MFU is computed against, TFLOP/s: BF16, else FP16.
    #[must_use]
    pub fn dense_peak(&self) -> Option<&Figure> {
        self.compute(Precision::Bf16)
            .or_else(|| self.compute(Precision::Fp16))
    }

    /// The value of [`Hardware::dense_peak`].
    #[must_use]
    pub fn dense_peak_tflops(&self) -> Option<f64> {
        self.dense_peak().map(|f| f.value)
    }

    /// Checks every figure again, for a model read from elsewhere (serde).
    ///
    /// # Errors
    /// [`CeilingError`] naming the first bad figure.
    pub fn validate(&self) -> Result<(), CeilingError> {
        for (p, f) in &self.compute {
            check(&format!("{} {p} peak (TFLOP/s)", self.name), f, MAX_TFLOPS)?;
        }
        for (l, f) in &self.memory {
            let what = format!("{} {l} bandwidth (GB/s)", self.name);
            check(&what, f, MAX_BANDWIDTH_GB_S)?;
        }
        if let Some(f) = &self.bytes_per_token {
            check("bytes per token", f, MAX_BYTES_PER_TOKEN)?;
        }
        for (l, f) in &self.cache_bytes {
            let what = format!("{} {l} cache size (bytes)", self.name);
            check(&what, f, MAX_CACHE_BYTES)?;
        }
        Ok(())
    }
}

/// A figure that cannot be a ceiling: not a number, not finite, not above
/// zero or beyond any real device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {origin} `{value}`: {reason}")]
pub struct CeilingError {
    /// The device and ceiling, and where the figure came from.
    pub origin: String,
    /// The value, as text (so NaN and inf show as such).
    pub value: String,
    /// What is wrong.
    pub reason: String,
}

/// `Ok` when `figure` is a plausible ceiling no larger than `max`.
fn check(what: &str, figure: &Figure, max: f64) -> Result<(), CeilingError> {
    match ceiling_problem(figure.value, max) {
        None => Ok(()),
        Some(reason) => Err(CeilingError {
            origin: format!("{what} from {}", figure.source),
            value: shown(figure.value),
            reason: reason.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::figure::Source;
    use super::*;

    #[test]
    fn absurd_and_non_finite_ceilings_are_refused() {
        let mut hw = Hardware::new("box");
        for bad in [1e308, f64::INFINITY, f64::NAN, 0.0, -3.0] {
            let e = hw
                .set_memory(MemoryLevel::Dram, Figure::new(bad, Source::Given))
                .unwrap_err();
            assert!(e.to_string().contains("box DRAM bandwidth"), "{e}");
        }
        let e = hw
            .set_compute(Precision::Fp32, Figure::new(1e300, Source::Given))
            .unwrap_err();
        assert!(e.to_string().contains("beyond any real device"), "{e}");
        assert!(hw.is_empty());
        let mut raw = Hardware::new("raw");
        raw.memory
            .insert(MemoryLevel::Dram, Figure::new(1e308, Source::Given));
        assert!(raw.validate().is_err());
        raw.memory
            .insert(MemoryLevel::Dram, Figure::new(100.0, Source::Given));
        assert!(raw.validate().is_ok());
    }

    #[test]
    fn dense_peak_is_bf16_else_fp16_never_fp32() {
        let mut hw = Hardware::new("gpu");
        hw.set_compute(Precision::Fp32, Figure::new(10.0, Source::Given))
            .unwrap();
        assert_eq!(hw.dense_peak_tflops(), None);
        hw.set_compute(Precision::Fp16, Figure::new(40.0, Source::Given))
            .unwrap();
        assert_eq!(hw.dense_peak_tflops(), Some(40.0));
        hw.set_compute(Precision::Bf16, Figure::new(30.0, Source::Given))
            .unwrap();
        assert_eq!(hw.dense_peak_tflops(), Some(30.0));
    }
}
