//! Training scorecard behaviour: the standard rules, the fixes
//! (withheld grades, Bwd/Fwd, coherent regressions) and the extensions.
//! Golden files are rewritten with `UPDATE_GOLDEN=1 cargo test -p
//! brick-profiler-report --test scorecard`; review the diff.

use std::collections::BTreeMap;

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_core::{
    Direction, Profile,
    profile::{LayerOp, LayerStats, PhaseStats},
};
use profiler_report::hardware::{DEFAULT_BYTES_PER_TOKEN, HardwareError, from_file, from_vars};
use profiler_report::input::native::{parse_last_step_profiler_line, parse_step_profiler_line};
use profiler_report::scorecard::{
    Bottleneck, Grade, ScorecardBuilder, ScorecardError, StepProfilerInput, TrainingScorecard,
    Withheld, compute_training_scorecard,
};
use profiler_report::scorecard::{ModelShape, PerLayerData, PhaseData, Severity, Thresholds};

/// The RTX 4060 Laptop's DRAM bandwidth (256 GB/s) given as a custom
/// device, as the scorecard's reference numbers are written for.
fn rtx() -> Hardware {
    let mut hw = Hardware::new("custom");
    hw.set_memory(MemoryLevel::Dram, Figure::new(256.0, Source::Given))
        .unwrap();
    hw
}

/// The memory-bound ceiling of [`rtx`], tok/s: its DRAM bandwidth over the
/// placeholder bytes per token.
fn rtx_peak() -> f64 {
    rtx().memory(MemoryLevel::Dram).unwrap().value * 1e9 / DEFAULT_BYTES_PER_TOKEN
}

fn baseline() -> TrainingScorecard {
    let input = StepProfilerInput {
        avg_step_ms: 100.0,
        wall_coverage: 0.90,
        ..Default::default()
    };
    compute_training_scorecard(&input, 200.0, &rtx(), None)
}

fn run(step_ms: f64, coverage: f64, tok_s: f64, base: &TrainingScorecard) -> TrainingScorecard {
    let input = StepProfilerInput {
        avg_step_ms: step_ms,
        wall_coverage: coverage,
        ..Default::default()
    };
    compute_training_scorecard(&input, tok_s, &rtx(), Some(base))
}

fn phases(entries: &[(&str, f64, f64)]) -> BTreeMap<String, PhaseData> {
    entries
        .iter()
        .map(|(n, total_ms, pct)| {
            let data = PhaseData {
                total_ms: *total_ms,
                pct: *pct,
                avg_ms: *total_ms,
            };
            ((*n).to_owned(), data)
        })
        .collect()
}

#[test]
fn yoga_profile_at_194_tok_s_grades_d() {
    let input = StepProfilerInput {
        avg_step_ms: 105.0,
        wall_coverage: 0.85,
        ..Default::default()
    };
    let sc = compute_training_scorecard(&input, 194.0, &rtx(), None);
    assert_eq!(sc.grade, Some(Grade::D));
    let efficiency = sc.efficiency.expect("graded");
    assert!(efficiency > 0.0 && efficiency < 0.20, "{efficiency}");
    assert!((efficiency - 194.0 / (256e9 / 158e6)).abs() < 1e-12);
}

#[test]
fn grade_is_monotonic_in_efficiency() {
    let peak = rtx_peak();
    let mut previous = Grade::F;
    let mut seen = Vec::new();
    for i in 0..=200 {
        let eff = f64::from(i) / 200.0;
        let sc =
            compute_training_scorecard(&StepProfilerInput::default(), eff * peak, &rtx(), None);
        let grade = sc.grade.expect("graded");
        assert!(grade >= previous, "grade fell at efficiency {eff}");
        if !seen.contains(&grade) {
            seen.push(grade);
        }
        previous = grade;
    }
    assert_eq!(seen, [Grade::F, Grade::D, Grade::C, Grade::B, Grade::A]);
}

#[test]
fn bottleneck_rules_apply_in_order() {
    let peak = rtx_peak();
    // transfer 0.35, launch 0.5, compute 0.9: Transfer wins.
    let mut input = StepProfilerInput {
        avg_step_ms: 100.0,
        phases: phases(&[("h2d", 35.0, 35.0), ("forward", 15.0, 15.0)]),
        ..Default::default()
    };
    let sc = compute_training_scorecard(&input, 0.9 * peak, &rtx(), None);
    assert!((sc.launch_overhead.unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(sc.bottleneck, Bottleneck::Transfer);
    // launch 0.5, compute 0.9: Launch beats Compute.
    input.phases = phases(&[("forward", 50.0, 50.0)]);
    assert_eq!(
        compute_training_scorecard(&input, 0.9 * peak, &rtx(), None).bottleneck,
        Bottleneck::Launch
    );
    // compute 0.9 alone: Compute.
    input.phases = phases(&[("forward", 100.0, 100.0)]);
    assert_eq!(
        compute_training_scorecard(&input, 0.9 * peak, &rtx(), None).bottleneck,
        Bottleneck::Compute
    );
    // Nothing over its threshold: MemoryBw.
    assert_eq!(
        compute_training_scorecard(&input, 0.3 * peak, &rtx(), None).bottleneck,
        Bottleneck::MemoryBw
    );
    // Exactly at a threshold does not trigger (strict >).
    input.phases = phases(&[("d2h", 30.0, 30.0), ("forward", 70.0, 70.0)]);
    assert_eq!(
        compute_training_scorecard(&input, 0.1 * peak, &rtx(), None).bottleneck,
        Bottleneck::MemoryBw
    );
}

#[test]
fn throughput_drop_of_15_percent_is_a_warning_listed_first() {
    let sc = run(115.0, 0.88, 170.0, &baseline());
    assert_eq!(sc.regressions[0].metric, "throughput_tok_s");
    assert_eq!(sc.regressions[0].severity, Severity::Warning);
    assert!((sc.regressions[0].delta + 0.15).abs() < 1e-12);
    assert_eq!(sc.regressions[1].metric, "step_time_ms");
    let sc = run(100.0, 0.90, 150.0, &baseline());
    assert_eq!(sc.regressions.len(), 1);
    assert_eq!(
        sc.regressions[0].severity,
        Severity::Critical,
        "-25% is critical"
    );
}

#[test]
fn five_percent_improvement_flags_nothing() {
    let sc = run(95.0, 0.91, 210.0, &baseline());
    assert!(sc.regressions.is_empty(), "{:?}", sc.regressions);
    // Every renderer still says what was compared.
    let summary = "throughput +5.0%, step time -5.0%, wall coverage +1.0 pts";
    assert!(
        sc.to_markdown()
            .contains(&format!("| Regressions | none ({summary}) |")),
        "{}",
        sc.to_markdown()
    );
    assert!(
        sc.to_string().contains(&format!(
            "\nAgainst the baseline: {summary}\n  no regression\n"
        )),
        "{sc}"
    );
    assert!(sc.to_html().contains(&format!("<p>{summary}</p>")));
}

#[test]
fn step_time_up_25_percent_is_critical() {
    let sc = run(125.0, 0.90, 200.0, &baseline());
    assert_eq!(sc.regressions.len(), 1);
    assert_eq!(sc.regressions[0].metric, "step_time_ms");
    assert_eq!(sc.regressions[0].severity, Severity::Critical);
    let sc = run(115.0, 0.90, 200.0, &baseline());
    assert_eq!(sc.regressions[0].severity, Severity::Warning);
}

#[test]
fn wall_coverage_drop_of_006_is_a_warning() {
    let sc = run(100.0, 0.84, 200.0, &baseline());
    assert_eq!(sc.regressions.len(), 1);
    assert_eq!(sc.regressions[0].metric, "wall_coverage");
    assert_eq!(sc.regressions[0].severity, Severity::Warning);
    assert!((sc.regressions[0].delta + 0.06).abs() < 1e-9);
    assert!(
        run(100.0, 0.86, 200.0, &baseline()).regressions.is_empty(),
        "0.04 is within tolerance"
    );
}

#[test]
fn low_grade_with_launch_overhead_gets_the_launch_note() {
    let input = StepProfilerInput {
        avg_step_ms: 200.0,
        phases: phases(&[("forward", 10.0, 5.0)]),
        ..Default::default()
    };
    let sc = compute_training_scorecard(&input, 50.0, &rtx(), None);
    assert_eq!(sc.grade, Some(Grade::F));
    assert_eq!(sc.bottleneck, Bottleneck::Launch);
    assert!(
        sc.recommendations[0].contains("CUDA graphs"),
        "bottleneck advice first"
    );
    assert!(
        sc.recommendations
            .iter()
            .any(|r| r.starts_with("Launch overhead is 95%")),
        "{:?}",
        sc.recommendations
    );
    assert!(
        sc.recommendations.iter().all(|r| !r.contains("NF4")),
        "no codebase-specific advice"
    );
    // A good grade gets neither.
    let good = compute_training_scorecard(&input, 0.7 * rtx_peak(), &rtx(), None);
    assert!(
        good.recommendations.is_empty(),
        "{:?}",
        good.recommendations
    );
}

#[test]
fn backward_faster_than_forward_is_flagged() {
    let layer = |i, fwd, bwd| PerLayerData {
        layer: i,
        fwd_ms: fwd,
        bwd_ms: bwd,
        ops: BTreeMap::new(),
    };
    let input = StepProfilerInput {
        per_layer: vec![layer(0, 2.0, 1.0), layer(1, 2.0, 1.6)],
        ..Default::default()
    };
    let sc = compute_training_scorecard(&input, 0.7 * rtx_peak(), &rtx(), None);
    assert!((sc.forward_backward_ratio - 0.65).abs() < 1e-12);
    assert_eq!(sc.recommendations.len(), 1);
    assert!(sc.recommendations[0].contains("Backward is faster than forward"));
    let normal = StepProfilerInput {
        per_layer: vec![layer(0, 2.0, 4.0)],
        ..Default::default()
    };
    let sc = compute_training_scorecard(&normal, 0.7 * rtx_peak(), &rtx(), None);
    assert!(sc.recommendations.is_empty());
}

#[test]
fn top_level_ops_of_a_v2_line_populate_hotspots() {
    let line = r#"{"_profiler":"step_profiler_v2","steps":4,"avg_step_ms":50.0,"wall_coverage":0.9,"ops":{"gemm_fwd":60.0,"attn":30.0,"norm":10.0},"per_layer":[{"layer":0,"fwd_ms":1.0,"bwd_ms":2.0,"ops":{"gemm_fwd":40.0}}]}"#;
    let input = parse_step_profiler_line(line).unwrap();
    let sc = compute_training_scorecard(&input, 100.0, &rtx(), None);
    let names: Vec<&str> = sc.hotspot_ops.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(names, ["gemm_fwd", "attn", "norm"]);
    assert_eq!(
        sc.hotspot_ops[0].1, 100.0,
        "layer and top-level time add up"
    );
    assert!((sc.hotspot_ops[0].2 - 100.0 / 140.0 * 100.0).abs() < 1e-9);
}

#[test]
fn hotspots_keep_the_top_ten() {
    let ops = (0..15)
        .map(|i| (format!("op{i:02}"), f64::from(i)))
        .collect();
    let input = StepProfilerInput {
        ops,
        ..Default::default()
    };
    let sc = compute_training_scorecard(&input, 1.0, &rtx(), None);
    assert_eq!(sc.hotspot_ops.len(), 10);
    assert_eq!(sc.hotspot_ops[0].0, "op14");
    assert_eq!(sc.hotspot_ops[9].0, "op05");
}

fn assert_no_nan(sc: &TrainingScorecard) {
    // JSON has no NaN: serde_json writes it as `null`, which would not read
    // back into an `f64`, so a lossless round trip proves every float finite.
    let json = sc.to_json();
    assert_eq!(&TrainingScorecard::from_json(&json).unwrap(), sc, "{json}");
    // Renderings: warnings may name the bad input ("is NaN"), numbers may not.
    let numbers_only = TrainingScorecard {
        warnings: Vec::new(),
        ..sc.clone()
    };
    for (what, text) in [
        ("markdown", TrainingScorecard::to_markdown(&numbers_only)),
        ("html", TrainingScorecard::to_html(&numbers_only)),
        ("terminal", numbers_only.to_string()),
    ] {
        assert!(
            !text.contains("NaN") && !text.contains("inf"),
            "{what}: {text}"
        );
    }
}

#[test]
fn nan_layer_is_flagged_and_never_rendered_as_nan() {
    let mut ops = BTreeMap::new();
    ops.insert("gemm".to_owned(), f64::NAN);
    ops.insert("norm".to_owned(), 1.0);
    let input = StepProfilerInput {
        avg_step_ms: 10.0,
        per_layer: vec![
            PerLayerData {
                layer: 0,
                fwd_ms: 1.0,
                bwd_ms: 2.0,
                ops: BTreeMap::new(),
            },
            PerLayerData {
                layer: 1,
                fwd_ms: f64::NAN,
                bwd_ms: f64::INFINITY,
                ops,
            },
        ],
        ..Default::default()
    };
    let sc = compute_training_scorecard(&input, f64::NAN, &rtx(), None);
    assert!(!sc.per_layer_summary[0].non_finite);
    assert!(sc.per_layer_summary[1].non_finite);
    assert_eq!(sc.per_layer_summary[1].fwd_ms, 0.0);
    assert_eq!(sc.per_layer_summary[1].top_op, "norm");
    assert!(
        sc.warnings
            .iter()
            .any(|w| w.contains("layer 1 fwd_ms is NaN")),
        "{:?}",
        sc.warnings
    );
    assert!(
        sc.warnings
            .iter()
            .any(|w| w.contains("throughput_tok_s is NaN"))
    );
    assert_eq!(sc.throughput_tok_s, 0.0);
    assert!(sc.to_string().contains("non-finite"));
    assert_no_nan(&sc);
}

#[test]
fn extreme_and_negative_times_never_overflow_into_nan_or_ranges_beyond_one() {
    let line = r#"{"_profiler": "step_profiler_v2", "avg_step_ms": 100,
        "phases": {"h2d": {"total_ms": -500, "pct": -40, "avg_ms": 1}, "forward": {"total_ms": 50, "pct": 50, "avg_ms": 5}},
        "per_layer": [{"layer": 0, "fwd_ms": 1e-310, "bwd_ms": 1, "ops": {"a": 1e308}},
                      {"layer": 1, "fwd_ms": 2, "bwd_ms": 4, "ops": {"a": 1e308, "b": -9.99}}],
        "ops": {"c": 10}}"#;
    let input = parse_step_profiler_line(line).unwrap();
    let sc = compute_training_scorecard(&input, 100.0, &rtx(), None);
    assert_no_nan(&sc);
    assert!(
        (0.0..=1.0).contains(&sc.transfer_fraction),
        "{}",
        sc.transfer_fraction
    );
    assert!(
        sc.launch_overhead.is_some_and(|l| (0.0..=1.0).contains(&l)),
        "{:?}",
        sc.launch_overhead
    );
    assert!(
        sc.hotspot_ops
            .iter()
            .all(|(_, ms, pct)| *ms >= 0.0 && (0.0..=100.0).contains(pct))
    );
    for needle in [
        "phase `h2d` total_ms is negative",
        "layer 1 op `b` is negative",
        "layer 0 bwd/fwd ratio is inf",
    ] {
        assert!(
            sc.warnings.iter().any(|w| w.contains(needle)),
            "{needle}: {:?}",
            sc.warnings
        );
    }
    assert!(sc.per_layer_summary[0].non_finite);
}

#[test]
fn zero_and_negative_step_time_and_throughput_are_handled() {
    // Zero and negative throughput read as 0 (the compat clamp): grade F.
    // An unbounded one is no measurement: no grade.
    for (step_ms, tok_s, grade) in [
        (0.0, 0.0, Some(Grade::F)),
        (-5.0, -10.0, Some(Grade::F)),
        (f64::INFINITY, f64::NEG_INFINITY, None),
    ] {
        let input = StepProfilerInput {
            avg_step_ms: step_ms,
            phases: phases(&[("forward", 10.0, 10.0)]),
            ..Default::default()
        };
        let sc = compute_training_scorecard(&input, tok_s, &rtx(), Some(&baseline()));
        assert_eq!(
            sc.launch_overhead,
            Some(0.0),
            "no step time: launch 0 (standard rule)"
        );
        assert_eq!(sc.step_time_ms, 0.0);
        assert_eq!(sc.grade, grade);
        assert_no_nan(&sc);
    }
    // A zero peak is no ceiling: the grade is withheld with the reason.
    // The model refuses such a figure; one read from elsewhere may hold it.
    let zero: Hardware = serde_json::from_value(serde_json::json!({
        "name": "zero",
        "preset": null,
        "compute": {},
        "memory": {"dram": {"value": 0.0, "source": {"kind": "given"}}},
        "bytes_per_token": {"value": 1.0, "source": {"kind": "given"}},
    }))
    .unwrap();
    let sc = compute_training_scorecard(&StepProfilerInput::default(), 100.0, &zero, None);
    assert_eq!((sc.grade, sc.efficiency), (None, None));
    assert!(
        sc.to_string()
            .contains("Grade            n/a: the ceiling (0 GB/s over 1 B per token) is not"),
        "{sc}"
    );
}

#[test]
fn empty_profile_scores_without_inventing_numbers() {
    let profile = Profile::empty();
    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert_eq!(sc.grade, None, "no steps: no grade");
    assert_eq!(sc.throughput_tok_s, 0.0);
    let text = sc.to_string();
    assert!(
        text.contains("Grade            n/a: nothing was recorded: the profiler was never enabled"),
        "{text}"
    );
    assert_no_nan(&sc);
}

#[test]
fn malformed_lines_give_typed_errors() {
    let err = parse_step_profiler_line("{\"_profiler\":\"step_profiler_v2\",").unwrap_err();
    assert!(matches!(err, ScorecardError::MalformedJson { .. }), "{err}");
    let err = parse_step_profiler_line(r#"{"_profiler":"step_profiler_v2","avg_step_ms":"fast"}"#)
        .unwrap_err();
    match err {
        ScorecardError::InvalidField { field, .. } => assert_eq!(field, "avg_step_ms"),
        other => panic!("{other}"),
    }
    let err = parse_step_profiler_line(r#"{"steps":3}"#).unwrap_err();
    assert!(err.to_string().contains("no `_profiler` tag"), "{err}");
    let err = parse_last_step_profiler_line("step 1 loss 2.3\nstep 2 loss 2.1\n").unwrap_err();
    assert!(
        matches!(err, ScorecardError::NoProfilerLine { lines: 2 }),
        "{err}"
    );
}

#[test]
fn scorecard_json_round_trips() {
    let line = r#"{"_profiler":"step_profiler_v1","steps":3,"avg_step_ms":120.5,"wall_coverage":0.8,"phases":{"h2d":{"total_ms":30.0,"pct":8.3,"avg_ms":10.0}},"per_layer":[{"layer":0,"fwd_ms":10.0,"bwd_ms":21.0,"ops":{"gemm":25.0}}]}"#;
    let input = parse_step_profiler_line(line).unwrap();
    let sc = compute_training_scorecard(&input, 180.0, &rtx(), Some(&baseline()));
    let back = TrainingScorecard::from_json(&sc.to_json()).unwrap();
    assert_eq!(back, sc);
    let value: serde_json::Value = serde_json::from_str(&sc.to_json()).unwrap();
    assert_eq!(value["grade"], "D");
    // 30 ms of phases in a 120.5 ms step: launch overhead 0.75 (compat formula).
    assert_eq!(value["bottleneck"], "launch");
    assert_eq!(value["hotspot_ops"][0][0], "gemm");
}

/// A scorecard with every compat section, for the golden file.
fn golden_scorecard() -> TrainingScorecard {
    let mut ops0 = BTreeMap::new();
    ops0.insert("gemm_fwd".to_owned(), 12.5);
    ops0.insert("rmsnorm".to_owned(), 2.5);
    let mut ops1 = BTreeMap::new();
    ops1.insert("gemm_fwd".to_owned(), 11.0);
    ops1.insert("attention".to_owned(), 6.0);
    let input = StepProfilerInput {
        steps: 10,
        avg_step_ms: 120.0,
        wall_coverage: 0.82,
        phases: phases(&[("forward", 40.0, 33.3), ("h2d", 5.0, 4.2)]),
        per_layer: vec![
            PerLayerData {
                layer: 0,
                fwd_ms: 15.0,
                bwd_ms: 12.0,
                ops: ops0,
            },
            PerLayerData {
                layer: 1,
                fwd_ms: 17.0,
                bwd_ms: 10.2,
                ops: ops1,
            },
        ],
        ..Default::default()
    };
    let base = baseline();
    compute_training_scorecard(&input, 150.0, &rtx(), Some(&base))
}

/// Compares `actual` with `tests/golden/<name>`, rewriting it first when
/// `UPDATE_GOLDEN` is set.
fn assert_golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert_eq!(actual, expected, "{name} differs from the golden file");
}

#[test]
fn markdown_matches_the_golden_file() {
    assert_golden(
        "training_scorecard.md",
        &TrainingScorecard::to_markdown(&golden_scorecard()),
    );
}

#[test]
fn markdown_of_an_unknown_peak_matches_the_golden_file() {
    let input = StepProfilerInput {
        avg_step_ms: 80.0,
        wall_coverage: 0.5,
        ..Default::default()
    };
    let sc = ScorecardBuilder::from_input(input, 400.0).build().unwrap();
    assert_golden(
        "training_scorecard_unknown_peak.md",
        &TrainingScorecard::to_markdown(&sc),
    );
}

fn hand_built_profile() -> Profile {
    let mut p = Profile::empty();
    p.steps.count = 4;
    p.steps.tokens = 4 * 512;
    p.steps.total_ns = 400_000_000;
    p.steps.samples_ns = vec![100_000_000; 4];
    for (name, ns) in [
        ("forward", 120_000_000),
        ("blk_bwd", 200_000_000),
        ("h2d", 20_000_000),
    ] {
        p.phases.push(PhaseStats {
            name: name.to_owned(),
            count: 4,
            total_ns: ns,
            min_ns: 0,
            max_ns: 0,
            in_steps_ns: ns,
            latency: Default::default(),
        });
    }
    let op = |name: &str, ns| LayerOp {
        name: name.to_owned(),
        count: 4,
        total_ns: ns,
    };
    for i in 0..2 {
        p.layers.push(LayerStats {
            index: i,
            direction: Direction::Forward,
            scope_count: 4,
            scope_ns: 40_000_000,
            ops: vec![op("GemmQkv", 30_000_000), op("RmsNorm", 5_000_000)],
        });
        p.layers.push(LayerStats {
            index: i,
            direction: Direction::Backward,
            scope_count: 4,
            scope_ns: 80_000_000,
            ops: vec![op("GemmQkv", 70_000_000)],
        });
    }
    p
}

#[test]
fn the_layer_table_shows_each_layers_memory_when_it_was_tracked() {
    use profiler_core::alloc::{LayerMemory, MemoryKind, MemoryProfile, ScopeMemory};
    let mut profile = hand_built_profile();
    let without = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert_eq!(without.per_layer_summary[0].allocated_bytes, None);
    assert!(!without.to_string().contains("allocated"));
    let scope = |direction, kind, allocated_bytes, peak_bytes| LayerMemory {
        index: 1,
        direction,
        memory: ScopeMemory {
            kind,
            calls: 4,
            allocated_bytes,
            allocations: 8,
            freed_bytes: allocated_bytes,
            peak_bytes,
            retained_bytes: 0,
            self_allocated_bytes: 0,
            self_allocations: 0,
            self_freed_bytes: 0,
        },
    };
    profile.memory = Some(MemoryProfile {
        layers: vec![
            scope(Direction::Forward, MemoryKind::Host, 8_000_000, 1_500_000),
            scope(Direction::Backward, MemoryKind::Host, 4_000_000, 3_000_000),
            scope(Direction::Forward, MemoryKind::Device, 1 << 40, 1 << 40),
        ],
        ..MemoryProfile::default()
    });
    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    let l1 = &sc.per_layer_summary[1];
    assert_eq!(
        (l1.allocated_bytes, l1.peak_bytes),
        (Some(3_000_000), Some(3_000_000)),
        "host only: 12 MB over 4 steps, the higher direction's peak"
    );
    assert_eq!(sc.per_layer_summary[0].allocated_bytes, None);
    let text = sc.to_string();
    assert!(
        text.contains("allocated") && text.contains("peak"),
        "{text}"
    );
    assert!(text.contains("3 MB"), "{text}");
    let json = serde_json::to_string(&sc).unwrap();
    let back: TrainingScorecard = serde_json::from_str(&json).unwrap();
    assert_eq!(back.per_layer_summary, sc.per_layer_summary);
}

#[test]
fn builder_reads_a_hand_built_profile() {
    let profile = hand_built_profile();
    let input = StepProfilerInput::from_profile(&profile);
    assert_eq!(input.steps, 4);
    assert_eq!(input.avg_step_ms, 100.0);
    assert!((input.wall_coverage - 0.85).abs() < 1e-12);
    assert_eq!(input.phases["h2d"].pct, 5.0);
    // Per step (4 steps): 40 ms and 80 ms of scope time over the run.
    assert_eq!(
        (input.per_layer[1].fwd_ms, input.per_layer[1].bwd_ms),
        (10.0, 20.0)
    );
    assert_eq!(input.per_layer[0].ops["GemmQkv"], 25.0);

    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert_eq!(sc.throughput_tok_s, 2048.0 / 0.4, "tokens over step time");
    assert_eq!(
        (sc.grade, sc.efficiency),
        (None, None),
        "5120 tok/s is above the 1620 tok/s ceiling: no grade, never a clamped A"
    );
    assert_eq!(sc.forward_backward_ratio, 2.0);
    assert_eq!(sc.hotspot_ops[0].0, "GemmQkv");
    assert_eq!(sc.steps, 4);
    assert_eq!(sc.step_samples_ms, vec![100.0; 4]);
    assert!(sc.to_string().contains("Per layer"));
}

#[test]
fn profiles_measure_launch_overhead_as_uncovered_step_time() {
    let profile = hand_built_profile();
    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert!(
        sc.launch_overhead.is_some_and(|l| (l - 0.15).abs() < 1e-9),
        "1 - coverage: {:?}",
        sc.launch_overhead
    );
    // Phase times are per step, so the standard rule agrees here.
    let input = StepProfilerInput::from_profile(&profile);
    let reference = compute_training_scorecard(&input, 5120.0, &rtx(), None);
    assert!(
        reference
            .launch_overhead
            .is_some_and(|l| (l - 0.15).abs() < 1e-9)
    );
    // Without phases the overhead is unknown, not 100%.
    let mut bare = profile.clone();
    bare.phases.clear();
    let sc = ScorecardBuilder::from_profile(&bare)
        .hardware(rtx())
        .build()
        .unwrap();
    assert_eq!(sc.launch_overhead, None);
    assert_ne!(sc.bottleneck, Bottleneck::Launch);
    assert!(
        sc.warnings
            .iter()
            .any(|w| w.contains("launch overhead unknown")),
        "{:?}",
        sc.warnings
    );
}

#[test]
fn units_follow_the_source_and_an_impossible_throughput_is_called_out() {
    let profile = hand_built_profile();
    let from_profile = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert!(from_profile.times_per_step);
    assert!(from_profile.to_string().contains("Per layer (ms per step)"));
    assert!(
        matches!(
            from_profile.grade_withheld,
            Some(Withheld::AboveCeiling { .. })
        ),
        "5120 > 1620 tok/s"
    );
    let input = StepProfilerInput::from_profile(&profile);
    let from_line = compute_training_scorecard(&input, 100.0, &rtx(), None);
    assert!(!from_line.times_per_step);
    let text = from_line.to_string();
    assert!(
        text.contains("Per layer (ms)") && text.contains("total ms"),
        "{text}"
    );
    assert_eq!(from_line.grade_withheld, None);
    assert_eq!(from_line.grade, Some(Grade::F));
}

#[test]
fn mfu_against_an_estimated_peak_is_marked() {
    let shape = ModelShape {
        params: 1_000_000,
        layers: 2,
        heads: 4,
        head_dim: 16,
        seq_len: 64,
    };
    let config = |device: &str| {
        let device = device.to_owned();
        from_vars(move |k| (k == "PROFILER_HARDWARE").then(|| device.clone()))
            .unwrap()
            .unwrap()
    };
    let build = |device: &str| {
        ScorecardBuilder::from_profile(&hand_built_profile())
            .hardware(config(device))
            .model_shape(shape)
            .build()
            .unwrap()
    };
    let laptop = build("rtx_4060l"); // its bf16 peak is an estimate
    assert!(laptop.mfu.is_some());
    assert!(
        laptop
            .warnings
            .iter()
            .any(|w| w.contains("estimated dense peak")),
        "{:?}",
        laptop.warnings
    );
    let h100 = build("h100"); // a published peak
    assert!(h100.mfu.is_some());
    assert!(
        !h100
            .warnings
            .iter()
            .any(|w| w.contains("estimated dense peak"))
    );
}

#[test]
fn unknown_peak_says_how_to_set_it() {
    let profile = hand_built_profile();
    let sc = ScorecardBuilder::from_profile(&profile).build().unwrap();
    assert_eq!(sc.grade, None);
    assert!(sc.peak_unknown());
    let text = sc.to_string();
    assert!(
        text.contains("unknown peak: set PROFILER_HARDWARE="),
        "{text}"
    );
    assert!(
        TrainingScorecard::to_markdown(&sc)
            .contains("| Grade | **n/a**: unknown peak: set PROFILER_HARDWARE=")
    );
    // The profile's own hardware fills the gap.
    let mut with_hw = profile.clone();
    let mut recorded = Hardware::new("rtx_4060l");
    recorded
        .set_bytes_per_token(Figure::new(8e6, Source::Given))
        .unwrap();
    with_hw.run.hardware = Some(recorded);
    let sc = ScorecardBuilder::from_profile(&with_hw).build().unwrap();
    assert_eq!(sc.grade, Some(Grade::D), "5120 of 32 k tok/s: 16%");
    assert_eq!(sc.hardware.as_deref(), Some("rtx_4060l"));
    assert_eq!(sc.bytes_per_token, Some(8e6));
}

#[test]
fn mfu_uses_the_palm_flops_and_the_dense_peak() {
    let profile = hand_built_profile();
    let shape = ModelShape {
        params: 1_000_000_000,
        layers: 2,
        heads: 16,
        head_dim: 64,
        seq_len: 512,
    };
    let h100 = from_vars(|k| (k == "PROFILER_HARDWARE").then(|| "h100".to_owned()))
        .unwrap()
        .unwrap();
    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(h100)
        .model_shape(shape)
        .build()
        .unwrap();
    let flops_per_token = 6e9 + 12.0 * 2.0 * 16.0 * 64.0 * 512.0;
    let expected = 5120.0 * flops_per_token / 989e12;
    assert!((sc.mfu.unwrap() - expected).abs() < 1e-12, "{:?}", sc.mfu);
    assert!(TrainingScorecard::to_markdown(&sc).contains("| MFU | 3.1% |"));
    // No dense peak: MFU omitted with a warning.
    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .model_shape(shape)
        .build()
        .unwrap();
    assert_eq!(sc.mfu, None);
    assert!(
        sc.warnings
            .iter()
            .any(|w| w.starts_with("MFU needs a dense peak"))
    );
}

fn samples(center: f64, spread: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| center + spread * ((i * 7 % 11) as f64 - 5.0) / 5.0)
        .collect()
}

fn with_samples(
    step_samples_ms: Vec<f64>,
    tok_s: f64,
    base: Option<&TrainingScorecard>,
) -> TrainingScorecard {
    let avg = step_samples_ms.iter().sum::<f64>() / step_samples_ms.len() as f64;
    let input = StepProfilerInput {
        avg_step_ms: avg,
        step_samples_ms,
        ..Default::default()
    };
    compute_training_scorecard(&input, tok_s, &rtx(), base)
}

#[test]
fn noise_aware_regression_flags_clear_shifts_only() {
    let quiet = with_samples(samples(100.0, 1.0, 44), 200.0, None);
    let shifted = with_samples(samples(115.0, 1.0, 44), 174.0, Some(&quiet));
    let metrics: Vec<&str> = shifted
        .regressions
        .iter()
        .map(|r| r.metric.as_str())
        .collect();
    assert_eq!(metrics, ["throughput_tok_s", "step_time_ms"]);
    let detail = shifted.regressions[1].detail.as_deref().unwrap();
    assert!(
        detail.starts_with("significant: Mann-Whitney U test of step time (44 vs 44 steps): p="),
        "{detail}"
    );
    assert_eq!(shifted.regressions[0].detail.as_deref(), Some(detail));
    assert!(TrainingScorecard::to_markdown(&shifted).contains("  - significant: Mann-Whitney U"));

    // Same mean shift, but the baseline is noisy: within noise, not flagged.
    let noisy = with_samples(samples(100.0, 50.0, 44), 200.0, None);
    let within = with_samples(samples(115.0, 50.0, 44), 174.0, Some(&noisy));
    assert!(within.regressions.is_empty(), "{:?}", within.regressions);
    let not_flagged = &within.vs_baseline.as_ref().expect("compared").not_flagged;
    assert!(
        not_flagged.iter().any(|w| w.starts_with(
            "Throughput -13.0% and step time +15.0% not flagged: significant (Mann-Whitney U"
        ) && w
            .contains("but small: the median step time rose 15 ms, within the noise floor")),
        "{not_flagged:?}"
    );
    // Shown beside the grade, not among the warnings at the end.
    let text = within.to_string();
    assert!(
        text.contains("\nAgainst the baseline: throughput -13.0%, step time +15.0%\n  Throughput -13.0% and step time +15.0% not flagged: "),
        "{text}"
    );
    // Without samples the standard rule flags the same shift.
    let mut plain = noisy.clone();
    plain.step_samples_ms.clear();
    assert_eq!(run(115.0, 0.0, 174.0, &plain).regressions.len(), 2);
}

#[test]
fn baselines_save_atomically_and_load_with_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.json");
    let sc = golden_scorecard();
    sc.save_baseline(&path).unwrap();
    assert_eq!(TrainingScorecard::load_baseline(&path).unwrap(), sc);
    let input = StepProfilerInput {
        avg_step_ms: 200.0,
        ..Default::default()
    };
    let from_builder = ScorecardBuilder::from_input(input, 100.0)
        .hardware(rtx())
        .baseline(TrainingScorecard::load_baseline(&path).unwrap())
        .build()
        .unwrap();
    assert_eq!(from_builder.regressions[0].metric, "throughput_tok_s");

    let missing = dir.path().join("nope.json");
    let err = TrainingScorecard::load_baseline(&missing).unwrap_err();
    assert!(matches!(err, ScorecardError::BaselineRead { .. }));
    assert!(err.to_string().contains("nope.json"), "{err}");
    std::fs::write(&path, "{\"grade\": 3}").unwrap();
    let err = TrainingScorecard::load_baseline(&path).unwrap_err();
    assert!(
        matches!(err, ScorecardError::BaselineMalformed { line: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("baseline.json"), "{err}");
}

#[test]
fn html_escapes_user_strings() {
    let mut input = StepProfilerInput::default();
    input
        .ops
        .insert("<img src=x onerror=alert(1)>".to_owned(), 5.0);
    let sc = compute_training_scorecard(&input, 10.0, &rtx(), None);
    let html = TrainingScorecard::to_html(&sc);
    assert!(html.starts_with("<section class=\"training-scorecard\">"));
    assert!(html.trim_end().ends_with("</section>"));
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
}

#[test]
fn custom_thresholds_change_the_verdicts() {
    let strict = Thresholds {
        step_time_warning: 0.02,
        step_time_critical: 0.5,
        ..Thresholds::default()
    };
    let input = StepProfilerInput {
        avg_step_ms: 105.0,
        ..Default::default()
    };
    let sc = ScorecardBuilder::from_input(input.clone(), 200.0)
        .hardware(rtx())
        .baseline(baseline())
        .thresholds(strict)
        .build()
        .unwrap();
    assert_eq!(sc.regressions.len(), 1);
    assert_eq!(sc.regressions[0].severity, Severity::Warning);
    let bad = Thresholds {
        grade_a: f64::NAN,
        ..Thresholds::default()
    };
    let err = ScorecardBuilder::from_input(input, 1.0)
        .thresholds(bad)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("grade_a"), "{err}");
}

#[test]
fn live_scorecard_reads_the_global_profiler() {
    profiler_core::Config::new()
        .hardware({
            let mut hw = Hardware::new("rtx_4060l");
            hw.set_bytes_per_token(Figure::new(1e3, Source::Given))
                .unwrap();
            hw
        })
        .apply();
    profiler_core::enable();
    for _ in 0..3 {
        let _step = profiler_core::step(256);
        let _phase = profiler_core::phase("forward");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let sc = profiler_report::scorecard();
    profiler_core::disable();
    assert_eq!(sc.steps, 3);
    assert!(sc.throughput_tok_s > 0.0);
    assert!(sc.grade.is_some(), "{sc}");
    assert!(sc.wall_coverage > 0.5, "{sc}");
    // A `forward` phase and no backward work: a forward-only run.
    assert!(
        sc.to_string()
            .starts_with("Forward scorecard (forward only run)\n")
    );
}

#[test]
fn hardware_file_is_read_and_bad_values_name_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hw.json");
    std::fs::write(&path, r#"{"device": "a100", "bytes_per_token": 2e6}"#).unwrap();
    let config = from_file(&path).unwrap();
    assert_eq!(config.name, "A100 80GB SXM");
    assert_eq!(config.memory(MemoryLevel::Dram).unwrap().value, 2039.0);
    assert_eq!(config.bytes_per_token().unwrap().value, 2e6);
    assert!(config.compute(Precision::Fp32).is_some());
    assert_eq!(config.dense_peak_tflops(), Some(312.0));
    let file_var = path.display().to_string();
    let via_env = from_vars(|k| (k == "PROFILER_HARDWARE_FILE").then(|| file_var.clone()));
    assert_eq!(via_env.unwrap(), Some(config));

    std::fs::write(&path, r#"{"peak_bw_gb_s": -1}"#).unwrap();
    let err = from_file(&path).unwrap_err().to_string();
    assert!(
        err.contains("hw.json") && err.contains("peak_bw_gb_s"),
        "{err}"
    );
    std::fs::write(&path, r#"{"peak_bw": 100}"#).unwrap();
    let err = from_file(&path).unwrap_err();
    assert!(matches!(err, HardwareError::MalformedFile { .. }), "{err}");
    assert!(err.to_string().contains("unknown field `peak_bw`"), "{err}");
}

#[test]
fn terminal_and_markdown_show_names_as_text() {
    let mut input = StepProfilerInput::default();
    for (op, ms) in [
        ("a\nb", 4.0),
        ("\x1b[31mred", 3.0),
        ("<script>alert(1)</script>", 2.0),
        ("a|b\r", 1.0),
    ] {
        input.ops.insert(op.to_owned(), ms);
    }
    let sc = compute_training_scorecard(&input, 10.0, &rtx(), None);

    let text = sc.to_string();
    assert!(
        !text.contains(['\x1b', '\r']),
        "escape sequences reach the terminal:\n{text}"
    );
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Hotspot operations")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(table.len(), 5, "header and four rows: {table:#?}");
    assert!(
        table
            .iter()
            .all(|r| r.chars().count() == table[0].chars().count())
    );
    assert!(table[1].starts_with("  a\\nb ") && table[2].starts_with("  \\x1b[31mred "));

    let md = sc.to_markdown();
    assert!(!md.contains("<script>"), "{md}");
    let rows: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("| Op |"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 6, "header, rule and four rows: {rows:#?}");
    for row in &rows {
        let pipes = row
            .char_indices()
            .filter(|&(i, c)| c == '|' && !row[..i].ends_with('\\'))
            .count();
        assert_eq!(pipes, 4, "{row}");
    }
    assert!(md.contains("| \\<script\\>alert(1)\\</script\\> |"), "{md}");
    assert!(md.contains("| a\\|b\\\\r |"), "{md}");
}

/// A run whose device timer placed its bricks' device work on the host
/// clock: the scorecard shows the wait from launch to device start in every
/// format and keeps it in its JSON; a run without it shows no such row.
#[test]
fn a_device_timed_run_shows_its_launch_gap() {
    use profiler_core::profile::LaunchGap;
    let mut profile = hand_built_profile();
    let without = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert_eq!(without.launch_gap, None);
    assert!(!without.to_string().contains("Launch gap"));
    profile.run.launch_gap = Some(LaunchGap {
        bricks: 1_200,
        total_ns: 14_400_000,
        mean_ns: 12_000.0,
        max_ns: 80_000,
    });
    let sc = ScorecardBuilder::from_profile(&profile)
        .hardware(rtx())
        .build()
        .unwrap();
    assert_eq!(sc.launch_gap.as_ref().map(|g| g.bricks), Some(1_200));
    let line =
        "mean 12 µs, longest 80 µs from launch to device start, over 1200 device-timed bricks";
    assert!(sc.to_string().contains(line), "{sc}");
    assert!(
        sc.to_markdown()
            .contains(&format!("| Launch gap | {line} |"))
    );
    assert!(sc.to_html().contains(line));
    let back = TrainingScorecard::from_json(&sc.to_json()).unwrap();
    assert_eq!(back.launch_gap, sc.launch_gap);
}
