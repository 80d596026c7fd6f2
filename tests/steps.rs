//! Steps, schedules, phases, layers and wall coverage.

mod common;

use std::time::Duration;

use profiler::{Direction, Schedule, brick};

#[brick(AttentionScore)]
fn attention(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

#[brick(RmsNorm, layer = layer)]
fn norm_in(layer: usize) {
    std::hint::black_box(layer);
}

#[test]
fn steps_count_tokens_and_time() {
    let _lock = common::exclusive();
    for _ in 0..3 {
        let _step = profiler::step(128);
        std::thread::sleep(Duration::from_millis(2));
    }
    profiler::in_step(64, || std::thread::sleep(Duration::from_millis(1)));
    let profile = profiler::snapshot();
    let steps = &profile.steps;
    assert_eq!(
        (steps.count, steps.tokens, steps.skipped),
        (4, 3 * 128 + 64, 0)
    );
    assert_eq!(steps.samples_ns.len(), 4);
    assert!(steps.total_ns >= 7_000_000, "{}", steps.total_ns);
    // Each sample is rounded to the ns on its own: at most 1 ns apart per sample.
    let sum: u64 = steps.samples_ns.iter().sum();
    assert!(
        sum.abs_diff(steps.total_ns) <= steps.count,
        "{sum} vs {}",
        steps.total_ns
    );
    assert!(steps.avg_step_ms() >= 1.75);
    assert!(steps.tokens_per_s() > 0.0);
}

#[test]
fn the_schedule_skips_wait_and_warmup_steps() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .schedule(Schedule {
            wait: 1,
            warmup: 2,
            active: 3,
            repeat: 1,
        })
        .apply();
    let mut recorded = Vec::new();
    for _ in 0..8 {
        let step = profiler::step(10);
        recorded.push(step.is_recorded());
        attention(0);
    }
    assert_eq!(
        recorded,
        [false, false, false, true, true, true, false, false]
    );
    let profile = profiler::snapshot();
    assert_eq!(profile.steps.count, 3);
    assert_eq!(
        profile.steps.skipped, 5,
        "wait, warm-up and post-schedule steps"
    );
    assert_eq!(
        profile.brick("AttentionScore").map(|b| b.count),
        Some(3),
        "only active steps record"
    );
    profiler::Config::new().schedule(None).apply();
    attention(0);
    assert_eq!(
        common::count("AttentionScore"),
        4,
        "clearing the schedule resumes recording"
    );
}

#[test]
fn phases_give_wall_coverage_and_nested_phases_count_once() {
    let _lock = common::exclusive();
    for _ in 0..2 {
        let _step = profiler::step(1);
        profiler::in_phase("forward", || {
            let _inner = profiler::phase("attention"); // nested: not counted twice
            attention(2);
        });
        std::thread::sleep(Duration::from_millis(2)); // unaccounted time
        let _opt = profiler::phase(String::from("opt"));
        std::thread::sleep(Duration::from_millis(1));
    }
    let profile = profiler::snapshot();
    let names: Vec<&str> = profile.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["forward", "attention", "opt"]);
    let forward = &profile.phases[0];
    assert_eq!(forward.count, 2);
    assert!(forward.min_ns >= 2_000_000 && forward.min_ns <= forward.max_ns);
    // Each occurrence lands in the phase's histogram, between its extremes.
    assert_eq!(forward.latency.count(), 2);
    let first = forward.latency.buckets.first().expect("a bucket");
    let last = forward.latency.buckets.last().expect("a bucket");
    assert!(first.lo_ns <= forward.min_ns, "{:?}", forward.latency);
    assert!(last.lo_ns <= forward.max_ns, "{:?}", forward.latency);
    assert_eq!(
        profile.phases[1].in_steps_ns, 0,
        "nested phases are not top-level"
    );
    let covered: u64 = profile.phases.iter().map(|p| p.in_steps_ns).sum();
    assert_eq!(
        covered,
        profile.phases[0].total_ns + profile.phases[2].total_ns,
        "top-level phases inside steps, each counted once"
    );
    // Each step also slept 2 ms outside any phase.
    assert!(profile.steps.total_ns >= covered + 4_000_000);
    let coverage = profile.wall_coverage().expect("steps recorded");
    assert_eq!(coverage, covered as f64 / profile.steps.total_ns as f64);
}

#[test]
fn wall_coverage_is_none_without_steps() {
    let _lock = common::exclusive();
    profiler::in_phase("forward", || attention(0));
    assert_eq!(profiler::snapshot().wall_coverage(), None);
}

#[test]
fn layers_attribute_bricks_by_index_and_direction() {
    let _lock = common::exclusive();
    for layer in 0..3u32 {
        let _l = profiler::layer(layer, Direction::Forward);
        attention(1);
    }
    for layer in (0..3u32).rev() {
        profiler::in_layer(layer, Direction::Backward, || {
            attention(1);
            attention(1);
        });
    }
    attention(0); // outside any layer
    let profile = profiler::snapshot();
    assert_eq!(profile.layers.len(), 6);
    for layer in 0..3 {
        let fwd = profile
            .layer(layer, Direction::Forward)
            .expect("forward layer");
        let bwd = profile
            .layer(layer, Direction::Backward)
            .expect("backward layer");
        assert_eq!((fwd.scope_count, bwd.scope_count), (1, 1));
        assert_eq!(fwd.ops[0].name, "AttentionScore");
        assert_eq!((fwd.ops[0].count, bwd.ops[0].count), (1, 2));
        assert!(fwd.ops[0].total_ns <= fwd.scope_ns);
        // One 1 ms call forward, two backward: bounded from below only.
        assert!(fwd.total_ns() >= 1_000_000 && bwd.total_ns() >= 2_000_000);
    }
    assert_eq!(profile.brick("AttentionScore").map(|b| b.count), Some(10));
}

#[test]
fn the_layer_argument_attributes_without_a_scope() {
    let _lock = common::exclusive();
    for layer in [0usize, 1, 1, 7] {
        norm_in(layer);
    }
    {
        let _bwd = profiler::layer(2, Direction::Backward);
        norm_in(5); // explicit index, direction of the enclosing scope
    }
    let profile = profiler::snapshot();
    let ops = |i, d| profile.layer(i, d).map(|l| (l.scope_count, l.ops[0].count));
    assert_eq!(ops(0, Direction::Forward), Some((0, 1)));
    assert_eq!(ops(1, Direction::Forward), Some((0, 2)));
    assert_eq!(ops(7, Direction::Forward), Some((0, 1)));
    assert_eq!(ops(5, Direction::Backward), Some((0, 1)));
    let layer1 = profile.layer(1, Direction::Forward).expect("layer 1");
    assert_eq!(
        layer1.total_ns(),
        layer1.ops[0].total_ns,
        "brick-only layers sum their bricks"
    );
}

#[test]
fn layer_indices_are_not_capped_at_64() {
    let _lock = common::exclusive();
    for layer in [63u32, 64, 200, 10_000] {
        let _l = profiler::layer(layer, Direction::Forward);
        attention(0);
    }
    let profile = profiler::snapshot();
    let indices: Vec<u32> = profile.layers.iter().map(|l| l.index).collect();
    assert_eq!(indices, [63, 64, 200, 10_000]);
}

#[test]
fn layer_guards_may_drop_in_any_order() {
    let _lock = common::exclusive();
    let mut guard = profiler::layer(0, Direction::Forward);
    attention(0);
    for i in 1..4 {
        guard = profiler::layer(i, Direction::Forward); // the old guard drops after the new one opens
        attention(0);
    }
    drop(guard);
    attention(0); // outside every layer now
    let profile = profiler::snapshot();
    for i in 0..4 {
        let layer = profile.layer(i, Direction::Forward).expect("layer");
        assert_eq!((layer.scope_count, layer.ops[0].count), (1, 1), "layer {i}");
    }
    assert_eq!(profile.brick("AttentionScore").map(|b| b.count), Some(5));
}

#[test]
fn reassigned_step_guards_and_other_threads_keep_coverage_honest() {
    let _lock = common::exclusive();
    let mut step = profiler::step(1);
    for _ in 0..3 {
        step = profiler::step(1); // the old step ends after the new one begins
        let _phase = profiler::phase("forward");
        std::thread::sleep(Duration::from_millis(2));
    }
    drop(step);
    let profile = profiler::snapshot();
    let forward = &profile.phases[0];
    assert_eq!(
        (forward.count, forward.in_steps_ns),
        (3, forward.total_ns),
        "phases inside reassigned steps count"
    );
    assert!(forward.in_steps_ns >= 6_000_000);

    profiler::reset();
    {
        let _step = profiler::step(1);
        std::thread::spawn(|| {
            profiler::in_phase("worker", || std::thread::sleep(Duration::from_millis(3)))
        })
        .join()
        .expect("worker");
    }
    let profile = profiler::snapshot();
    assert_eq!(
        profile.phases[0].in_steps_ns, 0,
        "a worker's phase is not the step's coverage"
    );
    assert_eq!(profile.wall_coverage(), Some(0.0));
}

#[test]
#[allow(clippy::let_underscore_untyped)]
fn a_step_guard_dropped_at_once_is_counted_as_empty() {
    let _lock = common::exclusive();
    for _ in 0..3 {
        let _ = profiler::step(10); // the trap: the guard drops here
        attention(0);
    }
    for _ in 0..2 {
        let _step = profiler::step(10);
        attention(0);
    }
    let steps = profiler::snapshot().steps;
    assert_eq!((steps.count, steps.empty), (5, 3));
    assert_eq!(steps.samples_tokens, [10; 5]);
    assert_eq!(steps.samples_index, [0, 1, 2, 3, 4]);
}

#[test]
fn nested_steps_count_once_and_leave_the_schedule_alone() {
    let _lock = common::exclusive();
    profiler::Config::new()
        .schedule(Schedule {
            wait: 0,
            warmup: 1,
            active: 10,
            repeat: 1,
        })
        .apply();
    for _ in 0..3 {
        let outer = profiler::step(100);
        {
            let _inner = profiler::step(100); // e.g. a train_step() that opens its own
            attention(1);
        }
        attention(0);
        drop(outer);
    }
    let steps = profiler::snapshot().steps;
    assert_eq!(
        (steps.count, steps.skipped, steps.nested, steps.tokens),
        (2, 1, 3, 200),
        "one warm-up step, two recorded outer steps, every inner step left out"
    );
    assert_eq!(
        steps.samples_index,
        [1, 2],
        "outer steps keep their indices"
    );
    assert!(
        steps.total_ns >= 2_000_000,
        "the inner step's time stays inside the outer one"
    );
}
