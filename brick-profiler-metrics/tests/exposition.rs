//! What a scrape writes: every family of the issue, named after the
//! Prometheus conventions, with the rank labels on every series.

use profiler_core::Direction;
use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_core::profile::LayerStats;
use profiler_core::{BrickCategory, BrickStats, Profile};
use profiler_metrics::{Format, RankLabels, encode};

fn labels() -> RankLabels {
    RankLabels {
        rank: 1,
        world_size: 2,
        run: "job7".to_owned(),
        host: "node-a".to_owned(),
    }
}

fn profile() -> Profile {
    let mut p = Profile::empty();
    p.run.name = "train".to_owned();
    let mut matmul = BrickStats::new("MatMul", BrickCategory::Ffn);
    matmul.count = 40;
    matmul.total_ns = 2_500_000_000;
    matmul.total_flops = 4_000_000_000_000;
    p.bricks.push(matmul);
    p.steps.count = 4;
    p.steps.tokens = 4 * 256;
    p.steps.samples_ns = vec![500_000_000, 500_000_000, 1_000_000_000, 3_000_000];
    p.steps.samples_tokens = vec![256; 4];
    p.steps.total_ns = p.steps.samples_ns.iter().sum();
    p.layers.push(LayerStats {
        index: 3,
        direction: Direction::Backward,
        scope_count: 4,
        scope_ns: 750_000_000,
        ops: Vec::new(),
    });
    p.counters.timeline_dropped = 7;
    p
}

fn openmetrics(p: Profile) -> String {
    encode(p, &labels(), Format::OpenMetrics).expect("encodes")
}

/// The one line whose series name and labels start with `prefix`.
fn line<'a>(text: &'a str, prefix: &str) -> &'a str {
    let found: Vec<_> = text.lines().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(found.len(), 1, "{prefix} in:\n{text}");
    found[0]
}

fn value(text: &str, prefix: &str) -> f64 {
    let l = line(text, prefix);
    l.rsplit(' ')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{l}"))
}

const RANK: &str = r#"rank="1",world_size="2",run="job7",host="node-a""#;

#[test]
fn bricks_are_counters_in_seconds_with_brick_and_category() {
    let text = openmetrics(profile());
    let seconds =
        format!(r#"profiler_brick_seconds_total{{{RANK},brick="MatMul",category="FFN"}}"#);
    assert_eq!(value(&text, &seconds), 2.5);
    let calls = format!(r#"profiler_brick_calls_total{{{RANK},brick="MatMul",category="FFN"}}"#);
    assert_eq!(value(&text, &calls), 40.0);
    assert!(
        text.contains(
            "# TYPE profiler_brick_seconds counter\n# UNIT profiler_brick_seconds seconds"
        ),
        "{text}"
    );
    assert!(text.ends_with("# EOF\n"), "{text}");
}

#[test]
fn step_time_is_a_histogram_in_seconds() {
    let text = openmetrics(profile());
    assert_eq!(
        value(&text, &format!("profiler_step_seconds_count{{{RANK}}}")),
        4.0
    );
    assert_eq!(
        value(&text, &format!("profiler_step_seconds_sum{{{RANK}}}")),
        2.003
    );
    // 3 ms falls in the 4 ms bucket, the half-seconds in 0.512, 1 s in 1.024.
    assert_eq!(
        value(
            &text,
            &format!(r#"profiler_step_seconds_bucket{{{RANK},le="0.004"}}"#)
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"profiler_step_seconds_bucket{{{RANK},le="0.512"}}"#)
        ),
        3.0
    );
    assert_eq!(
        value(
            &text,
            &format!(r#"profiler_step_seconds_bucket{{{RANK},le="+Inf"}}"#)
        ),
        4.0
    );
    assert_eq!(
        value(&text, &format!("profiler_steps_total{{{RANK}}}")),
        4.0
    );
    assert_eq!(
        value(&text, &format!("profiler_tokens_total{{{RANK}}}")),
        1024.0
    );
    let tok_s = value(&text, &format!("profiler_tokens_per_second{{{RANK}}}"));
    assert!((tok_s - 1024.0 / 2.003).abs() < 1e-6, "{tok_s}");
}

#[test]
fn layers_dropped_records_and_run_facts() {
    let text = openmetrics(profile());
    let layer = format!(r#"profiler_layer_seconds_total{{{RANK},layer="3",direction="bwd"}}"#);
    assert_eq!(value(&text, &layer), 0.75);
    let dropped = format!(r#"profiler_dropped_records_total{{{RANK},kind="timeline_events"}}"#);
    assert_eq!(value(&text, &dropped), 7.0);
    let info = line(&text, "profiler_run_info{");
    assert!(
        info.contains(r#"name="train""#) && info.contains(RANK),
        "{info}"
    );
    assert!(text.contains("# TYPE profiler_run info"), "{text}");
}

#[test]
fn efficiency_and_mfu_appear_only_when_the_hardware_is_known() {
    let text = openmetrics(profile());
    assert!(!text.contains("profiler_mfu_ratio"), "{text}");
    assert!(!text.contains("profiler_efficiency_ratio"), "{text}");
    let mut p = profile();
    let mut hw = Hardware::new("test");
    let given = |v| Figure::new(v, Source::Given);
    hw.set_memory(MemoryLevel::Dram, given(1.0)).unwrap();
    hw.set_compute(Precision::Bf16, given(4.0)).unwrap();
    hw.set_bytes_per_token(given(1e6)).unwrap();
    p.run.hardware = Some(hw);
    let text = openmetrics(p);
    // 4e12 FLOPs in 2.003 s against 4e12 FLOP/s.
    let mfu = value(&text, &format!("profiler_mfu_ratio{{{RANK}}}"));
    assert!((mfu - 1.0 / 2.003).abs() < 1e-9, "{mfu}");
    // 1024 tokens in 2.003 s against 1e9 / 1e6 = 1000 tokens/s.
    let eff = value(&text, &format!("profiler_efficiency_ratio{{{RANK}}}"));
    assert!((eff - 1024.0 / 2.003 / 1000.0).abs() < 1e-9, "{eff}");
}

#[test]
fn prometheus_text_has_no_openmetrics_only_lines() {
    let text = encode(profile(), &labels(), Format::PrometheusText).expect("encodes");
    assert!(
        !text.contains("# EOF") && !text.contains("# UNIT"),
        "{text}"
    );
    assert!(text.contains("# TYPE profiler_run_info gauge"), "{text}");
    let seconds =
        format!(r#"profiler_brick_seconds_total{{{RANK},brick="MatMul",category="FFN"}}"#);
    assert_eq!(value(&text, &seconds), 2.5);
}
