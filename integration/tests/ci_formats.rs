//! `diff`'s outputs for CI tools, checked by those tools' own rules: the
//! Bencher Metric Format against the JSON Schema Bencher publishes, the
//! github-action-benchmark file by that action's own zod schema (Node),
//! JUnit XML by `junitparser`, and the example workflow by the schema the
//! GitHub Actions ecosystem publishes (`check-jsonschema`'s vendored
//! `github-workflows`). Each check is also shown a broken input, so a
//! validator that accepts anything fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

use profiler::Profile;
use profiler::alloc::{BrickMemory, MemoryKind};
use profiler_integration::{program, python, workspace_root};
use profiler_report::diff::{Criteria, ProfileDiff, compute_diff};
use profiler_report::run::RunSummary;

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

/// A small run of the main job into `out`.
fn run(out: &Path, slow: bool) -> RunSummary {
    let mut cmd = Command::new(EXE);
    cmd.arg("--out")
        .arg(out)
        .args(["--steps", "30", "--warmup", "2", "--log-every", "1000"])
        .args([
            "--layers", "1", "--width", "16", "--heads", "2", "--seq", "16",
        ])
        .args(["--batch", "2", "--no-ceilings"]);
    if slow {
        cmd.args(["--slow", "RmsNorm=3"]);
    }
    let done = cmd.output().expect("train_tiny starts");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let profile = Profile::read(out.join("profile.json")).expect("profile reads back");
    let mut run = RunSummary::from_profile(&profile, out.display().to_string());
    // The main job's bricks compute into buffers made before the first
    // step: in steady state no brick allocates, so the memory a run charges
    // to a brick is added here, for the `peak-bytes` measure to be checked.
    if run.memory.is_empty() {
        run.memory.push(BrickMemory {
            name: "RmsNorm".into(),
            kind: MemoryKind::Host,
            calls: 100,
            allocated_bytes: 4096,
            allocations: 1,
            freed_bytes: 4096,
            peak_bytes: 4096,
            retained_bytes: 0,
            self_allocated_bytes: 4096,
            self_allocations: 1,
            self_freed_bytes: 4096,
        });
    }
    run
}

/// Two baselines and a run with RmsNorm three times as slow.
fn diff(dir: &Path) -> ProfileDiff {
    let base = [run(&dir.join("a"), false), run(&dir.join("b"), false)];
    compute_diff(&base, &run(&dir.join("slow"), true), &Criteria::default())
}

/// `program args...`: exit success and stdout.
fn check(program: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("written");
    path
}

/// `check-jsonschema` of the test environment, or how to install it.
fn check_jsonschema() -> PathBuf {
    let python = python().unwrap_or_else(|e| panic!("{e}"));
    let exe = python.with_file_name("check-jsonschema");
    assert!(
        exe.is_file(),
        "check-jsonschema is not installed at {}: .venv/bin/pip install -r requirements-ci.txt",
        exe.display()
    );
    exe
}

#[test]
fn formats_validate_against_their_projects_rules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = diff(dir.path());
    assert!(d.regressed(false), "RmsNorm three times as slow: {d}");

    // Bencher Metric Format: Bencher's published JSON Schema.
    let schema = workspace_root().join("tests/fixtures/real/ci/bencher-bmf.schema.json");
    let schema = schema.to_str().expect("utf-8 path");
    let validator = check_jsonschema();
    let bmf = write(dir.path(), "bmf.json", &d.to_bmf());
    let (ok, out) = check(&validator, &["--schemafile", schema, bmf.to_str().unwrap()]);
    assert!(ok, "BMF rejected by Bencher's schema: {out}");
    let v: serde_json::Value = serde_json::from_str(&d.to_bmf()).unwrap();
    let rms = &v["RmsNorm"]["latency"];
    assert!(
        rms["lower_value"].as_f64() <= rms["value"].as_f64(),
        "{rms}"
    );
    assert!(
        v["step"]["throughput"]["value"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    // Each brick's host memory peak is in the file.
    let host: Vec<_> = d
        .memory
        .iter()
        .filter(|m| m.kind == MemoryKind::Host)
        .collect();
    assert!(!host.is_empty(), "{d}");
    for m in host {
        assert_eq!(
            v[&m.name]["peak-bytes"]["value"].as_f64(),
            Some(m.peak_bytes.1 as f64),
            "{}",
            m.name
        );
    }
    let broken = write(
        dir.path(),
        "broken-bmf.json",
        r#"{"x": {"latency": {"value": "fast"}}}"#,
    );
    let (ok, _) = check(
        &validator,
        &["--schemafile", schema, broken.to_str().unwrap()],
    );
    assert!(!ok, "the schema must reject a string value");

    // github-action-benchmark: its own zod schema, run by Node.
    let node = program("node", "apt-get install nodejs").unwrap_or_else(|e| panic!("{e}"));
    let script = workspace_root().join("integration/tests/gab/validate.mjs");
    assert!(
        workspace_root()
            .join("integration/tests/gab/node_modules/zod")
            .is_dir(),
        "zod is not installed: npm install --no-save --no-package-lock --prefix \
         integration/tests/gab zod@4.1.5 (as .ci/run does)"
    );
    let gab = write(dir.path(), "gab.json", &d.to_gab());
    let script = script.to_str().unwrap();
    let (ok, out) = check(&node, &[script, gab.to_str().unwrap()]);
    assert!(ok, "github-action-benchmark rejects the file: {out}");
    let parsed: serde_json::Value = serde_json::from_str(out.trim()).expect("entries printed");
    assert_eq!(
        parsed.as_array().map(Vec::len),
        serde_json::from_str::<serde_json::Value>(&d.to_gab())
            .unwrap()
            .as_array()
            .map(Vec::len)
    );
    let broken = write(
        dir.path(),
        "broken-gab.json",
        r#"[{"name": "x", "value": "fast", "unit": "ns"}]"#,
    );
    let (ok, _) = check(&node, &[script, broken.to_str().unwrap()]);
    assert!(!ok, "the action must reject a value that is not a number");
    let empty = write(dir.path(), "empty-gab.json", "[]");
    assert!(
        !check(&node, &[script, empty.to_str().unwrap()]).0,
        "no entry is an error"
    );

    // JUnit XML: junitparser reads the counts back.
    let python = python().unwrap_or_else(|e| panic!("{e}"));
    let junit = write(dir.path(), "junit.xml", &d.to_junit());
    let read = "import sys; from junitparser import JUnitXml; x = JUnitXml.fromfile(sys.argv[1]); \
                x.update_statistics(); \
                print(x.tests, x.failures, x.errors, x.skipped, \
                sum(1 for s in x for c in s if any(r._tag == 'failure' for r in c.result)))";
    let (ok, out) = check(&python, &["-c", read, junit.to_str().unwrap()]);
    assert!(
        ok,
        "junitparser cannot read the file (pip install -r requirements-ci.txt): {out}"
    );
    let counts: Vec<usize> = out.split_whitespace().map(|n| n.parse().unwrap()).collect();
    let failures = d.regressions().count() + d.memory_regressions().count();
    let tests = d.rows().count() + d.memory.len();
    assert_eq!(counts[0], tests, "{out}");
    assert_eq!((counts[1], counts[4]), (failures, failures), "{out}");
    assert_eq!(counts[2], 0, "{out}");
}

#[test]
fn the_example_workflow_is_a_valid_github_actions_workflow() {
    let validator = check_jsonschema();
    let workflow = workspace_root().join("examples/ci/perf-gate.yml");
    let args = ["--builtin-schema", "vendor.github-workflows"];
    let (ok, out) = check(&validator, &[args[0], args[1], workflow.to_str().unwrap()]);
    assert!(ok, "examples/ci/perf-gate.yml: {out}");
    // A misspelt key is caught: the check is real.
    let text = std::fs::read_to_string(&workflow).expect("workflow reads");
    let dir = tempfile::tempdir().expect("temp dir");
    let broken = write(
        dir.path(),
        "broken.yml",
        &text.replacen("runs-on:", "run-on:", 1),
    );
    let (ok, _) = check(&validator, &[args[0], args[1], broken.to_str().unwrap()]);
    assert!(!ok, "a job without runs-on must be rejected");
    // The gate fails the job on a regression and posts the summary.
    for needle in [
        "--format markdown",
        "--format junit",
        "--format bmf",
        "gh pr comment",
        "exit 1",
    ] {
        assert!(text.contains(needle), "{needle}");
    }
}
