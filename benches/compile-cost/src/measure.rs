//! Timing one crate's release build: wall-clock time, and the CPU time
//! (user + system) of everything the build ran, which a busy machine
//! disturbs less than wall-clock time.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// One build of one crate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    /// Wall-clock seconds.
    pub(crate) wall: f64,
    /// CPU seconds of the build's processes, where the OS reports them.
    pub(crate) cpu: Option<f64>,
}

/// Builds `package` (in folder `folder`) in release mode in the workspace at
/// `dir`, after marking its source changed, so that only its own crate is
/// compiled.
pub(crate) fn build(dir: &Path, folder: &str, package: &str) -> Result<Sample, String> {
    let lib = dir.join(folder).join("src/lib.rs");
    let file = std::fs::File::options()
        .append(true)
        .open(&lib)
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    file.set_modified(std::time::SystemTime::now())
        .map_err(|e| format!("{}: {e}", lib.display()))?;
    let cpu_before = children_cpu_seconds();
    let start = Instant::now();
    let output = cargo(
        dir,
        &["build", "--release", "--quiet", "--package", package],
    )?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = children_cpu_seconds()
        .zip(cpu_before)
        .map(|(after, before)| after - before);
    if !output.is_empty() {
        return Err(format!("building {package} printed:\n{output}"));
    }
    Ok(Sample { wall, cpu })
}

/// Runs cargo in `dir`; `Ok` with its stderr when it succeeded.
pub(crate) fn cargo(dir: &Path, args: &[&str]) -> Result<String, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.status.success() {
        Ok(stderr)
    } else {
        Err(format!("`cargo {}` failed:\n{stderr}", args.join(" ")))
    }
}

/// CPU seconds of this process's finished children (`cutime + cstime` of
/// `/proc/self/stat`, in the kernel's fixed 100 Hz units); `None` off Linux.
fn children_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name, which may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // cutime and cstime are fields 16 and 17 of the whole line.
    let ticks: f64 = fields.get(13)?.parse::<f64>().ok()? + fields.get(14)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Median and range of `values` (which must not be empty).
pub(crate) fn summary(values: &mut [f64]) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    (median, values[0], values[n - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ranges() {
        assert_eq!(summary(&mut [3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(summary(&mut [4.0, 1.0, 2.0, 3.0]), (2.5, 1.0, 4.0));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn children_cpu_time_is_readable_on_linux() {
        let before = children_cpu_seconds().expect("/proc/self/stat");
        let status = Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .status()
            .expect("sh");
        assert!(status.success());
        let after = children_cpu_seconds().expect("/proc/self/stat");
        assert!(after > before, "{before} -> {after}");
    }
}
