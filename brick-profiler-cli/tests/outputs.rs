//! Where `-o` sends a report: `-` and `/dev/stdout` are standard output
//! (a pipe here, as the tests capture it), and a device node is written in
//! place, never replaced by a regular file. Nodes are made in a temporary
//! directory with `mknod`, which needs root: without it these tests fail.

#![cfg(unix)]

mod common;

use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;

use common::{PROFILE, run};

fn mknod(path: &Path, major: u32, minor: u32) {
    let out = std::process::Command::new("mknod")
        .arg(path)
        .args(["c", &major.to_string(), &minor.to_string()])
        .output()
        .expect("run mknod");
    assert!(
        out.status.success(),
        "`mknod {} c {major} {minor}` failed: {}; this test needs root",
        path.display(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn dash_and_dev_stdout_write_to_standard_output() {
    let expected = run(&["scorecard", PROFILE]).expect(0).stdout;
    assert!(expected.contains("Training scorecard"), "{expected}");
    for target in ["-", "/dev/stdout"] {
        let out = run(&["scorecard", PROFILE, "-o", target]).expect(0);
        assert_eq!(out.stdout, expected, "-o {target}");
    }
    // Reports that always need `-o` take `-` too.
    let html = run(&["html", PROFILE, "-o", "-"]).expect(0).stdout;
    assert!(html.contains("<html") && html.trim_end().ends_with("</html>"));
    assert!(
        !Path::new(&common::root()).join("-").exists(),
        "no file `-`"
    );
}

#[test]
fn device_outputs_are_written_in_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    let null = dir.path().join("null");
    mknod(&null, 1, 3);
    let null_arg = null.to_str().expect("utf-8 temp path");
    run(&["scorecard", PROFILE, "-o", null_arg]).expect(0);
    assert!(is_char_device(&null), "the null device was replaced");

    let full = dir.path().join("full");
    mknod(&full, 1, 7);
    let full_arg = full.to_str().expect("utf-8 temp path");
    let out = run(&["html", PROFILE, "-o", full_arg]).expect(4);
    assert!(
        out.stderr.contains(full_arg) && out.stderr.contains("No space left"),
        "{}",
        out.stderr
    );
    assert!(is_char_device(&full), "the full device was replaced");
}
