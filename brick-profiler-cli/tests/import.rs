//! `import ncu|nsys` end to end: the fixtures' reports in every format,
//! saved profiles the other subcommands read, and `--run` with fake `ncu`
//! and `nsys` scripts on a temporary PATH (never a hard-coded install path).

mod common;

use common::{golden, nsight, root, run, run_with};
use profiler_core::Profile;

#[test]
fn ncu_details_page_in_every_format() {
    let csv = nsight("ncu_details.csv");
    golden(
        "ncu_details.txt",
        &run(&["import", "ncu", &csv, "--hardware", "4090"])
            .expect(0)
            .stdout,
    );
    golden(
        "ncu_details.md",
        &run(&[
            "import",
            "ncu",
            &csv,
            "--hardware",
            "4090",
            "--format",
            "markdown",
        ])
        .expect(0)
        .stdout,
    );
    let json = run(&[
        "import",
        "ncu",
        &csv,
        "--hardware",
        "4090",
        "--format",
        "json",
    ])
    .expect(0)
    .stdout;
    golden("ncu_details.json", &json);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for k in v.as_array().unwrap() {
        assert_eq!(k["version"], "3.0");
        // The ceilings are the hardware model, each figure with its source.
        assert_eq!(k["hardware"]["ceilings"]["name"], "RTX 4090");
        assert_eq!(
            k["hardware"]["ceilings"]["memory"]["dram"]["source"]["kind"],
            "preset"
        );
        for section in [
            "hardware",
            "kernel",
            "timing",
            "throughput",
            "roofline",
            "compute",
            "memory",
        ] {
            assert!(k.get(section).is_some(), "{section}");
        }
    }
    assert_eq!(v[0]["roofline"]["bound"], "compute");
    assert!(json.contains("the export's compute capability 9.0 is not that of RTX 4090"));
}

#[test]
fn ncu_raw_page_detects_devices_and_states_flops() {
    let csv = nsight("ncu_raw.csv");
    let out = run(&["import", "ncu", &csv]).expect(0).stdout;
    golden("ncu_raw.txt", &out);
    assert!(out.contains("H100 SXM (detected from the device name `NVIDIA H100 80GB HBM3`)"));
    let out = run(&[
        "import",
        "ncu",
        &csv,
        "--kernel",
        "flash_attn",
        "--gemm",
        "2048x2048x128",
        "--precision",
        "bf16",
    ])
    .expect(0)
    .stdout;
    assert!(
        out.contains(
            "assumed: GEMM 2·m·n·k with m=2048, n=2048, k=128 (from --gemm 2048x2048x128)"
        ),
        "{out}"
    );
    assert!(out.contains("BF16/DRAM"), "{out}");
    let out = run(&["import", "ncu", &csv, "--gemm", "4096"]).expect(2);
    assert!(
        out.stderr.contains("pick one with --kernel"),
        "{}",
        out.stderr
    );
}

#[test]
fn saved_imports_feed_the_other_reports() {
    let dir = tempfile::tempdir().unwrap();
    let ncu = dir.path().join("ncu.profile.json");
    run(&[
        "import",
        "ncu",
        &nsight("ncu_raw.csv"),
        "--save-profile",
        ncu.to_str().unwrap(),
    ])
    .expect(0);
    let p = Profile::read(&ncu).unwrap();
    assert_eq!(p.bricks.len(), 3);
    let out = run(&["roofline", ncu.to_str().unwrap(), "--hardware", "4090"])
        .expect(0)
        .stdout;
    assert!(out.contains("elementwise_add"), "{out}");
    // The CSV itself gives the same table, and knows the export's compute
    // capability, which the saved profile does not keep.
    let direct = run(&["roofline", &nsight("ncu_raw.csv"), "--hardware", "4090"])
        .expect(0)
        .stdout;
    assert_eq!(
        direct.strip_prefix(out.as_str()),
        Some(
            "note: the export's compute capability 9.0 is not that of RTX 4090 (8.9): is it \
             the device this kernel ran on?\n"
        ),
        "{direct}"
    );

    let nsys = dir.path().join("nsys.profile.json");
    let out = run(&[
        "import",
        "nsys",
        &nsight("nsys_kern_sum.txt"),
        "--save-profile",
        nsys.to_str().unwrap(),
    ])
    .expect(0)
    .stdout;
    golden("nsys_kern_sum.txt", &out);
    let sc = run(&["scorecard", nsys.to_str().unwrap()]).expect(0).stdout;
    assert!(
        sc.contains("void gemm<float, 128>"),
        "hotspots are kernels:\n{sc}"
    );
    assert!(sc.contains("no steps recorded"), "{sc}");
    golden(
        "nsys_kern_sum.md",
        &run(&[
            "import",
            "nsys",
            &nsight("nsys_kern_sum.csv"),
            "--format",
            "markdown",
        ])
        .expect(0)
        .stdout,
    );
    // Parity of two Nsight Systems summaries.
    let out = run(&[
        "parity",
        &nsight("nsys_kern_sum.csv"),
        &nsight("nsys_kern_sum_boxed.txt"),
    ])
    .expect(0)
    .stdout;
    assert!(
        out.contains("nsys_kern_sum vs nsys_kern_sum_boxed"),
        "{out}"
    );
}

#[cfg(unix)]
fn script(dir: &std::path::Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[test]
fn run_uses_ncu_found_on_path() {
    let bin = tempfile::tempdir().unwrap();
    let fixture = root().join(nsight("ncu_details.csv"));
    script(
        bin.path(),
        "ncu",
        &format!(
            "echo \"$@\" > \"{args}\"\n/bin/cat \"{fixture}\"\n",
            args = bin.path().join("args.txt").display(),
            fixture = fixture.display()
        ),
    );
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let saved = bin.path().join("saved.csv");
    let out = run_with(
        &root(),
        &[
            "import",
            "ncu",
            "--hardware",
            "4090",
            "--save-csv",
            saved.to_str().unwrap(),
            "--run",
            "--",
            "./train",
            "--steps",
            "3",
        ],
        Some(&path),
    )
    .expect(0);
    assert!(
        out.stdout.contains("Nsight Compute import: ncu output"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("compute-bound, 16.9% of the roof"),
        "{}",
        out.stdout
    );
    let args = std::fs::read_to_string(bin.path().join("args.txt")).unwrap();
    assert!(
        args.starts_with("--csv --metrics gpu__time_duration.sum,"),
        "{args}"
    );
    assert!(args.trim_end().ends_with("./train --steps 3"), "{args}");
    assert_eq!(
        std::fs::read_to_string(saved).unwrap(),
        std::fs::read_to_string(fixture).unwrap()
    );
}

#[cfg(unix)]
#[test]
fn missing_tools_and_restricted_counters_exit_3_with_a_hint() {
    let empty = tempfile::tempdir().unwrap();
    let path = empty.path().display().to_string();
    let out = run_with(
        &root(),
        &["import", "ncu", "--run", "--", "./train"],
        Some(&path),
    )
    .expect(3);
    assert!(
        out.stderr.contains("`ncu` was not found on PATH"),
        "{}",
        out.stderr
    );
    let out = run_with(
        &root(),
        &["import", "nsys", "--run", "--", "./train"],
        Some(&path),
    )
    .expect(3);
    assert!(
        out.stderr.contains("`nsys` was not found on PATH"),
        "{}",
        out.stderr
    );

    let bin = tempfile::tempdir().unwrap();
    let perm = root().join(nsight("ncu_permission.txt"));
    script(
        bin.path(),
        "ncu",
        &format!("/bin/cat \"{}\" >&2\nexit 1\n", perm.display()),
    );
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let out = run_with(
        &root(),
        &["import", "ncu", "--run", "--", "./train"],
        Some(&path),
    )
    .expect(3);
    assert!(out.stderr.contains("ERR_NVGPUCTRPERM"), "{}", out.stderr);
    assert!(
        out.stderr.contains("NVreg_RestrictProfilingToAdminUsers=0"),
        "{}",
        out.stderr
    );
    // A tool that fails otherwise shows the end of its output.
    script(
        bin.path(),
        "ncu",
        "echo '==ERROR== Failed to profile kernel' >&2\nexit 9\n",
    );
    let out = run_with(
        &root(),
        &["import", "ncu", "--run", "--", "./train"],
        Some(&path),
    )
    .expect(3);
    assert!(
        out.stderr.contains("`ncu` failed") && out.stderr.contains("Failed to profile kernel"),
        "{}",
        out.stderr
    );
    // A saved export of a run without permission is an input error.
    let out = run(&["import", "ncu", &nsight("ncu_permission.txt")]).expect(2);
    assert!(
        out.stderr.contains("ncu_permission.txt") && out.stderr.contains("ERR_NVGPUCTRPERM"),
        "{}",
        out.stderr
    );
}

#[cfg(unix)]
#[test]
fn run_uses_nsys_profile_then_stats() {
    let bin = tempfile::tempdir().unwrap();
    let fixture = root().join(nsight("nsys_kern_sum.csv"));
    script(
        bin.path(),
        "nsys",
        &format!(
            r#"case "$1" in
  profile)
    while [ "$#" -gt 0 ]; do
      if [ "$1" = "-o" ]; then shift; : > "$1.nsys-rep"; fi
      shift
    done ;;
  stats)
    echo "$@" > "{args}"
    /bin/cat "{fixture}" ;;
  *) exit 64 ;;
esac
"#,
            args = bin.path().join("stats.txt").display(),
            fixture = fixture.display()
        ),
    );
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let out = run_with(
        &root(),
        &[
            "import", "nsys", "--format", "json", "--run", "--", "./train",
        ],
        Some(&path),
    )
    .expect(0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["kernels"].as_array().unwrap().len(), 4);
    let stats = std::fs::read_to_string(bin.path().join("stats.txt")).unwrap();
    assert!(
        stats.starts_with("stats --report cuda_gpu_kern_sum --format csv "),
        "{stats}"
    );
    assert!(stats.trim_end().ends_with(".nsys-rep"), "{stats}");
}

#[test]
fn a_capture_of_several_nsys_runs_names_them_and_report_picks_one() {
    let file = root().join("tests/fixtures/real/nsight/nsys_five_runs_a100.md");
    let f = file.to_str().unwrap();
    let e = run(&["import", "nsys", f]).expect(2).stderr;
    assert!(
        e.contains("holds 5 kernel summaries") && e.contains("--report N"),
        "{e}"
    );
    assert!(
        e.contains("#5 at line 404 of `vector_add_profile_streamed.nsys-rep`"),
        "{e}"
    );
    let out = run(&["--report", "3", "import", "nsys", f])
        .expect(0)
        .stdout;
    // Run 3 (N = 50M): 1,010 launches, 383,261,009 ns in all.
    assert!(out.contains("1010") && out.contains("383 ms"), "{out}");
    let e = run(&["--report", "9", "import", "nsys", f])
        .expect(2)
        .stderr;
    assert!(e.contains("--report 9") && e.contains("holds 5"), "{e}");
}

/// A real capture in which ncu refused its options before any kernel ran:
/// two `==ERROR==` lines and nothing else. The command names the file and
/// shows the tool's line instead of "not a file we read".
#[test]
fn a_capture_that_failed_at_its_options_shows_the_tools_error() {
    let file = root().join("tests/fixtures/real/nsight/ncu_failed_capture.csv");
    let e = run(&["import", "ncu", file.to_str().unwrap()])
        .expect(2)
        .stderr;
    assert!(e.contains("ncu_failed_capture.csv` line 1"), "{e}");
    assert!(
        e.contains("did not match any section") && e.contains("no kernel was profiled"),
        "{e}"
    );
}

/// A real BF16 tensor-core GEMM (ncu on an sm_120 GPU) judged with
/// `--hardware h100`: `roofline` agrees with `import` (the BF16 roof, the
/// precision ncu counted the FLOPs in, 11.5% of it) and says that the
/// export's compute capability is not the H100's. `--precision fp32` still
/// judges it against FP32, where it runs above the roof.
#[test]
fn roofline_of_a_bf16_gemm_export_uses_the_counted_precision_and_names_the_capability() {
    let file = root().join("tests/fixtures/real/nsight/ncu_sm120_gemm_metrics.csv");
    let file = file.to_str().unwrap();
    let out = run(&["roofline", file, "--hardware", "h100"])
        .expect(0)
        .stdout;
    assert!(
        out.starts_with("Bricks judged against the BF16 roof of H100 SXM"),
        "{out}"
    );
    assert!(out.contains("  11.5%  compute-bound"), "{out}");
    assert!(!out.contains("above the"), "{out}");
    assert!(
        out.contains("compute capability 12.0 is not that of H100 SXM (9.0)"),
        "{out}"
    );
    assert!(
        out.contains("ncu counted the kernels' FLOPs in BF16"),
        "{out}"
    );

    let fp32 = run(&[
        "roofline",
        file,
        "--hardware",
        "h100",
        "--precision",
        "fp32",
    ])
    .expect(0)
    .stdout;
    assert!(
        fp32.starts_with("Bricks judged against the FP32 roof"),
        "{fp32}"
    );
    assert!(fp32.contains("run above the FP32/DRAM roof"), "{fp32}");
    assert!(!fp32.contains("ncu counted"), "{fp32}");
}

/// `FILE#N` picks one kernel summary per input: two runs of one capture
/// compare in a diff (the serial and the streamed vector add), and two
/// runs with no kernel in common (PyTorch and Paddle GCNs) give no verdict
/// and exit 1. A summary the file lacks is an error naming them.
#[test]
fn file_hash_n_picks_one_summary_per_input() {
    let five = root().join("tests/fixtures/real/nsight/nsys_five_runs_a100.md");
    let five = five.to_str().unwrap();
    let out = run(&["diff", &format!("{five}#4"), &format!("{five}#5")])
        .expect(0)
        .stdout;
    assert!(out.contains("110 -> 410"), "{out}");
    assert!(out.contains("1 improvement(s)"), "{out}");

    let gcn = root().join("tests/fixtures/real/nsight/nsys_two_runs_gcn.md");
    let gcn = gcn.to_str().unwrap();
    let out = run(&["diff", &format!("{gcn}#1"), &format!("{gcn}#2")])
        .expect(1)
        .stdout;
    assert!(
        out.contains("of 19 in the baselines and 27 in the new run"),
        "{out}"
    );
    assert!(out.contains("no verdict: no brick is in both"), "{out}");

    let e = run(&["diff", &format!("{gcn}#3"), &format!("{gcn}#1")])
        .expect(2)
        .stderr;
    assert!(e.contains("holds 2 kernel summaries"), "{e}");
    // Named as the user wrote it, `FILE#3`, never as `--report`.
    assert!(
        e.contains("nsys_two_runs_gcn.md#3`: `") && !e.contains("--report"),
        "{e}"
    );
}

/// A scorecard of an Nsight Systems kernel summary, which has no steps,
/// says so where step figures would be, in every format: no 0 tok/s, 0 ns
/// step or 0% coverage.
#[test]
fn a_scorecard_without_steps_shows_no_step_figures() {
    let file = root().join("tests/fixtures/real/nsight/vllm_v16_cuda_gpu_kern_sum.txt");
    let file = file.to_str().unwrap();
    let table = run(&["scorecard", file]).expect(0).stdout;
    for row in ["Throughput", "Step time", "Wall coverage"] {
        assert!(
            table.contains(&format!("{row:<16} n/a (no steps recorded)")),
            "{row}\n{table}"
        );
    }
    assert!(!table.contains("0 tok/s"), "{table}");
    let md = run(&["--format", "markdown", "scorecard", file])
        .expect(0)
        .stdout;
    assert!(
        md.contains("| Throughput | n/a (no steps recorded) |"),
        "{md}"
    );
    assert!(
        md.contains("| Wall coverage | n/a (no steps recorded) |"),
        "{md}"
    );
}
