//! `crate = path` on a real renamed dependency: builds and tests
//! `tests/renamed-dep`, a separate package (and workspace) that depends on
//! the facade as `prof = { package = "brick-profiler", .. }`, where no crate
//! named `profiler` is in scope. Also built with the `off` feature, whose
//! expansion reaches the runtime through the same path.

use std::path::Path;
use std::process::Command;

fn cargo(args: &[&str]) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let package = root.join("tests/renamed-dep");
    // Pin the package to exactly the workspace's dependency versions.
    std::fs::copy(root.join("Cargo.lock"), package.join("Cargo.lock"))
        .expect("the workspace has a Cargo.lock");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .arg("--manifest-path")
        .arg(package.join("Cargo.toml"))
        // One build folder for the nested packages: their dependencies build once.
        .env("CARGO_TARGET_DIR", root.join("target/nested"))
        .output()
        .expect("cargo can be run");
    let text = format!(
        "`cargo {}` ({})\n--- stdout\n{}\n--- stderr\n{}",
        args.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    (output.status.success(), text)
}

#[test]
fn renamed_dependency_builds_and_records_with_crate_path() {
    let (ok, output) = cargo(&["test"]);
    assert!(ok, "{output}");
    assert!(
        output.contains("renamed_dependency_records_through_crate_path ... ok"),
        "the renamed-dependency test did not run:\n{output}"
    );
}

#[test]
fn renamed_dependency_builds_with_instrumentation_compiled_out() {
    let (ok, output) = cargo(&["check", "--features", "off"]);
    assert!(ok, "{output}");
}
