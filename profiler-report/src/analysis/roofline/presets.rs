//! Where [`KernelRoofline`]s come from: always a view of the hardware model
//! ([`KernelRoofline::from_hardware`]), whether the model is a row of the
//! preset table, measured ceilings or a file.

use profiler_core::profile::MeasuredCeilings;

use super::error::RooflineError;
use super::kernel::KernelRoofline;
use super::units::{CeilingSource, ComputeCeiling, MemoryCeiling};
use crate::model::hardware::{DEVICES, DeviceSpec, Hardware, Source};

impl KernelRoofline {
    /// The hardware model's ceilings as a roofline. Its source is
    /// [`CeilingSource::Measured`] when any figure was measured,
    /// [`CeilingSource::Published`] when every figure is the preset table's,
    /// else [`CeilingSource::Custom`]; a figure that is an estimate is marked
    /// as such.
    #[must_use]
    pub fn from_hardware(hardware: &Hardware) -> Self {
        let figures = || {
            hardware
                .compute_ceilings()
                .map(|(_, f)| f)
                .chain(hardware.memory_ceilings().map(|(_, f)| f))
        };
        let source = if figures().any(|f| f.source == Source::Measured) {
            CeilingSource::Measured
        } else if figures().all(|f| f.source.is_preset()) {
            CeilingSource::Published
        } else {
            CeilingSource::Custom
        };
        let compute = hardware
            .compute_ceilings()
            .map(|(precision, f)| ComputeCeiling {
                precision,
                tflops: f.value,
                estimate: f.is_estimate(),
            })
            .collect();
        let memory = hardware
            .memory_ceilings()
            .map(|(level, f)| MemoryCeiling {
                level,
                gb_s: f.value,
                estimate: f.is_estimate(),
            })
            .collect();
        let mut roofline = Self::from_parts(hardware.name.clone(), source, compute, memory);
        for (level, f) in hardware.cache_sizes() {
            roofline = roofline.with_cache(level, f.value as u64, f.source.to_string());
        }
        roofline.busy.clone_from(&hardware.busy);
        roofline
    }

    /// The RTX 4090 row of the preset table, every ceiling it lists:
    /// compute per precision (FP16 with FP16 accumulate, BF16 with FP32
    /// accumulate) and L1, L2, DRAM and PCIe bandwidth.
    #[must_use]
    pub fn rtx_4090() -> Self {
        match DeviceSpec::lookup("rtx4090") {
            Some(d) => Self::from_device(d),
            // The row is part of the table; an empty roofline would only
            // show if it were removed.
            None => Self::new("RTX 4090", CeilingSource::Published),
        }
    }

    /// A row of the preset table as a roofline (see [`Hardware::from_device`]).
    #[must_use]
    pub fn from_device(device: &DeviceSpec) -> Self {
        Self::from_hardware(&Hardware::from_device(device))
    }

    /// A preset by name: any device of the preset table (aliases and case
    /// are accepted as by [`DeviceSpec::lookup`]).
    ///
    /// # Errors
    /// [`RooflineError::UnknownPreset`] listing the names accepted.
    pub fn preset(name: &str) -> Result<Self, RooflineError> {
        DeviceSpec::lookup(name)
            .map(Self::from_device)
            .ok_or_else(|| RooflineError::UnknownPreset {
                name: name.to_owned(),
                known: DeviceSpec::known_names(),
            })
    }

    /// Every device of the preset table as a roofline.
    #[must_use]
    pub fn presets() -> Vec<Self> {
        DEVICES.iter().map(Self::from_device).collect()
    }

    /// The ceilings measured on this machine (see [`Hardware::from_measured`]).
    ///
    /// # Errors
    /// [`RooflineError::Hardware`] when a measured figure is not finite and
    /// positive, or when nothing was measured at all.
    pub fn from_measured(ceilings: &MeasuredCeilings) -> Result<Self, RooflineError> {
        Ok(Self::from_hardware(&Hardware::from_measured(ceilings)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::{MemoryLevel, Precision};

    #[test]
    fn rtx_4090_matches_the_published_figures() {
        let r = KernelRoofline::rtx_4090();
        let peak = |p| r.compute(p).unwrap().tflops;
        assert_eq!(
            [
                peak(Precision::Fp32),
                peak(Precision::Fp16),
                peak(Precision::Tf32),
                peak(Precision::Int8)
            ],
            [82.6, 330.0, 165.0, 660.0]
        );
        let bw = |l| r.memory(l).unwrap().gb_s;
        assert_eq!(
            [
                bw(MemoryLevel::L1Cache),
                bw(MemoryLevel::L2Cache),
                bw(MemoryLevel::Dram),
                bw(MemoryLevel::Pcie)
            ],
            [19_000.0, 5300.0, 1008.0, 32.0]
        );
        assert_eq!(KernelRoofline::preset("4090").unwrap(), r);
    }

    #[test]
    fn table_devices_carry_their_peaks_and_estimates() {
        let h100 = KernelRoofline::preset("h100").unwrap();
        assert_eq!(h100.compute(Precision::Bf16).unwrap().tflops, 989.0);
        assert_eq!(h100.compute(Precision::Fp32).unwrap().tflops, 67.0);
        assert_eq!(h100.memory(MemoryLevel::Dram).unwrap().gb_s, 3350.0);
        assert!(!h100.compute(Precision::Fp32).unwrap().estimate);
        let laptop = KernelRoofline::preset("rtx_4060l").unwrap();
        assert!(laptop.compute(Precision::Bf16).unwrap().estimate);
        assert!(!laptop.memory(MemoryLevel::Dram).unwrap().estimate);
        let gb10 = KernelRoofline::preset("gb10").unwrap();
        assert!(
            gb10.compute(Precision::Bf16).is_err(),
            "no published bf16 figure"
        );
        assert_eq!(KernelRoofline::presets().len(), DEVICES.len());
        let e = KernelRoofline::preset("tpu").unwrap_err();
        assert!(matches!(e, RooflineError::UnknownPreset { .. }));
    }

    #[test]
    fn configured_hardware_overrides_the_preset_and_is_marked_custom() {
        let h100 = |vars: &'static [(&'static str, &'static str)]| {
            let hw = Hardware::from_vars(|k| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_owned())
            });
            KernelRoofline::from_hardware(&hw.unwrap().unwrap())
        };
        let plain = h100(&[("PROFILER_HARDWARE", "h100")]);
        assert_eq!(plain, KernelRoofline::preset("h100").unwrap());
        let tuned = h100(&[
            ("PROFILER_HARDWARE", "h100"),
            ("PROFILER_PEAK_BW_GB_S", "3000"),
            ("PROFILER_PEAK_TFLOPS", "800"),
        ]);
        assert_eq!(tuned.source, CeilingSource::Custom);
        assert_eq!(tuned.memory(MemoryLevel::Dram).unwrap().gb_s, 3000.0);
        assert_eq!(tuned.compute(Precision::Bf16).unwrap().tflops, 800.0);
        assert_eq!(tuned.compute(Precision::Fp32).unwrap().tflops, 67.0);
        let custom = h100(&[("PROFILER_PEAK_BW_GB_S", "100")]);
        assert!(custom.compute_ceilings().is_empty());
        assert_eq!(custom.memory(MemoryLevel::Dram).unwrap().gb_s, 100.0);
    }

    #[test]
    fn measured_ceilings_become_fp32_dram_and_cache_roofs() {
        let m = crate::model::hardware::sample_measured();
        let r = KernelRoofline::from_measured(&m).unwrap();
        assert_eq!(r.source, CeilingSource::Measured);
        assert_eq!(r.name, "Test CPU");
        assert!((r.compute(Precision::Fp32).unwrap().tflops - 0.4).abs() < 1e-12);
        assert_eq!(r.memory(MemoryLevel::L2Cache).unwrap().gb_s, 150.0);
        assert!((r.ridge_point(Precision::Fp32, MemoryLevel::Dram).unwrap() - 20.0).abs() < 1e-9);
        let mut bad = m.clone();
        bad.peak_flops.as_mut().unwrap().gflops = f64::NAN;
        assert!(KernelRoofline::from_measured(&bad).is_err());
        assert!(KernelRoofline::from_measured(&MeasuredCeilings::default()).is_err());
    }
}
