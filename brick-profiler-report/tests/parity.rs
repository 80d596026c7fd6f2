//! Parity: the contract's edge cases and Markdown (golden), several
//! baselines, parity from two profiles, the committed PyTorch trace (op
//! totals checked against sums taken from the raw JSON here), typed errors
//! for bad files, and the bar chart parsed as XML. Rewrite the golden files
//! with `UPDATE_GOLDEN=1 cargo test -p brick-profiler-report --test parity`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_report::parity::{
    OpMapping, ParityError, TOP_GAPS, compute_parity_comparison, compute_parity_multi,
    import_pytorch_trace, import_pytorch_trace_str, ms_per_step, parity_section,
};
use profiler_report::run::{OpSummary, RunSummary};

fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert!(
        expected == actual,
        "{name} differs from the golden file; actual:\n{actual}"
    );
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/pytorch")
        .join(name)
}

/// `ms` per step, as a parity file gives it.
fn op(name: &str, ms: f64) -> OpSummary {
    OpSummary::total(name, (ms * 1e6).round() as u64)
}

fn side(runtime: &str, tok_s: f64, launches: u64, ops: &[(&str, f64)]) -> RunSummary {
    RunSummary {
        name: runtime.into(),
        tokens_per_s: (tok_s > 0.0).then_some(tok_s),
        step_ns: (tok_s > 0.0).then(|| 256.0 / tok_s * 1e9),
        launches_per_step: Some(launches),
        ops: ops.iter().map(|(k, v)| op(k, *v)).collect(),
        ..RunSummary::default()
    }
}

fn ours() -> RunSummary {
    side(
        "ours",
        4000.0,
        150,
        &[
            ("QkvProjection", 2.2),
            ("GateProjection", 2.4),
            ("RmsNorm", 0.12),
            ("AttentionSoftmax", 1.6),
            ("Residual", 0.13),
            ("LmHead", 0.26),
            ("AdamUpdate", 0.6),
            ("Only|Ours", 0.5),
        ],
    )
}

fn torch() -> RunSummary {
    side(
        "pytorch",
        18_000.0,
        590,
        &[
            ("QkvProjection", 0.32),
            ("GateProjection", 0.23),
            ("RmsNorm", 0.94),
            ("AttentionSoftmax", 0.28),
            ("Residual", 0.136),
            ("LmHead", 0.043),
            ("AdamUpdate", 0.84),
            ("CrossEntropyBackward", 0.058),
        ],
    )
}

#[test]
fn the_contract_markdown_matches_the_golden_file() {
    let c = compute_parity_comparison(&ours(), &torch());
    let md = c.to_markdown();
    assert!(
        md.starts_with("## Parity: ours vs pytorch\n\n- Throughput gap: 4.50x"),
        "{md}"
    );
    assert!(md.contains("\n- Kernel launches: 0.25x"));
    assert!(md.contains("\n- Parity: NO"));
    assert!(md.contains("### Top Gaps\n\n| Op | ours (ms) | Baseline (ms) | Ratio |\n"));
    assert_eq!(c.gaps.len(), TOP_GAPS);
    assert_eq!(c.all_gaps.len(), 7);
    golden("parity.md", &md);
}

#[test]
fn zero_throughput_and_zero_launches_read_as_not_available() {
    let c = compute_parity_comparison(
        &side("ours", 0.0, 10, &[("A", 1.0)]),
        &side("b", 10.0, 0, &[("A", 1.0)]),
    );
    assert_eq!((c.throughput_ratio, c.launch_ratio), (0.0, 0.0));
    let md = c.to_markdown();
    assert!(
        md.contains("- Throughput gap: – (no throughput for ours)"),
        "{md}"
    );
    assert!(
        md.contains("- Kernel launches: – (no launch count for b)"),
        "{md}"
    );
    assert!(md.contains("- Parity: YES"), "{md}");
    let json: serde_json::Value = serde_json::from_str(&c.to_json()).unwrap();
    assert_eq!(json["throughput_ratio"], 0.0);
    assert_eq!(json["launch_ratio"], 0.0);
    for key in ["ours", "baseline", "gaps", "parity_achieved"] {
        assert!(json.get(key).is_some(), "{key}");
    }
}

#[test]
fn an_op_missing_on_one_side_is_not_a_gap() {
    let c = compute_parity_comparison(&ours(), &torch());
    assert!(
        c.all_gaps
            .iter()
            .all(|g| g.op != "Only|Ours" && g.op != "CrossEntropyBackward")
    );
    assert_eq!(c.only_ours, ["Only|Ours"]);
    assert_eq!(c.only_baseline, ["CrossEntropyBackward"]);
    assert!(c.to_markdown().contains("- only ours: Only\\|Ours"));
}

#[test]
fn every_ratio_within_one_point_one_against_one_above() {
    let base = side("b", 1.0, 1, &[("A", 1.0), ("B", 2.0), ("C", 4.0)]);
    let within = side("o", 1.0, 1, &[("A", 1.1), ("B", 2.2), ("C", 0.5)]);
    assert!(compute_parity_comparison(&within, &base).parity_achieved);
    let one_above = side("o", 1.0, 1, &[("A", 1.1), ("B", 2.2), ("C", 4.41)]);
    let c = compute_parity_comparison(&one_above, &base);
    assert!(!c.parity_achieved);
    assert_eq!(c.gaps[0].op, "C");
    assert!(
        c.to_markdown()
            .contains("- Parity: NO (1 of 3 ops above 1.10x; compared ")
    );
}

#[test]
fn more_than_five_gaps_are_decided_over_all_then_cut_to_five() {
    let names: Vec<String> = (0..8).map(|i| format!("op{i}")).collect();
    let ops =
        |ms: &[f64]| -> Vec<OpSummary> { names.iter().zip(ms).map(|(n, ms)| op(n, *ms)).collect() };
    let base = RunSummary {
        ops: ops(&[1.0; 8]),
        ..side("b", 1.0, 1, &[])
    };
    let fine = RunSummary {
        ops: ops(&[1.1, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 1.05]),
        ..side("o", 1.0, 1, &[])
    };
    let c = compute_parity_comparison(&fine, &base);
    assert!(c.parity_achieved);
    assert_eq!(c.gaps.len(), 5);
    assert_eq!(
        c.gaps.iter().map(|g| g.op.as_str()).collect::<Vec<_>>(),
        ["op0", "op7", "op1", "op2", "op3"]
    );
    let slow = RunSummary {
        ops: ops(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.2]),
        ..fine
    };
    let c = compute_parity_comparison(&slow, &base);
    assert!(!c.parity_achieved);
    assert_eq!((c.gaps.len(), c.all_gaps.len()), (5, 8));
}

#[test]
fn several_baselines_set_the_bar_per_op_and_name_it() {
    let llama = side(
        "llama.cpp",
        30_000.0,
        120,
        &[("QkvProjection", 0.2), ("RmsNorm", 2.0)],
    );
    let c = compute_parity_multi(&ours(), &[torch(), llama]);
    let qkv = c.all_gaps.iter().find(|g| g.op == "QkvProjection").unwrap();
    assert_eq!(
        (qkv.baseline_ms, qkv.baseline_runtime.as_deref()),
        (0.2, Some("llama.cpp"))
    );
    let norm = c.all_gaps.iter().find(|g| g.op == "RmsNorm").unwrap();
    assert_eq!(norm.baseline_runtime.as_deref(), Some("pytorch"));
    assert_eq!(c.fastest_baseline, "llama.cpp");
    assert_eq!(c.fewest_launches_baseline, "llama.cpp");
    let md = c.to_markdown();
    assert!(md.starts_with("## Parity: ours vs pytorch, llama.cpp\n"));
    assert!(md.contains("| Op | ours (ms) | Baseline (ms) | Ratio | Baseline runtime |"));
    golden("parity_multi.md", &md);
}

fn profile(scale: u64, steps: u64) -> Profile {
    let mut p = Profile::empty();
    for (name, ns) in [
        ("RmsNorm", 2_000_000u64),
        ("QkvProjection", 10_000_000),
        ("Idle", 0),
    ] {
        let mut b = BrickStats::new(name, BrickCategory::Other);
        b.count = 3 * steps;
        b.total_ns = ns * scale * steps;
        p.bricks.push(b);
    }
    p.steps.count = steps;
    p.steps.tokens = 256 * steps;
    p.steps.total_ns = 20_000_000 * scale * steps;
    p
}

#[test]
fn parity_from_two_profiles_uses_ms_per_step() {
    // The earlier run was twice as fast per step and ran twice as many steps.
    let now = RunSummary::from_profile(&profile(2, 10), "now");
    let before = RunSummary::from_profile(&profile(1, 20), "before");
    assert_eq!(ms_per_step(&now)["RmsNorm"], 4.0);
    assert_eq!(ms_per_step(&before)["RmsNorm"], 2.0);
    let c = compute_parity_comparison(&now, &before);
    assert!(c.all_gaps.iter().all(|g| (g.ratio - 2.0).abs() < 1e-12));
    assert!((c.throughput_ratio - 2.0).abs() < 1e-12);
    assert_eq!(c.launch_ratio, 1.0);
    assert!(!c.parity_achieved);
    // Through a file, as a saved profile of an earlier run.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("before.json");
    profile(1, 20).write(&path).unwrap();
    let read = RunSummary::from_profile(&Profile::read(&path).unwrap(), "before");
    assert_eq!(read, before);
}

/// Sums `dur` (µs) of complete events by name, inside the trace's
/// `ProfilerStep` windows, straight from the JSON.
fn raw_sums(trace: &serde_json::Value) -> (BTreeMap<String, f64>, usize, f64) {
    let events = trace["traceEvents"].as_array().unwrap();
    let complete: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    let steps: Vec<(f64, f64)> = complete
        .iter()
        .filter(|e| {
            e["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("ProfilerStep#"))
        })
        .map(|e| {
            (
                e["ts"].as_f64().unwrap(),
                e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap(),
            )
        })
        .collect();
    let mut sums = BTreeMap::new();
    for e in &complete {
        let ts = e["ts"].as_f64().unwrap();
        if steps.iter().any(|&(s, end)| ts >= s && ts <= end) {
            *sums
                .entry(e["name"].as_str().unwrap().to_owned())
                .or_insert(0.0) += e["dur"].as_f64().unwrap();
        }
    }
    // A step's duration as written (its end, start + duration, is rounded
    // to the start's precision).
    let step_us: f64 = complete
        .iter()
        .filter(|e| {
            e["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("ProfilerStep#"))
        })
        .map(|e| e["dur"].as_f64().unwrap())
        .sum();
    (sums, steps.len(), step_us)
}

#[test]
fn the_committed_pytorch_trace_imports_with_the_expected_op_totals() {
    let path = fixture("tiny_transformer_cpu.trace.json");
    let mapping = OpMapping::from_file(fixture("tiny_transformer.mapping.toml")).unwrap();
    let import = import_pytorch_trace(&path, &mapping).unwrap();
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let (sums, steps, step_us) = raw_sums(&raw);
    assert!(steps >= 1);
    assert_eq!(import.steps, steps as u64);
    let p = &import.summary;
    assert_eq!(p.name, "pytorch");
    let per_step = |us: f64| us / 1e3 / steps as f64;
    assert!(((p.step_ns.unwrap_or(0.0) / 1e6) - per_step(step_us)).abs() < 1e-9);
    // record_function ranges named after bricks map to themselves; nothing
    // encloses them, so each brick's time is the sum of its ranges.
    for brick in [
        "RmsNorm",
        "QkvProjection",
        "RopeEmbedding",
        "AttentionScore",
        "AttentionSoftmax",
        "AttentionOutput",
        "OutputProjection",
        "Residual",
        "GateProjection",
        "UpProjection",
        "Activation",
        "DownProjection",
        "Embedding",
        "LmHead",
        "CrossEntropy",
    ] {
        let expect = per_step(sums[brick]);
        assert!(
            (ms_per_step(p)[brick] - expect).abs() < 1e-9,
            "{brick}: {} vs {expect}",
            ms_per_step(p)[brick]
        );
    }
    // Adam's step maps by the built-in rule.
    let adam = per_step(sums["Optimizer.step#Adam.step"]);
    assert!((ms_per_step(p)["AdamUpdate"] - adam).abs() < 1e-9);
    // The model has one softmax in attention; its backward node maps
    // through its sequence number to AttentionSoftmaxBackward.
    let softmax_bwd = per_step(sums["autograd::engine::evaluate_function: SoftmaxBackward0"]);
    assert!((ms_per_step(p)["AttentionSoftmaxBackward"] - softmax_bwd).abs() < 1e-9);
    let embed_bwd = per_step(sums["autograd::engine::evaluate_function: EmbeddingBackward0"]);
    assert!((ms_per_step(p)["EmbeddingBackward"] - embed_bwd).abs() < 1e-9);
    // The mapping renames the rotary embedding's backward.
    assert!(
        ms_per_step(p).contains_key("RopeBackward")
            && !ms_per_step(p).contains_key("RopeEmbeddingBackward")
    );
    // Tokens per step come from the trace's metadata.
    assert!(
        (p.tokens_per_s.unwrap_or(0.0) - 256.0 / ((p.step_ns.unwrap_or(0.0) / 1e6) / 1e3)).abs()
            < 1e-6
    );
    // Launches: at least one per matrix product (a leaf that does work), at
    // most one per op event.
    let in_steps = |name: &str| {
        raw["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X" && e["name"] == name)
            .count() as u64
    };
    let products = (in_steps("aten::mm") + in_steps("aten::bmm")) / steps as u64;
    let ops = raw["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "cpu_op")
        .count() as u64;
    assert!(products > 50, "{products}");
    assert!(
        p.launches_per_step.unwrap_or(0) >= products,
        "{} < {products}",
        p.launches_per_step.unwrap_or(0)
    );
    assert!(p.launches_per_step.unwrap_or(0) < ops / steps as u64);
    assert!(!import.device_kernels);
    assert!(import.mapped_fraction > 0.5 && import.mapped_fraction <= 1.0);
    let mapped: f64 = ms_per_step(p).values().sum();
    assert!(
        mapped <= (p.step_ns.unwrap_or(0.0) / 1e6) * (1.0 + 1e-9),
        "no time counted twice"
    );
}

#[test]
fn without_a_mapping_file_backward_names_follow_the_suffix_rule() {
    let import = import_pytorch_trace(
        fixture("tiny_transformer_cpu.trace.json"),
        &OpMapping::defaults(),
    )
    .unwrap();
    assert!(ms_per_step(&import.summary).contains_key("RopeEmbeddingBackward"));
    let tokens = OpMapping::defaults().with_tokens_per_step(512.0);
    let import2 =
        import_pytorch_trace(fixture("tiny_transformer_cpu.trace.json"), &tokens).unwrap();
    assert!(
        (import2.summary.tokens_per_s.unwrap_or(0.0)
            - 2.0 * import.summary.tokens_per_s.unwrap_or(0.0))
        .abs()
            < 1e-6
    );
}

#[test]
fn an_unannotated_trace_maps_aten_ops_and_counts_steps() {
    let trace = r#"{"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 1, "dur": 30, "args": {"Sequence number": 7}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 2, "dur": 20, "args": {"Sequence number": 7}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::gelu", "pid": 1, "tid": 1, "ts": 40, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 55, "dur": 5},
        {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 1, "ts": 70, "dur": 20, "args": {"Sequence number": 7}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 71, "dur": 15},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 60},
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 101, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 1, "tid": 1, "ts": 120, "dur": 1},
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 500, "dur": 99}
    ]}"#;
    let import = import_pytorch_trace_str(trace, "inline", &OpMapping::defaults()).unwrap();
    let p = &import.summary;
    assert_eq!(import.steps, 2);
    // Outermost mapped range wins: aten::linear, not its addmm; the event
    // outside both steps is left out. (30 + 10) µs over 2 steps.
    assert!((ms_per_step(p)["MatMul"] - 0.02).abs() < 1e-12);
    assert!((ms_per_step(p)["Activation"] - 0.005).abs() < 1e-12);
    assert!((ms_per_step(p)["MatMulBackward"] - 0.01).abs() < 1e-12);
    assert!(((p.step_ns.unwrap_or(0.0) / 1e6) - 0.08).abs() < 1e-12);
    // Leaf ops that do work: addmm, gelu, add, mm, linear (step 2) = 5 over 2 steps.
    assert_eq!(p.launches_per_step.unwrap_or(0), 3);
    assert_eq!(p.tokens_per_s.unwrap_or(0.0), 0.0);
    assert!(p.notes.iter().any(|n| n.contains("throughput is unknown")));
    assert_eq!(
        import.unmapped.first().map(|u| u.name.as_str()),
        Some("aten::add")
    );
}

#[test]
fn a_device_trace_attributes_kernel_time_to_the_launching_op() {
    let trace = r#"{"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "user_annotation", "name": "RmsNorm", "pid": 1, "tid": 1, "ts": 1, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 2, "dur": 5, "args": {"External id": 3}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"External id": 4}},
        {"ph": "X", "cat": "kernel", "name": "mul_kernel", "pid": 0, "tid": 7, "ts": 30, "dur": 2, "args": {"External id": 3}},
        {"ph": "X", "cat": "kernel", "name": "mul_kernel", "pid": 0, "tid": 7, "ts": 33, "dur": 2, "args": {"External id": 3}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 40, "dur": 8, "args": {"External id": 4}},
        {"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": 50, "dur": 1}
    ], "tokens_per_step": 64}"#;
    let import = import_pytorch_trace_str(trace, "gpu", &OpMapping::defaults()).unwrap();
    let p = &import.summary;
    assert!(import.device_kernels);
    assert!((ms_per_step(p)["RmsNorm"] - 0.004).abs() < 1e-12);
    assert!((ms_per_step(p)["MatMul"] - 0.008).abs() < 1e-12);
    assert_eq!(p.launches_per_step.unwrap_or(0), 4);
    assert!((p.tokens_per_s.unwrap_or(0.0) - 64.0 / 100e-6).abs() < 1e-3);
    assert_eq!(import.unmapped[0].name, "orphan");
}

#[test]
fn bad_files_are_typed_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(fixture("tiny_transformer_cpu.trace.json")).unwrap();
    let cut = dir.path().join("cut.trace.json");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let e = import_pytorch_trace(&cut, &OpMapping::defaults()).unwrap_err();
    assert!(
        matches!(&e, ParityError::Malformed { what: "PyTorch trace", line, .. } if *line > 0),
        "{e}"
    );
    assert!(e.to_string().contains("cut.trace.json"), "{e}");
    let e =
        import_pytorch_trace(dir.path().join("missing.json"), &OpMapping::defaults()).unwrap_err();
    assert!(matches!(e, ParityError::Read { .. }) && e.to_string().contains("missing.json"));
    let not_trace = dir.path().join("profile.json");
    std::fs::write(&not_trace, "{\"bricks\": []}").unwrap();
    let e = import_pytorch_trace(&not_trace, &OpMapping::defaults()).unwrap_err();
    assert!(
        matches!(e, ParityError::NotATrace { .. }) && e.to_string().contains("profile.json"),
        "{e}"
    );
    let map = dir.path().join("map.toml");
    std::fs::write(&map, "[ops]\n\"aten::mm\" = \n").unwrap();
    let e = OpMapping::from_file(&map).unwrap_err();
    assert!(
        e.to_string().contains("map.toml") && e.to_string().contains("line 2"),
        "{e}"
    );
    let yaml = dir.path().join("map.yaml");
    std::fs::write(&yaml, "ops: {}").unwrap();
    let e = OpMapping::from_file(&yaml).unwrap_err();
    assert!(matches!(e, ParityError::UnknownMappingFormat { .. }), "{e}");
    let parity = dir.path().join("parity.json");
    std::fs::write(&parity, "{\"runtime\": \"x\", \"ops\": {\"A\": \"fast\"}}").unwrap();
    let e = RunSummary::read_parity(&parity).unwrap_err();
    assert!(
        e.to_string().contains("parity.json") && e.to_string().contains("line 1"),
        "{e}"
    );
}

#[test]
fn the_bar_chart_is_well_formed_xml_with_a_row_per_op() {
    let mut o = ours();
    o.ops.push(op("<script>&\"x\"", 1.0));
    let mut b = torch();
    b.ops.push(op("<script>&\"x\"", 0.5));
    let c = compute_parity_comparison(&o, &b);
    let svg = c.to_svg();
    golden("parity.svg", &svg);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let rows: Vec<_> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("g")
                && n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|c| c == "op"))
        })
        .collect();
    assert_eq!(rows.len(), c.all_gaps.len());
    let text_of = |class: &str| -> Vec<String> {
        doc.descendants()
            .filter(|n| {
                n.has_tag_name("text")
                    && n.attribute("class")
                        .is_some_and(|c| c.split(' ').any(|c| c == class))
            })
            .filter_map(|n| n.text().map(str::to_owned))
            .collect()
    };
    assert!(text_of("name").contains(&"<script>&\"x\"".to_owned()));
    assert!(text_of("axis-label").contains(&"Time per step (ms)".to_owned()));
    assert!(text_of("tick").len() >= 3);
    assert_eq!(
        text_of("slow").len(),
        c.all_gaps.iter().filter(|g| g.ratio > 1.1).count()
    );
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("ours"))
            .count(),
        c.all_gaps.len() + 1
    );
    assert!(!svg.contains("NaN") && !svg.contains("inf") && !svg.contains("<script>"));
    let html = profiler_report::HtmlReport::new(&Profile::empty())
        .section(parity_section(&c))
        .render();
    assert!(html.contains("<section id=\"parity\">") && !html.contains("<script>&"));
}
