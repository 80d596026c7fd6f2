//! The scorecard on device time: a profile that captured kernels grades its
//! layers and hotspots on the kernels' device time, names the time base in
//! text, JSON and HTML, lists the kernels outside every brick as their own
//! row, and keeps (and marks) host time for bricks and layers that launched
//! nothing. Every number is checked against the synthetic capture.

use profiler_core::hardware::{Figure, Hardware, MemoryLevel, Source};
use profiler_core::profile::{
    ActivityKind, BrickKernels, DeviceKernels, KernelGroup, KernelRow, LayerKernels, LayerOp,
    LayerStats, StepDevice,
};
use profiler_core::stats::{HistBucket, LatencyHistogram};
use profiler_core::{BrickCategory, BrickStats, Direction, Profile};
use profiler_report::scorecard::{ScorecardBuilder, TimeBase, TimeSource, TrainingScorecard};

const MS: u64 = 1_000_000;
const STEPS: u64 = 2;

fn brick(name: &str, total_ns: u64) -> BrickStats {
    let mut b = BrickStats::new(name, BrickCategory::Other);
    b.count = STEPS;
    b.total_ns = total_ns;
    b.min_ns = total_ns / STEPS;
    b.max_ns = total_ns / STEPS;
    let per_call = total_ns / STEPS;
    b.latency = LatencyHistogram {
        buckets: vec![HistBucket {
            lo_ns: per_call,
            hi_ns: per_call + 1,
            count: STEPS,
        }],
    };
    b
}

fn layer(index: u32, scope_ns: u64, ops: &[(&str, u64)]) -> LayerStats {
    LayerStats {
        index,
        direction: Direction::Forward,
        scope_count: STEPS,
        scope_ns,
        ops: ops
            .iter()
            .map(|&(name, total_ns)| LayerOp {
                name: name.to_owned(),
                count: STEPS,
                total_ns,
            })
            .collect(),
    }
}

fn row(name: &str, kind: ActivityKind, calls: u64, total_ns: u64) -> KernelRow {
    KernelRow {
        name: name.to_owned(),
        kind,
        calls,
        total_ns,
        min_ns: total_ns / calls,
        max_ns: total_ns / calls,
        grid: None,
        block: None,
        registers: None,
        shared_bytes: None,
    }
}

fn device_brick(name: &str, self_ns: u64, total_ns: u64, kernels: Vec<KernelRow>) -> BrickKernels {
    BrickKernels {
        brick: name.to_owned(),
        self_ns,
        total_ns,
        activities: kernels.iter().map(|k| k.calls).sum(),
        kernels,
        ..BrickKernels::default()
    }
}

/// Host: Block (10 ms) holds Attention (6 ms) and Mlp (3 ms) in layer 0;
/// Norm (1 ms) runs in layer 1 and Tokenize (2 ms) outside layers, both on
/// the host only. Device: Attention's two kernels (4 ms), Mlp's two (1.5 ms
/// in layer 0, 0.5 ms outside it), a kernel outside every brick (1 ms, 0.3
/// of it inside layer 0) and a copy whose launch was not captured (0.2 ms).
fn captured() -> Profile {
    let mut p = Profile::empty();
    p.steps.count = STEPS;
    p.steps.total_ns = 40 * MS;
    p.bricks = vec![
        brick("Block", 10 * MS),
        brick("Attention", 6 * MS),
        brick("Mlp", 3 * MS),
        brick("Norm", MS),
        brick("Tokenize", 2 * MS),
    ];
    p.layers = vec![
        layer(0, 9 * MS, &[("Attention", 6 * MS), ("Mlp", 3 * MS)]),
        layer(1, MS, &[("Norm", MS)]),
    ];
    let kernel = ActivityKind::Kernel;
    p.device_kernels = Some(DeviceKernels {
        source: "cupti".into(),
        bricks: vec![
            device_brick("Block", 0, 6 * MS, Vec::new()),
            device_brick(
                "Attention",
                4 * MS,
                4 * MS,
                vec![row("flash_fwd", kernel, 2, 4 * MS)],
            ),
            device_brick("Mlp", 2 * MS, 2 * MS, vec![row("gemm", kernel, 2, 2 * MS)]),
        ],
        layers: vec![LayerKernels {
            layer: 0,
            direction: Direction::Forward,
            activities: 4,
            device_ns: 4 * MS + 1_500_000 + 300_000,
            bricks: vec![("Attention".into(), 4 * MS), ("Mlp".into(), 1_500_000)],
        }],
        outside_bricks: KernelGroup {
            activities: 1,
            device_ns: MS,
            kernels: vec![row("init_weights", kernel, 1, MS)],
        },
        unknown_launch: KernelGroup {
            activities: 1,
            device_ns: 200_000,
            kernels: vec![row("Memcpy HtoD", ActivityKind::Memcpy, 1, 200_000)],
        },
        device_ns: 4 * MS + 2 * MS + MS + 200_000,
        ..DeviceKernels::default()
    });
    p
}

fn scorecard(p: &Profile) -> TrainingScorecard {
    ScorecardBuilder::from_profile(p)
        .build()
        .expect("default thresholds")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn hotspot<'a>(sc: &'a TrainingScorecard, name: &str) -> Option<&'a (String, f64, f64)> {
    sc.hotspot_ops.iter().find(|h| h.0 == name)
}

#[test]
fn layers_use_the_device_time_launched_inside_them() {
    let sc = scorecard(&captured());
    let l0 = &sc.per_layer_summary[0];
    // 5.8 ms of device time over 2 steps, not the 9 ms host scope.
    assert!(close(l0.fwd_ms, 5.8 / 2.0), "{}", l0.fwd_ms);
    assert_eq!(l0.top_op, "Attention");
    assert!(close(l0.top_op_pct, 4.0 / 5.5 * 100.0), "{}", l0.top_op_pct);
    // Layer 1 launched nothing: host time, marked.
    let l1 = &sc.per_layer_summary[1];
    assert!(close(l1.fwd_ms, 0.5), "{}", l1.fwd_ms);
    assert_eq!(l1.top_op, "Norm");
    assert!(sc.time_base.layer_on_host(1, "fwd"));
    assert!(!sc.time_base.layer_on_host(0, "fwd"));
}

#[test]
fn hotspots_rank_self_device_time_with_the_kernels_outside_bricks_as_rows() {
    let sc = scorecard(&captured());
    // ms per step: Attention 4/2, Mlp (1.5 + 0.5)/2, Tokenize and Norm on
    // host (2/2, 1/2), outside any brick 1/2, launch not captured 0.2/2.
    let expected = [
        ("Attention", 2.0),
        ("Mlp", 1.0),
        ("Tokenize", 1.0),
        ("Norm", 0.5),
        (TimeBase::OUTSIDE_BRICKS, 0.5),
        (TimeBase::UNKNOWN_LAUNCH, 0.1),
    ];
    let total: f64 = expected.iter().map(|e| e.1).sum();
    assert_eq!(sc.hotspot_ops.len(), expected.len(), "{:?}", sc.hotspot_ops);
    for (name, ms) in expected {
        let (_, got_ms, pct) = hotspot(&sc, name).unwrap_or_else(|| panic!("no row {name}"));
        assert!(close(*got_ms, ms), "{name}: {got_ms} ms");
        assert!(close(*pct, ms / total * 100.0), "{name}: {pct}%");
    }
    assert!(
        hotspot(&sc, "Block").is_none(),
        "a brick whose kernels all ran in its children has no self device time"
    );
    assert!(sc.time_base.on_host("Tokenize") && sc.time_base.on_host("Norm"));
    assert!(!sc.time_base.on_host("Attention"));
}

#[test]
fn the_time_base_is_named_in_json_text_and_html() {
    let sc = scorecard(&captured());
    assert_eq!(sc.time_base.source, TimeSource::Device);
    assert_eq!((sc.time_base.kernels, sc.time_base.copies), (5, 1));
    assert_eq!(sc.time_base.host_bricks, ["Norm", "Tokenize"]);
    assert_eq!(sc.time_base.host_layers, ["layer 1 fwd"]);
    let json: serde_json::Value = serde_json::from_str(&sc.to_json()).expect("json");
    assert_eq!(json["time_base"]["source"], "device");
    assert_eq!(json["time_base"]["kernels"], 5);
    assert_eq!(
        TrainingScorecard::from_json(&sc.to_json()).expect("reads back"),
        sc
    );
    let line = "device time from 5 captured kernels and 1 copies or sets";
    let text = sc.to_string();
    assert!(text.contains(line), "{text}");
    assert!(text.contains("Tokenize (host)"), "{text}");
    let html = sc.to_html();
    assert!(html.contains(line), "{html}");
    assert!(html.contains("<td>Tokenize (host)</td>"), "{html}");
    assert!(
        html.contains("<td>0.50 (host)</td>"),
        "layer 1 fwd marked: {html}"
    );
    assert!(sc.to_markdown().contains(line));
}

#[test]
fn without_captured_kernels_the_scorecard_stays_on_host_time_and_says_so() {
    let mut p = captured();
    p.device_kernels = None;
    let host = scorecard(&p);
    assert_eq!(host.time_base, TimeBase::default());
    assert!(
        close(host.per_layer_summary[0].fwd_ms, 4.5),
        "9 ms host scope / 2"
    );
    assert!(host.to_string().contains("host time"));
    assert!(hotspot(&host, TimeBase::OUTSIDE_BRICKS).is_none());
    // A capture that saw nothing is no time base either.
    p.device_kernels = Some(DeviceKernels::default());
    assert_eq!(scorecard(&p).time_base.source, TimeSource::Host);
    assert_eq!(scorecard(&p).per_layer_summary, host.per_layer_summary);
}

#[test]
fn a_capture_that_lost_records_says_its_device_times_are_lower_bounds() {
    let mut p = captured();
    if let Some(d) = p.device_kernels.as_mut() {
        d.dropped_buffers = 1;
    }
    let sc = scorecard(&p);
    assert!(sc.time_base.partial);
    assert!(sc.to_string().contains("lower bounds"));
}

#[test]
fn a_cold_host_call_is_not_taken_off_a_bricks_device_time() {
    let mut p = captured();
    // Attention's host time: one 5.01 ms call and 99 of 0.01 ms.
    let attention = &mut p.bricks[1];
    attention.count = 100;
    attention.max_ns = 5_010_000;
    attention.min_ns = 10_000;
    attention.latency = LatencyHistogram {
        buckets: vec![
            HistBucket {
                lo_ns: 10_000,
                hi_ns: 10_001,
                count: 99,
            },
            HistBucket {
                lo_ns: 5_010_000,
                hi_ns: 5_010_001,
                count: 1,
            },
        ],
    };
    let sc = scorecard(&p);
    assert!(
        sc.warnings.iter().any(|w| w.contains("`Attention`")),
        "the cold call is still named: {:?}",
        sc.warnings
    );
    let (_, ms, _) = hotspot(&sc, "Attention").expect("row");
    assert!(close(*ms, 2.0), "device time kept whole: {ms}");
    p.device_kernels = None;
    let (_, host_ms, _) = hotspot(&scorecard(&p), "Attention").cloned().expect("row");
    assert!(
        host_ms < 1.0,
        "on host time the ~2.5 ms/step excess is left out: {host_ms}"
    );
}

/// `captured()` with 2000 tokens over its 40 ms of steps (50 000 tok/s)
/// and each step's devices busy `busy_ms`.
fn with_busy_steps(busy_ms: u64) -> Profile {
    let mut p = captured();
    p.steps.tokens = 2_000;
    if let Some(d) = p.device_kernels.as_mut() {
        d.steps = (0..STEPS)
            .map(|step| StepDevice {
                step,
                activities: 3,
                span_ns: 20 * MS,
                busy_ns: busy_ms * MS,
                idle_ns: (20 - busy_ms.min(20)) * MS,
                ..StepDevice::default()
            })
            .collect();
    }
    p
}

/// 100 GB/s over 1 MB per token: a ceiling of 100 000 tok/s.
fn graded(p: &Profile) -> TrainingScorecard {
    let mut hw = Hardware::new("reference");
    hw.set_memory(MemoryLevel::Dram, Figure::new(100.0, Source::Given))
        .expect("memory");
    ScorecardBuilder::from_profile(p)
        .hardware(hw)
        .bytes_per_token(1e6)
        .build()
        .expect("default thresholds")
}

#[test]
fn device_efficiency_is_the_throughput_over_the_devices_busy_time() {
    let sc = graded(&with_busy_steps(16));
    assert_eq!(sc.efficiency, Some(0.5), "the grade stays on wall time");
    assert_eq!(sc.device_busy_ms, Some(16.0));
    // 50 000 tok/s over 20 ms steps is 62 500 tok/s over 16 ms busy.
    let device = sc.device_efficiency.expect("graded and busy");
    assert!(close(device, 0.625), "{device}");
    let line = "62.5% of the ceiling over 16.00 ms of device busy time per step";
    assert!(sc.to_string().contains(line), "{sc}");
    assert!(sc.to_html().contains(line));
    assert!(sc.to_markdown().contains(line));
}

#[test]
fn a_device_efficiency_past_the_ceiling_or_the_step_is_withheld_and_warned() {
    let fast = graded(&with_busy_steps(8));
    assert_eq!(fast.device_efficiency, None, "1.25 of the ceiling");
    assert!(
        fast.warnings
            .iter()
            .any(|w| w.contains("125.0% of the ceiling"))
    );
    let summed = graded(&with_busy_steps(25));
    assert_eq!(summed.device_efficiency, None);
    assert!(
        summed
            .warnings
            .iter()
            .any(|w| w.contains("several devices"))
    );
    assert_eq!(
        scorecard(&with_busy_steps(16)).device_efficiency,
        None,
        "no grade"
    );
}

#[test]
fn hostile_brick_names_stay_escaped_with_their_host_mark() {
    let hostile = "<script>alert(\"x\")</script>&|";
    let mut p = captured();
    p.bricks[4].name = hostile.to_owned();
    let sc = scorecard(&p);
    assert!(sc.time_base.on_host(hostile));
    let html = sc.to_html();
    assert!(!html.contains("<script>"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;| (host)"),
        "{html}"
    );
    let md = sc.to_markdown();
    assert!(
        !md.contains("</script>&|"),
        "the pipe and tags escaped: {md}"
    );
}

#[test]
fn the_runs_shape_names_its_bricks_whatever_clock_timed_them() {
    let device = scorecard(&captured());
    let mut p = captured();
    p.device_kernels = None;
    let host = scorecard(&p);
    let ops = device.shape.as_ref().and_then(|s| s.ops.clone());
    assert_eq!(ops, host.shape.and_then(|s| s.ops), "no false shape alert");
    assert!(
        ops.is_some_and(
            |o| o.contains(&"Block".to_owned()) && !o.iter().any(|n| n.starts_with('('))
        )
    );
    // Graded against a host-time baseline of the same run: no shape alert.
    let base = ScorecardBuilder::from_profile(&p).build().expect("host");
    let against = ScorecardBuilder::from_profile(&captured())
        .baseline(base)
        .build()
        .expect("device");
    assert!(
        !against
            .alerts
            .iter()
            .any(|a| a.contains("differently shaped")),
        "{:?}",
        against.alerts
    );
}
