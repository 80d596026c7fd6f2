//! Shared helpers for tests that drive real outside programs: finding the
//! Python environment and server binaries that `.ci/run` installs, picking
//! free loopback ports, and waiting with a bound.
//!
//! These tests live outside the default members because they need those
//! programs; `.ci/run` installs them and runs `cargo test -p profiler-integration`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a test needs and did not find, with how to install it.
#[derive(Debug, thiserror::Error)]
pub enum Missing {
    /// A program is not on `PATH`.
    #[error("`{program}` is not installed (not on PATH); install it with: {install}")]
    Program {
        /// The program looked for.
        program: String,
        /// How to install it.
        install: String,
    },
    /// The Python environment with the test's packages is missing.
    #[error(
        "no Python environment at {path} (or set PROFILER_PYTHON); create it with: \
         python3 -m venv .venv && .venv/bin/pip install -r requirements-ci.txt"
    )]
    Python {
        /// Where it was looked for.
        path: PathBuf,
    },
}

/// The workspace root.
pub fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
}

/// The Python interpreter of the test environment: `PROFILER_PYTHON`, else
/// `.venv/bin/python3` in the workspace (made by `.ci/run`).
pub fn python() -> Result<PathBuf, Missing> {
    let path = std::env::var_os("PROFILER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".venv/bin/python3"));
    if path.is_file() {
        Ok(path)
    } else {
        Err(Missing::Python { path })
    }
}

/// The full path of `program` on `PATH`, or how to install it.
pub fn program(program: &str, install: &str) -> Result<PathBuf, Missing> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .ok_or_else(|| Missing::Program {
            program: program.to_owned(),
            install: install.to_owned(),
        })
}

/// A loopback port that was free a moment ago.
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Calls `probe` every 100 ms until it returns `Some`, for at most `limit`.
pub fn wait_for<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Steps of [`run_ranks`]'s run, the first [`RUN_WARMUP`] not recorded.
pub const RUN_STEPS: u64 = 12;
/// Warm-up steps of [`run_ranks`]'s run.
pub const RUN_WARMUP: u64 = 2;

/// Runs the main job (`train_tiny`, this package's binary at `exe`) as
/// `ranks` processes at a small size into `out`, with `--slow-rank` when
/// given; each rank writes `out/rank-NNNNN/`.
///
/// # Errors
/// The run's own message when it cannot start or a rank fails.
pub fn run_ranks(exe: &Path, out: &Path, ranks: u32, slow: Option<u32>) -> Result<(), String> {
    run_ranks_with(exe, out, ranks, slow, &[])
}

/// [`run_ranks`] with `extra` arguments for the job (`--allreduce`).
///
/// # Errors
/// The run's own message when it cannot start or a rank fails.
pub fn run_ranks_with(
    exe: &Path,
    out: &Path,
    ranks: u32,
    slow: Option<u32>,
    extra: &[&str],
) -> Result<(), String> {
    let mut cmd = std::process::Command::new(exe);
    cmd.args(extra);
    let (steps, warmup) = (RUN_STEPS.to_string(), RUN_WARMUP.to_string());
    cmd.args(["--ranks", &ranks.to_string(), "--out"])
        .arg(out)
        .args(["--steps", &steps, "--warmup", &warmup, "--log-every", "100"])
        .args([
            "--layers", "2", "--width", "32", "--heads", "2", "--seq", "32",
        ])
        .args(["--batch", "2"]);
    if let Some(rank) = slow {
        cmd.args(["--slow-rank", &rank.to_string()]);
    }
    let done = cmd
        .output()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    if done.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} failed ({}): {}",
            exe.display(),
            done.status,
            String::from_utf8_lossy(&done.stderr)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_says_how_to_install_it() {
        let err = program("no-such-program-here", "apt-get install nothing").unwrap_err();
        assert!(err.to_string().contains("apt-get install nothing"), "{err}");
    }

    #[test]
    fn wait_for_gives_up_after_its_limit() {
        let mut calls = 0;
        assert_eq!(
            wait_for(Duration::from_millis(250), || {
                calls += 1;
                None::<()>
            }),
            None
        );
        assert!(calls >= 2, "{calls}");
    }
}
