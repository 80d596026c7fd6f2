//! No command writes over one of its own inputs: an output path that is
//! the same file as an input (spelled the same, through `./`, through a
//! link, or as the `FILE` of `FILE#N`) is refused before anything is
//! written, and the input is left as it was.

mod common;

use std::path::Path;

use common::{PROFILE, root, run_with};

/// Copies `from` (relative to the root) into `dir` as `name`.
fn copy(dir: &Path, from: &str, name: &str) -> Vec<u8> {
    let bytes = std::fs::read(root().join(from)).unwrap();
    std::fs::write(dir.join(name), &bytes).unwrap();
    bytes
}

#[track_caller]
fn refused(dir: &Path, args: &[&str], input: &str, before: &[u8]) {
    let out = run_with(dir, args, None).expect(2);
    assert!(
        out.stderr.contains("is an input of this command")
            && out.stderr.contains("cannot also be its output"),
        "{args:?}: {}",
        out.stderr
    );
    assert_eq!(
        std::fs::read(dir.join(input)).unwrap(),
        before,
        "{args:?} changed its input"
    );
}

#[test]
fn every_command_that_writes_refuses_its_own_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = copy(d, PROFILE, "run.json");
    let nsys = copy(
        d,
        "tests/fixtures/real/nsight/nsys_five_runs_a100.md",
        "five.md",
    );
    refused(d, &["html", "run.json", "-o", "run.json"], "run.json", &run);
    refused(
        d,
        &["html", "run.json", "-o", "./run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &["scorecard", "run.json", "--output=run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &["trace", "chrome", "run.json", "-o", "run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &[
            "roofline",
            "run.json",
            "--hardware",
            "h100",
            "--svg",
            "run.json",
        ],
        "run.json",
        &run,
    );
    refused(
        d,
        &["diff", "five.md#4", "five.md#5", "-o", "five.md"],
        "five.md",
        &nsys,
    );
    refused(
        d,
        &["import", "nsys", "five.md#1", "--save-profile", "five.md"],
        "five.md",
        &nsys,
    );
    // An earlier output is overwritten as before.
    std::fs::write(d.join("report.html"), "old").unwrap();
    run_with(d, &["html", "run.json", "-o", "report.html"], None).expect(0);
    assert_ne!(std::fs::read(d.join("report.html")).unwrap(), b"old");
}

#[cfg(unix)]
#[test]
fn a_link_to_the_input_is_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = copy(d, PROFILE, "run.json");
    std::os::unix::fs::symlink(d.join("run.json"), d.join("link.json")).unwrap();
    refused(
        d,
        &["html", "run.json", "-o", "link.json"],
        "run.json",
        &run,
    );
}
