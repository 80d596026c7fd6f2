//! `diff BASELINE... NEW` exits 1 on a real regression and 0 on noise, with
//! profiles built for the purpose and with Nsight exports, in every format.

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
    assert!(out.stdout.contains("SLOWER (critical)"), "{}", out.stdout);
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
    assert_eq!(v["bricks"][0]["change"], "regression");
    // Against one baseline, a step's wall time is inconclusive at worst.
    assert_eq!(v["step_time"]["change"], "inconclusive");
    // The formats CI tools read, each with the regression in it.
    let bmf = run_with(
        d,
        &["diff", "old.json", "new.json", "--format", "bmf"],
        None,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&bmf.stdout).unwrap();
    assert!(v["Gemm"]["latency"]["lower_value"].as_f64().unwrap() > 100_000.0);
    let gab = run_with(
        d,
        &["diff", "old.json", "new.json", "--format", "gab"],
        None,
    )
    .expect(1);
    let v: serde_json::Value = serde_json::from_str(&gab.stdout).unwrap();
    assert_eq!(v[1]["name"], "Gemm latency", "{v}");
    let junit = run_with(
        d,
        &["diff", "old.json", "new.json", "--format", "junit"],
        None,
    )
    .expect(1);
    assert!(junit.stdout.contains("failures=\"1\""), "{}", junit.stdout);
    // Several baselines: the new run against the old run and its rerun.
    let two = run_with(d, &["diff", "old.json", "rerun.json", "new.json"], None).expect(1);
    assert!(
        two.stdout
            .starts_with("Profile diff: 2 baselines -> new.json"),
        "{}",
        two.stdout
    );
    assert!(
        two.stdout.contains("1200 -> 600"),
        "pooled calls: {}",
        two.stdout
    );
    // Only diff writes the CI formats.
    let out = run_with(d, &["scorecard", "old.json", "--format", "bmf"], None).expect(2);
    assert!(
        out.stderr.contains("only `diff` writes this format"),
        "{}",
        out.stderr
    );
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
    assert!(
        out.stderr.contains("alpha must lie in (0, 1)"),
        "{}",
        out.stderr
    );
    let out = run_with(
        d,
        &["diff", "old.json", "new.json", "--critical", "0.05"],
        None,
    )
    .expect(2);
    assert!(
        out.stderr
            .contains("critical (0.05) is below threshold (0.1)"),
        "{}",
        out.stderr
    );
    // A link line for the HTML report ends the pull-request comment.
    let md = run_with(
        d,
        &[
            "diff",
            "old.json",
            "new.json",
            "--format",
            "markdown",
            "--report-url",
            "https://ci/r.html",
        ],
        None,
    )
    .expect(1);
    assert!(
        md.stdout
            .ends_with("[Full HTML report](<https://ci/r.html>)\n"),
        "{}",
        md.stdout
    );
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
            .contains("Result: no verdict: no brick is in both (over 0 brick(s) in both, of 1 in the baselines and 1 in the new run)"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_noisy_slowdown_is_inconclusive_and_passes_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The same brick with 60% spread over 12 calls: the interval is wide and
    // crosses the threshold.
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
            vec![brick("Noisy", &samples(50_000.0, 0.6, 12, 12))],
            vec![],
        ),
    );
    let out = run_with(d, &["diff", "a.json", "b.json"], None).expect(0);
    assert!(out.stdout.contains("inconclusive"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("Mann-Whitney interval over 12 vs 12 samples"),
        "{}",
        out.stdout
    );
    run_with(d, &["diff", "a.json", "b.json", "--strict"], None).expect(1);
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
    // The GEMM 20% slower on 200 launches: z-interval of means.
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
        out.stdout
            .contains("z-interval of the difference of means over 200 vs 200 calls"),
        "{}",
        out.stdout
    );
    // ncu launches: one or two launches per side give no interval, so no
    // verdict, which fails: nothing judged passes nothing.
    let out = run(&["diff", &nsight("ncu_details.csv"), &nsight("ncu_raw.csv")]).expect(1);
    assert!(out.stdout.contains("Result: no verdict"), "{}", out.stdout);
    assert!(
        out.stdout.contains("added") || out.stdout.contains("removed"),
        "{}",
        out.stdout
    );
}
