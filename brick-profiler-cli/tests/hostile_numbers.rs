//! Numbers no machine can produce: FLOP counts that put a kernel far above
//! every ceiling, ceilings beyond any device, and negative step times. Each
//! is refused or flagged with its reason, never printed as a percentage.

mod common;

use common::{PROFILE, nsight, run};

const HUGE_GEMM: &str = "99999999999x99999999999x99999999999";

#[test]
fn a_gemm_beyond_every_peak_is_flagged_not_placed() {
    let csv = nsight("ncu_details.csv");
    let args = [
        "--hardware",
        "4090",
        "--kernel",
        "gemm",
        "--gemm",
        HUGE_GEMM,
    ];
    let out = run(&[&["import", "ncu", csv.as_str()][..], &args[..]].concat()).expect(0);
    assert!(
        out.stdout.contains("not placed: achieved FLOP/s are"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("highest compute peak"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("of the roof"), "{}", out.stdout);
    let out = run(&[&["roofline", csv.as_str()][..], &args[..]].concat()).expect(0);
    assert!(
        out.stdout
            .contains("left off the roofline, their annotations cannot be right"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("compute-bound"), "{}", out.stdout);
}

#[test]
fn ceilings_beyond_any_device_are_refused_with_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let hw = dir.path().join("gpu.toml");
    std::fs::write(&hw, "name = \"lab\"\n[bandwidth_gb_s]\ndram = 1e308\n").unwrap();
    let out = run(&["roofline", PROFILE, "--hardware", hw.to_str().unwrap()]).expect(2);
    for needle in [
        "gpu.toml",
        "line 3",
        "bandwidth_gb_s.dram",
        "`1e308` beyond any real device",
    ] {
        assert!(out.stderr.contains(needle), "`{needle}`: {}", out.stderr);
    }
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    let json = dir.path().join("gpu.json");
    std::fs::write(&json, r#"{"peak_bw_gb_s": 1e308}"#).unwrap();
    let out = run(&["scorecard", PROFILE, "--hardware", json.to_str().unwrap()]).expect(2);
    assert!(out.stderr.contains("peak_bw_gb_s"), "{}", out.stderr);
}

#[test]
fn a_negative_step_time_is_refused_where_read() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("train.log");
    std::fs::write(
        &log,
        "{\"_profiler\":\"step_profiler_v2\",\"steps\":10,\"avg_step_ms\":-105.0}\n",
    )
    .unwrap();
    let out = run(&["scorecard", log.to_str().unwrap()]).expect(2);
    assert!(out.stderr.contains("avg_step_ms"), "{}", out.stderr);
    assert!(out.stderr.contains("cannot be negative"), "{}", out.stderr);
    assert!(!out.stdout.contains("0 ms"), "{}", out.stdout);
}
