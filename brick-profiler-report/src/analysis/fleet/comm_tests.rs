//! The fleet's time by kind over run directories written here: with a
//! collective the straggler is judged by its own work and the others show
//! their wait; without one nothing is split; a rank missing the collective
//! is named.

use std::path::Path;

use profiler_core::profile::PhaseStats;

use super::tests::{profile, run, write};
use super::*;
use crate::analysis::straggler::StragglerIn;
use crate::base::textfmt::DASH;

/// A phase of `ns` per step over 20 steps, all inside steps.
fn phase(name: &str, ns: u64) -> PhaseStats {
    PhaseStats {
        name: name.into(),
        count: 20,
        total_ns: ns * 20,
        min_ns: 0,
        max_ns: 0,
        in_steps_ns: ns * 20,
        latency: Default::default(),
    }
}

/// A data-parallel run of `world` ranks at 100 ms a step: each computes
/// 20 ms, rank `slow` 75 ms more outside any phase, and all meet at a
/// synchronous `allreduce` of 5 ms, so every step lasts as long as the
/// slow rank's and the others wait 75 ms there. Ranks in `without` record no
/// collective phase.
fn ddp_run(dir: &Path, world: u32, slow: u32, without: &[u32]) {
    for r in 0..world {
        let step = 100_000_000;
        let mut p = profile(r, world, "ddp", step);
        // Every rank's steps are equal, the collective sees to that.
        p.steps.samples_ns = vec![step; 20];
        p.steps.total_ns = step * 20;
        p.phases = vec![phase("forward", 20_000_000)];
        if !without.contains(&r) {
            let wait = if r == slow { 0 } else { 75_000_000 };
            p.phases.push(phase("allreduce", 5_000_000 + wait));
        }
        write(dir, &format!("rank-{r:05}"), &p);
    }
}

#[test]
fn with_a_collective_the_straggler_is_judged_by_own_work_and_the_others_wait() {
    let dir = tempfile::tempdir().unwrap();
    ddp_run(dir.path(), 6, 2, &[]);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    // Equal step times: by step time alone no one stands out.
    let (_, by_step) = report.settings.rule.step_stragglers(
        &report
            .ranks
            .iter()
            .map(|r| (r.rank, r.median_ns))
            .collect::<Vec<_>>(),
    );
    assert!(by_step.is_empty(), "{by_step:?}");
    assert_eq!(report.straggler_ranks(), vec![2], "{report}");
    assert!(
        report
            .stragglers
            .iter()
            .any(|s| s.what == StragglerIn::OwnWork && (s.value_ns - 100e6).abs() < 1.0),
        "{:?}",
        report.stragglers
    );
    let t = &report.time;
    assert_eq!(t.collectives, ["allreduce"]);
    assert_eq!(t.transfer, [(2, 5e6)]);
    for r in &t.ranks {
        let c = r.communication.expect("every rank has the collective");
        assert!((c.transfer_ns - 5e6).abs() < 1.0, "{r:?}");
        let wait = if r.rank == 2 { 0.0 } else { 75e6 };
        assert!((c.waiting_ns - wait).abs() < 1.0, "{r:?}");
        assert!((r.compute_ns - 20e6).abs() < 1.0, "{r:?}");
        let outside = if r.rank == 2 { 75e6 } else { 0.0 };
        assert!((r.outside_ns - outside).abs() < 1.0, "{r:?}");
    }
    assert!((report.step_threshold.median_ns - 20e6 - 5e6).abs() < 1.0);
    assert!((report.median_step_ns() - 100e6).abs() < 1.0);
    let text = report.to_string();
    assert!(text.contains("median own work"), "{text}");
    assert!(
        text.contains("transfer = the fastest rank's time at each (allreduce 5 ms (rank 2))"),
        "{text}"
    );
    assert!(
        report
            .to_markdown()
            .contains("| 0 | 20 ms | 80 ms | 5 ms | 75 ms | 0 ns |"),
        "{}",
        report.to_markdown()
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["stragglers"][0]["in"], "own_work");
    assert_eq!(
        json["time"]["ranks"][0]["communication"]["waiting_ns"],
        75e6
    );
}

#[test]
fn without_a_collective_nothing_is_split_and_the_step_rule_stands() {
    let dir = tempfile::tempdir().unwrap();
    ddp_run(dir.path(), 6, 2, &[0, 1, 2, 3, 4, 5]);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    assert!(!report.time.has_communication());
    assert!(report.time.ranks.iter().all(|r| r.communication.is_none()));
    assert!((report.time.ranks[2].outside_ns - 80e6).abs() < 1.0);
    assert!(
        report
            .stragglers
            .iter()
            .all(|s| s.what != StragglerIn::OwnWork)
    );
    let text = report.to_string();
    assert!(text.contains("no collective phase recorded"), "{text}");
    assert!(
        text.contains("communication and waiting are not measured"),
        "{text}"
    );
    // Withheld, not zero: a dash in the communication, transfer and
    // waiting columns.
    let row = |rank: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(rank) && l.contains(DASH))
            .unwrap_or_else(|| panic!("rank {rank}'s time row: {text}"))
            .split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
    };
    assert_eq!(row("2 "), ["20", "ms", DASH, DASH, DASH, "80", "ms"]);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert!(json["time"]["ranks"][0]["communication"].is_null());

    // A profile without step wall times is not split at all: dashes, not
    // 0 ns of compute and outside.
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), 4, None);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let text = report.to_string();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 ") && l.contains(DASH))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(row.matches(DASH).count(), 5, "{row}");
}

#[test]
fn a_rank_without_the_collective_is_named_and_the_rest_still_split() {
    let dir = tempfile::tempdir().unwrap();
    ddp_run(dir.path(), 6, 2, &[4]);
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).unwrap();
    let t = &report.time;
    assert_eq!(t.missing, [4]);
    assert_eq!(t.ranks[4].communication, None);
    assert!(
        t.ranks[0]
            .communication
            .is_some_and(|c| (c.waiting_ns - 75e6).abs() < 1.0)
    );
    assert!(report.straggler_ranks().contains(&2), "{report}");
    assert!(
        t.summary().contains("ranks 4 lack a collective phase"),
        "{}",
        t.summary()
    );
}
