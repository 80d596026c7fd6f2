//! Reading `run.measured_ceilings` of profiles written before schema 1.4:
//! the probes' ceilings with how each was measured, kept beside
//! `run.hardware`. They are read into [`Hardware`], each figure
//! [`Source::Measured`] with its [`Measurement`]; only [`Hardware`] is
//! written.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::figure::{Figure, Source};
use super::measurement::{Measurement, ProbeRun};
use super::model::Hardware;
use super::units::{MemoryLevel, Precision};

/// `run.measured_ceilings` of a profile written before schema 1.4: the
/// probes' ceilings with how each was measured. Read only, to become
/// [`Hardware`] with [`EarlierCeilings::into_hardware`].
#[derive(Debug, Default, Deserialize)]
pub(crate) struct EarlierCeilings {
    #[serde(default)]
    cpu: String,
    #[serde(default)]
    measured_at_unix_ns: u64,
    #[serde(default)]
    memory_bandwidth: Option<EarlierBandwidth>,
    #[serde(default)]
    cache_bandwidth: Option<EarlierBandwidth>,
    #[serde(default)]
    peak_flops: Option<EarlierFlops>,
    #[serde(default)]
    cache_levels: Vec<EarlierBandwidth>,
    #[serde(default)]
    other_peaks: Vec<EarlierFlops>,
    #[serde(default)]
    caches: Vec<EarlierCache>,
    #[serde(default)]
    contention: Option<EarlierContention>,
    #[serde(default)]
    notes: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EarlierBandwidth {
    gb_s: f64,
    median_gb_s: f64,
    level: String,
    method: String,
    threads: u32,
    buffer_bytes: u64,
    cache_bytes: Option<u64>,
    cache_bytes_source: String,
    repetitions: u32,
    best_spread_pct: Option<f64>,
    duration_ns: u64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EarlierFlops {
    gflops: f64,
    median_gflops: f64,
    precision: String,
    method: String,
    isa: String,
    threads: u32,
    chains: u32,
    lanes: u32,
    repetitions: u32,
    best_spread_pct: Option<f64>,
    duration_ns: u64,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EarlierCache {
    level: u32,
    bytes: u64,
    instances: u64,
    source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EarlierContention {
    busy: bool,
    other_runnable: Option<u32>,
    steal_pct: Option<f64>,
    spread_pct: f64,
    best_spread_pct: Option<f64>,
    best_cpu_pct: Option<f64>,
    reasons: Vec<String>,
    unsettled: Vec<String>,
}

impl EarlierBandwidth {
    fn figure(&self) -> Figure {
        let how = Measurement {
            median: self.median_gb_s,
            method: self.method.clone(),
            threads: self.threads,
            buffer_bytes: Some(self.buffer_bytes),
            cache_bytes: self.cache_bytes,
            cache_bytes_source: self.cache_bytes_source.clone(),
            repetitions: self.repetitions,
            best_spread_pct: self.best_spread_pct,
            duration_ns: self.duration_ns,
            ..Measurement::default()
        };
        measured(self.gb_s, how)
    }
}

impl EarlierFlops {
    /// The peak in TFLOP/s, as [`Hardware`] keeps compute ceilings.
    fn figure(&self) -> Figure {
        let how = Measurement {
            median: self.median_gflops / 1e3,
            method: self.method.clone(),
            isa: Some(self.isa.clone()),
            threads: self.threads,
            chains: Some(self.chains),
            lanes: Some(self.lanes),
            repetitions: self.repetitions,
            best_spread_pct: self.best_spread_pct,
            duration_ns: self.duration_ns,
            ..Measurement::default()
        };
        measured(self.gflops / 1e3, how)
    }
}

/// Puts `measured` under `key` unless `map` holds a different value there.
fn keep<K: Ord>(map: &mut BTreeMap<K, Figure>, key: K, measured: Figure) {
    let differs = map
        .get(&key)
        .is_some_and(|f| f.value.to_bits() != measured.value.to_bits());
    if !differs {
        map.insert(key, measured);
    }
}

fn measured(value: f64, how: Measurement) -> Figure {
    Figure::new(
        value,
        Source::Measured {
            how: Some(Box::new(how)),
        },
    )
}

impl EarlierCeilings {
    /// The ceilings as [`Hardware`], merged into the hardware the same
    /// profile recorded (`recorded`, whose figures stand where the two
    /// differ: the scorecard judged against them; where they agree the
    /// measured one, which says how, is kept): the peaks in their
    /// precisions (FP32 when the name is unknown), DRAM and every cache
    /// level probed, the cache sizes as read from sysfs, when and how the
    /// probes ran, and [`Hardware::busy`] when they saw other work. A
    /// precision or level the model does not name is left out. Figures
    /// are kept as written: the profile's own validation judges them.
    pub(crate) fn into_hardware(self, recorded: Option<Hardware>) -> Hardware {
        let name = if self.cpu.is_empty() {
            "this machine"
        } else {
            self.cpu.as_str()
        };
        let mut hw = recorded.unwrap_or_else(|| Hardware::new(name));
        if let Some(f) = &self.peak_flops {
            let p = f.precision.parse().unwrap_or(Precision::Fp32);
            keep(&mut hw.compute, p, f.figure());
        }
        for f in &self.other_peaks {
            if let Ok(p) = f.precision.parse::<Precision>() {
                keep(&mut hw.compute, p, f.figure());
            }
        }
        if let Some(bw) = &self.memory_bandwidth {
            let level = bw.level.parse().unwrap_or(MemoryLevel::Dram);
            keep(&mut hw.memory, level, bw.figure());
        }
        // Files of every cache level list L2 twice (`cache_bandwidth`
        // repeats it); earlier ones hold it alone.
        for bw in self.cache_levels.iter().chain(&self.cache_bandwidth) {
            if let Ok(level) = bw.level.parse::<MemoryLevel>() {
                keep(&mut hw.memory, level, bw.figure());
            }
        }
        let mut cache_instances = BTreeMap::new();
        for c in &self.caches {
            if let Ok(level) = format!("L{}", c.level).parse::<MemoryLevel>() {
                let source = Source::System {
                    path: c.source.clone(),
                };
                hw.cache_bytes
                    .entry(level)
                    .or_insert_with(|| Figure::new(c.bytes as f64, source));
                cache_instances.insert(level, c.instances);
            }
        }
        let contention = self.contention.unwrap_or_default();
        if hw.busy.is_none() && contention.busy {
            hw.busy = Some(contention.reasons.join("; "));
        }
        hw.probe = Some(ProbeRun {
            measured_at_unix_ns: self.measured_at_unix_ns,
            other_runnable: contention.other_runnable,
            steal_pct: contention.steal_pct,
            spread_pct: contention.spread_pct,
            best_spread_pct: contention.best_spread_pct,
            best_cpu_pct: contention.best_cpu_pct,
            unsettled: contention.unsettled,
            cache_instances,
            notes: self.notes,
        });
        hw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile of schema 1.3: the scorecard's figures in `run.hardware`,
    /// the probes' ceilings beside them.
    const SCHEMA_1_3: &str = r#"{"schema_version": "1.3", "run": {
        "hardware": {"name": "Xeon (measured)", "peak_bw_gb_s": 4.25,
            "peak_tflops": 0.0045, "bytes_per_token": 80772.0},
        "measured_ceilings": {"cpu": "Xeon", "measured_at_unix_ns": 17,
            "memory_bandwidth": {"gb_s": 4.25, "median_gb_s": 3.5, "level": "DRAM",
                "method": "triad", "threads": 2, "buffer_bytes": 268435456,
                "cache_bytes": 503316480, "cache_bytes_source": "sysfs",
                "repetitions": 5, "duration_ns": 1000},
            "cache_bandwidth": {"gb_s": 3.9, "level": "L2", "method": "triad",
                "threads": 2, "buffer_bytes": 699040, "repetitions": 5, "duration_ns": 9},
            "peak_flops": {"gflops": 4.5, "median_gflops": 4.25, "precision": "fp32",
                "method": "fma", "isa": "avx512f", "threads": 2, "chains": 16,
                "lanes": 16, "repetitions": 5, "duration_ns": 7},
            "other_peaks": [{"gflops": 2.25, "precision": "fp64", "method": "fma",
                "isa": "avx512f", "threads": 2, "chains": 16, "lanes": 8,
                "repetitions": 3, "duration_ns": 7},
                {"gflops": 9.0, "precision": "fp8", "method": "x", "isa": "x",
                "threads": 1, "chains": 1, "lanes": 1, "repetitions": 1, "duration_ns": 1}],
            "caches": [{"level": 2, "bytes": 2097152, "instances": 2, "source": "sysfs"}],
            "contention": {"busy": true, "other_runnable": 3, "spread_pct": 12.5,
                "reasons": ["3 other tasks were runnable"]},
            "notes": ["arrays capped"]}}}"#;

    #[test]
    fn measured_ceilings_of_schema_1_3_read_into_the_recorded_hardware() {
        let p = crate::Profile::from_json(SCHEMA_1_3).unwrap();
        let hw = p.run.hardware.expect("hardware");
        // The recorded figures stand: the scorecard judged against them.
        assert_eq!(hw.name, "Xeon (measured)");
        assert_eq!(hw.dense_peak_tflops(), Some(0.0045));
        assert_eq!(hw.bytes_per_token().unwrap().value, 80772.0);
        // The measured DRAM figure agrees with the recorded one: it is
        // kept, with how it was measured.
        let dram = hw.memory(MemoryLevel::Dram).unwrap();
        assert_eq!(dram.value, 4.25);
        let how = dram.source.measurement().expect("how DRAM was measured");
        assert_eq!((how.median, how.threads, how.repetitions), (3.5, 2, 5));
        assert_eq!(how.buffer_bytes, Some(268_435_456));
        assert_eq!(how.cache_bytes, Some(503_316_480));
        // Peaks become TFLOP/s; a precision the model does not name is left out.
        let fp32 = hw.compute(Precision::Fp32).unwrap();
        assert_eq!(fp32.value, 0.0045);
        let how = fp32.source.measurement().unwrap();
        assert_eq!(how.isa.as_deref(), Some("avx512f"));
        assert_eq!((how.chains, how.lanes), (Some(16), Some(16)));
        assert_eq!(how.median, 0.00425);
        assert_eq!(hw.compute(Precision::Fp64).unwrap().value, 0.00225);
        assert_eq!(hw.compute_ceilings().count(), 4, "FP32, FP16, BF16, FP64");
        assert_eq!(hw.memory(MemoryLevel::L2Cache).unwrap().value, 3.9);
        let l2 = hw.cache_bytes(MemoryLevel::L2Cache).unwrap();
        assert_eq!(l2.value, 2_097_152.0);
        assert_eq!(l2.source.to_string(), "sysfs");
        assert_eq!(hw.busy.as_deref(), Some("3 other tasks were runnable"));
        let probe = hw.probe.expect("how the probes ran");
        assert_eq!(probe.measured_at_unix_ns, 17);
        assert_eq!(probe.other_runnable, Some(3));
        assert_eq!(probe.spread_pct, 12.5);
        assert_eq!(probe.cache_instances.get(&MemoryLevel::L2Cache), Some(&2));
        assert_eq!(probe.notes, ["arrays capped"]);
    }

    #[test]
    fn measured_ceilings_alone_become_the_hardware_and_are_not_written_again() {
        let mut old: serde_json::Value = serde_json::from_str(SCHEMA_1_3).unwrap();
        old["run"]["hardware"] = serde_json::Value::Null;
        let p = crate::Profile::from_json(&old.to_string()).unwrap();
        let hw = p.run.hardware.clone().unwrap();
        assert_eq!(hw.name, "Xeon");
        assert!(hw.dense_peak().is_none());
        assert!(hw.memory(MemoryLevel::Dram).unwrap().source.is_measured());
        let json = p.to_json();
        assert!(!json.contains("measured_ceilings"), "{json}");
        let back = crate::Profile::from_json(&json).unwrap();
        assert_eq!(back.run.hardware, Some(hw));
        // A bad figure is named where the profile now holds it.
        old["run"]["measured_ceilings"]["memory_bandwidth"]["gb_s"] = serde_json::json!(-1.0);
        let e = crate::Profile::from_json(&old.to_string()).unwrap_err();
        assert!(e.to_string().contains("run.hardware.memory.DRAM"), "{e}");
    }

    #[test]
    fn a_figure_measured_without_its_facts_reads_and_round_trips() {
        let f: Figure =
            serde_json::from_str(r#"{"value": 3.0, "source": {"kind": "measured"}}"#).unwrap();
        assert_eq!(f.source, Source::Measured { how: None });
        let how = Measurement {
            median: 2.5,
            method: "triad".into(),
            repetitions: 4,
            ..Measurement::default()
        };
        let f = Figure::new(
            3.0,
            Source::Measured {
                how: Some(Box::new(how)),
            },
        );
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.contains(r#""kind":"measured""#), "{json}");
        assert_eq!(serde_json::from_str::<Figure>(&json).unwrap(), f);
    }
}
