//! The compile-time off switch: runs the tests of `tests/compiled-out`, a
//! separate package (and workspace) that depends on `profiler` with the
//! `off` feature, so the feature cannot leak into this workspace's build.
//! Its tests assert that annotated functions record nothing and register no
//! call site, and that bad macro arguments are still compile errors.

use std::path::Path;
use std::process::Command;

#[test]
fn compiled_out_package_records_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("tests/compiled-out/Cargo.toml");
    // Pin the package to exactly the workspace's dependency versions (cargo
    // prunes what it does not use), so it needs no resolution of its own.
    std::fs::copy(
        root.join("Cargo.lock"),
        root.join("tests/compiled-out/Cargo.lock"),
    )
    .expect("the workspace has a Cargo.lock");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .arg("test")
        .arg("--manifest-path")
        .arg(&manifest)
        // One build folder for the nested packages: their dependencies build once.
        .env("CARGO_TARGET_DIR", root.join("target/nested"))
        .output()
        .expect("cargo can be run");
    assert!(
        output.status.success(),
        "`cargo test --manifest-path {}` failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        manifest.display(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("annotated_functions_record_nothing ... ok"),
        "the compiled-out tests did not run:\n{stdout}"
    );
}
