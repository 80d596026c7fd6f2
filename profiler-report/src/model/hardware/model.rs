//! [`Hardware`]: the one hardware model. Compute ceilings per precision,
//! bandwidth ceilings per memory level and the bytes a token moves, each a
//! [`Figure`] that says where it came from; every report takes this type.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::HardwareError;
use super::presets::DeviceSpec;
use super::source::{Figure, Source};
use super::spec::{DEFAULT_BYTES_PER_TOKEN, HardwareSpec};
use super::units::{
    MAX_BANDWIDTH_GB_S, MAX_TFLOPS, MemoryLevel, Precision, ceiling_problem, shown,
};

/// Most bytes a token may move: a petabyte, beyond any model.
pub const MAX_BYTES_PER_TOKEN: f64 = 1e15;

/// Largest cache size accepted, bytes: a terabyte, beyond any cache.
pub const MAX_CACHE_BYTES: f64 = 1e12;

/// A device's ceilings, each with where it came from.
///
/// Built from a preset ([`Hardware::preset`]), a file
/// ([`Hardware::from_file`]), settings ([`Hardware::from_vars`]), a
/// profile's recorded hardware ([`Hardware::from_info`]) or the probes
/// ([`Hardware::from_measured`]); every figure it holds is finite, above zero
/// and within what a real device can reach.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    /// Display name: the device's, the file's `name`, or `"custom"`.
    pub name: String,
    /// The preset row the figures started from, when one did.
    pub preset: Option<String>,
    compute: BTreeMap<Precision, Figure>,
    memory: BTreeMap<MemoryLevel, Figure>,
    bytes_per_token: Option<Figure>,
    /// Size of each cache level one core sees, bytes.
    #[serde(default)]
    cache_bytes: BTreeMap<MemoryLevel, Figure>,
    /// Set when the measured figures were taken while other work ran on the
    /// machine: why they are too low. Figures judged against them say so,
    /// and the scorecard withholds its grade.
    #[serde(default)]
    pub busy: Option<String>,
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
        }
    }

    /// A device of the preset table by name or alias (`h100`, `4090`,
    /// `rtx_4060l`, ...; see [`DeviceSpec::lookup`]).
    ///
    /// # Errors
    /// [`HardwareError::UnknownDevice`] listing the names accepted.
    pub fn preset(name: &str) -> Result<Self, HardwareError> {
        DeviceSpec::lookup(name)
            .map(Self::from_device)
            .ok_or_else(|| HardwareError::UnknownDevice {
                name: name.to_owned(),
                origin: "the preset table".to_owned(),
                known: DeviceSpec::known_names(),
            })
    }

    /// The hardware of one preset row: every figure the row has, compute
    /// figures marked as estimates where the row says so. FP16 takes the
    /// FP16-accumulate peak where one is published, else the BF16 peak.
    #[must_use]
    pub fn from_device(device: &DeviceSpec) -> Self {
        let compute_source = if device.estimate {
            Source::PresetEstimate
        } else {
            Source::Preset
        };
        let mut hw = Self::new(device.name);
        hw.preset = Some(device.name.to_owned());
        let compute = [
            (Precision::Fp32, Some(device.fp32_tflops)),
            (Precision::Bf16, device.bf16_tflops),
            (
                Precision::Fp16,
                device.fp16_acc_tflops.or(device.bf16_tflops),
            ),
            (Precision::Tf32, device.tf32_tflops),
            (Precision::Int8, device.int8_tops),
        ];
        for (p, value) in compute {
            if let Some(v) = value {
                hw.compute.insert(p, Figure::new(v, compute_source.clone()));
            }
        }
        let memory = [
            (MemoryLevel::L1Cache, device.l1_gb_s),
            (MemoryLevel::L2Cache, device.l2_gb_s),
            (MemoryLevel::Dram, Some(device.mem_bw_gb_s)),
            (MemoryLevel::Pcie, device.pcie_gb_s),
        ];
        for (l, value) in memory {
            if let Some(v) = value {
                hw.memory.insert(l, Figure::new(v, Source::Preset));
            }
        }
        hw
    }

    /// Sets (or replaces) the compute ceiling of `precision`, TFLOP/s (TOP/s
    /// for INT8).
    ///
    /// # Errors
    /// [`HardwareError::InvalidValue`] naming the device and precision when
    /// the value is not finite, not above zero or beyond any real device.
    pub fn set_compute(
        &mut self,
        precision: Precision,
        figure: Figure,
    ) -> Result<(), HardwareError> {
        let what = format!("{} {precision} peak (TFLOP/s)", self.name);
        check(&what, &figure, MAX_TFLOPS)?;
        self.compute.insert(precision, figure);
        Ok(())
    }

    /// Sets (or replaces) the bandwidth ceiling of `level`, GB/s.
    ///
    /// # Errors
    /// [`HardwareError::InvalidValue`] naming the device and level when the
    /// value is not finite, not above zero or beyond any real device.
    pub fn set_memory(&mut self, level: MemoryLevel, figure: Figure) -> Result<(), HardwareError> {
        let what = format!("{} {level} bandwidth (GB/s)", self.name);
        check(&what, &figure, MAX_BANDWIDTH_GB_S)?;
        self.memory.insert(level, figure);
        Ok(())
    }

    /// Sets the bytes a token moves, for the scorecard's ceiling.
    ///
    /// # Errors
    /// [`HardwareError::InvalidValue`] when the value is not finite, not
    /// above zero or above [`MAX_BYTES_PER_TOKEN`].
    pub fn set_bytes_per_token(&mut self, figure: Figure) -> Result<(), HardwareError> {
        check("bytes per token", &figure, MAX_BYTES_PER_TOKEN)?;
        self.bytes_per_token = Some(figure);
        Ok(())
    }

    /// Sets (or replaces) the size of cache `level` one core sees, bytes.
    ///
    /// # Errors
    /// [`HardwareError::InvalidValue`] when the size is not finite, not
    /// above zero or beyond [`MAX_CACHE_BYTES`].
    pub fn set_cache_bytes(
        &mut self,
        level: MemoryLevel,
        figure: Figure,
    ) -> Result<(), HardwareError> {
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

    /// The scorecard's memory-bound view: DRAM bandwidth and bytes per token
    /// (the placeholder [`DEFAULT_BYTES_PER_TOKEN`] when none was given).
    /// `None` without a DRAM ceiling.
    #[must_use]
    pub fn spec(&self) -> Option<HardwareSpec> {
        Some(HardwareSpec {
            peak_bw_gb_s: self.memory(MemoryLevel::Dram)?.value,
            bytes_per_token: self
                .bytes_per_token
                .as_ref()
                .map_or(DEFAULT_BYTES_PER_TOKEN, |f| f.value),
        })
    }

    /// Checks every figure again, for a model read from elsewhere (serde).
    ///
    /// # Errors
    /// [`HardwareError::InvalidValue`] naming the first bad figure.
    pub fn validate(&self) -> Result<(), HardwareError> {
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

impl From<HardwareSpec> for Hardware {
    /// A custom device with only the spec's DRAM bandwidth and bytes per
    /// token, both marked as given in code (values are not checked here;
    /// the scorecard withholds its grade on an unusable ceiling).
    fn from(spec: HardwareSpec) -> Self {
        let mut hw = Self::new("custom");
        hw.memory.insert(
            MemoryLevel::Dram,
            Figure::new(spec.peak_bw_gb_s, Source::Given),
        );
        hw.bytes_per_token = Some(Figure::new(spec.bytes_per_token, Source::Given));
        hw
    }
}

/// `Ok` when `figure` is a plausible ceiling no larger than `max`.
fn check(what: &str, figure: &Figure, max: f64) -> Result<(), HardwareError> {
    match ceiling_problem(figure.value, max) {
        None => Ok(()),
        Some(reason) => Err(HardwareError::InvalidValue {
            origin: format!("{what} from {}", figure.source),
            value: shown(figure.value),
            reason: reason.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_carry_every_figure_with_its_source() {
        let rtx = Hardware::preset("4090").unwrap();
        let peak = |p| rtx.compute(p).unwrap().value;
        assert_eq!(
            [
                Precision::Fp32,
                Precision::Fp16,
                Precision::Tf32,
                Precision::Int8
            ]
            .map(peak),
            [82.6, 330.0, 165.0, 660.0]
        );
        let bw = |l| rtx.memory(l).unwrap().value;
        assert_eq!(
            [
                MemoryLevel::L1Cache,
                MemoryLevel::L2Cache,
                MemoryLevel::Dram,
                MemoryLevel::Pcie
            ]
            .map(bw),
            [19_000.0, 5300.0, 1008.0, 32.0]
        );
        assert_eq!(rtx.compute(Precision::Fp32).unwrap().source, Source::Preset);
        let laptop = Hardware::preset("rtx_4060l").unwrap();
        assert!(laptop.compute(Precision::Bf16).unwrap().is_estimate());
        assert!(!laptop.memory(MemoryLevel::Dram).unwrap().is_estimate());
        assert_eq!(laptop.spec(), Some(HardwareSpec::rtx_4060l()));
        assert_eq!(Hardware::preset("gb10").unwrap().dense_peak_tflops(), None);
        assert!(matches!(
            Hardware::preset("tpu"),
            Err(HardwareError::UnknownDevice { .. })
        ));
    }

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
        let mut raw = Hardware::from(HardwareSpec {
            peak_bw_gb_s: 1e308,
            bytes_per_token: 1.0,
        });
        assert!(raw.validate().is_err());
        raw.memory
            .insert(MemoryLevel::Dram, Figure::new(100.0, Source::Given));
        assert!(raw.validate().is_ok());
    }
}
