//! `fs::write_atomic` on paths that are not regular files: devices, FIFOs
//! and links to them are written in place and keep their kind. The nodes
//! are made in a temporary directory (never under `/dev`); `mknod` needs
//! root, and without it these tests fail rather than skip.

#![cfg(unix)]

use std::io::{ErrorKind, Read as _};
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::Path;
use std::process::Command;

use profiler_core::fs::write_atomic;

/// Runs a node-making tool, failing the test with its output if it fails.
fn make_node(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{program}`: {e}"));
    assert!(
        out.status.success(),
        "`{program} {}` failed ({}): {}; these tests need root (CAP_MKNOD) \
         and a file system that allows device nodes",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    );
}

/// A character device with the given numbers at `path`.
fn char_device(path: &Path, major: u32, minor: u32) {
    let path = path.to_str().expect("utf-8 temp path");
    make_node(
        "mknod",
        &[path, "c", &major.to_string(), &minor.to_string()],
    );
}

fn assert_char_device(path: &Path, major: u32, minor: u32) {
    let meta = std::fs::symlink_metadata(path).expect("node still there");
    assert!(
        meta.file_type().is_char_device(),
        "`{}` is no longer a character device: {:?}",
        path.display(),
        meta.file_type()
    );
    let rdev = meta.rdev();
    // Linux's encoding of device numbers (glibc `gnu_dev_major/minor`).
    let (found_major, found_minor) = (
        ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff),
        (rdev & 0xff) | ((rdev >> 12) & !0xff),
    );
    assert_eq!(
        (found_major, found_minor),
        (u64::from(major), u64::from(minor))
    );
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_null_device_is_written_not_replaced() {
    let dir = tempfile::tempdir().expect("temp dir");
    let null = dir.path().join("null");
    char_device(&null, 1, 3);
    write_atomic(&null, b"profile").expect("writing to a null device succeeds");
    assert_char_device(&null, 1, 3);
    assert_eq!(names_in(dir.path()), ["null"], "no temporary file left");
}

#[test]
fn a_full_device_reports_no_space_and_survives() {
    let dir = tempfile::tempdir().expect("temp dir");
    let full = dir.path().join("full");
    char_device(&full, 1, 7);
    let err = write_atomic(&full, b"profile").expect_err("a full device refuses bytes");
    assert_eq!(err.kind(), ErrorKind::StorageFull, "{err}");
    assert_char_device(&full, 1, 7);
    // The profile's own writer names the path beside the OS error.
    let err = profiler_core::snapshot()
        .write(&full)
        .expect_err("a full device refuses a profile");
    let message = err.to_string();
    assert!(
        message.contains(&*full.to_string_lossy()) && message.contains("space"),
        "{message}"
    );
    assert_char_device(&full, 1, 7);
    assert_eq!(names_in(dir.path()), ["full"], "no temporary file left");
}

#[test]
fn a_symlink_to_a_device_writes_through_to_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let null = dir.path().join("null");
    char_device(&null, 1, 3);
    let link = dir.path().join("out.json");
    std::os::unix::fs::symlink("null", &link).expect("symlink");
    write_atomic(&link, b"{}").expect("write through the link");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    assert_char_device(&null, 1, 3);
}

#[test]
fn a_fifo_is_written_in_place_and_its_reader_gets_the_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("pipe");
    make_node("mkfifo", &[fifo.to_str().expect("utf-8 temp path")]);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(&fifo)
                .and_then(|mut f| f.read_to_end(&mut bytes))
                .expect("read the fifo");
            bytes
        })
    };
    let payload = vec![b'x'; 200_000]; // more than a pipe buffer holds
    write_atomic(&fifo, &payload).expect("write into the fifo");
    // Checked before joining: a replaced FIFO would leave the reader
    // waiting for a writer forever.
    let kind = std::fs::symlink_metadata(&fifo).expect("fifo").file_type();
    assert!(kind.is_fifo(), "`pipe` is no longer a FIFO: {kind:?}");
    assert_eq!(reader.join().expect("reader"), payload);
    assert_eq!(names_in(dir.path()), ["pipe"], "no temporary file left");
}
