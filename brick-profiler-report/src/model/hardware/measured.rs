//! This machine as the probes measured it: [`measure`] runs them and
//! returns the hardware model, every figure marked
//! [`Source::Measured`] with how it was measured, the cache sizes marked
//! as read from sysfs, and the run's own facts in [`ProbeRun`].

use profiler_core::hardware::{Figure, Hardware, ProbeRun};

use super::error::HardwareError;
use super::probe::{self, ProbeOptions, Probed};

/// Measures this machine with the probes (about a second with the default
/// [`ProbeOptions`]): bandwidth of DRAM and of every cache level, the peak
/// of every precision the CPU has a kernel for, and the cache sizes, each
/// with how it was measured; [`Hardware::busy`] says why, when other work
/// ran meanwhile. Keep it in every profile with
/// `profiler::Config::new().hardware(hw).apply()`.
///
/// ```no_run
/// use profiler_report::hardware::{measure, probe::ProbeOptions};
/// use profiler::hardware::MemoryLevel;
/// let hw = measure(&ProbeOptions::default()).unwrap();
/// println!("{:.1} GB/s", hw.memory(MemoryLevel::Dram).map_or(0.0, |f| f.value));
/// ```
///
/// A probe that gave a figure no device can have (not finite, not above
/// zero, beyond any device) is left out, with a note saying why.
///
/// # Errors
/// [`HardwareError::InvalidValue`] when no bandwidth or peak was measured.
pub fn measure(options: &ProbeOptions) -> Result<Hardware, HardwareError> {
    into_hardware(probe::run(options))
}

/// The model of what one run of the probes measured.
fn into_hardware(probed: Probed) -> Result<Hardware, HardwareError> {
    let name = if probed.cpu.is_empty() {
        "this machine"
    } else {
        probed.cpu.as_str()
    };
    let mut hw = Hardware::new(name);
    let mut notes = probed.notes;
    // A figure no device can have (a clock that did not advance) is left
    // out, saying so; the others stand.
    for (precision, figure) in probed.compute {
        if let Err(e) = hw.set_compute(precision, figure) {
            notes.push(format!("{e}: left out"));
        }
    }
    for (level, figure) in probed.memory {
        if let Err(e) = hw.set_memory(level, figure) {
            notes.push(format!("{e}: left out"));
        }
    }
    let mut probe = ProbeRun {
        measured_at_unix_ns: probed.measured_at_unix_ns,
        other_runnable: probed.contention.other_runnable,
        steal_pct: probed.contention.steal_pct,
        spread_pct: probed.contention.spread_pct,
        best_spread_pct: probed.contention.best_spread_pct,
        best_cpu_pct: probed.contention.best_cpu_pct,
        unsettled: probed.contention.unsettled,
        notes,
        ..ProbeRun::default()
    };
    for c in &probed.caches {
        if let Some(level) = probe::cache_level_of(c.level) {
            let size = Figure::new(c.bytes as f64, probe::sysfs_source());
            match hw.set_cache_bytes(level, size) {
                Ok(()) => {
                    probe.cache_instances.insert(level, c.instances);
                }
                Err(e) => probe.notes.push(format!("{e}: left out")),
            }
        }
    }
    hw.busy = probed
        .contention
        .busy
        .then(|| probed.contention.reasons.join("; "));
    hw.probe = Some(probe);
    if hw.is_empty() {
        return Err(HardwareError::InvalidValue {
            origin: "measured ceilings".to_owned(),
            value: "none".to_owned(),
            reason: "no bandwidth or FLOP/s was measured".to_owned(),
        });
    }
    Ok(hw)
}

/// This machine as a probe run measures it (20 GB/s DRAM, 150 GB/s L2,
/// 0.4 TFLOP/s FP32, a 1 MiB L2 in 4 instances), for the tests of what
/// reads it.
#[cfg(test)]
pub(crate) fn sample_measured() -> Hardware {
    into_hardware(tests::probed(false)).unwrap()
}

#[cfg(test)]
mod tests {
    use profiler_core::hardware::{Measurement, MemoryLevel, Precision, Source};

    use super::super::probe::{CacheInfo, Contention};
    use super::*;

    fn measured(value: f64, method: &str) -> Figure {
        let how = Measurement {
            median: value / 2.0,
            method: method.to_owned(),
            threads: 4,
            repetitions: 3,
            ..Measurement::default()
        };
        Figure::new(
            value,
            Source::Measured {
                how: Some(Box::new(how)),
            },
        )
    }

    pub(super) fn probed(busy: bool) -> Probed {
        Probed {
            cpu: "Test CPU".into(),
            measured_at_unix_ns: 42,
            memory: vec![
                (MemoryLevel::Dram, measured(20.0, "triad")),
                (MemoryLevel::L2Cache, measured(150.0, "triad in L2")),
            ],
            compute: vec![(Precision::Fp32, measured(0.4, "fma"))],
            caches: vec![
                CacheInfo {
                    level: 2,
                    bytes: 1 << 20,
                    instances: 4,
                },
                CacheInfo {
                    level: 4,
                    bytes: 1 << 30,
                    instances: 1,
                },
            ],
            contention: Contention {
                busy,
                other_runnable: Some(u32::from(busy)),
                reasons: if busy {
                    vec!["1 other task".into(), "steal".into()]
                } else {
                    Vec::new()
                },
                ..Contention::default()
            },
            notes: vec!["a caveat".into()],
        }
    }

    #[test]
    fn a_probe_run_becomes_hardware_with_how_each_figure_was_measured() {
        let hw = into_hardware(probed(false)).unwrap();
        assert_eq!(hw.name, "Test CPU");
        let fp32 = hw.compute(Precision::Fp32).unwrap();
        assert_eq!(fp32.value, 0.4);
        assert_eq!(fp32.source.measurement().unwrap().method, "fma");
        let l2 = hw.memory(MemoryLevel::L2Cache).unwrap();
        assert_eq!(l2.source.measurement().unwrap().median, 75.0);
        assert_eq!(
            hw.cache_bytes(MemoryLevel::L2Cache).unwrap().value,
            1_048_576.0
        );
        assert_eq!(hw.cache_sizes().count(), 1, "no model level for L4");
        let probe = hw.probe.as_ref().unwrap();
        assert_eq!(probe.measured_at_unix_ns, 42);
        assert_eq!(probe.cache_instances.get(&MemoryLevel::L2Cache), Some(&4));
        assert_eq!(probe.notes, ["a caveat"]);
        assert!(hw.busy.is_none());
        let busy = into_hardware(probed(true)).unwrap();
        assert_eq!(busy.busy.as_deref(), Some("1 other task; steal"));
    }

    #[test]
    fn a_bad_figure_is_left_out_saying_so_and_none_at_all_is_an_error() {
        let mut bad = probed(false);
        bad.compute[0].1.value = f64::NAN;
        let hw = into_hardware(bad).unwrap();
        assert!(hw.compute(Precision::Fp32).is_none());
        assert!(hw.memory(MemoryLevel::Dram).is_some());
        let notes = &hw.probe.as_ref().unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|n| n.contains("FP32 peak") && n.contains("left out")),
            "{notes:?}"
        );
        let mut none = probed(false);
        none.memory.clear();
        none.compute.clear();
        let e = into_hardware(none).unwrap_err();
        assert!(e.to_string().contains("no bandwidth or FLOP/s"), "{e}");
    }
}
