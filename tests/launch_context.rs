//! `kernel::launch_context`: what a device launch made inside bricks,
//! layers, phases and steps is charged to (read by CUPTI capture).

mod common;

use profiler::kernel::{BrickPath, LaunchContext, brick_name, launch_context};
use profiler::{Direction, brick};

#[brick("launch_ctx_block")]
fn block(seen: &mut Vec<LaunchContext>) {
    seen.push(launch_context());
    attention(seen);
    seen.push(launch_context());
}

#[brick("launch_ctx_attention")]
fn attention(seen: &mut Vec<LaunchContext>) {
    seen.push(launch_context());
}

fn names(path: &BrickPath) -> Vec<String> {
    path.as_slice()
        .iter()
        .map(|&slot| brick_name(slot).map_or_else(|| format!("slot {slot}"), |n| n.to_string()))
        .collect()
}

#[test]
fn a_launch_sees_its_bricks_layer_phase_and_step() {
    let _lock = common::exclusive();
    profiler::Config::new().enable();
    let outside = launch_context();
    assert_eq!(
        (outside.bricks, outside.layer, outside.phase, outside.step),
        (BrickPath::EMPTY, None, None, None),
        "outside everything"
    );
    assert!(outside.thread.is_some(), "the thread is always known");
    let mut seen = Vec::new();
    let (outer_phase, step);
    {
        let guard = profiler::step(16);
        step = guard.index();
        let _layer = profiler::layer(3u32, Direction::Backward);
        let _phase = profiler::phase("launch-ctx-backward");
        outer_phase = launch_context().phase.expect("a phase is open");
        {
            let _inner = profiler::phase("launch-ctx-inner");
            block(&mut seen);
        }
        assert_eq!(
            launch_context().phase,
            Some(outer_phase),
            "restored at drop"
        );
    }
    let paths: Vec<_> = seen.iter().map(|c| names(&c.bricks)).collect();
    assert_eq!(
        paths,
        [
            vec!["launch_ctx_block"],
            vec!["launch_ctx_attention", "launch_ctx_block"],
            vec!["launch_ctx_block"],
        ]
    );
    for context in &seen {
        assert_eq!(context.layer, Some((3, Direction::Backward)));
        assert_eq!(context.step, Some(step));
        assert!(
            context.phase.is_some_and(|p| p != outer_phase),
            "the innermost phase"
        );
    }
    let after = launch_context();
    assert_eq!(
        (after.bricks, after.layer, after.phase, after.step),
        (BrickPath::EMPTY, None, None, None),
        "all closed"
    );
    assert_eq!(after.thread, outside.thread, "one thread, one number");
    profiler::disable();
}
