//! The training view built from profiles: layers, phases and their totals.

use super::*;
use profiler_core::profile::{LayerOp, LayerStats, PhaseStats};

fn layer(index: u32, direction: Direction, scope_ns: u64, ops: &[(&str, u64)]) -> LayerStats {
    LayerStats {
        index,
        direction,
        scope_count: u64::from(scope_ns > 0),
        scope_ns,
        ops: ops
            .iter()
            .map(|(n, t)| LayerOp {
                name: (*n).to_owned(),
                count: 1,
                total_ns: *t,
            })
            .collect(),
    }
}

#[test]
fn phases_and_layers_convert_to_ms() {
    let mut p = Profile::empty();
    p.steps.count = 2;
    p.steps.total_ns = 200_000_000;
    p.steps.samples_ns = vec![90_000_000, 110_000_000];
    p.phases.push(PhaseStats {
        name: "h2d".to_owned(),
        count: 2,
        total_ns: 50_000_000,
        min_ns: 0,
        max_ns: 0,
        in_steps_ns: 50_000_000,
        latency: Default::default(),
    });
    p.layers.push(layer(
        0,
        Direction::Forward,
        10_000_000,
        &[("Gemm", 6_000_000)],
    ));
    // No scope: the layer's time is the sum of its ops.
    p.layers
        .push(layer(0, Direction::Backward, 0, &[("Gemm", 15_000_000)]));
    let view = RunView::from_profile(&p);
    assert_eq!(view.steps.count, 2);
    assert_eq!(view.steps.avg_ms, 100.0);
    assert_eq!(view.phases["h2d"].pct, 25.0);
    assert_eq!(view.phases["h2d"].avg_ms, 25.0);
    // Per step: the run had 2 steps.
    assert_eq!(view.phases["h2d"].total_ms, 25.0);
    assert_eq!(view.layers[0].fwd_ms, 5.0);
    assert_eq!(view.layers[0].bwd_ms, 7.5);
    assert_eq!(view.layers[0].ops["Gemm"], 10.5);
    assert!(view.ops.is_empty());
    assert_eq!(view.steps.samples_ms, vec![90.0, 110.0]);
    assert_eq!(view.coverage, Coverage::Measured(Some(0.25)));
    assert!(view.recorded.as_ref().is_some_and(|r| r.times_per_step));

    let log = StepProfilerInput::from_profile(&p);
    assert_eq!(log.wall_coverage, 0.25);
    assert_eq!(log.total_ms, 200.0, "the run total, not per step");
    assert_eq!(log.per_layer, view.layers);
}

#[test]
fn bricks_outside_layers_are_top_level_ops() {
    let mut p = Profile::empty();
    p.steps.count = 4;
    p.steps.total_ns = 400_000_000;
    p.layers.push(layer(
        0,
        Direction::Forward,
        10_000_000,
        &[("Gemm", 8_000_000)],
    ));
    let brick = |name: &str, total_ns| profiler_core::BrickStats {
        count: 4,
        total_ns,
        ..profiler_core::BrickStats::new(name, profiler_core::BrickCategory::Other)
    };
    // Gemm also ran outside the layer; LmHead only outside.
    p.bricks = vec![brick("Gemm", 12_000_000), brick("LmHead", 20_000_000)];
    let view = RunView::from_profile(&p);
    assert_eq!(view.ops["Gemm"], 1.0, "4 ms outside layers over 4 steps");
    assert_eq!(view.ops["LmHead"], 5.0);
    assert_eq!(view.layers[0].ops["Gemm"], 2.0);
}

#[test]
fn a_log_keeps_what_it_wrote_and_records_nothing() {
    let input = StepProfilerInput {
        steps: 3,
        avg_step_ms: 10.0,
        wall_coverage: 0.8,
        ..StepProfilerInput::default()
    };
    let view = RunView::from_step_log(&input, Ok(5.0));
    assert_eq!(view.coverage, Coverage::Logged(0.8));
    assert_eq!(view.device_timed(), None);
    assert_eq!(view.steps.count, 3);
    assert_eq!(view.to_step_log(), input);
}

#[test]
fn a_profile_without_step_time_has_unmeasured_coverage() {
    let view = RunView::from_profile(&Profile::empty());
    assert_eq!(view.coverage, Coverage::Measured(None));
    assert_eq!(view.coverage.fraction(), 0.0);
    assert!(view.throughput.is_err());
}
