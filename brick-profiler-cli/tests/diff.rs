//! `diff OLD NEW` exits 1 on a real regression and 0 on noise, with
//! profiles built for the purpose and with Nsight exports.

mod common;

use common::{brick, golden, nsight, profile, run, run_with, samples};

fn write(dir: &std::path::Path, name: &str, p: &profiler_core::Profile) {
    p.write(dir.join(name)).unwrap();
}

#[test]
fn a_real_regression_fails_and_noise_passes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let old = profile(
        "train",
        vec![
            brick("Gemm", &samples(100_000.0, 0.03, 600, 1)),
            brick("RmsNorm", &samples(8_000.0, 0.5, 40, 2)),
            brick("Softmax", &samples(20_000.0, 0.03, 600, 3)),
        ],
        samples(80e6, 0.03, 30, 4),
    );
    // Gemm 25% slower, steadily: a critical regression (and slower steps).
    let slower = profile(
        "train",
        vec![
            brick("Gemm", &samples(125_000.0, 0.03, 600, 11)),
            brick("RmsNorm", &samples(8_000.0, 0.5, 40, 12)),
            brick("Softmax", &samples(20_000.0, 0.03, 600, 13)),
        ],
        samples(95e6, 0.03, 30, 14),
    );
    // Another run of the same code: other draws of the same noise.
    let rerun = profile(
        "train",
        vec![
            brick("Gemm", &samples(100_000.0, 0.03, 600, 21)),
            brick("RmsNorm", &samples(8_000.0, 0.5, 40, 22)),
            brick("Softmax", &samples(20_000.0, 0.03, 600, 23)),
        ],
        samples(80e6, 0.03, 30, 24),
    );
    write(d, "old.json", &old);
    write(d, "new.json", &slower);
    write(d, "rerun.json", &rerun);
    let out = run_with(d, &["diff", "old.json", "new.json"], None).expect(1);
    golden("diff_regression.txt", &out.stdout);
    assert!(
        out.stdout.contains("REGRESSION (critical)"),
        "{}",
        out.stdout
    );
    let md = run_with(
        d,
        &["diff", "old.json", "new.json", "--format", "markdown"],
        None,
    )
    .expect(1);
    golden("diff_regression.md", &md.stdout);
    let json = run_with(
        d,
        &["diff", "old.json", "new.json", "--format", "json"],
        None,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["bricks"][0]["name"], "Gemm");
    assert_eq!(v["bricks"][0]["verdict"], "regression");
    assert_eq!(v["step_time"]["verdict"], "regression");
    // Noise only: exit 0, whatever the per-brick jitter.
    let out = run_with(d, &["diff", "old.json", "rerun.json"], None).expect(0);
    assert!(!out.stdout.contains("REGRESSION"), "{}", out.stdout);
    // A higher threshold lets the 25% slowdown through.
    run_with(
        d,
        &[
            "diff",
            "old.json",
            "new.json",
            "--threshold",
            "0.3",
            "--critical",
            "0.4",
        ],
        None,
    )
    .expect(0);
    // Bad criteria are usage errors.
    let out = run_with(d, &["diff", "old.json", "new.json", "--alpha", "1.5"], None).expect(2);
    assert!(out.stderr.contains("significance_alpha"), "{}", out.stderr);
}

#[test]
fn no_brick_in_both_runs_is_no_verdict_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let steps = samples(80e6, 0.03, 30, 4);
    let old = profile(
        "train",
        vec![brick("Gemm", &samples(100_000.0, 0.03, 600, 1))],
        steps.clone(),
    );
    let new = profile(
        "train",
        vec![brick("Softmax", &samples(20_000.0, 0.03, 600, 3))],
        steps,
    );
    write(d, "old.json", &old);
    write(d, "new.json", &new);
    let out = run_with(d, &["diff", "old.json", "new.json"], None).expect(1);
    assert!(
        out.stdout
            .contains("Result: no verdict: no brick is in both runs (over 0 brick(s) in both runs, of 1 before and 1 after)"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_noisy_slowdown_is_noise() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 15% slower on median, but with 60% spread over 12 calls: not significant.
    write(
        d,
        "a.json",
        &profile(
            "x",
            vec![brick("Noisy", &samples(50_000.0, 0.6, 12, 2))],
            vec![],
        ),
    );
    write(
        d,
        "b.json",
        &profile(
            "x",
            vec![brick("Noisy", &samples(58_000.0, 0.6, 12, 12))],
            vec![],
        ),
    );
    let out = run_with(d, &["diff", "a.json", "b.json"], None).expect(0);
    assert!(out.stdout.contains("noise"), "{}", out.stdout);
    assert!(
        out.stdout.contains("Mann-Whitney U on 12 vs 12 samples"),
        "{}",
        out.stdout
    );
}

#[test]
fn nsight_exports_diff_by_their_statistics() {
    // The same summary twice: nothing changes.
    run(&[
        "diff",
        &nsight("nsys_kern_sum.csv"),
        &nsight("nsys_kern_sum.txt"),
    ])
    .expect(0);
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::root().join(nsight("nsys_kern_sum.csv"))).unwrap();
    // The GEMM 20% slower on 200 launches: z-test of means.
    let slow = text.replace(
        "246912000,200,1234560.0,1230112.0,1201344,1318912,21436.7",
        "296294400,200,1481472.0,1476134.0,1441613,1582694,25724.0",
    );
    assert_ne!(slow, text);
    std::fs::write(dir.path().join("slow.csv"), slow).unwrap();
    let out = run(&[
        "diff",
        &nsight("nsys_kern_sum.csv"),
        dir.path().join("slow.csv").to_str().unwrap(),
    ])
    .expect(1);
    assert!(
        out.stdout.contains("z-test of means on 200 vs 200 samples"),
        "{}",
        out.stdout
    );
    // ncu launches: one launch per side cannot be tested.
    let out = run(&["diff", &nsight("ncu_details.csv"), &nsight("ncu_raw.csv")]).expect(0);
    assert!(
        out.stdout.contains("added") || out.stdout.contains("removed"),
        "{}",
        out.stdout
    );
}
