//! Helpers of the end-to-end tests: running the binary, golden files
//! (`UPDATE_GOLDEN=1` rewrites them), fixtures and constructed profiles.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use profiler_core::stats::{HistBucket, LatencyHistogram};
use profiler_core::{BrickCategory, BrickStats, Profile};

/// The workspace root (tests run the binary from there, so paths in
/// outputs are stable).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

/// A small saved profile of the main job (train_tiny, 2 layers, 6 steps,
/// trace mode, measured ceilings), relative to the root.
pub const PROFILE: &str = "brick-profiler-cli/tests/fixtures/profile.json";

/// An Nsight fixture, relative to the root.
pub fn nsight(name: &str) -> String {
    format!("tests/fixtures/nsight/{name}")
}

/// What a run of the binary printed and returned.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Asserts the exit code, showing the output when it differs.
    #[track_caller]
    pub fn expect(self, code: i32) -> Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// Runs `brick-profiler ARGS` in `dir` with `path` as PATH (the test's
/// own when `None`).
pub fn run_with(dir: &Path, args: &[&str], path: Option<&str>) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_brick-profiler"));
    cmd.args(args).current_dir(dir);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let out = cmd.output().expect("the binary runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `brick-profiler ARGS` from the workspace root.
pub fn run(args: &[&str]) -> Out {
    run_with(&root(), args, None)
}

/// Compares `actual` with `tests/golden/NAME`; `UPDATE_GOLDEN=1` rewrites it.
#[track_caller]
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("golden file written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "golden file {} missing ({e}); run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "{name} differs from its golden file (UPDATE_GOLDEN=1 to accept); actual:\n{actual}"
    );
}

/// Deterministic samples around `center` ns, spread `±spread` (relative).
pub fn samples(center: f64, spread: f64, n: usize, seed: u64) -> Vec<u64> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).max(1);
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state % 10_000) as f64 / 10_000.0 * 2.0 - 1.0;
            (center * (1.0 + spread * u)).round() as u64
        })
        .collect()
}

/// A brick whose latency histogram holds `values` (16 buckets per octave,
/// as the recorder keeps them).
pub fn brick(name: &str, values: &[u64]) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    let mut buckets = std::collections::BTreeMap::<i64, u64>::new();
    for &v in values {
        *buckets
            .entry((16.0 * (v as f64).log2()).floor() as i64)
            .or_default() += 1;
    }
    b.latency = LatencyHistogram {
        buckets: buckets
            .into_iter()
            .map(|(i, count)| HistBucket {
                lo_ns: 2f64.powf(i as f64 / 16.0).ceil() as u64,
                hi_ns: 2f64.powf((i + 1) as f64 / 16.0).ceil() as u64,
                count,
            })
            .collect(),
    };
    b.count = values.len() as u64;
    b.total_ns = values.iter().sum();
    b.min_ns = values.iter().copied().min().unwrap_or(u64::MAX);
    b.max_ns = values.iter().copied().max().unwrap_or(0);
    b
}

/// A profile of `bricks` with step samples `steps` (ns).
pub fn profile(name: &str, bricks: Vec<BrickStats>, steps: Vec<u64>) -> Profile {
    let mut p = Profile::empty();
    p.run.name = name.to_owned();
    p.bricks = bricks;
    p.steps.count = steps.len() as u64;
    p.steps.tokens = 512 * steps.len() as u64;
    p.steps.total_ns = steps.iter().sum();
    p.steps.samples_ns = steps;
    p
}

/// Runs the binary in `dir`, killing it after a generous deadline that only
/// detects a hang.
pub fn run_bounded(dir: &Path, args: &[&str]) -> Option<Out> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brick-profiler"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    Some(Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}
