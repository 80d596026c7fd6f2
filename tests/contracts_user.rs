//! A user crate with its own `contracts/` folder (`tests/contracts-user`, a
//! separate package and workspace): its build script generates contract
//! macros, `#[contract]` reads its equations, checks fire in debug builds
//! and compile out in release; editing a contract regenerates the macros,
//! and a malformed one fails the build naming the file, line and field.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cargo(args: &[&str], manifest: &Path) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .args(args)
        .arg("--manifest-path")
        .arg(manifest)
        // One build folder for the nested packages: their dependencies build once.
        .env("CARGO_TARGET_DIR", root().join("target/nested"))
        .output()
        .expect("cargo can be run")
}

fn text(output: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The package, pinned to the workspace's dependency versions.
fn package() -> PathBuf {
    let dir = root().join("tests/contracts-user");
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).expect("a Cargo.lock");
    dir.join("Cargo.toml")
}

#[test]
fn generated_macros_check_in_debug_and_compile_out_in_release() {
    let manifest = package();
    let debug = cargo(&["test"], &manifest);
    assert!(debug.status.success(), "{}", text(&debug));
    let out = String::from_utf8_lossy(&debug.stdout);
    assert!(
        out.contains("a_full_cache_breaks_the_generated_precondition ... ok"),
        "{out}"
    );
    assert!(
        out.contains("an_unnormalised_softmax_breaks_the_attribute_postcondition ... ok"),
        "{out}"
    );

    let release = cargo(&["test", "--release"], &manifest);
    assert!(release.status.success(), "{}", text(&release));
    let out = String::from_utf8_lossy(&release.stdout);
    assert!(
        out.contains("release_builds_compile_the_checks_out ... ok"),
        "{out}"
    );
    assert!(
        !out.contains("a_full_cache_breaks_the_generated_precondition"),
        "{out}"
    );
}

/// A copy of the package in a temporary folder, with absolute paths.
fn scratch_package() -> (tempfile::TempDir, PathBuf) {
    let src = root().join("tests/contracts-user");
    let dir = tempfile::tempdir().unwrap();
    for sub in ["src", "contracts"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    for file in ["build.rs", "src/lib.rs", "contracts/kv-cache-v1.yaml"] {
        std::fs::copy(src.join(file), dir.path().join(file)).unwrap();
    }
    // Another name, so its build-script output never mixes with the package's.
    let manifest = std::fs::read_to_string(src.join("Cargo.toml"))
        .unwrap()
        .replace(
            "\"profiler-contracts-user\"",
            "\"profiler-contracts-scratch\"",
        )
        .replace("\"../..\"", &format!("{:?}", root()))
        .replace(
            "\"../../brick-profiler-contracts\"",
            &format!("{:?}", root().join("brick-profiler-contracts")),
        );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let manifest = dir.path().join("Cargo.toml");
    (dir, manifest)
}

#[test]
fn editing_a_contract_regenerates_and_a_malformed_one_fails_the_build() {
    let (dir, manifest) = scratch_package();
    let yaml = dir.path().join("contracts/kv-cache-v1.yaml");
    let original = std::fs::read_to_string(&yaml).unwrap();

    let ok = cargo(&["build"], &manifest);
    assert!(ok.status.success(), "{}", text(&ok));

    // Renaming the equation removes its macros: the crate no longer builds.
    std::fs::write(&yaml, original.replace("cache_append:", "cache_push:")).unwrap();
    let renamed = cargo(&["build"], &manifest);
    assert!(
        !renamed.status.success(),
        "stale macros were used:\n{}",
        text(&renamed)
    );
    let err = String::from_utf8_lossy(&renamed.stderr);
    assert!(
        err.contains("cannot find macro `contract_pre_cache_append`"),
        "{err}"
    );

    // A condition that is not Rust fails the build script: file, line, field.
    std::fs::write(
        &yaml,
        original.replace("\"input.0 < input.1\"", "\"input.0 <\""),
    )
    .unwrap();
    let broken = cargo(&["build"], &manifest);
    assert!(!broken.status.success(), "{}", text(&broken));
    let err = String::from_utf8_lossy(&broken.stderr);
    assert!(
        err.contains(
            "kv-cache-v1.yaml:14: `equations.cache_append.preconditions[0]`: `input.0 <` is not \
             a Rust expression"
        ),
        "{err}"
    );

    // An unknown key, too.
    std::fs::write(
        &yaml,
        original.replace("    formula: \"softmax", "    fromula: \"softmax"),
    )
    .unwrap();
    let unknown = cargo(&["build"], &manifest);
    assert!(!unknown.status.success());
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        err.contains(
            "kv-cache-v1.yaml:19: `equations.attention_probs.fromula`: unknown key `fromula`"
        ),
        "{err}"
    );
}
