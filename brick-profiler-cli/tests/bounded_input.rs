//! Hostile inputs cost bounded memory and time: a device or a file of
//! whitespace is refused after its metadata or its first 64 KiB, never
//! read whole. The peak memory of the binary is read from the kernel's
//! accounting of this process's children, so this file holds one test and
//! runs in its own process.

#![cfg(target_os = "linux")]

use std::ffi::{c_int, c_long};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `struct rusage` of Linux: two `timeval`s, then 14 longs, `ru_maxrss`
/// (KiB) first.
#[repr(C)]
struct Rusage {
    utime: [c_long; 2],
    stime: [c_long; 2],
    maxrss: c_long,
    rest: [c_long; 13],
}

unsafe extern "C" {
    fn getrusage(who: c_int, usage: *mut Rusage) -> c_int;
}

/// `RUSAGE_CHILDREN`: the children waited for.
const RUSAGE_CHILDREN: c_int = -1;

/// The largest peak resident size (KiB) of any child waited for so far.
fn children_peak_kib() -> u64 {
    let mut usage = Rusage {
        utime: [0; 2],
        stime: [0; 2],
        maxrss: 0,
        rest: [0; 13],
    };
    // SAFETY: `usage` is a live, writable `struct rusage` of the layout the
    // C library defines on Linux; getrusage writes only inside it.
    let rc = unsafe { getrusage(RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0, "getrusage");
    u64::try_from(usage.maxrss).unwrap_or(0)
}

/// Runs the binary with `args`; kills it (and fails) past a minute.
fn run_bounded(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_brick-profiler"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return (status.code().unwrap_or(-1), stderr);
        }
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().ok();
            child.wait().ok();
            panic!(
                "`brick-profiler {}` still runs after a minute",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// 192 MiB of whitespace and `/dev/zero` each fail fast, with their name,
/// and the process never holds more than a small fraction of the file.
#[test]
fn hostile_inputs_fail_within_bounded_memory() {
    const FILE_MIB: usize = 192;
    const PEAK_LIMIT_KIB: u64 = 64 << 10;
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank.json");
    let mut f = std::fs::File::create(&blank).unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..FILE_MIB {
        f.write_all(&chunk).unwrap();
    }
    drop(f);
    let (code, stderr) = run_bounded(&["scorecard", blank.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("blank.json") && stderr.contains("empty"),
        "{stderr}"
    );
    let (code, stderr) = run_bounded(&["scorecard", "/dev/zero"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("/dev/zero") && stderr.contains("character device"),
        "{stderr}"
    );
    let peak = children_peak_kib();
    assert!(peak > 0, "the kernel reports the children's peak");
    assert!(
        peak < PEAK_LIMIT_KIB,
        "peak {peak} KiB for a {FILE_MIB} MiB file: read whole?"
    );
}
