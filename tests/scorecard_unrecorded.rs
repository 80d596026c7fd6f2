//! When a run recorded no steps, the scorecard says why, telling apart a
//! profiler that was never enabled, a schedule that skipped every step, and
//! steps that were never marked (a build with the `off` feature is checked
//! in `tests/compiled-out`). One test, in its own process: "never enabled"
//! can only be seen before anything enables the profiler, so the cases run
//! in order.

use profiler::{Schedule, brick};

#[brick(RmsNorm)]
fn norm(x: &mut [f32]) {
    x.iter_mut().for_each(|v| *v *= 0.5);
}

/// The Grade row of `profiler_report::scorecard()`, as a user sees it.
fn grade_row() -> String {
    let text = profiler_report::scorecard().to_string();
    text.lines()
        .find_map(|l| l.strip_prefix("  Grade            "))
        .unwrap_or_else(|| panic!("no Grade row:\n{text}"))
        .to_owned()
}

#[test]
fn nothing_recorded_is_explained_case_by_case() {
    let mut x = vec![1.0f32; 64];

    // Never enabled: steps and bricks run, nothing records.
    for _ in 0..3 {
        let _step = profiler::step(64);
        norm(&mut x);
    }
    let grade = grade_row();
    assert!(
        grade.starts_with(
            "n/a: nothing was recorded: the profiler was never enabled; call profiler::enable()"
        ),
        "{grade}"
    );

    // Enabled, but the schedule skips more steps than the run has.
    profiler::Config::new()
        .schedule(Schedule {
            wait: 5,
            warmup: 0,
            active: u64::MAX,
            repeat: 1,
        })
        .apply();
    profiler::enable();
    for _ in 0..3 {
        let _step = profiler::step(64);
        norm(&mut x);
    }
    let grade = grade_row();
    assert!(
        grade.starts_with(
            "n/a: no steps recorded: all 3 steps were skipped by the schedule (wait 5, warm-up \
             0, active all, repeated once)"
        ),
        "{grade}"
    );

    // Enabled, bricks ran, but no step was marked.
    profiler::Config::new().schedule(None).apply();
    profiler::reset();
    norm(&mut x);
    let grade = grade_row();
    assert!(
        grade.starts_with("n/a: no steps recorded, though 1 brick ran: mark each training step"),
        "{grade}"
    );

    // Enabled, and nothing at all.
    profiler::reset();
    let grade = grade_row();
    assert!(
        grade.starts_with(
            "n/a: no steps recorded: the profiler was enabled, but no profiler::step(tokens) ran"
        ),
        "{grade}"
    );
    profiler::disable();
}
