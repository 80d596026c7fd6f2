//! Ceilings measured once, on a quiet machine, and kept in the user's cache
//! directory (`ceilings-<cpu model>-<cores>.toml`, a hardware file), so
//! later runs judge against the same figures whatever runs beside them.

use std::path::{Path, PathBuf};

use profiler_core::hardware::{Hardware, MemoryLevel};

use super::error::HardwareError;
use super::file::{from_file, to_toml};

/// Folder of the saved ceilings inside the user's cache directory.
pub const SAVED_DIR: &str = "brick-profiler";

/// The file name the ceilings of a `cpu` with `cores` logical CPUs are
/// saved under: `ceilings-<cpu model>-<cores>.toml`, the model lowercased
/// with every run of other characters than letters and digits one `-`.
#[must_use]
pub fn saved_file_name(cpu: &str, cores: usize) -> String {
    let mut slug = String::new();
    for c in cpu.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "unknown-cpu" } else { slug };
    format!("ceilings-{slug}-{cores}.toml")
}

/// Where this machine's saved ceilings live: `$XDG_CACHE_HOME`, else
/// `$HOME/.cache`, then `brick-profiler/ceilings-<cpu model>-<cores>.toml`;
/// settings are looked up through `var`.
///
/// # Errors
/// [`HardwareError::NoCacheDir`] when neither variable is set.
pub fn saved_ceilings_path(var: impl Fn(&str) -> Option<String>) -> Result<PathBuf, HardwareError> {
    let set = |k: &str| var(k).filter(|v| !v.trim().is_empty()).map(PathBuf::from);
    let cache = set("XDG_CACHE_HOME")
        .or_else(|| set("HOME").map(|h| h.join(".cache")))
        .ok_or(HardwareError::NoCacheDir)?;
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let cpu = super::probe::cpu_name();
    Ok(cache.join(SAVED_DIR).join(saved_file_name(&cpu, cores)))
}

/// Saves this machine as the probes measured it ([`measure`](super::measured::measure))
/// as a hardware file at `path` (folders created), with how and when each
/// figure was measured in its comments.
///
/// # Errors
/// [`HardwareError::BusyMachine`] when the probes saw other work on the
/// machine; [`HardwareError::WriteFile`].
pub fn save_measured(hw: &Hardware, path: &Path) -> Result<(), HardwareError> {
    if let Some(why) = &hw.busy {
        return Err(HardwareError::BusyMachine { why: why.clone() });
    }
    let mut comment = vec![
        "Ceilings of this machine, measured by `brick-profiler probe --save` on a quiet machine."
            .to_owned(),
        format!(
            "measured at {} ns since the Unix epoch",
            hw.probe.as_ref().map_or(0, |p| p.measured_at_unix_ns)
        ),
    ];
    // DRAM first, then the caches fastest first, then the peaks.
    let memory = hw
        .memory_ceilings()
        .filter(|(l, _)| *l == MemoryLevel::Dram)
        .chain(hw.memory_ceilings().filter(|(l, _)| *l < MemoryLevel::Dram));
    for (level, f) in memory {
        if let Some(how) = f.source.measurement() {
            comment.push(format!("{level}: {} ({} threads)", how.method, how.threads));
        }
    }
    for (precision, f) in hw.compute_ceilings() {
        if let Some(how) = f.source.measurement() {
            comment.push(format!(
                "{}: {} on {} ({} threads)",
                precision.name().to_ascii_lowercase(),
                how.method,
                how.isa.as_deref().unwrap_or("?"),
                how.threads
            ));
        }
    }
    comment.extend(
        hw.cache_sizes()
            .map(|(level, f)| format!("{level} size from {}", f.source)),
    );
    let write = |e| HardwareError::WriteFile {
        path: path.to_path_buf(),
        source: e,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    profiler_core::fs::write_atomic(path, to_toml(hw, &comment).as_bytes()).map_err(write)
}

/// The saved ceilings at `path`, when the file exists: `Ok(None)` when it
/// does not.
///
/// # Errors
/// As [`from_file`].
pub fn load_saved(path: &Path) -> Result<Option<Hardware>, HardwareError> {
    if !path.exists() {
        return Ok(None);
    }
    from_file(path).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use profiler_core::hardware::{Figure, Measurement, Precision, ProbeRun, Source};

    fn measured(busy: bool) -> Hardware {
        let how = |method: &str| Source::Measured {
            how: Some(Box::new(Measurement {
                method: method.into(),
                threads: 2,
                ..Measurement::default()
            })),
        };
        let mut hw = Hardware::new("AMD EPYC 7B13 \"64-Core\"");
        for (level, gb_s) in [
            (MemoryLevel::Dram, 29.5),
            (MemoryLevel::L1Cache, 900.0),
            (MemoryLevel::L2Cache, 300.0),
            (MemoryLevel::L3Cache, 120.0),
        ] {
            hw.set_memory(level, Figure::new(gb_s, how("triad")))
                .unwrap();
        }
        for (p, tflops) in [(Precision::Fp32, 0.475), (Precision::Fp64, 0.2375)] {
            hw.set_compute(p, Figure::new(tflops, how("fma"))).unwrap();
        }
        let sysfs = Source::System {
            path: "sysfs".into(),
        };
        hw.set_cache_bytes(MemoryLevel::L2Cache, Figure::new(524_288.0, sysfs))
            .unwrap();
        hw.busy = busy.then(|| "2 other task(s) were runnable".to_owned());
        hw.probe = Some(ProbeRun {
            measured_at_unix_ns: 7,
            ..ProbeRun::default()
        });
        hw
    }

    #[test]
    fn file_names_key_on_cpu_model_and_cores() {
        assert_eq!(
            saved_file_name("AMD EPYC 7B13 64-Core Processor", 16),
            "ceilings-amd-epyc-7b13-64-core-processor-16.toml"
        );
        assert_eq!(saved_file_name("", 2), "ceilings-unknown-cpu-2.toml");
        let vars = |k: &str| (k == "HOME").then(|| "/home/u".to_owned());
        let p = saved_ceilings_path(vars).unwrap();
        assert!(
            p.starts_with("/home/u/.cache/brick-profiler"),
            "{}",
            p.display()
        );
        let xdg = |k: &str| (k == "XDG_CACHE_HOME").then(|| "/c".to_owned());
        assert!(
            saved_ceilings_path(xdg)
                .unwrap()
                .starts_with("/c/brick-profiler")
        );
        assert!(matches!(
            saved_ceilings_path(|_| None),
            Err(HardwareError::NoCacheDir)
        ));
    }

    #[test]
    fn quiet_ceilings_save_and_read_back_busy_ones_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/ceilings.toml");
        assert!(load_saved(&path).unwrap().is_none());
        let e = save_measured(&measured(true), &path).unwrap_err();
        assert!(e.to_string().contains("busy machine"), "{e}");
        assert!(!path.exists());

        let saved = measured(false);
        save_measured(&saved, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in [
            "measured at 7 ns",
            "DRAM: triad (2 threads)",
            "fp64: fma on ? (2 threads)",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        let back = load_saved(&path).unwrap().unwrap();
        assert_eq!(back.name, saved.name);
        for level in [
            MemoryLevel::L1Cache,
            MemoryLevel::L2Cache,
            MemoryLevel::L3Cache,
            MemoryLevel::Dram,
        ] {
            assert_eq!(
                back.memory(level).map(|f| f.value),
                saved.memory(level).map(|f| f.value)
            );
        }
        assert_eq!(back.compute(Precision::Fp64).unwrap().value, 0.2375);
        assert_eq!(
            back.cache_bytes(MemoryLevel::L2Cache).unwrap().value,
            524_288.0
        );
        assert!(matches!(
            back.memory(MemoryLevel::Dram).unwrap().source,
            Source::File { .. }
        ));
        assert!(back.busy.is_none());
    }
}
