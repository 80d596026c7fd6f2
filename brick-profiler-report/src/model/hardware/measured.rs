//! Ceilings measured by the probes, between their saved form in a profile
//! ([`MeasuredCeilings`], which keeps how each was measured) and the
//! hardware model, where each figure is marked [`Source::Measured`].

use profiler_core::profile::{
    BandwidthCeiling, CacheSize, Contention, FlopsCeiling, MeasuredCeilings,
};

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};

use super::error::HardwareError;
use super::probe::{ProbeOptions, measure_ceilings_with};

/// Measures this machine with the probes (see
/// [`measure_ceilings_with`]) and returns both the model and the saved
/// form, which keeps how each figure was measured.
///
/// # Errors
/// As [`from_measured`].
pub fn measure(options: &ProbeOptions) -> Result<(Hardware, MeasuredCeilings), HardwareError> {
    let saved = measure_ceilings_with(options);
    Ok((from_measured(&saved)?, saved))
}

/// The ceilings a profile saved: the FLOP/s peaks in their precisions
/// (FP32 when the name is unknown), DRAM and every cache level probed,
/// all marked [`Source::Measured`]; the cache sizes, marked as read from
/// sysfs; and, when the probes saw other work on the machine,
/// [`Hardware::busy`] with why.
///
/// # Errors
/// [`HardwareError::InvalidValue`] when a figure is not finite, not
/// above zero or beyond any device, or when nothing was measured.
pub fn from_measured(ceilings: &MeasuredCeilings) -> Result<Hardware, HardwareError> {
    let name = if ceilings.cpu.is_empty() {
        "this machine"
    } else {
        ceilings.cpu.as_str()
    };
    let mut hw = Hardware::new(name);
    let measured = |v: f64| Figure::new(v, Source::Measured);
    if let Some(f) = &ceilings.peak_flops {
        let precision = f.precision.parse().unwrap_or(Precision::Fp32);
        hw.set_compute(precision, measured(f.gflops / 1e3))?;
    }
    // Other precisions and levels are kept only under a name the model
    // knows: a level such as "L4" has no roof to stand for.
    for f in &ceilings.other_peaks {
        if let Ok(precision) = f.precision.parse() {
            hw.set_compute(precision, measured(f.gflops / 1e3))?;
        }
    }
    if let Some(bw) = &ceilings.memory_bandwidth {
        let level = bw.level.parse().unwrap_or(MemoryLevel::Dram);
        hw.set_memory(level, measured(bw.gb_s))?;
    }
    for bw in ceilings
        .cache_bandwidth
        .iter()
        .chain(&ceilings.cache_levels)
    {
        if let Ok(level) = bw.level.parse() {
            hw.set_memory(level, measured(bw.gb_s))?;
        }
    }
    for c in &ceilings.caches {
        if let Ok(level) = format!("L{}", c.level).parse() {
            let source = Source::System {
                path: c.source.clone(),
            };
            hw.set_cache_bytes(level, Figure::new(c.bytes as f64, source))?;
        }
    }
    hw.busy = ceilings
        .contention
        .as_ref()
        .filter(|c| c.busy)
        .map(|c| c.reasons.join("; "));
    if hw.is_empty() {
        return Err(HardwareError::InvalidValue {
            origin: "measured ceilings".to_owned(),
            value: "none".to_owned(),
            reason: "no bandwidth or FLOP/s was measured".to_owned(),
        });
    }
    Ok(hw)
}

/// The measured figures in the saved form: the measured compute peaks
/// (FP32 first), DRAM, every measured cache level and the cache sizes.
/// How they were measured is not part of the model, so those fields stay
/// empty; keep the probes' own [`MeasuredCeilings`] where it matters.
#[must_use]
pub fn to_measured(hw: &Hardware) -> MeasuredCeilings {
    let measured = |f: &Figure| f.source == Source::Measured;
    let bandwidth = |level: MemoryLevel, f: &Figure| BandwidthCeiling {
        gb_s: f.value,
        level: level.name().to_owned(),
        ..Default::default()
    };
    let dram = hw
        .memory(MemoryLevel::Dram)
        .filter(|f| measured(f))
        .map(|f| bandwidth(MemoryLevel::Dram, f));
    let cache_levels: Vec<BandwidthCeiling> = hw
        .memory_ceilings()
        .filter(|(l, f)| *l < MemoryLevel::Dram && measured(f))
        .map(|(l, f)| bandwidth(l, f))
        .collect();
    let mut peaks = hw
        .compute_ceilings()
        .filter(|(_, f)| measured(f))
        .map(|(p, f)| FlopsCeiling {
            gflops: f.value * 1e3,
            precision: p.name().to_ascii_lowercase(),
            ..Default::default()
        });
    let peak = peaks.next();
    let caches = hw
        .cache_sizes()
        .filter_map(|(l, f)| {
            let level = l.name().strip_prefix('L')?.parse().ok()?;
            Some(CacheSize {
                level,
                bytes: f.value as u64,
                instances: 1,
                source: f.source.to_string(),
            })
        })
        .collect();
    MeasuredCeilings {
        cpu: hw.name.clone(),
        memory_bandwidth: dram,
        cache_bandwidth: cache_levels.first().cloned(),
        peak_flops: peak,
        other_peaks: peaks.collect(),
        cache_levels,
        caches,
        contention: hw.busy.as_ref().map(|why| Contention {
            busy: true,
            reasons: vec![why.clone()],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Ceilings as a probe saves them (20 GB/s DRAM, 150 GB/s L2, 400 GFLOP/s
/// FP32), for the tests of what reads them.
#[cfg(test)]
pub(crate) fn sample_measured() -> MeasuredCeilings {
    tests::saved()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn saved() -> MeasuredCeilings {
        MeasuredCeilings {
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
        }
    }

    #[test]
    fn saved_ceilings_round_trip_through_the_model() {
        let hw = from_measured(&saved()).unwrap();
        assert_eq!(hw.name, "Test CPU");
        let fp32 = hw.compute(Precision::Fp32).unwrap();
        assert!((fp32.value - 0.4).abs() < 1e-12);
        assert_eq!(fp32.source, Source::Measured);
        assert_eq!(hw.memory(MemoryLevel::L2Cache).unwrap().value, 150.0);
        let back = to_measured(&hw);
        assert_eq!(back.memory_bandwidth.as_ref().map(|b| b.gb_s), Some(20.0));
        assert_eq!(
            back.cache_bandwidth.as_ref().map(|b| b.level.as_str()),
            Some("L2")
        );
        assert_eq!(
            back.peak_flops.as_ref().map(|f| f.precision.as_str()),
            Some("fp32")
        );
        assert_eq!(from_measured(&back).unwrap(), hw);
    }

    #[test]
    fn bad_or_missing_measurements_are_errors() {
        let mut bad = saved();
        bad.peak_flops.as_mut().unwrap().gflops = f64::NAN;
        assert!(from_measured(&bad).is_err());
        assert!(from_measured(&MeasuredCeilings::default()).is_err());
    }
}
