//! Where [`KernelRoofline`]s come from: the RTX 4090 preset, the devices of
//! the hardware table (published dense peaks, estimates marked), ceilings
//! measured on this machine, and hardware resolved from the environment.

use profiler_core::profile::MeasuredCeilings;

use super::error::RooflineError;
use super::kernel::KernelRoofline;
use super::units::{CeilingSource, MemoryLevel, Precision};
use crate::hardware::{DEVICES, DeviceSpec, HardwareConfig};

impl KernelRoofline {
    /// NVIDIA RTX 4090: FP32 82.6, FP16 330 (FP16 accumulate), TF32 165,
    /// INT8 660, BF16 165 (FP32 accumulate) TFLOP/s; L1 19 000, L2 5300,
    /// DRAM 1008, PCIe 32 GB/s.
    #[must_use]
    pub fn rtx_4090() -> Self {
        let build = || {
            Self::new("RTX 4090", CeilingSource::Published)
                .with_compute(Precision::Fp32, 82.6, false)?
                .with_compute(Precision::Fp16, 330.0, false)?
                .with_compute(Precision::Tf32, 165.0, false)?
                .with_compute(Precision::Int8, 660.0, false)?
                .with_compute(Precision::Bf16, 165.0, false)?
                .with_memory(MemoryLevel::L1Cache, 19_000.0, false)?
                .with_memory(MemoryLevel::L2Cache, 5300.0, false)?
                .with_memory(MemoryLevel::Dram, 1008.0, false)?
                .with_memory(MemoryLevel::Pcie, 32.0, false)
        };
        // Constant, positive figures: the checks cannot fail.
        build().unwrap_or_else(|_| Self::new("RTX 4090", CeilingSource::Published))
    }

    /// A device of the hardware table: FP32, BF16 and FP16 dense peaks and
    /// DRAM bandwidth as published (the RTX 4090 gets its full preset).
    /// Compute ceilings of devices whose figures are estimates are marked as
    /// estimates.
    #[must_use]
    pub fn from_device(device: &DeviceSpec) -> Self {
        if device.name == "RTX 4090" {
            return Self::rtx_4090();
        }
        let mut r = Self::new(device.name, CeilingSource::Published);
        let est = device.estimate;
        let peaks = [
            (Precision::Fp32, Some(device.fp32_tflops)),
            (Precision::Bf16, device.bf16_tflops),
            (
                Precision::Fp16,
                device.fp16_acc_tflops.or(device.bf16_tflops),
            ),
        ];
        for (p, tflops) in peaks {
            if let Some(t) = tflops {
                // The table holds positive constants; a bad entry is skipped.
                r = r.clone().with_compute(p, t, est).unwrap_or(r);
            }
        }
        r.clone()
            .with_memory(MemoryLevel::Dram, device.mem_bw_gb_s, false)
            .unwrap_or(r)
    }

    /// A preset by name: `rtx4090` or any device of the hardware table
    /// (aliases and case are accepted as by [`DeviceSpec::lookup`]).
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

    /// Every device of the hardware table as a roofline.
    #[must_use]
    pub fn presets() -> Vec<Self> {
        DEVICES.iter().map(Self::from_device).collect()
    }

    /// The ceilings measured on this machine: FP32 peak, DRAM bandwidth and
    /// the cache level probed (see `measure_ceilings`).
    ///
    /// # Errors
    /// [`RooflineError::InvalidValue`] when a measured figure is not finite
    /// and positive, or when nothing was measured at all.
    pub fn from_measured(ceilings: &MeasuredCeilings) -> Result<Self, RooflineError> {
        let name = if ceilings.cpu.is_empty() {
            "this machine".to_owned()
        } else {
            ceilings.cpu.clone()
        };
        let mut r = Self::new(name, CeilingSource::Measured);
        if let Some(f) = &ceilings.peak_flops {
            let precision = f.precision.parse().unwrap_or(Precision::Fp32);
            r = r.with_compute(precision, f.gflops / 1e3, false)?;
        }
        for bw in [&ceilings.memory_bandwidth, &ceilings.cache_bandwidth]
            .into_iter()
            .flatten()
        {
            let level = bw.level.parse().unwrap_or(MemoryLevel::Dram);
            r = r.with_memory(level, bw.gb_s, false)?;
        }
        if r.compute_ceilings().is_empty() && r.memory_ceilings().is_empty() {
            return Err(RooflineError::InvalidValue {
                field: "measured ceilings".to_owned(),
                value: "none".to_owned(),
                reason: "no bandwidth or FLOP/s was measured",
            });
        }
        Ok(r)
    }

    /// The roofline of hardware resolved from the environment or a file: the
    /// named device's preset with the configured bandwidth as its DRAM
    /// ceiling and the configured dense peak (`PROFILER_PEAK_TFLOPS`) as its
    /// BF16 and FP16 ceilings; a custom device gets only what was configured.
    ///
    /// # Errors
    /// [`RooflineError::InvalidValue`] when a configured figure is not
    /// finite and positive.
    pub fn from_hardware_config(config: &HardwareConfig) -> Result<Self, RooflineError> {
        let mut r = match DeviceSpec::lookup(&config.name) {
            Some(d) => Self::from_device(d),
            None => Self::new(config.name.clone(), CeilingSource::Custom),
        };
        let differs = |a: f64, b: Option<f64>| b.is_none_or(|b| (a - b).abs() > 1e-9 * a.abs());
        if differs(
            config.spec.peak_bw_gb_s,
            r.memory(MemoryLevel::Dram).ok().map(|m| m.gb_s),
        ) {
            r.source = CeilingSource::Custom;
            r = r.with_memory(MemoryLevel::Dram, config.spec.peak_bw_gb_s, false)?;
        }
        if let Some(t) = config.dense_peak_tflops
            && differs(t, r.compute(Precision::Bf16).ok().map(|c| c.tflops))
        {
            r.source = CeilingSource::Custom;
            r = r.with_compute(Precision::Bf16, t, false)?.with_compute(
                Precision::Fp16,
                t,
                false,
            )?;
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::profile::{BandwidthCeiling, FlopsCeiling};

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
        let config = |name: &str, bw: f64, tflops: Option<f64>| HardwareConfig {
            name: name.to_owned(),
            spec: crate::hardware::HardwareSpec {
                peak_bw_gb_s: bw,
                bytes_per_token: 1.0,
            },
            dense_peak_tflops: tflops,
        };
        let plain =
            KernelRoofline::from_hardware_config(&config("H100 SXM", 3350.0, Some(989.0))).unwrap();
        assert_eq!(plain, KernelRoofline::preset("h100").unwrap());
        let tuned =
            KernelRoofline::from_hardware_config(&config("H100 SXM", 3000.0, Some(800.0))).unwrap();
        assert_eq!(tuned.source, CeilingSource::Custom);
        assert_eq!(tuned.memory(MemoryLevel::Dram).unwrap().gb_s, 3000.0);
        assert_eq!(tuned.compute(Precision::Bf16).unwrap().tflops, 800.0);
        assert_eq!(tuned.compute(Precision::Fp32).unwrap().tflops, 67.0);
        let custom = KernelRoofline::from_hardware_config(&config("custom", 100.0, None)).unwrap();
        assert!(custom.compute_ceilings().is_empty());
        assert_eq!(custom.memory(MemoryLevel::Dram).unwrap().gb_s, 100.0);
        assert!(KernelRoofline::from_hardware_config(&config("custom", f64::NAN, None)).is_err());
    }

    #[test]
    fn measured_ceilings_become_fp32_dram_and_cache_roofs() {
        let m = MeasuredCeilings {
            cpu: "Test CPU".into(),
            memory_bandwidth: Some(BandwidthCeiling {
                gb_s: 20.0,
                level: "DRAM".into(),
                ..Default::default()
            }),
            cache_bandwidth: Some(BandwidthCeiling {
                gb_s: 150.0,
                level: "L2".into(),
                ..Default::default()
            }),
            peak_flops: Some(FlopsCeiling {
                gflops: 400.0,
                precision: "fp32".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
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
