//! The reports of a saved run, end to end: scorecard (and regressions
//! against a baseline), roofline, parity, trace exports, contracts and the
//! HTML report, which equals the one the main job writes.

mod common;

use common::{PROFILE, golden, root, run, run_with};
use profiler_core::Profile;
use profiler_report::contracts::Verifier;
use profiler_report::roofline::{BrickRoofline, roofline_section};
use profiler_report::run::RunSummary;
use profiler_report::{
    HtmlReport, flamegraph_svg, folded_stacks,
    scorecard::{ScorecardBuilder, TrainingScorecard},
};

#[test]
fn scorecard_in_every_format() {
    golden(
        "scorecard.txt",
        &run(&["scorecard", PROFILE]).expect(0).stdout,
    );
    let md = run(&["scorecard", PROFILE, "--format", "markdown"])
        .expect(0)
        .stdout;
    golden("scorecard.md", &md);
    assert!(md.starts_with("## Training Scorecard"));
    let json = run(&["scorecard", PROFILE, "--format", "json"])
        .expect(0)
        .stdout;
    let sc = TrainingScorecard::from_json(&json).unwrap();
    assert_eq!(sc.steps, 6);
    assert_eq!(
        sc.hardware.as_deref(),
        Some("Intel(R) Xeon(R) Processor (measured)")
    );
}

#[test]
fn scorecard_against_a_baseline_fails_on_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    // The same run as its own baseline: no regression.
    run(&[
        "scorecard",
        PROFILE,
        "--baseline",
        "brick-profiler-cli/tests/fixtures/scorecard.json",
    ])
    .expect(0);
    // A baseline 30% faster: a critical throughput and step-time regression.
    let mut faster = TrainingScorecard::load_baseline(
        root().join("brick-profiler-cli/tests/fixtures/scorecard.json"),
    )
    .unwrap();
    faster.throughput_tok_s *= 1.3;
    faster.step_time_ms /= 1.3;
    faster.step_samples_ms.clear();
    let base = dir.path().join("faster.json");
    faster.save_baseline(&base).unwrap();
    let out = run(&["scorecard", PROFILE, "--baseline", base.to_str().unwrap()]).expect(1);
    assert!(
        out.stdout.contains("critical  Throughput"),
        "{}",
        out.stdout
    );
    // Only critical ones fail with --fail-on critical; these are critical.
    run(&[
        "scorecard",
        PROFILE,
        "--baseline",
        base.to_str().unwrap(),
        "--fail-on",
        "critical",
    ])
    .expect(1);
    // A 15% drop is a warning: it fails by default, not with --fail-on critical.
    faster.throughput_tok_s = faster.throughput_tok_s / 1.3 * 1.15;
    faster.step_time_ms = faster.step_time_ms * 1.3 / 1.15;
    faster.save_baseline(&base).unwrap();
    run(&["scorecard", PROFILE, "--baseline", base.to_str().unwrap()]).expect(1);
    run(&[
        "scorecard",
        PROFILE,
        "--baseline",
        base.to_str().unwrap(),
        "--fail-on",
        "critical",
    ])
    .expect(0);
}

#[test]
fn scorecard_with_a_device_says_what_it_assumed() {
    let out = run(&["scorecard", PROFILE, "--hardware", "h100"])
        .expect(0)
        .stdout;
    assert!(out.contains("H100 SXM"), "{out}");
    assert!(out.contains("(from brick annotations)"), "{out}");
    let out = run(&[
        "scorecard",
        PROFILE,
        "--hardware",
        "h100",
        "--bytes-per-token",
        "80772",
    ])
    .expect(0)
    .stdout;
    assert!(!out.contains("pass --bytes-per-token"), "{out}");
}

#[test]
fn roofline_uses_the_measured_ceilings_or_the_device_given() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("roofline.svg");
    let out = run(&["roofline", PROFILE, "--svg", svg.to_str().unwrap()])
        .expect(0)
        .stdout;
    golden("roofline.txt", &out);
    assert!(out.contains("(measured on this machine)"), "{out}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(roxmltree::Document::parse(&svg).is_ok());
    let h100 = run(&[
        "roofline",
        PROFILE,
        "--hardware",
        "h100",
        "--precision",
        "bf16",
        "--format",
        "markdown",
    ])
    .expect(0)
    .stdout;
    golden("roofline_h100.md", &h100);
    assert!(h100.contains("H100 SXM"));
    let json: serde_json::Value = serde_json::from_str(
        &run(&["roofline", PROFILE, "--format", "json"])
            .expect(0)
            .stdout,
    )
    .unwrap();
    assert_eq!(json["precision"], "fp32");
}

/// The fixture is a profile of schema 1.0, whose probes' ceilings sit in
/// `run.measured_ceilings` beside the scorecard's `run.hardware`: both
/// read into `run.hardware`, and the page says how each ceiling was
/// measured, in the words the release that wrote it used.
#[test]
fn an_earlier_profiles_measured_ceilings_read_into_its_hardware() {
    use profiler_core::hardware::{MemoryLevel, Precision};
    let p = Profile::read(root().join(PROFILE)).unwrap();
    let hw = p.run.hardware.as_ref().expect("hardware");
    // The scorecard's figures stand as recorded.
    assert_eq!(hw.name, "Intel(R) Xeon(R) Processor (measured)");
    assert_eq!(hw.dense_peak_tflops(), Some(0.004514909117934943));
    // The probes' figures join them, with how each was measured.
    let dram = hw.memory(MemoryLevel::Dram).unwrap();
    assert_eq!(dram.value, 4.259224069337017);
    let how = dram.source.measurement().expect("how DRAM was measured");
    assert_eq!((how.repetitions, how.duration_ns), (5, 1_695_672_449));
    let fp32 = hw.compute(Precision::Fp32).unwrap();
    assert_eq!(fp32.value, 4.514909117934943 / 1e3);
    assert_eq!(
        hw.memory(MemoryLevel::L2Cache).unwrap().value,
        3.900517921129289
    );
    let notes = &hw.probe.as_ref().expect("the probes' facts").notes;
    assert_eq!(notes.len(), 2);

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    run(&["html", PROFILE, "-o", page.to_str().unwrap()]).expect(0);
    let html = std::fs::read_to_string(&page).unwrap();
    let method = "STREAM triad a[i] = b[i] + s*c[i] on f64 arrays, 24 bytes per element \
                  (2 reads + 1 write, write-allocate not counted)";
    for line in [
        format!(
            "<li>DRAM bandwidth 4.259 GB/s (median 3.331): {method}; 2 threads, 256.0 MiB per \
             array, sized against a 480.0 MiB cache (sysfs), best of 5 in 1695.7 ms</li>"
        ),
        format!(
            "<li>L2 bandwidth 3.901 GB/s (median 3.695): {method}; per-thread buffers filling half \
             of one L2, 1908 passes per round; 2 threads, 0.667 MiB per array, sized against a \
             2.000 MiB cache (sysfs), best of 5 in 5560.9 ms</li>"
        ),
        "<li>FP32 peak 4.515 GFLOP/s (median 4.289): independent f32 FMA chains x = x*m + a \
         (2 FLOPs per lane); avx512f, 2 threads x 16 chains x 16 lanes, best of 5 in 290.6 ms</li>"
            .to_owned(),
    ] {
        assert!(html.contains(&line), "{line}");
    }
    // The file did not say what else ran while probing: nor does the page.
    assert!(!html.contains("machine quiet while probing"));
    assert!(!html.contains("BF16 peak") && !html.contains("FP16 peak"));
}

/// An ncu export with per-level traffic: `--svg` and the HTML page draw
/// every kernel at every level the export measured.
#[test]
fn roofline_of_an_ncu_export_plots_each_kernel_at_each_level() {
    const NCU: &str = "tests/fixtures/real/gpu/ncu_h100_cuda_bricks_roofline_raw.csv";
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("ncu.svg");
    let args = ["roofline", NCU, "--hardware", "h100", "--svg"];
    run(&[&args[..], &[svg.to_str().unwrap()]].concat()).expect(0);
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(roxmltree::Document::parse(&svg).is_ok());
    assert_eq!(svg.matches("<circle class=\"level-mark level-").count(), 6);
    assert!(svg.contains(">ncu levels:</text>"), "{svg}");
    let page = dir.path().join("ncu.html");
    run(&[
        "html",
        NCU,
        "--hardware",
        "h100",
        "-o",
        page.to_str().unwrap(),
    ])
    .expect(0);
    let page = std::fs::read_to_string(&page).unwrap();
    assert_eq!(page.matches("<circle class=\"level-mark level-").count(), 6);
}

#[test]
fn parity_against_itself_and_a_slower_baseline() {
    let out = run(&["parity", PROFILE, PROFILE]).expect(0).stdout;
    golden("parity.txt", &out);
    assert!(out.contains("YES"), "{out}");
    // A baseline twice as fast on every op: parity fails only when required.
    let dir = tempfile::tempdir().unwrap();
    let mut p = Profile::read(root().join(PROFILE)).unwrap();
    for b in &mut p.bricks {
        b.total_ns /= 2;
    }
    let fast = dir.path().join("fast.json");
    p.write(&fast).unwrap();
    let out = run(&["parity", PROFILE, fast.to_str().unwrap()])
        .expect(0)
        .stdout;
    assert!(out.contains("NO"), "{out}");
    run(&[
        "parity",
        PROFILE,
        fast.to_str().unwrap(),
        "--require-parity",
    ])
    .expect(1);
    let md = run(&[
        "parity",
        PROFILE,
        fast.to_str().unwrap(),
        PROFILE,
        "--format",
        "markdown",
    ])
    .expect(0)
    .stdout;
    assert!(md.starts_with("## Parity: train_tiny vs"), "{md}");
}

#[test]
fn parity_over_no_common_op_is_no_verdict_and_fails_when_required() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.json");
    std::fs::write(
        &other,
        r#"{"runtime": "other", "throughput_tok_s": 1, "step_time_ms": 1,
            "kernel_launches_per_step": 1, "ops": {"NotABrick": 1.0}}"#,
    )
    .unwrap();
    let other = other.to_str().unwrap();
    let out = run(&["parity", PROFILE, other]).expect(0).stdout;
    assert!(out.contains("no verdict: no op was compared"), "{out}");
    assert!(!out.contains("YES"), "{out}");
    run(&["parity", PROFILE, other, "--require-parity"]).expect(1);
}

#[test]
fn parity_suggests_a_mapping_for_a_stock_pytorch_trace() {
    let trace = root().join("tests/fixtures/real/kineto/stock_tiny_transformer_cpu.json");
    let out = run(&["parity", "--suggest-mapping", trace.to_str().unwrap()])
        .expect(0)
        .stdout;
    assert!(out.starts_with("# Draft op mapping for"), "{out}");
    assert!(
        out.contains("{ module = \"*.Attention[*].Linear[0]\", brick = \"Linear\" },"),
        "{out}"
    );
    let e = run(&["parity", "--suggest-mapping", PROFILE]).expect(2);
    assert!(e.stderr.contains("not a PyTorch trace"), "{}", e.stderr);
}

#[test]
fn trace_summary_and_exports() {
    golden(
        "trace_summary.md",
        &run(&["trace", "summary", PROFILE, "--format", "markdown"])
            .expect(0)
            .stdout,
    );
    let svg = run(&["trace", "flamegraph", PROFILE]).expect(0).stdout;
    assert!(
        svg.starts_with("<?xml") && svg.contains("train_tiny"),
        "{}",
        &svg[..200]
    );
    let folded = run(&["trace", "flamegraph", PROFILE, "--folded"])
        .expect(0)
        .stdout;
    let p = Profile::read(root().join(PROFILE)).unwrap();
    assert_eq!(folded, folded_stacks(&p));
    let chrome: serde_json::Value =
        serde_json::from_str(&run(&["trace", "chrome", PROFILE]).expect(0).stdout).unwrap();
    assert!(chrome["traceEvents"].as_array().unwrap().len() > 100);
    // Perfetto's trace: the library's bytes, streamed to the file.
    let dir = tempfile::tempdir().unwrap();
    let pftrace = dir.path().join("trace.pftrace");
    let out = pftrace.to_str().unwrap();
    run(&["trace", "perfetto", PROFILE, "-o", out]).expect(0);
    let mut expected = Vec::new();
    profiler_report::export::write_perfetto_trace_to(&p, &mut expected).unwrap();
    assert_eq!(std::fs::read(&pftrace).unwrap(), expected);
    let speedscope: serde_json::Value =
        serde_json::from_str(&run(&["trace", "speedscope", PROFILE]).expect(0).stdout).unwrap();
    assert!(!speedscope["profiles"].as_array().unwrap().is_empty());
    // A bare execution trace: summary and Chrome export; speedscope refuses.
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("exec.json");
    std::fs::write(
        &trace,
        r#"{"entries": [
            {"step": 0, "operation": "matmul", "device_id": "gpu0", "duration_us": 120.0, "output_shape": [64, 64], "output_elements": 4096, "memory_bytes": 16384},
            {"step": 0, "operation": "allreduce", "device_id": "gpu1", "duration_us": 40.0},
            {"step": 1, "operation": "matmul", "device_id": "gpu1", "duration_us": 60.0}
        ], "total_duration_us": 220.0}"#,
    )
    .unwrap();
    let t = trace.to_str().unwrap();
    let out = run_with(dir.path(), &["trace", "summary", "exec.json"], None)
        .expect(0)
        .stdout;
    golden("trace_exec_summary.txt", &out);
    assert!(out.contains("communication allreduce"), "{out}");
    let chrome: serde_json::Value =
        serde_json::from_str(&run(&["trace", "chrome", t]).expect(0).stdout).unwrap();
    assert!(chrome["traceEvents"].to_string().contains("allreduce"));
    let out = run(&["trace", "speedscope", t]).expect(2);
    assert!(
        out.stderr.contains("exec.json") && out.stderr.contains("trace chrome"),
        "{}",
        out.stderr
    );
    let out = run(&["trace", "flamegraph", t, "--folded"])
        .expect(0)
        .stdout;
    assert!(out.contains("trace;gpu0;matmul 120"), "{out}");
}

#[test]
fn contracts_pass_and_fail_with_the_exit_status() {
    let out = run(&[
        "contracts",
        "verify",
        PROFILE,
        "--contract",
        "brick-profiler-v1",
    ])
    .expect(0)
    .stdout;
    golden("contracts.txt", &out);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("strict-coverage-v1.yaml"),
        r#"metadata:
  version: "1.0.0"
  created: "2025-01-01"
  description: "A stricter wall coverage than any run reaches"
  references: []
equations:
  coverage:
    formula: "wall_coverage = brick_ns / wall_ns"
    domain: "profile"
    codomain: "[0, 1]"
proof_obligations: []
falsification_tests:
  - id: SC-001
    rule: "more steps than any run records"
    prediction: "holds"
    test: "steps >= 1000"
    if_fails: "record more steps"
"#,
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&[
        "contracts",
        "verify",
        PROFILE,
        "--dir",
        d,
        "--format",
        "markdown",
    ])
    .expect(1)
    .stdout;
    assert!(out.contains("FAILED") && out.contains("SC-001"), "{out}");
    let out = run(&[
        "contracts",
        "verify",
        PROFILE,
        "--dir",
        d,
        "--contract",
        "strict-coverage-v1",
        "--metric",
        "steps=2000",
    ])
    .expect(0)
    .stdout;
    assert!(out.contains("PASS SC-001"), "{out}");
    let list = run(&["contracts", "list", "--dir", d]).expect(0).stdout;
    assert!(
        list.contains("brick-profiler-v1 (shipped)")
            && list.contains("strict-coverage-v1 (from --dir)"),
        "{list}"
    );
}

#[test]
fn upstream_contracts_list_beside_the_errors_of_bad_files() {
    let dir = root().join("tests/fixtures/real/contracts");
    let d = dir.to_str().unwrap();
    let list = run(&["contracts", "list", "--dir", d]).expect(1).stdout;
    assert!(
        list.contains(
            "rmsnorm-kernel-v1 (from --dir; 5 test(s) not machine-checkable, 11 unused key(s))"
        ),
        "{list}"
    );
    // No equations: it loads, and its command-line tests read as prose.
    assert!(
        list.contains(
            "layer-parity-v1 (from --dir; 4 test(s) not machine-checkable, 7 unused key(s))"
        ),
        "{list}"
    );
    assert!(
        list.contains("error: ")
            && list.contains(
                "tensor-layout-v1.yaml:493: `falsification_tests[1]`: missing required key \
                 `if_test_passes` (or `if_fails`)"
            ),
        "{list}"
    );
    assert!(
        list.contains("roofline-model-v1 (shipped; verify with --params N"),
        "{list}"
    );
}

#[test]
fn roofline_and_parity_contracts_are_computed_from_the_command_line() {
    let e = run(&[
        "contracts",
        "verify",
        PROFILE,
        "--contract",
        "roofline-model-v1",
    ])
    .expect(2)
    .stderr;
    assert!(e.contains("needs --params N --bits-per-weight B"), "{e}");
    let out = run(&[
        "contracts",
        "verify",
        PROFILE,
        "--contract",
        "roofline-model-v1",
        "--hardware",
        "h100",
        "--params",
        "7e9",
        "--bits-per-weight",
        "4",
    ])
    .expect(0)
    .stdout;
    assert!(
        out.contains("PASS RM-002") && !out.contains("INVALID"),
        "{out}"
    );
    assert!(out.contains("checked "), "{out}");
    let out = run(&[
        "contracts",
        "verify",
        PROFILE,
        "--contract",
        "parity-profiling-v1",
        "--parity-baseline",
        PROFILE,
    ])
    .stdout;
    assert!(
        !out.contains("INVALID") && out.contains("checked "),
        "{out}"
    );
}

#[test]
fn html_rebuilds_the_main_jobs_report() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    run(&[
        "html",
        PROFILE,
        "-o",
        page.to_str().unwrap(),
        "--trace-file",
        "trace.json",
    ])
    .expect(0);
    let actual = std::fs::read_to_string(&page).unwrap();
    // What train_tiny's write_reports assembles for the same run.
    let p = Profile::read(root().join(PROFILE)).unwrap();
    let sc = ScorecardBuilder::from_profile(&p).build().unwrap();
    let svg = flamegraph_svg(&folded_stacks(&p), "train_tiny").unwrap();
    let roof = p.run.hardware.clone().unwrap();
    let r = BrickRoofline::from_profile(&p, &roof, None, None).unwrap();
    let expected = HtmlReport::new(&p)
        .title("train_tiny")
        .scorecard(&sc)
        .trace_file("trace.json")
        .flamegraph_svg(svg)
        .section(roofline_section(&r))
        .render();
    assert!(
        actual == expected,
        "the CLI's page differs from the main job's"
    );
    // Extra sections: parity and contracts.
    run(&[
        "html",
        PROFILE,
        "-o",
        page.to_str().unwrap(),
        "--baseline-profile",
        PROFILE,
        "--contract",
        "brick-profiler-v1",
        "--title",
        "nightly <run>",
    ])
    .expect(0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<section id=\"parity\">"), "parity section");
    assert!(
        html.contains("<section id=\"contracts\">"),
        "contracts section"
    );
    assert!(html.contains("nightly &lt;run&gt;") && !html.contains("nightly <run>"));
}

#[test]
fn html_is_the_library_page_for_the_same_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    run(&[
        "html",
        PROFILE,
        "-o",
        page.to_str().unwrap(),
        "--baseline-profile",
        PROFILE,
        "--contract",
        "brick-profiler-v1",
        "--title",
        "nightly <run>",
        "--trace-file",
        "trace.json",
        "--checksum-reference",
        PROFILE,
    ])
    .expect(0);
    let actual = std::fs::read_to_string(&page).unwrap();
    let p = Profile::read(root().join(PROFILE)).unwrap();
    let sc = ScorecardBuilder::from_profile(&p).build().unwrap();
    let roof = p.run.hardware.clone().unwrap();
    let r = BrickRoofline::from_profile(&p, &roof, None, None).unwrap();
    // A baseline profile is named after its file.
    let baselines = [RunSummary::from_profile(&p, "profile")];
    let contracts = [Verifier::new().verify("brick-profiler-v1", &p).unwrap()];
    let expected = HtmlReport::new(&p)
        .flamegraph()
        .unwrap()
        .title("nightly <run>")
        .scorecard(&sc)
        .trace_file("trace.json")
        .checksum_reference(&p)
        .roofline(&r)
        .parity(&baselines)
        .contracts(&contracts)
        .render();
    assert!(
        actual == expected,
        "the CLI's page differs from the library's"
    );
    for id in ["flamegraph", "roofline", "parity", "contracts"] {
        assert!(actual.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
}

#[test]
fn trace_ranks_merges_into_json_perfetto_or_both() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut profiles = Vec::new();
    for rank in 0..2u32 {
        let mut p = Profile::read(root().join(PROFILE)).unwrap();
        p.run.rank = Some(rank);
        p.run.world_size = Some(2);
        p.run.host = format!("node-{rank}");
        let path = dir.path().join(format!("profile.rank{rank}.json"));
        p.write(&path).unwrap();
        files.push(path.to_str().unwrap().to_owned());
        profiles.push(p);
    }
    let ranked: Vec<(u32, &Profile)> = (0..).zip(&profiles).collect();
    let out = dir.path().join("merged");
    let mut args = vec!["trace", "ranks", &files[0], &files[1]];
    args.extend(["--trace-format", "both", "-o", out.to_str().unwrap()]);
    run(&args).expect(0);
    let json = std::fs::read_to_string(out.with_extension("json")).unwrap();
    let expected = profiler_report::export::merge_ranked(&ranked, Default::default());
    assert_eq!(json, expected.chrome_json);
    let mut pftrace = Vec::new();
    profiler_report::export::write_ranked_perfetto_trace_to(&ranked, &mut pftrace).unwrap();
    assert_eq!(
        std::fs::read(out.with_extension("pftrace")).unwrap(),
        pftrace
    );
    // Two files need a name; one format goes to stdout as well.
    let e = run(&["trace", "ranks", &files[0], "--trace-format", "both"]).expect(2);
    assert!(e.stderr.contains("-o OUT"), "{}", e.stderr);
    let one = run(&["trace", "ranks", &files[0], &files[1]])
        .expect(0)
        .stdout;
    assert_eq!(one, expected.chrome_json);
}
