//! Ceilings measured once, on a quiet machine, and kept in the user's cache
//! directory (`ceilings-<cpu model>-<cores>.toml`, a hardware file), so
//! later runs judge against the same figures whatever runs beside them.

use std::path::{Path, PathBuf};

use profiler_core::profile::MeasuredCeilings;

use profiler_core::hardware::Hardware;

use super::error::HardwareError;
use super::file::{from_file, to_toml};
use super::measured::from_measured;

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

/// Saves measured ceilings as a hardware file at `path` (folders
/// created), with how and when they were measured in its comments.
///
/// # Errors
/// [`HardwareError::BusyMachine`] when the probes saw other work on the
/// machine; the errors of [`from_measured`];
/// [`HardwareError::WriteFile`].
pub fn save_measured(ceilings: &MeasuredCeilings, path: &Path) -> Result<Hardware, HardwareError> {
    if let Some(c) = ceilings.contention.as_ref().filter(|c| c.busy) {
        return Err(HardwareError::BusyMachine {
            why: c.reasons.join("; "),
        });
    }
    let hw = from_measured(ceilings)?;
    let mut comment =
        vec![
        "Ceilings of this machine, measured by `brick-profiler probe --save` on a quiet machine."
            .to_owned(),
        format!("measured at {} ns since the Unix epoch", ceilings.measured_at_unix_ns),
    ];
    let methods = ceilings
        .memory_bandwidth
        .iter()
        .chain(&ceilings.cache_levels)
        .map(|b| format!("{}: {} ({} threads)", b.level, b.method, b.threads))
        .chain(
            ceilings
                .peak_flops
                .iter()
                .chain(&ceilings.other_peaks)
                .map(|f| {
                    format!(
                        "{}: {} on {} ({} threads)",
                        f.precision, f.method, f.isa, f.threads
                    )
                }),
        );
    comment.extend(methods);
    comment.extend(
        ceilings
            .caches
            .iter()
            .map(|c| format!("L{} size from {}", c.level, c.source)),
    );
    let write = |e| HardwareError::WriteFile {
        path: path.to_path_buf(),
        source: e,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    profiler_core::fs::write_atomic(path, to_toml(&hw, &comment).as_bytes()).map_err(write)?;
    Ok(hw)
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
    use profiler_core::hardware::{MemoryLevel, Precision, Source};
    use profiler_core::profile::{BandwidthCeiling, CacheSize, Contention, FlopsCeiling};

    fn measured(busy: bool) -> MeasuredCeilings {
        let bw = |level: &str, gb_s| BandwidthCeiling {
            gb_s,
            level: level.into(),
            method: "triad".into(),
            ..Default::default()
        };
        MeasuredCeilings {
            cpu: "AMD EPYC 7B13 \"64-Core\"".into(),
            memory_bandwidth: Some(bw("DRAM", 29.5)),
            cache_levels: vec![bw("L1", 900.0), bw("L2", 300.0), bw("L3", 120.0)],
            peak_flops: Some(FlopsCeiling {
                gflops: 475.0,
                precision: "fp32".into(),
                ..Default::default()
            }),
            other_peaks: vec![FlopsCeiling {
                gflops: 237.5,
                precision: "fp64".into(),
                ..Default::default()
            }],
            caches: vec![CacheSize {
                level: 2,
                bytes: 512 << 10,
                instances: 2,
                source: "sysfs".into(),
            }],
            contention: Some(Contention {
                busy,
                reasons: vec!["2 other task(s) were runnable".into()],
                ..Default::default()
            }),
            ..Default::default()
        }
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

        let saved = save_measured(&measured(false), &path).unwrap();
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
