//! `parity` over real PyTorch traces (`tests/fixtures/real/kineto/`): each
//! side named by its file, no verdict between two clocks, drafts that
//! re-apply, and the trace's device picking the hardware preset when
//! `--hardware` is not given.

mod common;

use common::{nsight, root, run};

fn kineto(name: &str) -> String {
    root()
        .join("tests/fixtures/real/kineto")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn a_cpu_trace_against_a_cuda_trace_names_both_files_and_gives_no_verdict() {
    let (cpu, gpu) = (
        kineto("hta_cupti_profiler_a100.json"),
        kineto("hta_alexnet_a100.json"),
    );
    let out = run(&["parity", &cpu, &gpu, "--format", "markdown"])
        .expect(0)
        .stdout;
    assert!(
        out.starts_with("## Parity: hta_cupti_profiler_a100 vs hta_alexnet_a100"),
        "{out}"
    );
    assert!(out.contains("- Parity: no verdict: hta_cupti_profiler_a100's op times are on the host clock and hta_alexnet_a100's on the device clock"), "{out}");
    assert!(out.contains("- Kernel launches: – (not compared"), "{out}");
    // No verdict never passes a required check.
    run(&["parity", &cpu, &gpu, "--require-parity"]).expect(1);
    // Two device traces of one benchmark: a verdict naming the clock.
    let run2 = kineto("hta_alexnet_a100_run2.json");
    let out = run(&["parity", &gpu, &run2]).expect(0).stdout;
    assert!(out.contains("parity           YES (all 2 ops"), "{out}");
    assert!(out.contains("(device clock)"), "{out}");
}

#[test]
fn a_draft_re_applies_as_it_stands() {
    let trace = kineto("hta_sampled_rank0.json");
    let draft = run(&["parity", "--suggest-mapping", &trace])
        .expect(0)
        .stdout;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("draft.toml");
    std::fs::write(&path, &draft).unwrap();
    let out = run(&[
        "parity",
        &trace,
        &trace,
        "--mapping",
        path.to_str().unwrap(),
    ])
    .expect(0)
    .stdout;
    assert!(out.contains("All2AllPooledReq"), "{out}");
    // A rule the user broke is named in the file's own words.
    std::fs::write(&path, "rules = [{ op = \"---\", brick = \"\" }]\n").unwrap();
    let e = run(&[
        "parity",
        &trace,
        &trace,
        "--mapping",
        path.to_str().unwrap(),
    ])
    .expect(2);
    assert!(
        e.stderr.contains(r#"{ op = "---", brick = "" }"#),
        "{}",
        e.stderr
    );
    assert!(!e.stderr.contains("Some("), "{}", e.stderr);
}

#[test]
fn without_hardware_the_traces_device_picks_the_preset_for_nsight_inputs() {
    let gpu = kineto("hta_alexnet_a100.json");
    let nsys = root().join(nsight("nsys_kern_sum.csv"));
    let out = run(&["parity", nsys.to_str().unwrap(), &gpu]).expect(0);
    assert!(
        out.stderr
            .contains("--hardware not given: using the `a100` preset (A100 80GB SXM)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("NVIDIA A100-PG509-200"),
        "{}",
        out.stderr
    );
    // Given, it is used as given and nothing is said.
    let out = run(&["parity", nsys.to_str().unwrap(), &gpu, "--hardware", "h100"]).expect(0);
    assert!(
        !out.stderr.contains("--hardware not given"),
        "{}",
        out.stderr
    );
}

/// Gzipped real traces (TraceLens, HTA): each side is named by its file as
/// the plain `.json` would be, `run.json.gz` as `run`; a graph launch's
/// kernels are counted as launches with a note saying how many the graphs
/// replayed (python over the raw file: 544 of 555 by one `hipGraphLaunch`,
/// 9.656 ms).
#[test]
fn gzipped_traces_are_named_by_their_file_and_graph_replays_are_said() {
    let compiled = kineto("tracelens_torch_compile_mi300x.json.gz");
    let graph = kineto("tracelens_sglang_decode_hipgraph_mi300x.json.gz");
    let out = run(&["parity", &compiled, &graph, "--format", "markdown"])
        .expect(0)
        .stdout;
    assert!(
        out.starts_with(
            "## Parity: tracelens_torch_compile_mi300x vs tracelens_sglang_decode_hipgraph_mi300x\n"
        ),
        "{out}"
    );
    assert!(!out.contains(".json"), "{out}");
    // Markdown escapes the backticks around the call's name.
    assert!(
        out.contains(
            "tracelens_sglang_decode_hipgraph_mi300x: 544 of the 555 kernels per step were \
             replayed by graph launches (\\`hipGraphLaunch\\` 1; 11 kernel launch calls \
             besides, per step)"
        ),
        "{out}"
    );
    assert!(out.contains("device time, 9.656 ms per step"), "{out}");
    // The compiled trace launched every kernel itself: no graph note.
    assert_eq!(
        out.matches("replayed by graph launches").count(),
        1,
        "{out}"
    );
}
