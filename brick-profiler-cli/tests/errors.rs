//! Bad input: every error names the file and the problem and exits
//! non-zero (2 for input, 4 for output).

mod common;

use common::{PROFILE, nsight, run};

#[track_caller]
fn fails(args: &[&str], code: i32, needles: &[&str]) {
    let out = run(args).expect(code);
    for n in needles {
        assert!(
            out.stderr.contains(n),
            "`{n}` missing from:\n{}",
            out.stderr
        );
    }
    // Our errors, or clap's for values it parses.
    assert!(
        out.stderr.starts_with("brick-profiler: ") || out.stderr.starts_with("error: "),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", out.stdout);
}

#[test]
fn missing_files() {
    fails(
        &["scorecard", "nope/profile.json"],
        2,
        &["nope/profile.json", "No such file"],
    );
    fails(&["import", "ncu", "nope.csv"], 2, &["nope.csv"]);
    fails(&["diff", PROFILE, "gone.json"], 2, &["gone.json"]);
    fails(
        &["scorecard", PROFILE, "--baseline", "none.json"],
        2,
        &["none.json"],
    );
}

#[test]
fn wrong_formats() {
    fails(
        &["scorecard", "README.md"],
        2,
        &[
            "README.md",
            "is not a profile, Nsight Compute CSV or Nsight Systems kernel summary",
        ],
    );
    fails(
        &["import", "ncu", &nsight("nsys_kern_sum.csv")],
        2,
        &["nsys_kern_sum.csv", "not an Nsight Compute export"],
    );
    fails(
        &["import", "nsys", &nsight("ncu_raw.csv")],
        2,
        &["ncu_raw.csv", "not an Nsight Systems kernel summary"],
    );
    fails(&["roofline", "Cargo.toml"], 2, &["Cargo.toml"]);
    fails(
        &["trace", "summary", &nsight("ncu_raw.csv")],
        2,
        &["ncu_raw.csv", "an Nsight Compute CSV"],
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema_version\": \"1.0\", \"bricks\": 7}").unwrap();
    fails(
        &["roofline", bad.to_str().unwrap()],
        2,
        &["bad.json", "expected a sequence at line 1, column 37"],
    );
    std::fs::write(&bad, "{\"schema_version\": \"1.0\", ").unwrap();
    fails(
        &["scorecard", bad.to_str().unwrap()],
        2,
        &["bad.json", "malformed profile", "EOF while parsing"],
    );
    std::fs::write(&bad, [0xff, 0xfe, 0x00]).unwrap();
    fails(
        &["diff", bad.to_str().unwrap(), PROFILE],
        2,
        &["bad.json", "binary, neither text nor gzip"],
    );
}

#[test]
fn truncated_exports() {
    fails(
        &["import", "ncu", &nsight("ncu_truncated.csv")],
        2,
        &[
            "ncu_truncated.csv",
            "line 62",
            "5 fields where the header has 15",
            "truncated",
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::root().join(nsight("nsys_kern_sum.txt"))).unwrap();
    let cut = &text[..text.find("elementwise_add").unwrap()];
    let path = dir.path().join("cut.txt");
    std::fs::write(&path, cut).unwrap();
    fails(
        &["import", "nsys", path.to_str().unwrap()],
        2,
        &["cut.txt", "line 18", "fewer than the header's 9 columns"],
    );
}

#[test]
fn unknown_names() {
    fails(
        &["roofline", PROFILE, "--hardware", "tpu-v9"],
        2,
        &["unknown device `tpu-v9`", "h100"],
    );
    fails(
        &[
            "contracts",
            "verify",
            PROFILE,
            "--contract",
            "brick-profiler-v2",
        ],
        2,
        &[
            "unknown contract `brick-profiler-v2`",
            "did you mean `brick-profiler-v1`",
        ],
    );
    fails(
        &["contracts", "verify", PROFILE],
        2,
        &["--contract", "brick-profiler-v1"],
    );
    fails(
        &["roofline", PROFILE, "--precision", "fp128"],
        2,
        &["fp128"],
    );
    fails(
        &["roofline", PROFILE, "--precision", "fp64"],
        2,
        &["no FP64 ceiling", "it has: FP32"],
    );
    fails(
        &[
            "import",
            "ncu",
            &nsight("ncu_raw.csv"),
            "--kernel",
            "softmax",
        ],
        2,
        &["softmax", "ncu_raw.csv"],
    );
    fails(
        &["import", "ncu", &nsight("ncu_raw.csv"), "--gemm", "12x"],
        2,
        &["12x"],
    );
}

#[test]
fn bad_hardware_files() {
    let dir = tempfile::tempdir().unwrap();
    let hw = dir.path().join("gpu.toml");
    std::fs::write(&hw, "name = \"lab\"\n[bandwidth_gb_s]\ndram = -5\n").unwrap();
    fails(
        &["roofline", PROFILE, "--hardware", hw.to_str().unwrap()],
        2,
        &["gpu.toml", "bandwidth_gb_s.dram", "greater than 0"],
    );
    std::fs::write(&hw, "name = \"lab\"\nbandwith_gb_s = 5\n").unwrap();
    fails(
        &["roofline", PROFILE, "--hardware", hw.to_str().unwrap()],
        2,
        &["gpu.toml", "bandwith_gb_s"],
    );
    std::fs::write(&hw, "[peak_tflops]\nfp128 = 5\n").unwrap();
    fails(
        &["roofline", PROFILE, "--hardware", hw.to_str().unwrap()],
        2,
        &["gpu.toml", "peak_tflops.fp128"],
    );
    fails(
        &["roofline", PROFILE, "--hardware", "missing.json"],
        2,
        &["missing.json"],
    );
    // A good one.
    std::fs::write(
        &hw,
        "name = \"lab box\"\n[bandwidth_gb_s]\ndram = 4.2\nl2 = 40\n[peak_tflops]\nfp32 = 0.007\n",
    )
    .unwrap();
    let out = run(&["roofline", PROFILE, "--hardware", hw.to_str().unwrap()]).expect(0);
    assert!(
        out.stdout.contains("lab box (configured)"),
        "{}",
        out.stdout
    );
    let json = dir.path().join("gpu.json");
    std::fs::write(
        &json,
        r#"{"device": "h100", "peak_bw_gb_s": 3000, "peak_tflops": 800}"#,
    )
    .unwrap();
    let out = run(&[
        "roofline",
        PROFILE,
        "--hardware",
        json.to_str().unwrap(),
        "--precision",
        "bf16",
    ])
    .expect(0);
    assert!(out.stdout.contains("800 TFLOP/s"), "{}", out.stdout);
}

#[test]
fn outputs_that_cannot_be_written_exit_4() {
    fails(
        &["scorecard", PROFILE, "-o", "/nonexistent-dir/x.txt"],
        4,
        &["/nonexistent-dir/x.txt"],
    );
    fails(&["html", PROFILE], 2, &["-o FILE"]);
}
